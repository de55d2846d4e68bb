"""The ``fit`` rule of tests/site/browser/test_pages.py: nothing on a page is clipped or runs
off its column, at a laptop's width (WIDE, the tests' 1280-px window) and at a phone's
(PHONE, 390 px), the same page, its window resized (no second load).

What is looked at, in the article: display equations (MathJax's ``mjx-container``),
tables, images and figures (``img``, ``svg``, ``canvas``, ``iframe``), code (``pre``),
headings and text (a long name in a heading ran 139 px past a phone's screen), and the
page itself (wider than the window: it scrolls sideways).
For each, js/layout.js says where its content ends and which box holds it:

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
          column must hold tests/site/html_rules.py's CODE_LINE characters (1280 px only: on
          a phone code wraps, _static/code.css)
truncated a cell of a pandas table ends in "...": pandas cut its text
          (``display.max_colwidth``), so the reader never sees the rest (1280 px only: it
          is the same at every width)

Each finding is a ``<what> <how>: <its text>`` line."""
from __future__ import annotations

from tests.site.browser.tabs import js

WIDE, PHONE = 1280, 390

# What js/layout.js looks at, and the words the messages use for each.
KINDS = {"mjx-container[display='true']": "equation", "table": "table",
         "img, svg, canvas, iframe": "figure", "pre": "code",
         "h1, h2, h3, h4, h5, h6": "heading", "p, li, dt, dd": "text"}


WORDS = {"cut": "is cut: its box hides the rest",
         "past": "runs past the right edge of the column",
         "scrolls": "is wider than the column (it scrolls sideways in its own box)"}


def _wraps(item: dict) -> str:
    return (f"code wraps: {item['rows']} rows for {item['lines']} lines, its longest "
            f"{item['longest']} characters (the column must hold html_rules.CODE_LINE): "
            f"{item['text']!r}")


def fit_problems(width: int, found: list[dict], shown: int = 8) -> list[str]:
    """The ``fit`` rule's messages for what js/layout.js found at ``width`` px:
    everything cut or past the column; what scrolls in its own box only at WIDE (a phone
    may scroll an equation or a table, nothing may be hidden); pandas' truncated cells
    once, at WIDE. The first ``shown``, then how many more."""
    problems = _fit_problems(width, found)
    if len(problems) > shown:
        problems[shown:] = [f"... and {len(problems) - shown} more"]
    return problems


def _fit_problems(width: int, found: list[dict]) -> list[str]:
    problems = []
    for item in found:
        how = item.get("how")
        if how == "wraps":  # at WIDE only: on a phone code wraps, as it should
            problems += [_wraps(item)] if width >= WIDE else []
            continue
        # Code that scrolls at WIDE is the code-width rule's (rules.py).
        if how and (how != "scrolls" or width >= WIDE and item["kind"] != "code"):
            where = f" (by {item['holder']})" if how == "cut" and item.get("holder") else ""
            problems.append(f"{item['kind']} {WORDS[how]}{where}, "
                            f"{item['width']} px in a {item['column']}-px column: "
                            f"{item['text']!r}")
        if item.get("truncated") and width >= WIDE:
            cells = ", ".join(repr(t[:40]) for t in item["truncated"][:3])
            problems.append(f"{item['kind']} cells cut by pandas "
                            f"(display.max_colwidth; {len(item['truncated'])} end in "
                            f"'...'): {cells}")
    return problems


def fit(tab) -> dict[int, list[str]]:
    """The ``fit`` rule's findings on ``tab`` (loaded, at WIDE), by width: at WIDE, then
    again at PHONE; the window is given back its size."""
    size = tab.viewport_size
    found = {WIDE: fit_problems(WIDE, tab.evaluate(js("layout"), KINDS))}
    tab.set_viewport_size({"width": PHONE, "height": size["height"]})
    # The layout after the resize, once the browser has drawn a frame at the new width.
    tab.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
    found[PHONE] = fit_problems(PHONE, tab.evaluate(js("layout"), KINDS))
    tab.set_viewport_size(size)
    return found
