"""The live writer page (chapters/live_writer.md) against the Python package.

Held-out prompts (the first words of test-split English sentences), written by the page
in the browser, must equal the package's ``generate`` on the shipped decoder-only model,
token for token, one test a prompt: greedy, and sampled with fixed seeds and settings
(temperature, top-k, top-p).

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
    Python writes it, a refusal is in Chinese.
(Opened from file://, the page says in one line to run `make serve`: test_file_pages.py.)
"""
from __future__ import annotations

import json

import pytest

from tests.site.browser import tabs


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
    from tests.site.browser.package import generate, load_lm, load_split, prompt_ids

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
    from tests.site.browser.package import load_lm, prompt_ids
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


def differs(what: str, got, want) -> list[str]:
    return [] if got == want else [f"{what} {got} != Python's {want}"]
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


def typed_problems(page, ref) -> list[str]:
    """(b) A prompt typed, Write pressed; what the page shows."""
    last = submit(page, ref["text"], ref["options"])
    if not last or last.get("refusal") or last.get("ids") is None:
        return [f"nothing written ({last and last['refusal']}; "
                f"{page.locator('#lw-status').text_content()})"]
    problems = differs("prompt ids", last["promptIds"], ref["ids"])
    problems += differs("ids", last["ids"], ref["new"])
    problems += differs("text", last["text"], ref["written"])
    shown = page.evaluate(SHOWN_JS)
    problems += differs("chips (prompt, written)", [shown["prompt"], shown["chips"]],
                        [len(ref["ids"]), len(ref["new"])])
    last_step = ref["trace"][-1]
    if shown["chosen"] != [last_step["chosen"]] or not 1 <= len(shown["bars"]) <= 11:
        problems.append(f"the last step shows bars {shown['bars']}, marked {shown['chosen']}; "
                        f"Python drew {last_step['chosen']}")
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


# ---------------------------------------------------------------- the tests
@pytest.fixture(scope="module")
def refs():
    return python_writings(N_PROMPTS)


@pytest.fixture(scope="module")
def cases(site):
    return odd_inputs(manifest(site)["max_len"])


def manifest(site) -> dict:
    assert (site / PAGE).is_file(), f"{PAGE} was not built"
    path = site / "_static" / "live" / "writer.json"
    assert path.is_file(), "no model files (scripts/export_onnx.py did not run or failed)"
    found = json.loads(path.read_text(encoding="utf-8"))
    assert found["runtime"] and found["tokenizer_js"], \
        "no onnxruntime-web or tokenizer.js in this build"
    return found


@pytest.fixture(scope="module")
def english(browser, origin, site):
    manifest(site)
    with tabs.live_page(browser, origin, PAGE, "window.liveWriter.ready") as opened:
        yield opened


@pytest.fixture(scope="module")
def chinese(browser, origin, site):
    manifest(site)
    with tabs.live_page(browser, origin, ZH_PAGE, "window.liveWriter.ready") as opened:
        yield opened


@pytest.mark.parametrize("i", range(N_PROMPTS + 1))
def test_ids_in_ids_out_as_python(english, refs, i):
    """(a) writeIds on Python's prompt ids (the last prompt is the empty one)."""
    tab, _ = english
    ref = refs[i]
    tops = [[j for j, _ in step["top"]] for step in ref["trace"]]
    got = tab.evaluate("""async ([ids, o, tops]) => {
        const r = await window.liveWriter.writeIds(ids, o);
        return {ids: r.ids, trace: r.trace.map((s, i) => ({u: s.u, chosen: s.chosen,
                probs: (tops[i] ?? []).map(j => s.probs[j])}))}; }""",
                       [ref["ids"], _js(ref["options"]), tops])
    problems = differs("ids", got["ids"], ref["new"]) + trace_differences(got["trace"],
                                                                          ref["trace"])
    assert not problems, f"{ref['text']!r}, {ref['options']}:\n" + "\n".join(problems)


@pytest.mark.parametrize("i", [*range(N_TYPED - 1), -1])  # and the empty prompt
def test_a_typed_prompt_is_written_as_python(english, refs, i):
    tab, _ = english
    problems = typed_problems(tab, refs[i])
    assert not problems, f"{refs[i]['text']!r}, {refs[i]['options']}:\n" + "\n".join(problems)


def test_the_slider_shows_another_step(english, refs, screenshots):
    tab, _ = english
    ref = refs[-1]  # the empty prompt: written from <bos>, many steps
    assert len(ref["new"]) > 1
    assert not typed_problems(tab, ref)
    tab.screenshot(path=str(screenshots / "live_writer_written.png"), full_page=True)
    tab.locator("#lw-step").fill("1")
    shown = tab.evaluate(SHOWN_JS)
    assert shown["chosen"] == [ref["trace"][0]["chosen"]], \
        f"step 1 picked on the slider marks {shown['chosen']}, Python drew {ref['trace'][0]['chosen']}"


@pytest.mark.parametrize("what", [what for what, _, _ in ODD])
def test_an_odd_input_is_refused_in_the_commands_words(english, cases, what):
    """(c) refused in the command's words, in the status line."""
    tab, _ = english
    _, text, fields, message = next(c for c in cases if c[0] == what)
    got = refused(tab, text, fields)
    assert got == [message, message], \
        f"the page says {got[1]!r} (refusal {got[0]!r}), the command {message!r}"


def test_the_english_page_worked_cleanly(english):
    _, watched = english
    assert not watched.problems(), "\n".join(watched.problems())


def zh(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text or "")


def test_the_chinese_page_speaks_chinese(chinese):
    tab, _ = chinese
    for said in (tab.locator("#lw-status").text_content(), tab.locator("#lw-go").text_content()):
        assert zh(said), f"not Chinese: {said!r}"


def test_the_chinese_page_writes_as_python(chinese, refs):
    tab, _ = chinese
    problems = typed_problems(tab, refs[0])
    assert not problems, f"{refs[0]['text']!r}:\n" + "\n".join(problems)


@pytest.mark.parametrize("what", [what for what, _, _ in ODD[:2]])
def test_the_chinese_page_refuses_in_chinese(chinese, cases, what):
    """(tests/test_live_writer.py checks that the Chinese words refuse where the English do.)"""
    tab, _ = chinese
    _, text, fields, _ = next(c for c in cases if c[0] == what)
    refusal, said = refused(tab, text, fields)
    assert zh(said) and refusal == said, f"not refused in Chinese: {said!r}"


def test_the_chinese_page_worked_cleanly(chinese):
    _, watched = chinese
    assert not watched.problems(), "\n".join(watched.problems())
