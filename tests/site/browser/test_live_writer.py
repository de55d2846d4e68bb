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
    Python's; it shows one chip per written token and opens on step 1's bars, the token
    written marked;
(e) the page teaches sampling: the model's distribution beside the one after the settings,
    in both modes, with ``generate --steps``'s numbers; greedy greys out the settings it
    ignores and shows no u; sampling draws u's slice on a strip of the kept tokens in id
    order (as ``draw`` walks them); each column's bars scaled to its largest value; a
    changed setting writes again; ``▁`` explained and the book's word, token;
(c) odd inputs (a prompt too long for max_len, settings out of range or not numbers):
    the page refuses them in the command's words (``python -m illustrated generate`` run
    on the command line the form stands for, tests/test_live_writer.py's command_says);
    an empty prompt is written from ``<bos>``, as the command writes it;
(d) the Chinese edition's copy: its words are Chinese, a typed prompt is written as
    Python writes it, a refusal is in Chinese; without JavaScript each edition's status
    line says so in its own language, and the form, which could do nothing, is hidden.
(Opened from file://, the page says in one line to run `make serve`: test_file_pages.py.)
"""
from __future__ import annotations

import json

import re

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
        out.append({"text": text, "ids": ids, "options": options, "new": new,
                    "written": tok.decode(ids + new),
                    "trace": [_step_summary(s) for s in trace]})
    return out


def _step_summary(s: dict) -> dict:
    """A step of ``generate``'s trace, as the tests read it: u, the id drawn, the ten most
    likely ids after the settings with their probabilities, the model's ten most likely
    (ties: the lower id) with both probabilities, and the drawn token's slice."""
    from tests.site.browser.package import token_slice

    top = sorted(range(len(s["probs"])), key=lambda j: -s["probs"][j])[:10]
    rows = sorted(range(len(s["model"])), key=lambda j: (-s["model"][j], j))[:10]
    rows += [] if s["chosen"] in rows else [s["chosen"]]
    return {"u": s["u"], "chosen": s["chosen"], "top": [[j, s["probs"][j]] for j in top],
            "rows": [[j, s["model"][j], s["probs"][j]] for j in rows],
            "slice": token_slice(s["probs"], s["chosen"])}


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


NUMBER = re.compile(r"\d+\.\d+")


def same_but_rounding(got: str, want: str) -> bool:
    """Equal texts, except that a printed number may differ by one unit of its last digit:
    the page's probabilities come from onnxruntime's float32, Python's from torch's, and a
    value within float32 noise of a rounding boundary may round either way."""
    g, w = NUMBER.split(got), NUMBER.split(want)
    gn, wn = NUMBER.findall(got), NUMBER.findall(want)
    return g == w and len(gn) == len(wn) and all(
        len(a) == len(b) and abs(float(a) - float(b)) <= 1.01 * 10 ** -len(a.split(".")[1])
        for a, b in zip(gn, wn))


def same_order(got: list, rows: list) -> bool:
    """The page's ids in Python's order (``rows``: [id, model p, ...]), except two
    neighbours whose model probabilities are within TOL (a near-tie) may be swapped."""
    want = [j for j, *_ in rows]
    if sorted(got) != sorted(want):
        return False
    p = {j: m for j, m, *_ in rows}
    return all(a == b or abs(p[a] - p[b]) < TOL for a, b in zip(got, want))
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
    page.locator("#lw-sample").check()  # greedy greys the settings out: fill them first
    for name, key in (("temperature", "temperature"), ("top-k", "topK"), ("top-p", "topP"),
                      ("seed", "seed")):
        page.locator(f"#lw-{name}").fill(str(o[key]))
    page.locator("#lw-max").fill(str(MAX_NEW))
    page.locator("#lw-greedy" if greedy else "#lw-sample").check()
    page.locator("#lw-go").click()
    settle(page, runs)
    return page.evaluate("window.liveWriter.last")


def settle(page, runs: int) -> None:
    """Wait for a writing after the ``runs``-th, and for no other in progress or due (a
    changed setting writes again)."""
    page.wait_for_function(f"(window.liveWriter.runs >= {runs + 1} && window.liveWriter.idle())"
                           " || document.getElementById('lw-app').dataset.state === 'error'",
                           timeout=60000)


# What the reader sees: the written chips, the step view's bars, the chosen row.
SHOWN_JS = """() => ({
  chips: [...document.querySelectorAll('#lw-written .lw-token')].length,
  prompt: [...document.querySelectorAll('#lw-prompt-pieces .lw-token')].length,
  bars: [...document.querySelectorAll('#lw-step-view .lw-bars tr[data-id]')].map(r => +r.dataset.id),
  chosen: [...document.querySelectorAll('#lw-step-view .lw-bars tr.lw-chosen')].map(r => +r.dataset.id),
  rows: [...document.querySelectorAll('#lw-step-view .lw-bars tr[data-id]')].map(r =>
    [+r.dataset.id, ...[...r.cells].map(c => c.textContent)]),
  widths: ['lw-model', 'lw-after'].map(c => [...document.querySelectorAll(
    `#lw-step-view .lw-bars td.${c} .lw-bar`)].map(b => parseFloat(b.style.width))),
  slice: (e => e && {text: e.textContent, ...e.dataset})(
    document.querySelector('#lw-step-view .lw-slice')),
  strip: document.querySelectorAll('#lw-step-view .lw-strip').length,
  chosenLeft: (e => e && parseFloat(e.style.left))(document.querySelector('.lw-s-chosen')),
  uLeft: (e => e && parseFloat(e.style.left))(document.querySelector('.lw-u')),
  view: document.getElementById('lw-step-view').textContent,
  step: +document.getElementById('lw-step').value,
  where: document.getElementById('lw-where').textContent,
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
    first = ref["trace"][0]
    if shown["step"] != 1 or shown["chosen"] != [first["chosen"]] or \
            not same_order(shown["bars"], first["rows"]):
        problems.append(f"the view shows step {shown['step']}, bars {shown['bars']}, marked "
                        f"{shown['chosen']}; Python's step 1 drew {first['chosen']} "
                        f"(most likely {[j for j, _, _ in first['rows']]})")
    return problems


def refused(page, text: str, fields: dict) -> list:
    """Type ``text``, set the form's ``fields`` (strings, as typed), press Write: the
    page's [refusal, status line]."""
    runs = page.evaluate("window.liveWriter.runs")
    page.locator("#lw-prompt").fill(text)
    page.locator("#lw-sample").check()  # greedy greys the settings out: fill them first
    for field, key in (("temperature", "temperature"), ("top-k", "topK"),
                       ("top-p", "topP"), ("seed", "seed"), ("max", "maxNewTokens")):
        page.locator(f"#lw-{field}").fill(fields[key])
    page.locator("#lw-greedy" if fields["greedy"] else "#lw-sample").check()
    page.locator("#lw-go").click()
    settle(page, runs)
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


def test_the_view_opens_on_step_1_and_the_slider_shows_another(english, refs, screenshots):
    tab, _ = english
    ref = refs[-1]  # the empty prompt: written from <bos>, many steps
    assert len(ref["new"]) > 1
    assert not typed_problems(tab, ref)  # on step 1 once written
    tab.screenshot(path=str(screenshots / "live_writer_written.png"), full_page=True)
    tab.locator("#lw-step").fill(str(len(ref["new"])))
    shown = tab.evaluate(SHOWN_JS)
    assert shown["chosen"] == [ref["trace"][-1]["chosen"]], \
        f"the last step picked on the slider marks {shown['chosen']}, Python drew " \
        f"{ref['trace'][-1]['chosen']}"


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
    assert tab.locator("#lw-form").is_visible(), "writer.mjs did not show the form"
    for said in (tab.locator("#lw-status").text_content(), tab.locator("#lw-go").text_content(),
                 tab.locator("#lw-greedy-note").text_content(),
                 tab.locator("label:has(#lw-max)").text_content()):
        assert zh(said), f"not Chinese: {said!r}"


@pytest.mark.parametrize("name", [PAGE, ZH_PAGE], ids=["en", "zh"])
def test_without_javascript_the_page_says_so_in_its_language(browser, origin, site, name):
    seen = tabs.without_javascript(browser, origin, name, ["#lw-status", "#lw-form"])
    said = seen["#lw-status"] or ""  # one of its two texts: English, or Chinese
    assert "JavaScript" in said and zh(said) == (name == ZH_PAGE) != ("browser" in said), \
        f"without JavaScript {name} says {said!r}"
    assert seen["#lw-form"] is None, \
        f"without JavaScript {name} shows the form, which can do nothing: {seen['#lw-form']!r}"


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


# ------------------------------------------- (e) the page teaches sampling
def command_steps(text: str, options: dict) -> list[str]:
    """``python -m illustrated generate TEXT --steps`` with these settings: its step lines."""
    import contextlib
    import io

    from tests.site.browser.package import generate_command

    argv = ["--greedy"] if options == {"temperature": 0.0} else [
        "--temperature", str(options.get("temperature", 1.0)),
        "--top-k", str(options.get("top_k", 0)), "--top-p", str(options.get("top_p", 1.0)),
        "--seed", str(options.get("seed", 0))]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert generate_command.main([*argv, "--steps", "--max-new-tokens", str(MAX_NEW),
                                      "--", text]) == 0
    return out.getvalue().splitlines()[1:]


def view_step(page, step: int) -> dict:
    page.locator("#lw-step").fill(str(step))
    return page.evaluate(SHOWN_JS)


def sampled(refs) -> dict:
    """A sampled writing with a step whose token is not the first kept one (its slice starts
    after 0), the first such."""
    return next(r for r in refs if r["options"] != {"temperature": 0.0}
                and any(s["slice"][0] > 0.05 for s in r["trace"]))


def test_greedy_greys_out_what_it_ignores_and_shows_no_u(english, refs, screenshots):
    tab, _ = english
    ref = refs[0]
    assert ref["options"] == {"temperature": 0.0}
    assert not typed_problems(tab, ref)
    off = tab.evaluate("""() => ['temperature', 'top-k', 'top-p', 'seed'].map(
        n => document.getElementById('lw-' + n).disabled)""")
    note = tab.locator("#lw-greedy-note")
    shown = tab.evaluate(SHOWN_JS)
    tab.screenshot(path=str(screenshots / "live_writer_greedy.png"), full_page=True)
    assert off == [True] * 4 and note.is_visible(), f"greedy leaves settings on: {off}"
    assert "u =" not in shown["view"] and shown["strip"] == 0 and shown["slice"] is None, \
        "greedy shows a u"
    model = [p for _, p, _ in ref["trace"][0]["rows"]]
    assert shown["chosen"] == [shown["bars"][0]] and model[0] == max(model), \
        "greedy's marked token is not the model's most likely"
    tab.locator("#lw-sample").check()
    settle(tab, tab.evaluate("window.liveWriter.runs") - 1)
    back = tab.evaluate("['temperature', 'seed'].map(n => document.getElementById('lw-' + n)"
                        ".disabled)")
    assert back == [False, False] and not note.is_visible()


@pytest.mark.parametrize("mode", ["greedy", "sampling"])
def test_both_distributions_are_shown_with_the_commands_numbers(english, refs, mode):
    """Each shown step's rows: the model's probability and the one after the settings, as
    generate --steps prints them for the token written (and the u and slice)."""
    tab, _ = english
    ref = refs[0] if mode == "greedy" else sampled(refs)
    lines = command_steps(ref["text"], ref["options"])
    assert not typed_problems(tab, ref)
    from tests.site.browser.package import percent, slice_words

    problems = []
    for i, (step, line) in enumerate(list(zip(ref["trace"], lines))[:6]):
        shown = view_step(tab, i + 1)
        want = {j: [percent(m), percent(p)] for j, m, p in step["rows"]}
        got = [[r[0], r[2], r[3]] for r in shown["rows"]]
        if not same_order([j for j, _, _ in got], step["rows"]) or not all(
                same_but_rounding(f"{m} {p}", " ".join(want[j])) for j, m, p in got):
            problems.append(f"step {i + 1}: page rows {got[:3]}, Python {want}")
        row = next(r for r in shown["rows"] if r[0] == step["chosen"])
        said = f"{row[1]:<14} model {row[2]}, after the settings {row[3]}"
        if mode == "sampling":
            said += f"; {shown['slice']['text'].split(': ', 1)[1]}"
            page_slice = shown["slice"]["text"].split(": ", 1)[1]
            assert same_but_rounding(page_slice, slice_words(step["u"], *step["slice"])), \
                f"step {i + 1}: page {page_slice!r}, Python {slice_words(step['u'], *step['slice'])!r}"
        if not same_but_rounding(line[2:2 + len(said)], said) or not line.startswith("  "):
            problems.append(f"step {i + 1}: page {said!r}, command {line!r}")
    assert not problems, "\n".join(problems)


def test_u_falls_in_the_drawn_tokens_slice_on_the_strip(english, refs, screenshots):
    """The strip lays the kept tokens end to end in id order, as draw walks them: the slice
    marked is the one draw gave the token written, and u lies in it."""
    tab, _ = english
    ref = sampled(refs)
    assert not typed_problems(tab, ref)
    i = next(k for k, s in enumerate(ref["trace"]) if s["slice"][0] > 0.05)
    shown = view_step(tab, i + 1)
    tab.screenshot(path=str(screenshots / "live_writer_sampling.png"), full_page=True)
    step, got = ref["trace"][i], shown["slice"]
    start, end = float(got["start"]), float(got["end"])
    assert abs(start - step["slice"][0]) < TOL and abs(end - step["slice"][1]) < TOL, \
        f"step {i + 1}: the page's slice [{start}, {end}), draw's {step['slice']}"
    assert start <= step["u"] < end and float(got["u"]) == step["u"]
    assert shown["strip"] == 1 and abs(shown["chosenLeft"] - 100 * start) < 1e-3  # CSS rounds
    assert abs(shown["uLeft"] - 100 * step["u"]) < 1e-3
    # each slice next to u's comes with its probability, "<0.1 %" for one too thin to show
    around = tab.evaluate("[...document.querySelectorAll('.lw-around tr')].map(tr => "
                          "[...tr.cells].map(c => c.textContent))")
    assert around and all(re.fullmatch(r"<0\.1 %|\d+\.\d %", row[2]) for row in around), around


def test_each_columns_bars_are_scaled_to_its_largest(english, refs):
    """A flat distribution (temperature 5) still fills its column: the largest bar of each
    column is as wide as the widest bar can be."""
    tab, _ = english
    ref = {**refs[1], "options": {"temperature": 5.0, "seed": 1}}
    submit(tab, ref["text"], ref["options"])
    widths = tab.evaluate(SHOWN_JS)["widths"]
    assert [max(w) for w in widths] == [100, 100], f"largest bars {[max(w) for w in widths]}"
    assert min(widths[1][:10]) > 12, f"a flat distribution drawn as slivers: {widths[1]}"


def test_a_changed_setting_writes_again(english, refs):
    tab, _ = english
    ref = refs[1]  # sampled, seed 1
    assert not typed_problems(tab, ref)
    runs = tab.evaluate("window.liveWriter.runs")
    tab.locator("#lw-seed").fill("2")
    tab.locator("#lw-seed").press("Tab")  # the input's change event
    settle(tab, runs)
    last = tab.evaluate("window.liveWriter.last")
    assert last["options"]["seed"] == 2, "a new seed left the old writing on screen"
    from tests.site.browser.package import generate, load_lm

    model, tok, _ = load_lm()
    want = generate(model, ref["ids"], MAX_NEW, seed=2, eos_id=tok.eos_id)
    shown = tab.evaluate(SHOWN_JS)
    assert last["ids"] == want and shown["chips"] == len(want) and shown["step"] == 1
    runs = tab.evaluate("window.liveWriter.runs")
    tab.locator("#lw-greedy").check()
    settle(tab, runs)
    assert tab.evaluate("window.liveWriter.last.options.temperature") == 0
    assert tab.evaluate(SHOWN_JS)["strip"] == 0


def test_the_page_says_token_and_explains_the_word_start(english, refs):
    tab, _ = english
    assert not typed_problems(tab, sampled(refs))  # every part of the view on screen
    text = tab.evaluate("document.querySelector('article').innerText")
    assert "piece" not in text.lower(), [line for line in text.splitlines()
                                         if "piece" in line.lower()][:3]
    assert tab.locator("label:has(#lw-max)").inner_text().strip() == "max tokens"
    note = tab.locator("#lw-out [data-msg=wordStart]")
    assert note.is_visible() and "▁" in note.inner_text() and "Ġ" in note.inner_text()
