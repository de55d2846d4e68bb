// The fit rule (tests/site/browser/fit.py): for each equation, table, figure, code block,
// heading and paragraph of the article, where its content ends and which box holds it: cut
// (a box that hides the rest), past (beyond the column's right edge, in no box of its own
// that scrolls), scrolls (wider than the column, in a box of its own that scrolls), wraps (a
// code cell's source drawn on more rows than it has lines); and a pandas table's cells that
// end in "...". Argument: {CSS selector: the kind's word in the messages}.
(kinds) => {
  const article = document.querySelector('.bd-article') || document.body;
  const a = getComputedStyle(article), box = article.getBoundingClientRect();
  const right = box.right - parseFloat(a.paddingRight) - parseFloat(a.borderRightWidth);
  const shown = e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden';
  const hides = s => ['hidden', 'clip'].includes(s.overflowX);
  const scrolls = s => ['auto', 'scroll'].includes(s.overflowX);
  const text = e => (e.getAttribute('alt') || e.textContent || e.getAttribute('src') || '')
      .replace(/\s+/g, ' ').trim().slice(0, 60);
  // How far what ``e`` holds reaches past its inner box, in px. MathJax's hidden copy for
  // screen readers (mjx-assistive-mml) is as wide as the formula but never drawn: it makes
  // scrollWidth larger than what is seen (every formula of chapter 14's table, by 9 px),
  // so where there is one, what is drawn is measured instead.
  const over = e => {
    if (e.scrollWidth <= e.clientWidth + 1) return 0;
    if (!e.querySelector('mjx-assistive-mml')) return e.scrollWidth - e.clientWidth;
    const inner = e.getBoundingClientRect().left + e.clientLeft + e.clientWidth;
    let reach = inner;
    for (const d of e.querySelectorAll('*'))
      if (!d.closest('mjx-assistive-mml')) reach = Math.max(reach, d.getBoundingClientRect().right);
    return reach - inner;
  };
  const found = [], reported = [];
  const seen = new Set();
  for (const [selector, kind] of Object.entries(kinds)) {
    for (const el of article.querySelectorAll(selector)) {
      // An svg of an equation or a button's icon is its holder's, not a figure.
      if (seen.has(el) || !shown(el) || el.closest('mjx-container, button') !== el
          && el.closest('mjx-container, button')) continue;
      // Text inside a table, code or an output is its holder's.
      if (kind === 'text' && el.closest('table, pre, div.cell_output')) continue;
      seen.add(el);
      const r = el.getBoundingClientRect();
      // Where its content ends: its box, or beyond it what it holds (scrollWidth).
      const end = Math.max(r.right, r.left + el.clientLeft + el.clientWidth + over(el));
      // Text within the column that holds all it has: nothing to look for above it.
      if ((kind === 'text' || kind === 'heading') && end <= right + 1) continue;
      let how = null, holder = null;
      // The first box, from the element up to the article, that is narrower than what
      // it holds and does not let it show: one that hides it or one that scrolls.
      for (let e = el; e && e !== article; e = e.parentElement) {
        const s = getComputedStyle(e), more = over(e) > 1;
        if (!more && e.getBoundingClientRect().right <= right + 1) continue;
        if (hides(s) && more) { how = 'cut'; holder = e; break; }
        if (scrolls(s) && more) {
          how = e.getBoundingClientRect().right <= right + 1 ? 'scrolls' : 'past';
          holder = e; break;
        }
      }
      if (!how && end > right + 1) how = 'past';
      // Table cells cut with an ellipsis (overflow hidden on the cell itself).
      if (!how && kind === 'table') {
        const cell = [...el.querySelectorAll('td, th, td *, th *')].find(c =>
            !c.closest('mjx-assistive-mml') && hides(getComputedStyle(c)) && over(c) > 1);
        if (cell) { how = 'cut'; holder = cell; }
      }
      const truncated = kind === 'table' && el.matches('.dataframe')
          ? [...el.querySelectorAll('td, th')].map(c => c.textContent.trim())
              .filter(t => t.endsWith('...')) : [];
      // What runs past inside something already named (a parameter inside the
      // signature's block) is named once, by its outermost.
      if (how && reported.some(o => o.contains(el))) continue;
      if (how) reported.push(el);
      if (how || truncated.length)
        found.push({kind, how, text: text(el), truncated,
                    width: Math.round(end - r.left), column: Math.round(right - box.left
                        - parseFloat(a.paddingLeft) - parseFloat(a.borderLeftWidth)),
                    holder: holder ? holder.localName + (holder.className && typeof
                        holder.className === 'string' ? '.' + holder.className.trim()
                        .split(/\s+/).join('.') : '') : ''});
    }
  }
  // Anything else that makes the whole page wider than the window (it scrolls sideways).
  const page = document.documentElement.scrollWidth - innerWidth;
  if (page > 1 && !found.some(f => f.how === 'past'))
    found.push({kind: 'page', how: 'past', width: document.documentElement.scrollWidth,
                column: innerWidth, truncated: [], holder: '',
                text: ([...article.querySelectorAll('*')].find(e =>
                    e.getBoundingClientRect().right > innerWidth + 1) || article)
                    .textContent.replace(/\s+/g, ' ').trim().slice(0, 60)});
  // Code of a cell that wraps: more rows drawn than lines in its source (scripts/
  // tests/site/html_rules.py keeps every line within CODE_LINE; the column must hold that many).
  for (const pre of article.querySelectorAll('div.cell_input pre')) {
    if (!shown(pre)) continue;
    const s = getComputedStyle(pre), lines = pre.textContent.replace(/\n$/, '').split('\n');
    const rows = Math.round((pre.clientHeight - parseFloat(s.paddingTop)
        - parseFloat(s.paddingBottom)) / parseFloat(s.lineHeight));
    if (rows > lines.length)
      found.push({kind: 'code', how: 'wraps', rows, lines: lines.length,
                  longest: Math.max(...lines.map(l => l.length)),
                  text: lines.reduce((a, b) => (b.length > a.length ? b : a)).trim().slice(0, 60)});
  }
  return found;
}
