"""The live translator page (chapters/live_translator.md) against the Python package.

Held-out sentences (the test split), translated by the page in the browser, must equal the
package's ``greedy_decode`` and ``beam_search`` (size 4, the length penalty of
``translate``) on the same checkpoint, token for token, one test a sentence:

(a) ids in, ids out: ``window.liveTranslator.translateIds`` on Python's source ids (no
    tokenizer involved); on a few sentences also beam sizes 1 and 8, and a ``max_len`` that
    cuts the translations short;
(b) as a reader: the first N_TYPED sentences typed into the text box, greedy then beam
    chosen, the button pressed; the page's source ids (its JavaScript tokenizer) and output
    ids are compared, and both heat maps must have one row per query piece and one column
    per key piece.

(c) without JavaScript, the status line says so in the edition's language.

The Chinese page, odd inputs and the decoding lab are test_live_inputs.py's (another test
process runs them meanwhile); the page opened from file:// is test_file_pages.py's.
"""
from __future__ import annotations

import pytest

from tests.site.browser import tabs
from tests.site.browser.live_cases import BEAM, PAGE, live_manifest, python_translations, submit


N_SENTENCES = 32
# (b) types the first N_TYPED of them, key by key, each translated twice: the page's
# tokenizer is tested on 2676 texts by test_tokenizer.py, its model on all N_SENTENCES by
# (a); typing all 32 took over 100 s of CPU on a 2-core machine.
N_TYPED = 8


@pytest.fixture(scope="module")
def refs():
    return python_translations(N_SENTENCES)


@pytest.fixture(scope="module")
def live(browser, origin, site):
    """The page, opened once for every test here, its model loaded: (tab, watched,
    manifest)."""
    manifest = live_manifest(site)
    with tabs.live_page(browser, origin, PAGE, "window.liveTranslator.ready") as opened:
        yield (*opened, manifest)


def differs(what: str, got, want) -> list[str]:
    return [] if got == want else [f"{what} {got} != Python's {want}"]


@pytest.mark.parametrize("i", range(N_SENTENCES))
def test_ids_in_ids_out_as_python(live, refs, i):
    """(a) translateIds on Python's source ids; the attention tensors' shapes."""
    tab, _, manifest = live
    ref, problems = refs[i], []
    for beam, want in ((0, ref["greedy"]), (BEAM, ref["beam"])):
        got = tab.evaluate("""async ([ids, beam]) => {
            const r = await window.liveTranslator.translateIds(ids, {beam});
            return {tokens: r.tokens, cross: r.crossAttention.dims,
                    self: r.selfAttention.dims}; }""", [ref["ids"], beam])
        how = "beam" if beam else "greedy"
        S, T, N, H = len(ref["ids"]), len(got["tokens"]) - 1, manifest["N"], manifest["h"]
        problems += differs(f"{how}: tokens", got["tokens"], want)
        problems += differs(f"{how}: cross-attention shape", got["cross"], [1, N, H, T, S])
        problems += differs(f"{how}: self-attention shape", got["self"], [1, N, H, S, S])
    for options, want in ref.get("extra", []):
        got = tab.evaluate("""async ([ids, options]) =>
            (await window.liveTranslator.translateIds(ids, options)).tokens""",
                           [ref["ids"], options])
        problems += differs(f"{options}: tokens", got, want)
    assert not problems, f"{ref['text']!r}:\n" + "\n".join(problems)


def shown_maps(tab) -> dict:
    return tab.evaluate("""() => Object.fromEntries(['lt-cross', 'lt-self'].map(id => {
        const svg = document.querySelector(`#${id} svg`);
        return [id, svg && {rows: +svg.dataset.rows, cols: +svg.dataset.cols,
                            cells: svg.querySelectorAll('rect.lt-cell').length,
                            fills: [...svg.querySelectorAll('rect.lt-cell')]
                                   .map(r => r.getAttribute('fill')).join()}];
    }))""")


def translate_typed(tab, beam: int) -> dict:
    """Pick greedy or beam, press the button, wait: the page's last answer."""
    submit(tab, None, beam)
    return tab.evaluate("window.liveTranslator.last")


@pytest.mark.parametrize("i", range(N_TYPED))
def test_a_typed_sentence_is_translated_as_python(live, refs, i):
    """(b) the sentence typed key by key, greedy then beam, the button pressed."""
    tab, _, manifest = live
    assert manifest["tokenizer_js"], "this build has no _static/live/tokenizer.js"
    ref, problems = refs[i], []
    box = tab.locator("#lt-text")
    box.fill("")
    box.press_sequentially(ref["text"])
    for beam, want in ((0, ref["greedy"]), (BEAM, ref["beam"])):
        how = "beam" if beam else "greedy"
        last = translate_typed(tab, beam)
        last = last and len(last["sentences"]) == 1 and last["sentences"][0]
        if not last or last["text"] != ref["text"]:
            problems.append(f"{how}: no translation shown "
                            f"({tab.locator('#lt-status').text_content()})")
            continue
        problems += differs(f"{how}: source ids", last["srcIds"], ref["ids"])
        problems += differs(f"{how}: tokens", last["tokens"], want)
        maps = shown_maps(tab)
        S, T = len(ref["ids"]), len(last["tokens"]) - 1
        for name, rows, cols in (("lt-cross", T, S), ("lt-self", S, S)):
            got = maps[name] and [maps[name]["rows"], maps[name]["cols"], maps[name]["cells"]]
            problems += differs(f"{how}: {name} heat map (rows, cols, cells)", got,
                                [rows, cols, rows * cols])
    assert not problems, f"{ref['text']!r}:\n" + "\n".join(problems)


def test_another_head_redraws_the_map(live, refs, screenshots):
    tab, _, _ = live
    tab.locator("#lt-text").fill(refs[0]["text"])
    translate_typed(tab, 0)
    tab.screenshot(path=str(screenshots / "live_translator_translated.png"), full_page=True)
    before = shown_maps(tab)["lt-cross"]
    tab.locator("#lt-cross-head").select_option("1")
    after = shown_maps(tab)["lt-cross"]
    assert before["rows"] == after["rows"] and before["fills"] != after["fills"], \
        "choosing head 2 did not redraw the cross-attention"


def test_the_page_worked_cleanly(live, refs):
    """Every request stayed on the machine and succeeded, no console error (after the tests
    above, which run first)."""
    _, watched, _ = live
    assert not watched.problems(), "\n".join(watched.problems())


@pytest.mark.parametrize("edition", ["", "zh/"], ids=["en", "zh"])
def test_without_javascript_the_status_line_speaks_the_editions_language(browser, origin,
                                                                         site, edition):
    """(c) The Chinese edition is the same HTML with <html lang="zh-CN">: of the line's two
    texts, CSS shows the page's; the form, which could do nothing, is hidden."""
    seen = tabs.without_javascript(browser, origin, edition + PAGE, ["#lt-status", "#lt-form"])
    assert seen["#lt-form"] is None, \
        f"without JavaScript the page shows the form, which can do nothing: {seen['#lt-form']!r}"
    said = seen["#lt-status"] or ""  # one of its two texts: English, or Chinese
    chinese = any("\u4e00" <= c <= "\u9fff" for c in said)
    assert "JavaScript" in said and chinese == (edition == "zh/") != ("browser" in said), \
        f"without JavaScript the {edition or 'English '}page says {said!r}"
