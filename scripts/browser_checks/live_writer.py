"""The live writer page (chapters/live_writer.md) against the Python package.

Held-out prompts (the first words of test-split English sentences), written by the page
in the browser, must equal ``illustrated.decoder_only.sampling.generate`` on the shipped
decoder-only model, token for token: greedy, and sampled with fixed seeds and settings (temperature,
top-k, top-p).

(a) ids in, ids out: ``window.liveWriter.writeIds`` on Python's prompt ids; each step's
    uniform number and drawn id exactly, its distribution's largest probabilities to
    1e-4 (onnxruntime's float32 against torch's);
(b) as a reader: N_TYPED prompts typed into the box, the mode and settings set, Write
    pressed: the page's prompt ids (its JavaScript tokenizer), written ids and text are
    Python's; it shows one chip per written piece and, at each step, the distribution's
    bars with the drawn piece marked;
(c) odd inputs (a prompt too long for max_len, settings out of range or not numbers):
    the page refuses them in the command's words (``python -m illustrated generate`` run
    on the command line the form stands for, tests/test_live_writer.py's command_says);
    an empty prompt is written from ``<bos>``, as the command writes it;
(d) the Chinese edition's copy: its words are Chinese, a typed prompt is written as
    Python writes it, a refusal is in Chinese;
and opened from file://, the page says in one line to run `make serve`.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from browser_checks.live_translator import check_file_url

ROOT = Path(__file__).resolve().parents[2]

PAGE = "chapters/live_writer.html"
ZH_PAGE = "zh/" + PAGE
N_PROMPTS, N_TYPED, MAX_NEW = 12, 3, 20
# The settings each prompt is written with, in turn (generate's keyword arguments).
SETTINGS = [{"temperature": 0.0}, {"seed": 1},
            {"temperature": 0.8, "top_k": 40, "seed": 7},
            {"temperature": 1.2, "top_p": 0.9, "seed": 2**32 - 1},
            {"temperature": 0.7, "top_k": 10, "top_p": 0.8, "seed": 34}]
TOL = 1e-4


def _js(options: dict) -> dict:
    """generate's keyword arguments as writer.mjs's options."""
    names = {"temperature": "temperature", "top_k": "topK", "top_p": "topP", "seed": "seed"}
    out = {"temperature": 1.0, "topK": 0, "topP": 1.0, "seed": 0, "maxNewTokens": MAX_NEW}
    out.update({names[k]: v for k, v in options.items()})
    return out


def python_writings(n: int) -> list[dict]:
    """The first ``n`` held-out prompts, then the empty one: text, the command's prompt
    ids, settings, ids written and a summary of each step."""
    from illustrated.commands.generate import prompt_ids
    from illustrated.decoder_only.sampling import generate
    from illustrated.decoder_only.training import load_lm
    from illustrated.translator.corpus import load_split

    model, tok, _ = load_lm()
    texts = [" ".join(en.split()[:1 + i % 4]) for i, (_, en) in
             enumerate(load_split().test[:n])]
    out = []
    for i, text in enumerate(texts + [""]):
        ids = prompt_ids(tok, text, model.config.max_len)
        options, trace = SETTINGS[i % len(SETTINGS)], []
        new = generate(model, ids, MAX_NEW, eos_id=tok.eos_id, trace=trace, **options)
        top = [sorted(range(len(s["probs"])), key=lambda j: -s["probs"][j])[:10]
               for s in trace]
        out.append({"text": text, "ids": ids, "options": options, "new": new,
                    "written": tok.decode(ids + new),
                    "trace": [{"u": s["u"], "chosen": s["chosen"],
                               "top": [[j, s["probs"][j]] for j in t]}
                              for s, t in zip(trace, top)]})
    return out


# (what, prompt, the form's fields that differ from tests/test_live_writer.FORM)
ODD = [("too long", "hello " * 70, {}), ("negative temperature", "I am", {"temperature": "-1"}),
       ("no temperature", "I am", {"temperature": ""}), ("top-p 0", "I am", {"topP": "0"}),
       ("top-k 1.5", "I am", {"topK": "1.5"}), ("seed -1", "I am", {"seed": "-1"}),
       ("seed 2**32", "I am", {"seed": "4294967296"}),
       ("max tokens 0", "I am", {"maxNewTokens": "0"})]


def odd_inputs(max_len: int) -> list[tuple[str, str, dict, str]]:
    """(what, prompt, fields, the command's message) for inputs the command refuses."""
    from illustrated.commands.generate import prompt_ids
    from illustrated.decoder_only.training import load_lm

    sys.path.insert(0, str(ROOT))
    from tests.test_live_writer import FORM, command_says

    _, tok, _ = load_lm()
    out = []
    for what, prompt, odd in ODD:
        fields = {**FORM, **odd}
        message = command_says(fields)
        if message is None:
            try:
                prompt_ids(tok, prompt, max_len)
            except ValueError as error:
                message = str(error)
        assert message, f"the command accepts the odd input {what!r}"
        out.append((what, prompt, fields, message))
    return out


def differs(page: str, how: str, what: str, got, want) -> list[str]:
    return [] if got == want else [f"{page}: live: {how}: {what} {got} != Python's {want}"]


def trace_differences(got: list, want: list) -> list[str]:
    """Steps, u and drawn ids exactly; the probabilities of Python's ten most likely ids
    (``probs``: the page's, of those ids) to TOL."""
    if len(got) != len(want):
        return [f"{len(got)} steps, Python {len(want)}"]
    out = []
    for i, (g, w) in enumerate(zip(got, want)):
        if g["u"] != w["u"] or g["chosen"] != w["chosen"] or any(
                abs(p - q) > TOL for p, (_, q) in zip(g["probs"], w["top"])):
            out.append(f"step {i + 1}: u {g['u']} drew {g['chosen']} (top {g['probs'][:3]}), "
                       f"Python u {w['u']} drew {w['chosen']} (top {w['top'][:3]})")
    return out[:3]


def check_ids(page, refs) -> list[str]:
    """(a) writeIds on Python's prompt ids."""
    problems = []
    for i, ref in enumerate(refs):
        tops = [[j for j, _ in step["top"]] for step in ref["trace"]]
        got = page.evaluate("""async ([ids, o, tops]) => {
            const r = await window.liveWriter.writeIds(ids, o);
            return {ids: r.ids, trace: r.trace.map((s, i) => ({u: s.u, chosen: s.chosen,
                    probs: (tops[i] ?? []).map(j => s.probs[j])}))}; }""",
                            [ref["ids"], _js(ref["options"]), tops])
        how = f"prompt {i} ({ref['text']!r}), {ref['options']}, ids in"
        problems += differs(PAGE, how, "ids", got["ids"], ref["new"])
        problems += [f"{PAGE}: live: {how}: {m}"
                     for m in trace_differences(got["trace"], ref["trace"])]
    return problems


def submit(page, text: str, options: dict) -> dict:
    """Type the prompt, set the mode and the settings, press Write; the page's answer."""
    runs = page.evaluate("window.liveWriter.runs")
    page.locator("#lw-prompt").fill("")
    page.locator("#lw-prompt").press_sequentially(text)
    o = _js(options)
    greedy = options == {"temperature": 0.0}
    page.locator("#lw-greedy" if greedy else "#lw-sample").check()
    for name, key in (("temperature", "temperature"), ("top-k", "topK"), ("top-p", "topP"),
                      ("seed", "seed")):
        page.locator(f"#lw-{name}").fill(str(o[key]))
    page.locator("#lw-max").fill(str(MAX_NEW))
    page.locator("#lw-go").click()
    page.wait_for_function(f"window.liveWriter.runs >= {runs + 1} || document."
                           "getElementById('lw-app').dataset.state === 'error'", timeout=30000)
    return page.evaluate("window.liveWriter.last")


# What the reader sees: the written chips, the step view's bars, the chosen row.
SHOWN_JS = """() => ({
  chips: [...document.querySelectorAll('#lw-written .lw-token')].length,
  prompt: [...document.querySelectorAll('#lw-prompt-pieces .lw-token')].length,
  bars: [...document.querySelectorAll('#lw-step-view tr')].map(r => +r.dataset.id),
  chosen: [...document.querySelectorAll('#lw-step-view tr.lw-chosen')].map(r => +r.dataset.id),
  text: document.getElementById('lw-text').textContent,
  status: document.getElementById('lw-status').textContent})"""


def check_typed(page, refs, name: str = PAGE) -> list[str]:
    """(b) prompts typed, Write pressed; what the page shows."""
    problems = []
    for i, ref in enumerate(refs):
        last = submit(page, ref["text"], ref["options"])
        how = f"prompt {i} ({ref['text']!r}), {ref['options']}, typed"
        if not last or last.get("refusal") or last.get("ids") is None:
            problems.append(f"{name}: live: {how}: nothing written ({last and last['refusal']}"
                            f"; {page.locator('#lw-status').text_content()})")
            continue
        problems += differs(name, how, "prompt ids", last["promptIds"], ref["ids"])
        problems += differs(name, how, "ids", last["ids"], ref["new"])
        problems += differs(name, how, "text", last["text"], ref["written"])
        shown = page.evaluate(SHOWN_JS)
        problems += differs(name, how, "chips (prompt, written)",
                            [shown["prompt"], shown["chips"]], [len(ref["ids"]), len(ref["new"])])
        last_step = ref["trace"][-1]
        if shown["chosen"] != [last_step["chosen"]] or not 1 <= len(shown["bars"]) <= 11:
            problems.append(f"{name}: live: {how}: the last step shows bars {shown['bars']}, "
                            f"marked {shown['chosen']}; Python drew {last_step['chosen']}")
    # The slider shows another step: its drawn piece marked.
    if refs and len(refs[-1]["new"]) > 1:
        page.locator("#lw-step").fill("1")
        shown = page.evaluate(SHOWN_JS)
        problems += differs(name, "step 1 picked on the slider", "marked piece",
                            shown["chosen"], [refs[-1]["trace"][0]["chosen"]])
    return problems


def refused(page, text: str, fields: dict) -> list:
    """Type ``text``, set the form's ``fields`` (strings, as typed), press Write: the
    page's [refusal, status line]."""
    runs = page.evaluate("window.liveWriter.runs")
    page.locator("#lw-prompt").fill(text)
    page.locator("#lw-greedy" if fields["greedy"] else "#lw-sample").check()
    for field, key in (("temperature", "temperature"), ("top-k", "topK"),
                       ("top-p", "topP"), ("seed", "seed"), ("max", "maxNewTokens")):
        page.locator(f"#lw-{field}").fill(fields[key])
    page.locator("#lw-go").click()
    page.wait_for_function(f"window.liveWriter.runs >= {runs + 1}", timeout=30000)
    return page.evaluate("[window.liveWriter.last.refusal, "
                         "document.getElementById('lw-status').textContent]")


def check_odd(page, cases) -> list[str]:
    """(c) each odd input refused in the command's words, in the status line."""
    problems = []
    for what, text, fields, message in cases:
        got = refused(page, text, fields)
        if got != [message, message]:
            problems.append(f"{PAGE}: live: odd input ({what}): the page says {got[1]!r} "
                            f"(refusal {got[0]!r}), the command {message!r}")
    return problems


def check_chinese(context, origin: str, refs, cases) -> list[str]:
    """(d) The Chinese page: Chinese words, Python's ids, a Chinese refusal."""
    from check_browser import open_page

    log: list[str] = []
    page = open_page(context, origin, ZH_PAGE, log)
    page.goto(f"{origin}/{ZH_PAGE}", wait_until="load")
    page.evaluate("window.liveWriter.ready")
    zh = lambda s: any("\u4e00" <= c <= "\u9fff" for c in s or "")  # noqa: E731
    problems = [f"{ZH_PAGE}: live: not Chinese: {s!r}" for s in (
        page.locator("#lw-status").text_content(), page.locator("#lw-go").text_content())
        if not zh(s)]
    problems += check_typed(page, refs[:1], ZH_PAGE)
    # Refused in Chinese (tests/test_live_writer.py checks that the Chinese words refuse
    # where the English do).
    for what, text, fields, _ in cases[:2]:
        refusal, said = refused(page, text, fields)
        if not zh(said) or refusal != said:
            problems.append(f"{ZH_PAGE}: live: odd input ({what}): not refused in Chinese: "
                            f"{said!r}")
    page.close()
    return problems + log


def check(context, origin: str, html_dir: Path) -> list[str]:
    from check_browser import open_page
    from playwright.sync_api import Error

    if not (html_dir / PAGE).is_file():
        return [f"{PAGE}: live: the page was not built"]
    path = html_dir / "_static" / "live" / "writer.json"
    if not path.is_file():
        return [f"{PAGE}: live: no model files (scripts/export_onnx.py did not run or failed)"]
    manifest = json.loads(path.read_text(encoding="utf-8"))
    if not (manifest["runtime"] and manifest["tokenizer_js"]):
        return [f"{PAGE}: live: no onnxruntime-web or tokenizer.js in this build"]
    start = time.perf_counter()
    refs, cases = python_writings(N_PROMPTS), odd_inputs(manifest["max_len"])
    python_s = time.perf_counter() - start
    log: list[str] = []
    page = open_page(context, origin, PAGE, log)
    page.goto(f"{origin}/{PAGE}", wait_until="load")
    problems = []
    try:  # the English page, then the Chinese one
        page.evaluate("window.liveWriter.ready")
        problems += check_ids(page, refs)
        problems += check_typed(page, refs[:N_TYPED - 1] + refs[-1:])  # and the empty one
        shots = html_dir.parent / "screenshots"
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / "live_writer_written.png"), full_page=True)
        problems += check_odd(page, cases)
        page.close()
        if (html_dir / ZH_PAGE).is_file():
            problems += check_chinese(context, origin, refs, cases)
    except Error as error:  # a page broke: say where, let the other checks run
        problems.append(f"{PAGE} (or its Chinese copy): live: "
                        f"{str(error).splitlines()[0][:200]}")
    problems += log + check_file_url(context, html_dir, PAGE, "#lw-status")
    print(f"live writer: {len(refs)} prompts, greedy and sampled, ids in and "
          f"{N_TYPED} typed, {len(cases)} odd inputs, the Chinese page: {len(problems)} "
          f"problem(s) in {time.perf_counter() - start:.0f} s (Python's own {python_s:.0f} s "
          "of it)", flush=True)
    return problems
