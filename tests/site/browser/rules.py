"""The rules tests/site/browser/test_pages.py applies to every page opened in Chromium, from
what the probes in js/ read in the page. Each returns what it finds, one line a finding.

request     a request to another host (blocked), a failed local request, an HTTP error
console     a console error or an uncaught script error
math        a formula MathJax did not typeset (no mjx-container), or typeset as an error
image       an image that did not load, or without alt text
solution    a closed solution whose code or output is visible before it is opened, or not
            visible after a click on its title
code-width  code (a <pre>) wider than its column, so that it scrolls sideways
fit         an equation, a table, a figure or code cut by its box, or running past the
            column, at 1280 px and again at a phone's 390 px; at 1280 px also one wider than
            the column that scrolls in its own box; a pandas table whose cells end in "..."
            (fit.py)
slant       Chinese text set in italics (an <em> or <i> holding CJK whose computed
            font-style is not normal): Chinese fonts have no italic, the browser shears the
            glyphs; the Chinese edition sets emphasis with 着重号 (scripts/editions.py)
tofu        a CJK character drawn as the "missing glyph" box, anywhere on the page (text,
            the switch link, the sidebar, a search box's placeholder, a copy button's
            tooltip, the live translator's status once it has started, a solution once
            opened), or a run of CJK characters laid out narrower or wider than its font
            draws it (js/tofu.js)
"""
from __future__ import annotations

from tests.site.browser.tabs import js


def inspect(tab) -> dict:
    """What js/inspect.js finds; a page that moves on (a redirect) is inspected where it
    lands."""
    from playwright.sync_api import Error

    try:
        return tab.evaluate(js("inspect"))
    except Error as err:
        if "navigation" not in str(err):
            raise
        tab.wait_for_load_state("load")
        return tab.evaluate(js("inspect"))


def math(found: dict) -> list[str]:
    return ([f"not typeset: {m['text']!r}" for m in found["math"] if not m["typeset"]]
            + [f"MathJax error in {m['text']!r}" for m in found["math"] if m["error"]])


def images(found: dict) -> list[str]:
    return ([f"did not load: {i['src']}" for i in found["images"] if not i["loaded"]]
            + [f"no alt text: {i['src'][:80]}" for i in found["images"] if not i["alt"]])


def code_width(found: dict) -> list[str]:
    return [f"runs off its column (scrolls sideways): {w!r}" for w in found["wide"]]


def slant(found: dict) -> list[str]:
    return [f"Chinese set in italics (a sheared glyph): {s!r}" for s in found["slanted"]]


def tofu(tab, within: str | None = None) -> list[str]:
    return tab.evaluate(js("tofu"), within)


SOLUTIONS = ".solution.dropdown, details.solution"


def solutions(tab) -> list[str]:
    """Closed solutions (sphinx-exercise's dropdown, folded by sphinx-togglebutton) hide
    their code and output until their title is clicked, then show them. All are checked
    closed, all clicked, then all waited for at once (no fixed pause per solution)."""
    before = tab.evaluate(js("solutions_shown"))
    found = [f"solution {i + 1} shows code before it is opened"
             for i, shown in enumerate(before) if shown]
    boxes = [box for box in tab.query_selector_all(SOLUTIONS)
             if box.query_selector(".cell_input, .cell_output, pre")]
    for i, box in enumerate(boxes):
        if before[i]:
            continue
        # Click where a reader does: on the words of the title ("Solution to Exercise 4.1",
        # a link inside it), not on the small chevron button at its end.
        title = box.query_selector(".admonition-title") or box.query_selector("summary")
        if title is None:
            found.append(f"solution {i + 1} has no title to click")
            continue
        words, frame = title.query_selector("a, span"), title.bounding_box()
        spot = words.bounding_box() if words else None
        if spot and frame:
            title.click(position={"x": spot["x"] - frame["x"] + spot["width"] / 2,
                                  "y": spot["y"] - frame["y"] + spot["height"] / 2})
        else:
            title.click()
    closed = [i for i, shown in enumerate(before) if not shown]
    if closed:
        try:  # the toggles' transitions: until every clicked solution shows its code
            tab.wait_for_function(f"() => {{ const s = ({js('solutions_shown')})(); "
                                  f"return {closed}.every(i => s[i]); }}", timeout=3000)
        except Exception:  # noqa: BLE001 - a timeout: the ones still closed are named below
            pass
    after = tab.evaluate(js("solutions_shown"))
    return found + [f"solution {i + 1} shows no code once opened"
                    for i in closed if not after[i]]
