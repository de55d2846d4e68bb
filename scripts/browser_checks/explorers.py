"""The explorers (illustrated.explorers) in a real browser, moved as a reader moves them.

For each explorer of the book: open its page, wait until _static/explorers.js has drawn it,
read what the chart shows (the data of every mark of the Vega view), move its controls with
the keyboard or pick an option, read again, and check that

* the chart changed, and
* it now shows the values the package computes for the new setting, computed here by
  calling the package (the spec supplies only its inputs, ``usermeta.explorer``: the
  scores of chapter 2, the seed of chapter 4, the sizes of chapters 6 and 7; for the beam
  tree of chapter 10 the recorded tree itself, whose levels up to a step the package's
  ``beam_nodes`` selects).

The Chinese edition (``zh/``) is checked the same way (its explorers draw the same data),
and its explorers must show Chinese: every title, axis and legend title and label, control
name, alt text (``aria-label``) and message holds Chinese and no English word but the
formulas' symbols and the keys' names (``SYMBOLS``); the chart draws Chinese in the site's
CJK web font.

Then the polite degradation, in both editions: with the vendor scripts unreachable each
explorer says in one line that they are missing, and without JavaScript its note for such
readers is shown.
"""
from __future__ import annotations

import math
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from check_browser import open_page  # noqa: E402

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
    import torch

    from illustrated.explorers import temperature_weights

    _slide(div, "log10_tau", -10)  # from τ = 1 to τ = 0.1
    scores = torch.tensor(meta["scores"], dtype=torch.float64)
    weights = temperature_weights(scores, 0.1).tolist()
    return lambda marks: _close(_rows(marks, "rect", "key", "weight"),
                                sorted(zip(meta["labels"], weights))), "τ = 0.1"


def _scaling(div, meta):
    from illustrated.explorers import scaling_weights

    _slide(div, "log2_d_k", 4)  # from d_k = 64 to 1024
    unscaled, scaled = scaling_weights(1024, meta["S"], meta["seed"])
    want = sorted([("unscaled", j + 1, w) for j, w in enumerate(unscaled.tolist())]
                  + [("scaled", j + 1, w) for j, w in enumerate(scaled.tolist())])
    return lambda marks: _close(_rows(marks, "rect", "scaling", "key", "weight"), want), \
        "d_k = 1024"


def _masks(div, meta):
    from illustrated.explorers import MASK_CELLS, mask_cells

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
    from illustrated.explorers import position_similarity
    from illustrated.positional import sinusoidal_encoding

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
    from illustrated.explorers import beam_nodes

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


def chinese_shown(page_name, kind, texts) -> list[str]:
    """Problems if the Chinese page's explorer shows an English word or no Chinese."""
    english = english_words(texts)
    if english:
        return [f"{page_name}: explorer: {kind} shows English words on the Chinese page: "
                f"{sorted(english)[:8]}"]
    if not any(re.search(r"[\u4e00-\u9fff]", t) for t in texts if t):
        return [f"{page_name}: explorer: {kind} shows no Chinese on the Chinese page"]
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


def check_explorer(context, origin, page_name, kind) -> list[str]:
    log = []
    page = open_page(context, origin, page_name, log)
    page.goto(f"{origin}/{page_name}", wait_until="load")
    div = page.locator(f'div.vl-explorer[data-explorer="{kind}"]')
    if div.count() != 1:
        return log + [f"{page_name}: explorer: {div.count()} {kind} explorers, expected 1"]
    try:
        page.wait_for_function(
            f'document.querySelector(\'div.vl-explorer[data-explorer="{kind}"]\').dataset.state',
            timeout=20_000)
    except Exception:  # noqa: BLE001 - a timeout is reported as a problem
        return log + [f"{page_name}: explorer: {kind} was not drawn within 20 s"]
    state = div.get_attribute("data-state")
    if state != "ready":
        return log + [f"{page_name}: explorer: {kind} is {state}: {div.inner_text()[:120]}"]
    meta = div.evaluate("d => JSON.parse(d.querySelector('script[type=\"application/json\"]')"
                        ".textContent).usermeta.explorer")
    problems = (chinese_shown(page_name, kind, div.evaluate(WORDS_JS))
                if page_name.startswith(ZH) else [])
    families = div.evaluate(CJK_FONTS_JS)
    if any("WQY Web" not in family for family in families):
        problems.append(f"{page_name}: explorer: {kind} draws Chinese in {families[0]!r}, "
                        "without the site's CJK web font \"WQY Web\"")
    before = div.evaluate(MARKS_JS)
    shows_expected, setting = MOVES[kind](div, meta)
    after = _settled(page, div, shows_expected)
    if after == before:
        problems.append(f"{page_name}: explorer: {kind}: the chart did not change at {setting}")
    if not shows_expected(after):
        problems.append(f"{page_name}: explorer: {kind}: at {setting} the chart does not show "
                        "the package's values")
    page.close()
    return log + problems


def check_degraded(context, origin, page_name) -> list[str]:
    """Vendor scripts unreachable: one line says so (in the page's edition). No JavaScript:
    the note is shown."""
    problems, missing = [], MISSING[ZH if page_name.startswith(ZH) else ""]
    page = context.new_page()
    page.route("**/_static/vendor/*", lambda route: route.abort())
    page.goto(f"{origin}/{page_name}", wait_until="load")
    try:  # until explorers.js has given every explorer its state (else reported below)
        page.wait_for_function("[...document.querySelectorAll('div.vl-explorer')]"
                               ".every(div => div.dataset.state)", timeout=5000)
    except Exception:  # noqa: BLE001 - a timeout
        pass
    for div in page.locator("div.vl-explorer").all():
        text = div.inner_text().strip()
        if div.get_attribute("data-state") != "missing" or "\n" in text or missing not in text:
            problems.append(f"{page_name}: explorer: without its vendor scripts it says "
                            f"{text[:100]!r}, not one line that they are missing")
    page.close()
    browser_context = context.browser.new_context(java_script_enabled=False)
    page = browser_context.new_page()
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(origin)
               else route.abort())
    page.goto(f"{origin}/{page_name}", wait_until="load")
    for div in page.locator("div.vl-explorer").all():
        if "JavaScript" not in div.inner_text():
            problems.append(f"{page_name}: explorer: without JavaScript it shows no note")
        elif page_name.startswith(ZH):
            problems += chinese_shown(page_name, "the note", [div.inner_text()])
    browser_context.close()
    return problems


def check(context, origin, html_dir) -> list[str]:
    start, problems = time.perf_counter(), []
    for edition in ("", ZH):
        for kind, page_name in PAGES.items():
            page_name = edition + page_name
            built = Path(html_dir) / page_name
            if not built.is_file() or f'data-explorer="{kind}"' not in built.read_text():
                problems.append(f"{page_name}: explorer: the page has no {kind} explorer")
                continue
            problems += check_explorer(context, origin, page_name, kind)
        problems += check_degraded(context, origin, edition + PAGES["temperature"])
    print(f"explorers: {len(PAGES)} in each edition moved and compared with the package, the "
          f"Chinese ones' words read, the degraded pages checked: {len(problems)} problem(s) "
          f"in {time.perf_counter() - start:.0f} s")
    return problems
