"""The live page's rule in Chromium: _static/live/limits.mjs and messages.mjs, as the live
translator page of the built site imports them, cut sentences, find words and non-Latin
letters, and refuse and warn as the package's limits do, word for word; and every code
point's letter class (not a letter, named LATIN, another letter) is Python's wherever both
know the character (Chromium's Unicode may be newer than Python's). The job, Python's
answers and the comparison are tests/test_live_limits.py's, which runs the same questions
(tests/js/limits_answers.mjs) under Node."""
from __future__ import annotations

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
