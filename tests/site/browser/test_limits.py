"""The live page's rule in Chromium: _static/live/limits.mjs and messages.mjs, as the live
translator page of the built site imports them, cut sentences, find words and non-Latin
letters, and refuse and warn as the package's limits do, word for word; and every code
point's letter class (not a letter, named LATIN, another letter) is Python's wherever both
know the character (Chromium's Unicode may be newer than Python's). The job, Python's
answers and the comparison are tests/test_live_limits.py's, which runs the same questions
(tests/js/limits_answers.mjs) under Node."""
from __future__ import annotations

import pytest

from tests.site.browser import tabs


PAGE = "chapters/live_translator.html"
ASK_JS = """async ([tests, job]) => {
  const live = new URL('../_static/live/', location.href);
  const {answers} = await import(tests + 'limits_answers.mjs');
  const limits = await import(new URL('limits.mjs', live).href);
  const {editions} = await import(new URL('messages.mjs', live).href);
  return answers(limits, editions, job);
}"""


def test_the_page_applies_the_commands_rule(context, origin, site):
    from tests import test_live_limits as live  # the package: torch, only where it runs

    assert (site / "_static" / "live" / "limits.mjs").is_file(), \
        "the site lacks _static/live/limits.mjs"
    job = live.make_job()
    expected = live.python_answers(job)
    tab, watched = tabs.open_tab(context, origin, PAGE)
    tab.evaluate("window.liveTranslator.ready")  # its own downloads done before it closes
    got = tab.evaluate(ASK_JS, [f"{origin}/_tests/js/", job])
    found = live.mismatches(job, expected, got)
    assert not found, "\n".join(found)
    assert not watched.problems(), "\n".join(watched.problems())


# The writer page's prompt (limits.check_prompt): refused in another script, warned about
# when French or with a symbol no English training sentence has, written without a word when
# English; in the edition's words.
WRITER = "chapters/live_writer.html"
PROMPTS = ["Je suis", "我是学生", "Le chat est noir", "Привет", "I like 🐱", "Tom", "I would like",
           "Mary and John", ""]  # a refusal after a prompt written: its tokens cleared
TEMPLATES = ("NOT_ENGLISH", "FRENCH_PROMPT", "UNSEEN_PROMPT_SYMBOLS", "MORE")


def python_prompts(templates=None) -> list[dict]:
    """check_prompt of each prompt against the shipped training split, in the words of
    ``templates`` (the Chinese page's) when given."""
    from contextlib import nullcontext
    from unittest import mock

    from tests.site.browser.package import limits, training_profile

    profile = training_profile({})
    with mock.patch.multiple(limits, **templates) if templates else nullcontext():
        return [{"refusal": v.refusal, "warnings": list(v.warnings)}
                for v in map(lambda p: limits.check_prompt(p, profile), PROMPTS)]


def typed_prompts(tab) -> list[dict]:
    """Each prompt typed into the writer, greedy, two new tokens at most, Write pressed:
    the page's refusal and warnings, and the warnings it shows."""
    out = []
    for prompt in PROMPTS:
        runs = tab.evaluate("window.liveWriter.runs")
        tab.locator("#lw-prompt").fill(prompt)
        tab.locator("#lw-greedy").check()
        tab.locator("#lw-max").fill("2")
        tab.locator("#lw-go").click()
        tab.wait_for_function(f"window.liveWriter.runs >= {runs + 1}", timeout=60000)
        last = tab.evaluate("window.liveWriter.last")
        shown = tab.locator("#lw-warnings").inner_text().strip()
        status = tab.locator("#lw-status").inner_text().strip()
        tokens = tab.locator("#lw-prompt-pieces").inner_text().strip()
        out.append({"refusal": last["refusal"], "warnings": last["warnings"],
                    "shown": shown, "status": status, "tokens": tokens})
    return out


@pytest.mark.parametrize("edition", [WRITER, "zh/" + WRITER])
def test_the_writer_checks_a_prompt_as_the_command_does(browser, origin, site, edition):
    assert (site / edition).is_file(), f"{edition} was not built"
    with tabs.live_page(browser, origin, edition, "window.liveWriter.ready") as (tab, watched):
        templates = None
        if edition.startswith("zh/"):
            templates = {name: value for name, value in tab.evaluate(
                """async () => (await import(new URL('../_static/live/messages.mjs',
                location.href).href)).editions.zh.limits""").items() if name in TEMPLATES}
        want = python_prompts(templates)
        got = typed_prompts(tab)
        problems = [f"{p!r}: the page says {g}, the command {w}"
                    for p, g, w in zip(PROMPTS, got, want)
                    if (g["refusal"], g["warnings"]) != (w["refusal"], w["warnings"])
                    or g["shown"] != "\n".join(w["warnings"])  # one warning a line
                    or (w["refusal"] and g["status"] != w["refusal"])
                    or (w["refusal"] and g["tokens"])  # no tokens of a prompt not read
                    or "\ufffd" in g["tokens"]]
        assert not problems, "\n".join(problems)
        kinds = [(w["refusal"] is not None, bool(w["warnings"])) for w in want]
        assert kinds == [(False, True), (True, False)] * 2 + [(False, True)] + [(False, False)] * 4
        if templates:
            assert all(any("\u4e00" <= c <= "\u9fff" for c in w["refusal"] or w["warnings"][0])
                       for w in want[:5])
        assert not watched.problems(), "\n".join(watched.problems())
