"""The ``fit`` rule of scripts/check_browser.py: nothing on a page is clipped or runs off
its column, at a laptop's width (WIDE, the check's 1280-px window) and at a phone's
(PHONE, 390 px). Not a check of its own (the leading underscore keeps check_browser.py
from running it as one): check_page applies it to every page it opens, once at each width
(the same page, its window resized: no second load).

What is looked at, in the article: display equations (MathJax's ``mjx-container``),
tables, images and figures (``img``, ``svg``, ``canvas``, ``iframe``), code (``pre``),
headings and text (a long name in a heading ran 139 px past a phone's screen), and the
page itself (wider than the window: it scrolls sideways).
For each, LAYOUT_JS says where its content ends and which box holds it:

cut       its content is wider than a box that hides the rest (``overflow: hidden`` or
          ``clip``, ``text-overflow: ellipsis``): part of it cannot be seen at all
          (chapter 5's equation cut at "head_i = Attention(" in the first build of the
          book, chapter 6's table at "to_torch_blocke")
past      it runs past the right edge of the column, in no box of its own that scrolls:
          under the contents sidebar at 1280 px, off the screen on a phone
scrolls   it is wider than the column but scrolls sideways in a box of its own (an
          equation, a table): allowed on a phone, not at 1280 px, where the column is
          wide enough for every equation, table and figure of the book
wraps     a code cell's source drawn on more rows than it has lines, at 1280 px: the
          column must hold scripts/check_site.py's CODE_LINE characters (1280 px only: on
          a phone code wraps, _static/code.css)
truncated a cell of a pandas table ends in "...": pandas cut its text
          (``display.max_colwidth``), so the reader never sees the rest (1280 px only: it
          is the same at every width)

Problems are ``page: fit: <width> px: <what> <how>: <its text>`` lines."""
from __future__ import annotations

WIDE, PHONE = 1280, 390

# What LAYOUT_JS looks at, and the words the messages use for each.
KINDS = {"mjx-container[display='true']": "equation", "table": "table",
         "img, svg, canvas, iframe": "figure", "pre": "code",
         "h1, h2, h3, h4, h5, h6": "heading", "p, li, dt, dd": "text"}

LAYOUT_JS = r"""
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
  // check_site.py keeps every line within CODE_LINE; the column must hold that many).
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
"""

WORDS = {"cut": "is cut: its box hides the rest",
         "past": "runs past the right edge of the column",
         "scrolls": "is wider than the column (it scrolls sideways in its own box)"}


def _wraps(width: int, item: dict) -> str:
    return (f"fit: {width} px: code wraps: {item['rows']} rows for {item['lines']} lines, "
            f"its longest {item['longest']} characters (the column must hold check_site's "
            f"CODE_LINE): {item['text']!r}")


def fit_problems(page: str, width: int, found: list[dict], shown: int = 8) -> list[str]:
    """The ``fit`` rule's messages for what LAYOUT_JS found on ``page`` at ``width`` px:
    everything cut or past the column; what scrolls in its own box only at WIDE (a phone
    may scroll an equation or a table, nothing may be hidden); pandas' truncated cells
    once, at WIDE. The first ``shown``, then how many more."""
    problems = _fit_problems(page, width, found)
    if len(problems) > shown:
        problems[shown:] = [f"{page}: fit: {width} px: ... and {len(problems) - shown} more"]
    return problems


def _fit_problems(page: str, width: int, found: list[dict]) -> list[str]:
    problems = []
    for item in found:
        how = item.get("how")
        if how == "wraps":  # at WIDE only: on a phone code wraps, as it should
            problems += [f"{page}: {_wraps(width, item)}"] if width >= WIDE else []
            continue
        # Code that scrolls at WIDE is the code-width rule's (check_browser.py).
        if how and (how != "scrolls" or width >= WIDE and item["kind"] != "code"):
            where = f" (by {item['holder']})" if how == "cut" and item.get("holder") else ""
            problems.append(f"{page}: fit: {width} px: {item['kind']} {WORDS[how]}{where}, "
                            f"{item['width']} px in a {item['column']}-px column: "
                            f"{item['text']!r}")
        if item.get("truncated") and width >= WIDE:
            cells = ", ".join(repr(t[:40]) for t in item["truncated"][:3])
            problems.append(f"{page}: fit: {item['kind']} cells cut by pandas "
                            f"(display.max_colwidth; {len(item['truncated'])} end in "
                            f"'...'): {cells}")
    return problems


def check_fit(page, name: str) -> list[str]:
    """The ``fit`` rule on ``page`` (a playwright page, loaded, at WIDE), then again at
    PHONE; the window is given back its size."""
    size = page.viewport_size
    problems = fit_problems(name, WIDE, page.evaluate(LAYOUT_JS, KINDS))
    page.set_viewport_size({"width": PHONE, "height": size["height"]})
    # The layout after the resize, once the browser has drawn a frame at the new width.
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
    problems += fit_problems(name, PHONE, page.evaluate(LAYOUT_JS, KINDS))
    page.set_viewport_size(size)
    return problems
