"""The page's contents, opened from the header as a reader does (rule ``contents``).

Below 1600 px the page's contents are the theme's drawer (_static/layout.css), opened by
the list button of the article's header. pydata-sphinx-theme binds its drawer to the
first ``.secondary-toggle`` of the page only, the top bar's, which sphinx-book-theme
hides; the visible button did nothing (on a phone too) until _static/contents-toggle.js.
Here a chapter of the English edition at 1280 px and of the Chinese one at 390 px (two
loads, not four: the button is the same on every page): the visible button is clicked
and the drawer (``dialog#pst-secondary-sidebar-modal``) must open holding the page's
contents, a link to each of its sections."""
from __future__ import annotations

from check_browser import open_page

PAGES = [("chapters/05_multi_head.html", 1280), ("zh/chapters/05_multi_head.html", 390)]
WAIT_MS = 3000  # for the drawer to open (its transition)
OPENED_JS = """() => { const d = document.querySelector('#pst-secondary-sidebar-modal');
  return d && d.open ? d.querySelectorAll('nav a[href^="#"]').length : -1; }"""


def check(context, origin, html_dir) -> list[str]:
    problems: list[str] = []
    for name, width in PAGES:
        if not (html_dir / name).is_file():
            continue
        page = open_page(context, origin, name, problems)
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(f"{origin}/{name}", wait_until="load")
        buttons = [b for b in page.query_selector_all(".secondary-toggle") if b.is_visible()]
        if not buttons:
            problems.append(f"{name}: contents: {width} px: no button for the contents")
            page.close()
            continue
        buttons[-1].click()
        try:
            page.wait_for_function(f"({OPENED_JS})() > 0", timeout=WAIT_MS)
        except Exception:  # noqa: BLE001 - a timeout: said below
            pass
        links = page.evaluate(OPENED_JS)
        if links <= 0:
            problems.append(f"{name}: contents: {width} px: the header's contents button "
                            f"opened no contents ({'no drawer' if links < 0 else 'empty'})")
        page.close()
    print(f"contents: {len(PAGES)} pages opened: {len(problems)} problem(s)")
    return problems
