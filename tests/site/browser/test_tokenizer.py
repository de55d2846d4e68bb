"""The live page's tokenizer in Chromium: _static/live/tokenizer.js, imported by a page of
the built site with the tokenizer.json served beside it, tokenises as Python does:
``prepare``, ``encode``, ``decode``, ``pieces`` and the pre-tokenizer's words on every
held-out French and English sentence, tricky inputs and random ids, Python reading the very
tokenizer.json the site serves. The job, Python's answers and the comparison are
tests/test_live_tokenizer.py's, which runs the same questions
(tests/js/tokenizer_answers.mjs) under Node."""
from __future__ import annotations

from tests.site.browser import tabs


# A page of the book, not index.html: that one moves on to intro.html, and the move aborted
# its requests (the icon) and the module's evaluation now and then.
PAGE = "intro.html"
MODULE, DATA = "_static/live/tokenizer.js", "_static/live/tokenizer.json"
ASK_JS = """async ([tests, module, data, job]) => {
  const {answers} = await import(tests + 'tokenizer_answers.mjs');
  return answers(await import(module), await (await fetch(data)).json(), job);
}"""


def test_the_page_tokenises_as_python(context, origin, site):
    from tests import test_live_tokenizer as live  # the package: torch, only where it runs
    from tests.site.browser.package import SubwordTokenizer

    missing = [p for p in (MODULE, DATA) if not (site / p).is_file()]
    assert not missing, f"the site lacks {', '.join(missing)} (scripts/vendor.py copies them)"
    tok = SubwordTokenizer.load(site / DATA)
    job = live.make_job(tok, live.held_out_french(), extra=live.held_out_english())
    expected = live.python_answers(tok, job)
    tab, watched = tabs.open_tab(context, origin, PAGE)
    got = tab.evaluate(ASK_JS, [f"{origin}/_tests/js/", f"/{MODULE}", f"/{DATA}", job])
    # A page closed mid-download leaves a BrokenPipeError in the server's log.
    tab.wait_for_load_state("networkidle", timeout=5000)
    found = live.mismatches(job, expected, got)
    assert not found, "\n".join(found)
    assert not watched.problems(), "\n".join(watched.problems())
