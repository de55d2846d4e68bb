"""Switching edition keeps the reader's place (_static/edition-switch.js).

The link at the top of every page to the same page in the other edition
(scripts/editions.py, edition_link) carries the section being read as its #hash, so the
other edition opens at that section. Checked as a reader does it, both ways: chapter 6 is
scrolled to a section in its middle, the switch link (in the article's sticky header) is
clicked, and the other edition must show that same section at the top of the window; a page
opened at a section's #hash links to that section at once. And the ids: every section of
every page has the same id in both editions (Sphinx keeps the English ids on translated
headings), else the hash would lead nowhere (rule ``edition-switch``).
"""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

ZH = "zh/"  # the Chinese edition's folder in the site (scripts/editions.py ZH)
PAGE = "chapters/06_masking.html"
# A section's id, in the HTML Sphinx writes (<section id="the-padding-mask">).
SECTION_ID = re.compile(r'<section id="([^"]+)"')

# The sections a reader can be in: ids used once on the page, in document order.
SECTIONS_JS = """() => [...document.querySelectorAll('article section[id]')].map(s => s.id)
  .filter((id, _, ids) => ids.indexOf(id) === ids.lastIndexOf(id))"""


def section_ids(path: Path) -> list[str]:
    """The ids of the sections of one built page, in order."""
    return SECTION_ID.findall(path.read_text(encoding="utf-8"))


def id_problems(html_dir: Path) -> list[str]:
    """Pages whose sections have other ids in the Chinese edition than in the English."""
    problems = []
    for english in sorted(html_dir.glob("**/*.html")):
        name = english.relative_to(html_dir).as_posix()
        chinese = html_dir / ZH / name
        if name.startswith((ZH, "_")) or not chinese.is_file():
            continue
        ours, theirs = section_ids(english), section_ids(chinese)
        if ours != theirs:
            only = sorted(set(ours) ^ set(theirs)) or ["the same ids in another order"]
            problems.append(f"{name}: edition-switch: its sections' ids differ in {ZH}{name}: "
                            f"{', '.join(only[:5])}")
    return problems


def switch_from_the_middle(context, origin: str, name: str, other: str) -> list[str]:
    """Scroll ``name`` to its middle section, click the switch link: ``other`` must open
    at that section."""
    from check_browser import open_page

    log: list[str] = []
    page = open_page(context, origin, name, log)
    page.goto(f"{origin}/{name}", wait_until="load")
    sections = page.evaluate(SECTIONS_JS)
    if not sections:
        page.close()
        return [f"{name}: edition-switch: no section with an id to switch from"]
    middle = sections[len(sections) // 2]
    page.evaluate("id => document.getElementById(id).scrollIntoView()", middle)
    _wait_for_the_hash(page, middle)
    link = page.query_selector(".edition-switch a")
    href, box = link.get_attribute("href"), link.bounding_box()
    # A reader's click, where the link is drawn: playwright's element.click() would first
    # scroll the page to the link's place in the text, and the link follow that place.
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    try:
        page.wait_for_url(lambda url: urlparse(url).path == f"/{other}", wait_until="commit",
                          timeout=10_000)
    except Exception:  # noqa: BLE001 - a timeout
        page.close()
        return log + [f"{name}: edition-switch: the switch link ({href}) did not open {other}"]
    page.wait_for_load_state("load")
    landed = page.evaluate("""id => { const el = document.getElementById(id);
      return {hash: decodeURIComponent(location.hash.slice(1)),
              top: el ? el.getBoundingClientRect().top : null, height: innerHeight}; }""",
                           middle)
    page.close()
    problems = log
    top = landed["top"]
    if landed["hash"] != middle or top is None or not -2 <= top < landed["height"] / 5:
        where = "missing" if top is None else f"{top:.0f} px from the top of the window"
        problems.append(f"{name}: edition-switch: scrolled to #{middle}, the switch link "
                        f"({href}) opened {other} at #{landed['hash'] or '(no hash)'}, the "
                        f"section {where} (expected that section at the top)")
    return problems


def _wait_for_the_hash(page, section: str) -> None:
    """Until the switch link ends with ``#section`` (the script updates it once per frame
    while the page scrolls), or 3 s: the click then shows where the link leads."""
    try:
        page.wait_for_function(
            "id => document.querySelector('.edition-switch a').getAttribute('href')"
            ".endsWith('#' + encodeURIComponent(id))", arg=section, timeout=3000)
    except Exception:  # noqa: BLE001 - a timeout: reported from where the click leads
        pass


def opened_at_a_hash(context, origin: str, name: str) -> list[str]:
    """``name`` opened at its last section's #hash links to that section at once."""
    from check_browser import open_page

    log: list[str] = []
    page = open_page(context, origin, name, log)
    page.goto(f"{origin}/{name}", wait_until="load")
    last = page.evaluate(SECTIONS_JS)[-1]
    page.goto(f"{origin}/{name}#{last}", wait_until="load")
    page.wait_for_timeout(100)  # a frame or two for the scroll the hash causes
    href = page.get_attribute(".edition-switch a", "href")
    page.close()
    if not href.endswith(f"#{last}"):
        log.append(f"{name}: edition-switch: opened at #{last}, the switch link is {href} "
                   f"(expected it to end with #{last})")
    return log


def check(context, origin: str, html_dir: Path) -> list[str]:
    problems = id_problems(html_dir)
    if (html_dir / ZH / PAGE).is_file():
        problems += switch_from_the_middle(context, origin, PAGE, ZH + PAGE)
        problems += switch_from_the_middle(context, origin, ZH + PAGE, PAGE)
        problems += opened_at_a_hash(context, origin, PAGE)
    print(f"edition switch: {PAGE} both ways, section ids of both editions: "
          f"{len(problems)} problem(s)")
    return problems
