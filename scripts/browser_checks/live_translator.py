"""The live translator page (chapters/live_translator.md) against the Python package.

Held-out sentences (the test split), translated by the page in the browser, must equal
``illustrated.decoding.greedy_decode`` and ``beam_search`` (size 4, the length penalty of
``illustrated.translator.inference.translate``) on the same checkpoint, token for token:

(a) ids in, ids out: ``window.liveTranslator.translateIds`` on Python's source ids (no
    tokenizer involved); on a few sentences also beam sizes 1 and 8, and a ``max_len``
    that cuts the translations short;
(b) as a reader: the first N_TYPED sentences typed into the text box, greedy then beam chosen, the
    button pressed; the page's source ids (its JavaScript tokenizer) and output ids are
    compared, and both heat maps must have one row per query piece and one column per key
    piece. Skipped, with a line saying so, when the build has no _static/live/tokenizer.js.

And opened from file://, the page says in one line to run `make serve`.

(c), (d) and (e), the Chinese page, odd inputs and the decoding lab, are
browser_checks/live_inputs.py: a job of their own, which a second worker runs while this
one types the held-out sentences (together they took 142 s, the stage's longest job).
"""
from __future__ import annotations

import inspect
import json
import time
from pathlib import Path

from browser_checks._live_cases import check_chinese_verdicts

PAGE = "chapters/live_translator.html"
ZH_PAGE = "zh/" + PAGE  # the Chinese edition's copy: the same model, its words in Chinese
N_SENTENCES = 32
# (b) types the first N_TYPED of them, key by key, each translated twice: the page's
# tokenizer is checked on 2676 texts by browser_checks/tokenizer.py, its model on all
# N_SENTENCES by (a); typing all 32 made this the stage's longest job (over 100 s of CPU
# on a 2-core machine).
N_TYPED = 8
N_TRACES = 3  # held-out sentences whose decoding is compared step by step (e)
BEAM = 4
EXTRA, SHORT = 4, 4  # sentences also checked with beam sizes 1 and 8, and max_len SHORT


def python_translations(n: int) -> list[dict]:
    """The first ``n`` test-split sentences: text, source ids, greedy and beam tokens."""
    import torch

    from illustrated.decoding import beam_search, greedy_decode
    from illustrated.translator.corpus import load_split
    from illustrated.translator.inference import MAX_LEN, load_translator, prepare, translate

    alpha = inspect.signature(translate).parameters["length_penalty"].default
    model, tok, _ = load_translator()
    out = []
    for french, _ in load_split().test[:n]:
        ids = tok.encode(prepare(french))
        src = torch.tensor([ids])  # (1, S)
        greedy = greedy_decode(model, src, MAX_LEN, tok.bos_id, tok.eos_id)[0].tolist()
        (beam, _), = beam_search(model, src, MAX_LEN, tok.bos_id, tok.eos_id, BEAM,
                                 length_penalty=alpha)
        out.append({"text": french, "ids": ids, "greedy": greedy, "beam": beam.tolist()})
    # Other settings on a few: beam sizes 1 and 8, and a max_len that cuts translations
    # short (the search's out-of-length branch).
    for ref in out[:EXTRA]:
        src = torch.tensor([ref["ids"]])  # (1, S)
        ref["extra"] = [
            ({"beam": k, "maxLen": MAX_LEN}, beam_search(
                model, src, MAX_LEN, tok.bos_id, tok.eos_id, k, length_penalty=alpha)[0][0])
            for k in (1, 8)] + [
            ({"beam": 0, "maxLen": SHORT}, greedy_decode(
                model, src, SHORT, tok.bos_id, tok.eos_id)[0]),
            ({"beam": BEAM, "maxLen": SHORT}, beam_search(
                model, src, SHORT, tok.bos_id, tok.eos_id, BEAM, length_penalty=alpha)[0][0])]
        ref["extra"] = [(options, tokens.tolist()) for options, tokens in ref["extra"]]
    return out


def differs(name: str, what: str, got, want) -> list[str]:
    return [] if got == want else [f"{PAGE}: live: {name}: {what} {got} != Python's {want}"]


def check_ids(page, refs, manifest) -> list[str]:
    """(a) translateIds on Python's source ids; the attention tensors' shapes."""
    problems = []
    for i, ref in enumerate(refs):
        for beam, want in ((0, ref["greedy"]), (BEAM, ref["beam"])):
            got = page.evaluate("""async ([ids, beam]) => {
                const r = await window.liveTranslator.translateIds(ids, {beam});
                return {tokens: r.tokens, cross: r.crossAttention.dims,
                        self: r.selfAttention.dims}; }""", [ref["ids"], beam])
            how = f"sentence {i} ({ref['text']!r}), {'beam' if beam else 'greedy'}, ids in"
            problems += differs(how, "tokens", got["tokens"], want)
            S, T, N, H = len(ref["ids"]), len(got["tokens"]) - 1, manifest["N"], manifest["h"]
            problems += differs(how, "cross-attention shape", got["cross"], [1, N, H, T, S])
            problems += differs(how, "self-attention shape", got["self"], [1, N, H, S, S])
        for options, want in ref.get("extra", []):
            got = page.evaluate("""async ([ids, options]) =>
                (await window.liveTranslator.translateIds(ids, options)).tokens""",
                                [ref["ids"], options])
            problems += differs(f"sentence {i} ({ref['text']!r}), {options}, ids in",
                                "tokens", got, want)
    return problems


def shown_maps(page) -> dict:
    return page.evaluate("""() => Object.fromEntries(['lt-cross', 'lt-self'].map(id => {
        const svg = document.querySelector(`#${id} svg`);
        return [id, svg && {rows: +svg.dataset.rows, cols: +svg.dataset.cols,
                            cells: svg.querySelectorAll('rect.lt-cell').length,
                            fills: [...svg.querySelectorAll('rect.lt-cell')]
                                   .map(r => r.getAttribute('fill')).join()}];
    }))""")


def check_typed(page, refs) -> list[str]:
    """(b) each sentence typed, greedy then beam, the button pressed."""
    problems, runs = [], 0
    box = page.locator("#lt-text")
    for i, ref in enumerate(refs):
        box.fill("")
        box.press_sequentially(ref["text"])
        for beam, want in ((0, ref["greedy"]), (BEAM, ref["beam"])):
            if beam:
                page.locator("#lt-beam").check()
                page.locator("#lt-beam-size").select_option(str(BEAM))
            else:
                page.locator("#lt-greedy").check()
            page.locator("#lt-go").click()
            runs += 1
            page.wait_for_function(f"window.liveTranslator.runs >= {runs} || "
                                   "document.getElementById('lt-app').dataset.state "
                                   "=== 'error'", timeout=30000)
            last = page.evaluate("window.liveTranslator.last")
            how = f"sentence {i} ({ref['text']!r}), {'beam' if beam else 'greedy'}, typed"
            last = last and len(last["sentences"]) == 1 and last["sentences"][0]
            if not last or last["text"] != ref["text"]:
                problems.append(f"{PAGE}: live: {how}: no translation shown "
                                f"({page.locator('#lt-status').text_content()})")
                continue
            problems += differs(how, "source ids", last["srcIds"], ref["ids"])
            problems += differs(how, "tokens", last["tokens"], want)
            maps = shown_maps(page)
            S, T = len(ref["ids"]), len(last["tokens"]) - 1
            for name, rows, cols in (("lt-cross", T, S), ("lt-self", S, S)):
                got = maps[name] and [maps[name]["rows"], maps[name]["cols"],
                                      maps[name]["cells"]]
                problems += differs(how, f"{name} heat map (rows, cols, cells)", got,
                                    [rows, cols, rows * cols])
    # Another head redraws the map: same shape, other weights.
    before = shown_maps(page)["lt-cross"]
    page.locator("#lt-cross-head").select_option("1")
    after = shown_maps(page)["lt-cross"]
    if before["rows"] != after["rows"] or before["fills"] == after["fills"]:
        problems.append(f"{PAGE}: live: choosing head 2 did not redraw the cross-attention")
    return problems


def has_chinese(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text or "")


def check_chinese_page(context, origin: str, refs, package) -> list[str]:
    """(c) The Chinese page: its words are Chinese; a typed sentence, greedy, as Python;
    its refusals and warnings."""
    from check_browser import open_page

    log: list[str] = []
    page = open_page(context, origin, ZH_PAGE, log)
    page.goto(f"{origin}/{ZH_PAGE}", wait_until="load")
    page.evaluate("window.liveTranslator.ready")
    problems = []
    status = page.locator("#lt-status").text_content()
    if not has_chinese(status):
        problems.append(f"{ZH_PAGE}: live: the status line is not Chinese: {status!r}")
    button = page.locator("#lt-go").text_content()
    if not has_chinese(button):
        problems.append(f"{ZH_PAGE}: live: the button is not Chinese: {button!r}")
    ref = refs[0]
    page.locator("#lt-text").fill(ref["text"])
    page.locator("#lt-greedy").check()
    page.locator("#lt-go").click()
    page.wait_for_function("window.liveTranslator.runs >= 1 || document.getElementById"
                           "('lt-app').dataset.state === 'error'", timeout=30000)
    last = (page.evaluate("window.liveTranslator.last") or {"sentences": [{}]})["sentences"]
    problems += [p.replace(PAGE, ZH_PAGE, 1) for p in
                 differs("sentence 0, greedy, typed", "tokens", last[0].get("tokens"),
                         ref["greedy"])]
    caption = page.evaluate("document.querySelector('#lt-cross svg')?.getAttribute('aria-label')"
                            " || document.querySelector('#lt-cross')?.textContent")
    if not has_chinese(caption):
        problems.append(f"{ZH_PAGE}: live: the heat map's caption is not Chinese: {caption!r}")
    problems += check_chinese_verdicts(page, package, ZH_PAGE)
    page.close()
    return problems + log


def check_file_url(context, html_dir: Path, name: str = PAGE,
                   status_id: str = "#lt-status") -> list[str]:
    """Page ``name`` opened as a file: its status line (``status_id``) says in one line to
    run `make serve` (nothing fetched off file://). The live writer's page too."""
    page = context.new_page()
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:")
               else r.abort())
    page.goto((html_dir / name).resolve().as_uri(), wait_until="load")
    status = page.locator(status_id).text_content()
    page.close()
    if "make serve" not in status:
        return [f"{name}: live: opened from file:// it says {status!r}, not to run make serve"]
    return []


def live_files(html_dir: Path) -> tuple[dict | None, list[str]]:
    """The page's manifest, or why the page cannot be checked."""
    if not (html_dir / PAGE).is_file():
        return None, [f"{PAGE}: live: the page was not built"]
    manifest_path = html_dir / "_static" / "live" / "manifest.json"
    if not manifest_path.is_file():
        return None, [f"{PAGE}: live: no model files (scripts/export_onnx.py did not run or "
                      f"failed)"]
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    if not manifest["runtime"]:
        return None, [f"{PAGE}: live: no onnxruntime-web in _static/vendor/ (npm ci failed?)"]
    return manifest, []


def check(context, origin: str, html_dir: Path) -> list[str]:
    from check_browser import open_page
    from playwright.sync_api import Error

    manifest, problems = live_files(html_dir)
    if manifest is None:
        return problems
    start = time.perf_counter()
    refs = python_translations(N_SENTENCES)
    python_s = time.perf_counter() - start
    log: list[str] = []
    page = open_page(context, origin, PAGE, log)
    page.goto(f"{origin}/{PAGE}", wait_until="load")
    typed = "skipped"
    try:
        page.evaluate("window.liveTranslator.ready")
        problems += check_ids(page, refs, manifest)
        if manifest["tokenizer_js"]:
            problems += check_typed(page, refs[:N_TYPED])
            typed = f"{N_TYPED} typed"
            shots = html_dir.parent / "screenshots"
            shots.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(shots / "live_translator_translated.png"), full_page=True)
        else:
            print("live translator: typing SKIPPED: this build has no "
                  "_static/live/tokenizer.js (only ids in, ids out checked)")
    except Error as error:  # the page broke: say where, let the other checks run
        problems.append(f"{PAGE}: live: {str(error).splitlines()[0][:200]} (status: "
                        f"{page.locator('#lt-status').text_content()!r})")
    page.close()
    problems += log + check_file_url(context, html_dir)
    print(f"live translator: {len(refs)} held-out sentences, greedy and beam {BEAM}, ids in "
          f"and {typed}: {len(problems)} problem(s) in {time.perf_counter() - start:.0f} s "
          f"(Python's own translations {python_s:.0f} s of it)", flush=True)
    return problems
