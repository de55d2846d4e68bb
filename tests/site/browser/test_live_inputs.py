"""The live translator page beyond the held-out sentences, against the Python package (a
group of its own: another test process runs test_live_translator.py meanwhile).

(c) The Chinese edition's copy of the page: it speaks Chinese (its status line, its button,
    the heat map's caption) and translates a typed sentence as Python does; its refusals
    and warnings are its Chinese templates, filled by Python's check_sentence.
(d) Odd inputs typed as a reader would (live_cases.py): several sentences, other scripts,
    English, digits, an over-long sentence, one longer than any training sentence, an
    empty box after a translation. The sentences the page lists, their refusals and
    warnings (word for word), source ids, tokens and shown translations are the command's:
    each line, split_sentences, check_sentence, greedy_decode and translate. The empty box
    clears the page; a wide heat map scrolls inside its figure; the sentence menu picks
    whose maps and decoding are shown.
(e) The decoding lab: on held-out sentences, each step recorded by decoding.mjs (top pieces
    and log-probabilities; beam hypotheses, scores, fates) equals the package's own trace
    (greedy_decode and beam_search given a trace list); the lab shows those steps, and its
    buttons, slider and arrow keys move between them.
"""
from __future__ import annotations

import pytest

from tests.site.browser import live_cases as cases
from tests.site.browser import tabs
from tests.site.browser.live_cases import PAGE, live_manifest, python_translations


ZH_PAGE = "zh/" + PAGE  # the Chinese edition's copy: the same model, its words in Chinese
N_TRACES = 3  # held-out sentences whose decoding is compared step by step (e)


@pytest.fixture(scope="module")
def package():
    """The shipped translator, its tokenizer, what it read in training, MAX_LEN."""
    return cases.reference()


@pytest.fixture(scope="module")
def odd(package):
    """(what it tries, the text typed) for each odd input, by what it tries."""
    _, tok, profile, max_len = package
    return dict(cases.odd_inputs(tok, profile, max_len))


@pytest.fixture(scope="module")
def answers(package, odd):
    """The command's answer to each odd input (python_verdicts), by what it tries."""
    model, tok, profile, max_len = package
    return {what: cases.python_verdicts(model, tok, profile, max_len, text)
            for what, text in odd.items()}


@pytest.fixture(scope="module")
def refs():
    return python_translations(N_TRACES)


def _opened(browser, origin, site, name):
    """The page ``name``, its model loaded: (tab, watched)."""
    assert live_manifest(site)["tokenizer_js"], "this build has no _static/live/tokenizer.js"
    assert (site / name).is_file(), f"{name} was not built"
    with tabs.live_page(browser, origin, name, "window.liveTranslator.ready") as opened:
        yield opened


@pytest.fixture(scope="module")
def english(browser, origin, site):
    yield from _opened(browser, origin, site, PAGE)


@pytest.fixture(scope="module")
def chinese(browser, origin, site):
    yield from _opened(browser, origin, site, ZH_PAGE)


def has_chinese(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text or "")


# ---------------------------------------------------------------- (d) odd inputs
def test_the_odd_inputs_try_every_verdict(odd, answers):
    assert tuple(odd) == cases.ODD, "live_cases.odd_inputs and ODD differ"
    verdicts = set().union(*map(cases.tried, answers.values()))
    assert verdicts == cases.VERDICTS, f"the odd inputs no longer try {cases.VERDICTS - verdicts}"


@pytest.mark.parametrize("what", cases.ODD)
def test_an_odd_input_is_answered_as_the_command_does(english, answers, odd, what):
    tab, _ = english
    problems = cases.odd_input_problems(tab, answers[what], what, odd[what])
    assert not problems, f"{odd[what]!r:.60}:\n" + "\n".join(problems)


# ---------------------------------------------------------------- (e) the decoding lab
@pytest.mark.parametrize("i", range(N_TRACES))
def test_the_labs_trace_is_the_packages(english, package, refs, i):
    tab, _ = english
    problems = cases.lab_trace_problems(tab, package, refs[i]["text"], refs[i]["ids"])
    assert not problems, f"{refs[i]['text']!r}:\n" + "\n".join(problems)


@pytest.mark.parametrize("mode, beam", [("greedy", 0), ("beam", cases.BEAM)])
def test_the_lab_shows_each_step_and_moves(english, refs, mode, beam):
    tab, _ = english
    cases.submit(tab, refs[0]["text"], beam)
    trace = tab.evaluate("window.liveTranslator.last.sentences[0].trace")
    problems = cases.check_lab_view(tab, trace, beam)
    assert not problems, "\n".join(problems)


def test_the_english_page_worked_cleanly(english):
    _, watched = english
    assert not watched.problems(), "\n".join(watched.problems())


# ---------------------------------------------------------------- (c) the Chinese page
def test_the_chinese_page_speaks_chinese(chinese):
    tab, _ = chinese
    status, button = tab.locator("#lt-status").text_content(), tab.locator("#lt-go").text_content()
    assert has_chinese(status), f"the status line is not Chinese: {status!r}"
    assert has_chinese(button), f"the button is not Chinese: {button!r}"


def test_the_chinese_page_translates_as_python(chinese, refs):
    tab, _ = chinese
    ref = refs[0]
    tab.locator("#lt-text").fill(ref["text"])
    tab.locator("#lt-greedy").check()
    tab.locator("#lt-go").click()
    tab.wait_for_function("window.liveTranslator.runs >= 1 || document.getElementById"
                          "('lt-app').dataset.state === 'error'", timeout=30000)
    last = (tab.evaluate("window.liveTranslator.last") or {"sentences": [{}]})["sentences"]
    assert last[0].get("tokens") == ref["greedy"], \
        f"{ref['text']!r}, greedy, typed: tokens {last[0].get('tokens')} != Python's {ref['greedy']}"
    caption = tab.evaluate("document.querySelector('#lt-cross svg')?.getAttribute('aria-label')"
                           " || document.querySelector('#lt-cross')?.textContent")
    assert has_chinese(caption), f"the heat map's caption is not Chinese: {caption!r}"


@pytest.mark.parametrize("what", cases.CHINESE_ODD)
def test_the_chinese_page_refuses_and_warns_in_chinese(chinese, package, odd, what):
    tab, _ = chinese
    problems = cases.chinese_verdict_problems(tab, package, what, odd[what])
    assert not problems, f"{odd[what]!r:.60}:\n" + "\n".join(problems)


def test_the_chinese_page_worked_cleanly(chinese):
    _, watched = chinese
    assert not watched.problems(), "\n".join(watched.problems())
