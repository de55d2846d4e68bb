// What the rules of tests/site/browser/test_pages.py read on a loaded page, as plain data:
// its formulas (typeset by MathJax, or an error), its images (loaded, their alt text), code
// that runs off its column (a <pre> that scrolls sideways), and Chinese set in italics (an
// emphasis holding CJK that the browser would shear). Waits for MathJax, the live
// translator's start and the fonts first.
async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  // The live translator writes its status once its scripts have started.
  if (window.liveTranslator) await window.liveTranslator.ready;
  await document.fonts.ready;
  const math = [...document.querySelectorAll('.math')].map(m => ({
    typeset: !!m.querySelector('mjx-container'), error: !!m.querySelector('mjx-merror'),
    text: m.textContent.slice(0, 60)}));
  const images = [...document.querySelectorAll('img')].map(i => ({
    src: i.getAttribute('src'), loaded: i.complete && i.naturalWidth > 0,
    alt: (i.getAttribute('alt') || '').trim()}));
  // Code that runs off its column: a <pre> wider than its box (scrolls sideways).
  const wide = [...document.querySelectorAll('pre')]
      .filter(p => p.getClientRects().length && p.scrollWidth > p.clientWidth + 1)
      .map(p => p.textContent.split('\n').reduce((a, b) => (b.length > a.length ? b : a))
                 .slice(0, 60));
  // Chinese in italics: an emphasis holding CJK that the browser would shear.
  const slanted = [...document.querySelectorAll('em, i')]
      .filter(e => /[\u2e80-\u9fff\uf900-\ufaff]/.test(e.textContent)
                   && getComputedStyle(e).fontStyle !== 'normal')
      .map(e => e.textContent.slice(0, 40));
  return {math, images, wide, slanted};
}
