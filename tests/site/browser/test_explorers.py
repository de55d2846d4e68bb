"""The explorers (illustrated.explorers) in a real browser, moved as a reader moves them.

For each explorer of the book, in each edition: open its page, wait until
_static/explorers.js has drawn it, read what the chart shows (the data of every mark of the
Vega view), move its controls with the keyboard or pick an option, read again, and check
that the chart changed, and that it now shows the values the package computes for the new
setting, computed here by calling the package (the spec supplies only its inputs,
``usermeta.explorer``: the scores of chapter 2, the seed of chapter 4, the sizes of chapters
6 and 7; for the beam tree of chapter 10 the recorded tree itself, whose levels up to a step
the package's ``beam_nodes`` selects).

The Chinese edition's explorers draw the same data and must show Chinese: every title, axis
and legend title and label, control name, alt text (``aria-label``) and message holds
Chinese and no English word but the formulas' symbols and the keys' names (``SYMBOLS``);
the chart draws Chinese in the site's CJK web font.

Then the polite degradation, in both editions: with the vendor scripts unreachable each
explorer says in one line that they are missing, and without JavaScript its note for such
readers is shown.
"""
from __future__ import annotations

import math
import re
import time

import pytest

from tests.site.browser import tabs


# Every mark of the view with the data of its items (not axes, legends or titles).
MARKS_JS = r"""
div => {
  const marks = [];
  (function walk(node) {
    if (node.marktype && node.role === "mark" && node.marktype !== "group") {
      marks.push({type: node.marktype,
                  data: node.items.map(i => JSON.parse(JSON.stringify(i.datum)))});
    }
    (node.items || []).forEach(walk);
  })(div.vegaView.scenegraph().root);
  return marks;
}
"""

# The words a reader sees in a drawn explorer: its titles, axes and legends (not its marks:
# chapter 10's tree shows the words of an English translation), the names of its controls,
# its alt text.
WORDS_JS = r"""
div => [...div.querySelectorAll(
    "svg .role-title text, svg .role-axis text, svg .role-legend text, .vega-bind-name")]
  .map(e => e.textContent).concat([div.getAttribute("aria-label")])
"""
# The font families of the chart's texts that hold Chinese: each must name the site's CJK
# web font ("WQY Web", _static/cjk.css), or a reader without CJK fonts sees tofu.
CJK_FONTS_JS = r"""
div => [...div.querySelectorAll("svg text")].filter(e => /[\u4e00-\u9fff]/.test(e.textContent))
  .map(e => getComputedStyle(e).fontFamily)
"""
# Words an explorer shows in either edition: symbols of its formulas, names of chapter 2's keys.
SYMBOLS = {"softmax", "log", "sin", "cos", "PE", "pos", "d_k", "d_model", "beam_size",
           "Bob", "Cesus", "Bylan", "JavaScript"}
ZH = "zh/"  # the Chinese edition's folder in the site (scripts/build_book.py ZH)
# What explorers.js writes when the vendor scripts are missing, by edition.
MISSING = {"": "missing", ZH: "缺失"}

PAGES = {  # explorer kind -> the page that shows it
    "temperature": "chapters/02_soft_lookup.html",
    "scaling": "chapters/04_scaled_scores.html",
    "masks": "chapters/06_masking.html",
    "positional": "chapters/07_positional.html",
    "beam": "chapters/10_decoding.html",
}


def _rows(marks, marktype, *fields):
    """The data of the marks of one type that have ``fields``, as sorted tuples."""
    return sorted(tuple(d[f] for f in fields) for m in marks if m["type"] == marktype
                  for d in m["data"] if all(f in d for f in fields))


def _slide(div, name: str, steps: int) -> None:
    """Move the slider ``name`` by ``steps`` (negative: to the left) with the arrow keys."""
    slider = div.locator(f'input[type="range"][name="{name}"]')
    slider.focus()
    for _ in range(abs(steps)):
        slider.press("ArrowRight" if steps > 0 else "ArrowLeft")


def _close(a, b) -> bool:
    return len(a) == len(b) and all(
        x[:-1] == y[:-1] and math.isclose(x[-1], y[-1], abs_tol=1e-9) for x, y in zip(a, b))


# ---------------------------------------------------------------- one function per explorer
def _temperature(div, meta):
    from tests.site.browser.package import temperature_weights, torch

    _slide(div, "log10_tau", -10)  # from τ = 1 to τ = 0.1
    scores = torch.tensor(meta["scores"], dtype=torch.float64)
    weights = temperature_weights(scores, 0.1).tolist()
    return lambda marks: _close(_rows(marks, "rect", "key", "weight"),
                                sorted(zip(meta["labels"], weights))), "τ = 0.1"


def _scaling(div, meta):
    from tests.site.browser.package import scaling_weights

    _slide(div, "log2_d_k", 4)  # from d_k = 64 to 1024
    unscaled, scaled = scaling_weights(1024, meta["S"], meta["seed"])
    want = sorted([("unscaled", j + 1, w) for j, w in enumerate(unscaled.tolist())]
                  + [("scaled", j + 1, w) for j, w in enumerate(scaled.tolist())])
    return lambda marks: _close(_rows(marks, "rect", "scaling", "key", "weight"), want), \
        "d_k = 1024"


def _masks(div, meta):
    from tests.site.browser.package import MASK_CELLS, mask_cells

    _slide(div, "src_len", -3)  # 5 -> 2
    _slide(div, "tgt_len", 4)  # 3 -> 7
    masks = mask_cells(2, 7, meta["width"])
    want = sorted((panel, q, k, bool(mask[q, k])) for panel, mask in masks.items()
                  for q in range(meta["width"]) for k in range(meta["width"]))

    def shown(marks):
        got = _rows(marks, "rect", "panel", "q", "k", "cell")
        return [(p, q, k, cell == MASK_CELLS[0]) for p, q, k, cell in got] == want
    return shown, "source length 2, target length 7"


def _positional(div, meta):
    from tests.site.browser.package import position_similarity, sinusoidal_encoding

    div.locator('select[name="d_model"]').select_option("64")
    _slide(div, "p", -2)  # 30 -> 10
    length = meta["length"]
    pe = sinusoidal_encoding(length, 64)  # (L, 64)
    waves = sorted((c, pos, round(pe[pos, c].item(), 3) + 0.0) for c in meta["columns"]
                   for pos in range(length))
    sim = sorted((pos, s) for pos, s in enumerate(position_similarity(64, 10, length).tolist()))

    def shown(marks):
        return (_close(_rows(marks, "line", "column", "pos", "value"), waves)
                and _close(_rows(marks, "symbol", "pos", "similarity"), sim)
                and _rows(marks, "rule", "p") == [(10,), (10,)])
    return shown, "d_model 64, p = 10"


def _beam(div, meta):
    from tests.site.browser.package import beam_nodes

    last = len(meta["levels"]) - 1
    _slide(div, "step", last - 1)  # from step 1 to the last
    # The tree's levels are the explorer's input (recorded by the chapter's beam search,
    # which the chapter checks against illustrated.decoding.beam_search); the nodes drawn
    # up to a step are the package's beam_nodes.
    want = sorted((n["level"], n["y"], n["word"], n["score"], n["state"])
                  for n in beam_nodes(meta["levels"], last))
    return lambda marks: _rows(marks, "symbol", "level", "y", "word", "score", "state") \
        == want, f"step {last}"


MOVES = {"temperature": _temperature, "scaling": _scaling, "masks": _masks,
         "positional": _positional, "beam": _beam}


def english_words(texts) -> set[str]:
    """The English words of ``texts`` besides the symbols every edition shows and quoted
    sentences (chapter 10's title quotes the French source)."""
    texts = [re.sub(r"“[^”]*”", "", t or "") for t in texts]
    return {w for t in texts for w in re.findall(r"[A-Za-z_]{2,}", t)} - SYMBOLS


def chinese_shown(texts) -> list[str]:
    """What is wrong with the words of an explorer on a Chinese page: English words, or no
    Chinese at all."""
    english = english_words(texts)
    if english:
        return [f"English words on the Chinese page: {sorted(english)[:8]}"]
    if not any(re.search(r"[\u4e00-\u9fff]", t) for t in texts if t):
        return ["no Chinese on the Chinese page"]
    return []


def _settled(page, div, shows_expected, seconds: float = 3.0):
    """The chart's marks once they show the expected values, or after ``seconds`` (vega
    re-renders asynchronously): read every 50 ms, not after a fixed pause."""
    deadline = time.perf_counter() + seconds
    marks = div.evaluate(MARKS_JS)
    while not shows_expected(marks) and time.perf_counter() < deadline:
        page.wait_for_timeout(50)
        marks = div.evaluate(MARKS_JS)
    return marks


EDITIONS = ["", ZH]


@pytest.mark.parametrize("kind", PAGES)
@pytest.mark.parametrize("edition", EDITIONS, ids=["en", "zh"])
def test_the_explorer_moves_to_the_packages_values(context, origin, site, edition, kind):
    name = edition + PAGES[kind]
    built = site / name
    assert built.is_file() and f'data-explorer="{kind}"' in built.read_text(), \
        f"{name} has no {kind} explorer"
    tab, watched = tabs.open_tab(context, origin, name)
    div = tab.locator(f'div.vl-explorer[data-explorer="{kind}"]')
    assert div.count() == 1, f"{div.count()} {kind} explorers, expected 1"
    tab.wait_for_function(
        f'document.querySelector(\'div.vl-explorer[data-explorer="{kind}"]\').dataset.state',
        timeout=20_000)
    state = div.get_attribute("data-state")
    assert state == "ready", f"{kind} is {state}: {div.inner_text()[:120]}"
    meta = div.evaluate("d => JSON.parse(d.querySelector('script[type=\"application/json\"]')"
                        ".textContent).usermeta.explorer")
    if edition == ZH:
        words = chinese_shown(div.evaluate(WORDS_JS))
        assert not words, f"{kind} shows " + "; ".join(words)
    families = div.evaluate(CJK_FONTS_JS)
    assert all("WQY Web" in family for family in families), \
        f"{kind} draws Chinese in {families[0]!r}, without the site's CJK web font \"WQY Web\""
    before = div.evaluate(MARKS_JS)
    shows_expected, setting = MOVES[kind](div, meta)
    after = _settled(tab, div, shows_expected)
    assert after != before, f"{kind}: the chart did not change at {setting}"
    assert shows_expected(after), f"{kind}: at {setting} the chart does not show the package's values"
    assert not watched.problems(), "\n".join(watched.problems())


@pytest.mark.parametrize("edition", EDITIONS, ids=["en", "zh"])
def test_without_its_vendor_scripts_an_explorer_says_so_in_one_line(context, origin, edition):
    name = edition + PAGES["temperature"]
    tab = context.new_page()
    tab.route("**/_static/vendor/*", lambda route: route.abort())
    tab.goto(f"{origin}/{name}", wait_until="load")
    tab.wait_for_function("[...document.querySelectorAll('div.vl-explorer')]"
                          ".every(div => div.dataset.state)", timeout=5000)
    said = [(div.get_attribute("data-state"), div.inner_text().strip())
            for div in tab.locator("div.vl-explorer").all()]
    assert said and all(state == "missing" and "\n" not in text and MISSING[edition] in text
                        for state, text in said), \
        f"without its vendor scripts it says {said}, not one line that they are missing"


@pytest.mark.parametrize("edition", EDITIONS, ids=["en", "zh"])
def test_without_javascript_an_explorer_shows_its_note(browser, origin, edition):
    name = edition + PAGES["temperature"]
    context = browser.new_context(java_script_enabled=False)
    try:
        tab = context.new_page()
        tab.goto(f"{origin}/{name}", wait_until="load")
        notes = [div.inner_text() for div in tab.locator("div.vl-explorer").all()]
    finally:
        context.close()
    assert notes and all("JavaScript" in note for note in notes), \
        f"without JavaScript it shows {notes}, not its note"
    if edition == ZH:
        assert not (words := chinese_shown(notes)), "the note shows " + "; ".join(words)
