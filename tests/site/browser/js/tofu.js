// The tofu rule (tests/site/browser/test_pages.py): every CJK character drawn in the page as
// it is now (text, an input's placeholder, a tooltip) in its element's font, compared with
// code points no font has. The browser draws a missing glyph with the .notdef box of a font
// it tried: the web font's for a code point inside its unicode-range (CJK), another font's
// outside it, so the reference is one unassigned code point of each kind (U+2FE0 and
// U+0378): against U+0378 alone, a CJK character the web font lacks ("阅" of the English
// pages' switch link) drew a different box and passed. Also each run of CJK text laid out
// narrower or wider than its font draws it (laid out before the web font arrived).
// Argument: a CSS selector to look within only (null: the whole page). Returns one line
// per character drawn as a box or run laid out without its font; a line about text inside
// a solution (opened by then: the page rule reads solutions opened) says so.
async (within) => {
  const cjk = /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]/g;
  const cjkRun = /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]+/g;
  const canvas = document.createElement('canvas'); canvas.width = 64; canvas.height = 64;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const draw = (font, ch) => { ctx.clearRect(0, 0, 64, 64); ctx.font = font;
    ctx.fillText(ch, 4, 48); return ctx.getImageData(0, 0, 64, 64).data.join(','); };
  const seen = new Set(), boxes = {}, tofu = [];
  const inSolution = el => el.closest('.solution') ? ' (in an opened solution)' : '';
  const missing = async (text, s, where) => {
    const chars = text.match(cjk); if (!chars) return;
    const font = `${s.fontStyle} ${s.fontWeight} 40px ${s.fontFamily}`;
    boxes[font] ??= [draw(font, '\u0378'), draw(font, '\u2fe0')];
    for (const ch of new Set(chars)) {
      const key = font + ch; if (seen.has(key)) continue; seen.add(key);
      await document.fonts.load(font, ch);
      if (boxes[font].includes(draw(font, ch))) tofu.push(`${ch}${where} in ${s.fontFamily}`);
    }
  };
  // The whole page, or only the elements that match the selector ``within``.
  const roots = within ? [...document.querySelectorAll(within)] : [document.body];
  for (const root of roots) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      // Only what is drawn: not MathJax's hidden copy for screen readers, not hidden text.
      if (!node.textContent.match(cjk) || !node.parentElement
          || node.parentElement.closest('mjx-assistive-mml')
          || !node.parentElement.getClientRects().length) continue;
      const s = getComputedStyle(node.parentElement);
      const where = inSolution(node.parentElement);
      await missing(node.textContent, s,
                    ` of "${node.textContent.trim().slice(0, 40)}"${where}`);
      // The layout: each run of CJK characters as wide on the page as the font draws it.
      ctx.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
      for (const run of node.textContent.matchAll(cjkRun)) {
        // SVG text (an explorer's axis title) may be rotated: its boxes are then as wide as
        // a line is high, so ask the text's own length along its line.
        const el = node.parentElement;
        const range = document.createRange();
        range.setStart(node, run.index); range.setEnd(node, run.index + run[0].length);
        const laid = el instanceof SVGTextContentElement && el.childNodes.length === 1
          ? el.getSubStringLength(run.index, run[0].length)
          : [...range.getClientRects()].reduce((sum, r) => sum + r.width, 0);
        const drawn = ctx.measureText(run[0]).width;
        const loose = s.textAlign.startsWith('justify') || s.letterSpacing !== 'normal';
        if (laid < 0.95 * drawn - 0.5 || (!loose && laid > 1.05 * drawn + 0.5))
          tofu.push(`${run[0]} laid out ${laid.toFixed(1)} px wide, its font draws it ` +
                    `${drawn.toFixed(1)} px (laid out without the web font) in ` +
                    `${s.fontFamily}${where}`);
      }
    }
    // Words drawn from attributes: a search box's placeholder, a copy button's tooltip.
    for (const el of root.querySelectorAll('[placeholder]'))
      if (el.getClientRects().length) await missing(el.placeholder,
        getComputedStyle(el, '::placeholder'),
        ` (placeholder of <${el.localName}>)${inSolution(el)}`);
    for (const el of root.querySelectorAll('[data-tooltip]'))
      await missing(el.dataset.tooltip, getComputedStyle(el, '::after'),
                    ` (tooltip of <${el.localName}>)${inSolution(el)}`);
  }
  return tofu;
}
