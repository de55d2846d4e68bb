"""The page's contents, opened from the header as a reader does.

Below 1600 px the page's contents are the theme's drawer (_static/layout.css), opened by the
list button of the article's header. pydata-sphinx-theme binds its drawer to the first
``.secondary-toggle`` of the page only, the top bar's, which sphinx-book-theme hides; the
visible button did nothing (on a phone too) until _static/contents-toggle.js. Here a chapter
of the English edition at 1280 px and of the Chinese one at 390 px (the button is the same on
every page): the visible button is clicked and the drawer
(``dialog#pst-secondary-sidebar-modal``) must open holding the page's contents, a link to
each of its sections."""
from __future__ import annotations

import pytest

from tests.site.browser import tabs

PAGES = [("chapters/05_multi_head.html", 1280), ("zh/chapters/05_multi_head.html", 390)]
OPENED_JS = """() => { const d = document.querySelector('#pst-secondary-sidebar-modal');
  return d && d.open ? d.querySelectorAll('nav a[href^="#"]').length : -1; }"""


def contents_links(context, origin: str, name: str, width: int, wait_ms: int = 3000) -> int:
    """How many links to sections the drawer holds once the header's visible contents
    button is clicked (-1: no drawer opened; None: no visible button)."""
    tab = context.new_page()
    tab.set_viewport_size({"width": width, "height": 800})
    tab.goto(f"{origin}/{name}", wait_until="load")
    buttons = [b for b in tab.query_selector_all(".secondary-toggle") if b.is_visible()]
    if not buttons:
        return None
    buttons[-1].click()
    try:
        tab.wait_for_function(f"({OPENED_JS})() > 0", timeout=wait_ms)
    except Exception:  # noqa: BLE001 - a timeout: the count below says what is there
        pass
    return tab.evaluate(OPENED_JS)


@pytest.mark.parametrize("name, width", PAGES)
def test_the_header_button_opens_the_contents(context, origin, name, width):
    links = contents_links(context, origin, name, width)
    assert links is not None, f"{width} px: no visible button for the contents"
    assert links > 0, (f"{width} px: the header's contents button opened no contents "
                       f"({'no drawer' if links < 0 else 'empty'})")


def test_without_contents_toggle_js_the_drawer_stays_shut(context, own_pages):
    """The theme binds its drawer to the first .secondary-toggle only (here a hidden one);
    the visible button opens it through _static/contents-toggle.js: without the script the
    drawer stays shut, and the test above would fail."""
    import shutil

    folder, url = own_pages
    shutil.copy(tabs.ROOT / "_static" / "contents-toggle.js", folder)
    for name, script in (("with", '<script src="contents-toggle.js"></script>'),
                         ("without", "")):
        (folder / f"{name}.html").write_text(
            '<!DOCTYPE html><html><head><link rel="icon" href="data:,">' + script
            + '</head><body><button class="secondary-toggle" style="display:none">'
            '</button><button class="sidebar-toggle secondary-toggle btn">list</button>'
            '<dialog id="pst-secondary-sidebar-modal"><nav><a href="#a">a</a></nav>'
            '</dialog><script>document.querySelector(".secondary-toggle")'
            '.addEventListener("click", () => document.querySelector("dialog")'
            '.showModal());</script></body></html>', encoding="utf-8")
    found = {name: contents_links(context, url, f"{name}.html", 1280, wait_ms=300)
             for name in ("with", "without")}
    assert found == {"with": 1, "without": -1}
