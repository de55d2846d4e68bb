"""What tests/site/browser/test_live_inputs.py types into the live translator page beyond
held-out sentences, what Python says about it, and what the page shows.

- Odd inputs (``odd_inputs``): several sentences on a line and on several lines, Chinese,
  Cyrillic, English, digits only, an over-long sentence, one longer in words than any
  training sentence, accented French with curly apostrophes, an empty box. Python's answer
  (``python_verdicts``) is the command's: each line of stdin, ``limits.split_sentences``,
  then ``check_sentence`` and, unless refused, ``greedy_decode`` and ``translate``.
- Decoding traces (``python_traces``): ``greedy_decode`` and ``beam_search`` given a
  ``trace`` list, the steps the page's decoding lab shows, recorded by the package itself.
"""
from __future__ import annotations

import inspect
import json
from contextlib import nullcontext
from unittest import mock

PAGE = "chapters/live_translator.html"
BEAM = 4
EXTRA, SHORT = 4, 4  # sentences also tried with beam sizes 1 and 8, and max_len SHORT
TEMPLATES = ("NO_WORDS", "NOT_LATIN", "TOO_LONG", "LONGER_THAN_TRAINING", "MOSTLY_UNKNOWN",
             "MORE", "UNKNOWN_WORDS", "DIGITS", "UNSEEN_SYMBOLS")
FILLER = ("le", "chat", "dort", "et", "la", "souris", "mange", "du", "pain")  # one piece each


def python_translations(n: int) -> list[dict]:
    """The first ``n`` test-split sentences: text, source ids, greedy and beam tokens."""
    from tests.site.browser.package import (MAX_LEN, beam_search, greedy_decode, load_split,
                                            load_translator, prepare, torch, translate)

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


def live_manifest(site) -> dict:
    """The page's manifest; an assertion says why the page cannot be tested."""
    assert (site / PAGE).is_file(), f"{PAGE} was not built"
    path = site / "_static" / "live" / "manifest.json"
    assert path.is_file(), "no model files (scripts/export_onnx.py did not run or failed)"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    assert manifest["runtime"], "no onnxruntime-web in _static/vendor/ (npm ci failed?)"
    return manifest


def reference():
    """The shipped translator, its tokenizer, what it read in training, MAX_LEN."""
    from tests.site.browser.package import MAX_LEN, load_translator, training_profile

    model, tok, blob = load_translator()
    return model, tok, training_profile(blob), MAX_LEN


def _pieces(tok, sentence: str) -> int:
    """``len(tokenizer.encode(prepare(sentence)))``: what check_sentence is given (0 for a
    sentence that prepare() empties: it has no words, and is refused before)."""
    from tests.site.browser.package import prepare

    prepared = prepare(sentence)
    return len(tok.encode(prepared)) if prepared else 0


def odd_inputs(tok, profile, max_len) -> list[tuple[str, str]]:
    """(what it tries, the text typed). The long ones are built from the profile, so that
    they still try what they say after the model is retrained."""
    long, words = [], []
    for w in (FILLER * 20):  # more words than any training sentence, at least 30 pieces
        words.append(w)
        long = " ".join(words).capitalize() + "."
        if len(words) > profile.max_words and _pieces(tok, long) >= 30:
            break
    too_long = " ".join(["anticonstitutionnellement"] * max_len) + "."
    return [
        ("three sentences on one line", "Je suis étudiant. Il fait beau ! Tu viens ?"),
        ("two lines, a blank line, digits", "J'ai faim.\n\nAllons manger.\n42 ?"),
        ("Chinese", "我是学生。"),
        ("Cyrillic", "Привет, как дела ?"),
        ("English", "I am a student and I like my cat."),
        ("digits only", "12345"),
        ("longer than training, wide heat maps", long),
        ("over-long", too_long),
        ("accents, curly apostrophes, no capital, no full stop",
         "l’été dernier, j’étais chez ma sœur"),
        ("French and Cyrillic", "Bonjour ! Je m'appelle Иван."),
        # the inputs, typed as a reader typed them
        ("ages and a count", "J'ai 25 ans et 3 chats."),
        ("names and a year", "Jean-Pierre habite à Saint-Étienne depuis 2019."),
        ("an emoji", "J'aime les chats 🐱 !"),
        ("a question, space before ?", "Tu viens ?"),
        ("a Chinese sentence between two French ones",
         "Je suis étudiant. 我是学生。 Tu es professeur."),
        ("a Cyrillic word", "Привет"),
        ("an empty box after a translation", ""),
    ]


def python_verdicts(model, tok, profile, max_len, text: str, templates=None) -> list[dict]:
    """The command's answer to ``text``, sentence by sentence: ``text``, ``refusal``,
    ``warnings`` and, if translated, ``ids``, ``tokens`` (greedy) and ``translation``.
    ``templates``: other words for the messages (the Chinese page's), put in place of
    illustrated.translator.limits' English for the call, so that Python's own check_sentence fills
    them."""
    from tests.site.browser.package import greedy_decode, limits, prepare, torch, translate

    out = []
    for line in text.split("\n"):  # stdin's lines, as illustrated.commands.common.input_lines
        for s in limits.split_sentences(line):
            with mock.patch.multiple(limits, **templates) if templates else nullcontext():
                v = limits.check_sentence(s, _pieces(tok, s), profile, max_len)
            row = {"text": s, "refusal": v.refusal, "warnings": list(v.warnings)}
            if v.refusal is None:
                ids = tok.encode(prepare(s))
                row["ids"] = ids
                row["tokens"] = greedy_decode(model, torch.tensor([ids]), max_len, tok.bos_id,
                                              tok.eos_id)[0].tolist()
                row["translation"], = translate(model, tok, [prepare(s)])
            out.append(row)
    return out


def python_traces(model, tok, french: str, max_len: int) -> dict:
    """The package's own record of decoding ``french``: ``greedy`` and ``beam`` (size BEAM,
    translate()'s length penalty), each a list of steps."""
    from tests.site.browser.package import beam_search, greedy_decode, prepare, torch, translate

    alpha = inspect.signature(translate).parameters["length_penalty"].default
    src = torch.tensor([tok.encode(prepare(french))])  # (1, S)
    greedy, beam = [], []
    greedy_decode(model, src, max_len, tok.bos_id, tok.eos_id, trace=greedy)
    beam_search(model, src, max_len, tok.bos_id, tok.eos_id, BEAM, length_penalty=alpha,
                trace=beam)
    # One source: row 0 of each greedy step, as the page records it ([id, logp] pairs).
    greedy = [{"top": [list(p) for p in zip(s["top_ids"][0], s["top_logp"][0])],
               "chosen": s["chosen"][0]} for s in greedy]
    return {"greedy": greedy, "beam": beam}


def trace_differences(got: list, want: list, tol: float = 2e-4) -> list[str]:
    """Where the page's trace (decoding.mjs) is not Python's: step count, pieces, choices,
    fates exactly; log-probabilities and scores to ``tol`` (ONNX Runtime's float32 against
    torch's)."""
    out = [] if len(got) == len(want) else [f"{len(got)} steps, Python {len(want)}"]
    close = lambda a, b: a is not None and b is not None and abs(a - b) <= tol  # noqa: E731
    for i, (g, w) in enumerate(zip(got, want)):
        if "chosen" in w:  # greedy
            same = ([t for t, _ in g["top"]] == [t for t, _ in w["top"]]
                    and all(close(a, b) for (_, a), (_, b) in zip(g["top"], w["top"])))
            if g["chosen"] != w["chosen"] or not same:
                out.append(f"step {i + 1}: top {g['top']} chose {g['chosen']}, Python "
                           f"{w['top']} chose {w['chosen']}")
            continue
        live = [h["tokens"] for h in g["live"]] == [h["tokens"] for h in w["live"]] and all(
            close(a["score"], b["score"]) for a, b in zip(g["live"], w["live"]))
        cands = [(c["tokens"], c["fate"]) for c in g["candidates"]] == [
            (c["tokens"], c["fate"]) for c in w["candidates"]] and all(
            close(a["score"], b["score"]) and close(a.get("final", 0), b.get("final", 0))
            for a, b in zip(g["candidates"], w["candidates"]))
        if not (live and cands):
            out.append(f"step {i + 1}: live {g['live']} candidates {g['candidates']}, Python "
                       f"live {w['live']} candidates {w['candidates']}"[:600])
    return out[:3]


def chinese_templates(page) -> dict:
    """The Chinese page's words for the limits' messages (messages.mjs, as the page has it)."""
    return page.evaluate("""async () => (await import(
        new URL('../_static/live/messages.mjs', location.href).href)).editions.zh.limits""")


# ---------------------------------------------------------------- the page's side

def submit(page, text: str | None, beam: int = 0) -> None:
    """Type ``text`` into the box (None: leave what is typed there), pick greedy or beam,
    press Translate, wait for the page's answer."""
    runs = page.evaluate("window.liveTranslator.runs")
    if text is not None:
        page.locator("#lt-text").fill(text)
    if beam:
        page.locator("#lt-beam").check()
        page.locator("#lt-beam-size").select_option(str(beam))
    else:
        page.locator("#lt-greedy").check()
    page.locator("#lt-go").click()
    page.wait_for_function(f"window.liveTranslator.runs >= {runs + 1} || document."
                           "getElementById('lt-app').dataset.state === 'error'", timeout=60000)


# What the reader sees: the list of sentences, and what is on screen below it.
SHOWN_JS = """() => {
  const app = document.getElementById('lt-app'), q = (s) => app.querySelector(s);
  const visible = (el) => !!el && !el.closest('[hidden]') && el.getClientRects().length > 0;
  return {
    sentences: [...app.querySelectorAll('#lt-sentences li.lt-sentence')].map(li => ({
      text: li.querySelector('.lt-french')?.textContent ?? null,
      translation: li.querySelector('.lt-translation')?.textContent ?? null,
      refusal: li.querySelector('.lt-refusal')?.textContent ?? null,
      warnings: [...li.querySelectorAll('.lt-warning')].map(w => w.textContent)})),
    status: q('#lt-status').textContent,
    maps: ['#lt-cross', '#lt-self'].map(id => { const svg = q(`${id} svg`);
      return svg && visible(svg) ? [+svg.dataset.rows, +svg.dataset.cols] : null; }),
    lab: visible(q('#lt-lab')) ? +q('#lt-lab-step').max : null,
    menu: visible(q('#lt-which')) ? [...q('#lt-which').options].map(o => +o.value) : null,
  };
}"""

# The widest map's figure: how wide its map is, how wide the figure shows it, and whether
# the figure or the page runs past the translator's box.
SCROLL_JS = """() => {
  const fig = document.querySelector('#lt-self').closest('figure');
  const svg = fig.querySelector('svg'), box = document.getElementById('lt-app');
  return {map: svg.getBoundingClientRect().width, shown: fig.clientWidth,
          scrolls: fig.scrollWidth > fig.clientWidth,
          past: fig.getBoundingClientRect().right - box.getBoundingClientRect().right,
          page: document.documentElement.scrollWidth - window.innerWidth,
          room: box.clientWidth};
}"""


ODD = ("three sentences on one line", "two lines, a blank line, digits", "Chinese", "Cyrillic",
       "English", "digits only", "longer than training, wide heat maps", "over-long",
       "accents, curly apostrophes, no capital, no full stop", "French and Cyrillic",
       "ages and a count", "names and a year", "an emoji", "a question, space before ?",
       "a Chinese sentence between two French ones", "a Cyrillic word",
       "an empty box after a translation")  # what odd_inputs tries, in its order
VERDICTS = {"translated", "nothing to translate", "not French", "too long",
            "longer than any sentence the model was trained on", "mostly unknown words",
            "words that occur in no French training sentence", "numbers",
            "symbols that occur in no French training sentence"}


def tried(want: list[dict]) -> set[str]:
    """The verdicts Python's answer to an input gives: refusals, warnings, translated."""
    return ({w["refusal"].split(":")[0] if w["refusal"] else "translated" for w in want}
            | {x.split(" (")[0] for w in want for x in w["warnings"]})


def odd_input_problems(page, want: list[dict], what: str, text: str) -> list[str]:
    """(d) An odd input typed, greedy: the page's answer is the command's, ``want``
    (:func:`python_verdicts`)."""
    problems = []
    submit(page, text)
    shown = page.evaluate(SHOWN_JS)
    last = page.evaluate("window.liveTranslator.last.sentences")
    if len(shown["sentences"]) != len(want) or len(last) != len(want):
        return [f"the page lists {[s['text'] for s in shown['sentences']]}, Python's "
                f"sentences are {[w['text'] for w in want]}"]
    for i, (seen, got, w) in enumerate(zip(shown["sentences"], last, want)):
        mine = {"text": seen["text"], "refusal": seen["refusal"], "warnings": seen["warnings"],
                "translation": seen["translation"]}
        theirs = {k: w.get(k) for k in mine}
        if mine != theirs:
            problems.append(f"sentence {i + 1} shows {mine}, the command says {theirs}")
        if "ids" in w and (got["srcIds"], got["tokens"]) != (w["ids"], w["tokens"]):
            problems.append(f"sentence {i + 1}: ids {got['srcIds']} -> {got['tokens']}, "
                            f"Python's {w['ids']} -> {w['tokens']}")
    first = next((w for w in want if "ids" in w), None)
    maps = first and [[len(first["tokens"]) - 1, len(first["ids"])],
                      [len(first["ids"]), len(first["ids"])]]
    if shown["maps"] != (maps or [None, None]) or (shown["lab"] is None) != (first is None):
        problems.append(f"heat maps {shown['maps']} and lab {shown['lab']}, expected maps "
                        f"{maps} of its first translated sentence{'' if first else ' (none)'}")
    if not want and (shown["sentences"] or "first" not in shown["status"]):
        problems.append(f"the box is empty, yet the page shows {shown}"[:300])
    if "wide" in what:
        problems += check_scroll(page)
    if "three sentences" in what:
        problems += check_menu(page, want)
    return problems


def check_scroll(page) -> list[str]:
    """A map wider than the translator's box scrolls inside its figure: at the window's
    width, or, where the map fits the box there, at a phone's 390 px (at 1280 px the box
    is 958 px wide since _static/layout.css widened the column; the wide input's map is
    746 px). The window is given back its size."""
    got = page.evaluate(SCROLL_JS)
    if got["map"] <= got["room"]:
        size = page.viewport_size
        page.set_viewport_size({"width": 390, "height": size["height"]})
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
        got = page.evaluate(SCROLL_JS)
        page.set_viewport_size(size)
    if got["map"] <= got["room"]:
        return [f"the wide input's map ({got['map']:.0f} px) fits the box ({got['room']} px): "
                "it no longer tests scrolling (make it longer in live_cases.odd_inputs)"]
    if not got["scrolls"] or got["past"] > 1 or got["page"] > 0:
        return [f"a {got['map']:.0f}-px heat map does not scroll inside its figure: figure "
                f"{got['shown']} px wide, {got['past']:.0f} px past the translator's box, "
                f"the page {got['page']} px wider than the window"]
    return []


def check_menu(page, want: list[dict]) -> list[str]:
    """The sentence menu: one entry per translated sentence; the second one's maps and
    decoding lab once it is picked."""
    shown = page.evaluate(SHOWN_JS)
    translated = [i for i, w in enumerate(want) if "ids" in w]
    if shown["menu"] != translated:
        return [f"the sentence menu offers {shown['menu']}, the translated ones are {translated}"]
    second = want[translated[1]]
    page.locator("#lt-which").select_option(str(translated[1]))
    shown = page.evaluate(SHOWN_JS)
    steps = page.evaluate(f"window.liveTranslator.last.sentences[{translated[1]}].trace.length")
    expected = [[len(second["tokens"]) - 1, len(second["ids"])], [len(second["ids"])] * 2]
    if shown["maps"] != expected or shown["lab"] != steps:
        return [f"sentence {translated[1] + 1} picked: maps {shown['maps']} and lab "
                f"{shown['lab']} steps, expected {expected} and {steps}"]
    return []


# The lab as shown: its step, the rows of its last table (data-id or data-fate), its end.
LAB_JS = """() => { const lab = document.getElementById('lt-lab');
  const tables = lab.querySelectorAll('#lt-lab-view table'), rows = tables[tables.length - 1];
  return {step: +lab.dataset.step, end: !!lab.querySelector('.lt-lab-end'),
          chosen: +(lab.querySelector('tr.lt-chosen')?.dataset.id ?? -1),
          fates: [...rows.querySelectorAll('tbody tr')].map(r => r.dataset.fate ?? null)}; }"""


def lab_trace_problems(page, ref, french: str, ids: list[int]) -> list[str]:
    """(e) decoding.mjs's trace of a held-out sentence, greedy and beam, equals the
    package's."""
    model, tok, _, max_len = ref
    want = python_traces(model, tok, french, max_len)
    problems = []
    for mode, beam in (("greedy", 0), ("beam", BEAM)):
        got = page.evaluate("""async ([ids, beam]) => (await window.liveTranslator
            .translateIds(ids, {beam})).trace""", [ids, beam])
        problems += [f"{mode}: {m}" for m in trace_differences(got, want[mode])]
    return problems


def check_lab_view(page, trace: list, beam: int) -> list[str]:
    """The lab at each step shows that step of ``trace``; Enter on a button, the arrow
    keys and the slider's End move it."""
    problems, n = [], len(trace)
    for step in range(1, n + 1):
        page.locator("#lt-lab-step").fill(str(step))  # the slider, set as a reader drags it
        got = page.evaluate(LAB_JS)
        want = ([c["fate"] for c in trace[step - 1]["candidates"]] if beam
                else trace[step - 1]["chosen"])
        if got["step"] != step or (got["fates"] if beam else got["chosen"]) != want:
            problems.append(f"step {step} shows {got}, its trace says {want}")
        if got["end"] != (step == n):
            problems.append(f"step {step} of {n}: the end of the decoding shown: {got['end']}")
    moves = [("#lt-lab-next", "Home", 1), ("#lt-lab-next", "Enter", 2),
             ("#lt-lab-next", "ArrowRight", 3), ("#lt-lab-prev", "ArrowLeft", 2),
             ("#lt-lab-step", "End", n)]
    for target, key, expect in moves:
        if key == "Home":
            page.locator("#lt-lab-step").fill("1")
            continue
        page.locator(target).focus()
        page.keyboard.press(key)
        at = page.evaluate("+document.getElementById('lt-lab').dataset.step")
        if at != min(expect, n):
            problems.append(f"{key} on {target} went to step {at}, not {min(expect, n)}")
    return problems


CHINESE_ODD = ("Chinese", "English", "digits only", "over-long",
               "longer than training, wide heat maps", "names and a year", "an emoji",
               "a Chinese sentence between two French ones")  # tried on the Chinese page


def chinese_verdict_problems(page, ref, what: str, text: str) -> list[str]:
    """(c) The Chinese page's refusals and warnings for an odd input: its own templates
    (messages.mjs), filled as Python's check_sentence fills the English."""
    model, tok, profile, max_len = ref
    want = python_verdicts(model, tok, profile, max_len, text, chinese_templates(page))
    submit(page, text)
    shown = page.evaluate(SHOWN_JS)["sentences"]
    mine = [(s["refusal"], s["warnings"]) for s in shown]
    theirs = [(w["refusal"], w["warnings"]) for w in want]
    if mine != theirs or not all(any("\u4e00" <= c <= "\u9fff" for c in m or "中")
                                 for r, ws in mine for m in [r, *ws]):
        return [f"the Chinese page says {mine}, its templates filled by Python say {theirs}"]
    return []
