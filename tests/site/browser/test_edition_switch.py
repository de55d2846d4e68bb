"""Switching edition keeps the reader's place (_static/edition-switch.js).

The link at the top of every page to the same page in the other edition
(scripts/editions.py, edition_link) carries the section being read as its #hash, so the
other edition opens at that section. Tried as a reader does it, both ways: chapter 6 is
scrolled to a section in its middle, the switch link (in the article's sticky header) is
clicked, and the other edition must show that same section at the top of the window; a page
opened at a section's #hash links to that section at once. (That every section has the same
id in both editions is tests/site/test_pages.py's.)
"""
from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests.site.browser import tabs

ZH = "zh/"
PAGE = "chapters/06_masking.html"

# The sections a reader can be in: ids used once on the page, in document order.
SECTIONS_JS = """() => [...document.querySelectorAll('article section[id]')].map(s => s.id)
  .filter((id, _, ids) => ids.indexOf(id) === ids.lastIndexOf(id))"""
LANDED_JS = """id => { const el = document.getElementById(id);
  return {hash: decodeURIComponent(location.hash.slice(1)),
          top: el ? el.getBoundingClientRect().top : null, height: innerHeight}; }"""


def _wait_for_the_hash(tab, section: str) -> None:
    """Until the switch link ends with ``#section`` (the script updates it once per frame
    while the page scrolls), or 3 s: the click then shows where the link leads."""
    try:
        tab.wait_for_function(
            "id => document.querySelector('.edition-switch a').getAttribute('href')"
            ".endsWith('#' + encodeURIComponent(id))", arg=section, timeout=3000)
    except Exception:  # noqa: BLE001 - a timeout: the test says where the click leads
        pass


@pytest.mark.parametrize("name, other", [(PAGE, ZH + PAGE), (ZH + PAGE, PAGE)])
def test_the_switch_link_opens_the_other_edition_at_the_same_section(context, origin, name,
                                                                     other):
    tab, watched = tabs.open_tab(context, origin, name)
    sections = tab.evaluate(SECTIONS_JS)
    assert sections, "no section with an id to switch from"
    middle = sections[len(sections) // 2]
    tab.evaluate("id => document.getElementById(id).scrollIntoView()", middle)
    _wait_for_the_hash(tab, middle)
    link = tab.query_selector(".edition-switch a")
    href, box = link.get_attribute("href"), link.bounding_box()
    # A reader's click, where the link is drawn: playwright's element.click() would first
    # scroll the page to the link's place in the text, and the link follow that place.
    tab.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    try:
        tab.wait_for_url(lambda url: urlparse(url).path == f"/{other}", wait_until="commit",
                         timeout=10_000)
        opened = True
    except Exception:  # noqa: BLE001 - a timeout, said as the reader sees it below
        opened = False
    assert opened, f"the switch link ({href}), clicked where it is drawn, did not open {other}"
    tab.wait_for_load_state("load")
    landed = tab.evaluate(LANDED_JS, middle)
    top = landed["top"]
    where = "missing" if top is None else f"{top:.0f} px from the top of the window"
    assert landed["hash"] == middle and top is not None and -2 <= top < landed["height"] / 5, (
        f"scrolled to #{middle}, the switch link ({href}) opened {other} at "
        f"#{landed['hash'] or '(no hash)'}, the section {where} (expected it at the top)")
    assert not watched.problems(), "\n".join(watched.problems())


def test_a_page_opened_at_a_section_links_to_that_section(context, origin):
    tab, watched = tabs.open_tab(context, origin, PAGE)
    last = tab.evaluate(SECTIONS_JS)[-1]
    tab.goto(f"{origin}/{PAGE}#{last}", wait_until="load")
    tab.wait_for_timeout(100)  # a frame or two for the scroll the hash causes
    href = tab.get_attribute(".edition-switch a", "href")
    assert href.endswith(f"#{last}"), f"opened at #{last}, the switch link is {href}"
    assert not watched.problems(), "\n".join(watched.problems())
