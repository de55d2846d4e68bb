"""The live page's rule in Chromium: _static/live/limits.mjs and messages.mjs, imported by the
live translator page of the built site, cut sentences, find words and non-Latin letters,
and refuse and warn as illustrated.translator.limits does, word for word; and every code point's
letter class (not a letter, named LATIN, another letter) is Python's wherever both know the
character (Chromium's Unicode may be newer than Python's). The inputs and the comparison
are those of tests/test_live_limits.py, which runs the module under Node. Problems are
``chapters/live_translator.html: limits: ...`` lines."""
from __future__ import annotations

import importlib.util
import time
from pathlib import Path

from check_browser import open_page

ROOT = Path(__file__).resolve().parents[2]
PAGE = "chapters/live_translator.html"

# The page's answers for a job of tests/test_live_limits.py (as tests/js/live_limits.mjs).
ANSWER_JS = r"""
async (job) => {
  const base = new URL('../_static/live/', location.href);
  const limits = await import(new URL('limits.mjs', base).href);
  const {editions} = await import(new URL('messages.mjs', base).href);
  const profile = limits.profileFromJSON(job.profile);
  const classes = [];
  for (let c = 0; c <= 0x10ffff; c++) {
    const ch = String.fromCodePoint(c);
    const k = !/\p{L}/u.test(ch) ? 0 : limits.namedLatin(ch) ? 1 : 2;
    if (!classes.length || classes[classes.length - 1][1] !== k) classes.push([c, k]);
  }
  const each = (f) => Object.fromEntries(Object.entries(editions).map(([l, say]) => [l, f(say)]));
  return {
    sentencesOf: job.texts.map(limits.sentencesOf),
    splitSentences: job.lines.map(limits.splitSentences),
    words: job.texts.map(limits.words),
    nonLatin: job.texts.map(limits.nonLatin),
    verdicts: each((say) => job.checks.map(([s, n]) =>
      limits.checkSentence(s, n, profile, job.maxLen, say.limits))),
    templates: each((say) => say.limits),
    classes,
  };
}
"""


def _tests():
    """tests/test_live_limits.py as a module: its inputs and its comparison."""
    spec = importlib.util.spec_from_file_location(
        "test_live_limits", ROOT / "tests" / "test_live_limits.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(context, origin: str, html_dir: Path) -> list[str]:
    from playwright.sync_api import Error

    if not (html_dir / "_static" / "live" / "limits.mjs").is_file():
        return [f"{PAGE}: limits: the site lacks _static/live/limits.mjs"]
    t = _tests()
    job = t.make_job()
    expected = t.python_answers(job)
    log: list[str] = []
    page = open_page(context, origin, PAGE, log)
    start = time.perf_counter()
    try:
        page.goto(f"{origin}/{PAGE}", wait_until="load")
        page.evaluate("window.liveTranslator.ready")  # its own downloads done before close
        got = page.evaluate(ANSWER_JS, job)
    except Error as err:
        return log + [f"{PAGE}: limits: the module did not run: {str(err).splitlines()[0]}"]
    finally:
        page.close()
    problems = [f"{PAGE}: limits: {m}" for m in t.mismatches(job, expected, got)]
    _, newer = t.class_mismatches(got["classes"])
    print(f"limits: {len(job['texts'])} texts, {len(job['checks'])} verdicts and every code "
          f"point in Chromium, {len(problems)} differences from Python ({newer} letters newer "
          f"than Python's Unicode; {time.perf_counter() - start:.1f} s)", flush=True)
    return log + problems
