"""The live page's tokenizer in Chromium: _static/live/tokenizer.js, imported by a page of the
built site with the tokenizer.json served beside it, tokenises as Python does. The inputs and
the comparison are those of tests/test_live_tokenizer.py (which runs the module under Node):
``prepare``, ``encode``, ``decode``, ``pieces`` and the pre-tokenizer's words on every
held-out French and English sentence, tricky inputs and random ids, Python reading the very
tokenizer.json the site serves. Problems are ``intro.html: tokenizer: ...`` lines."""
from __future__ import annotations

import importlib.util
import time
from pathlib import Path

from check_browser import open_page

ROOT = Path(__file__).resolve().parents[2]
# A page of the book, not index.html: that one moves on to intro.html, and the move aborted
# its requests (the icon) and the module's evaluation now and then.
PAGE = "intro.html"
MODULE, DATA = "_static/live/tokenizer.js", "_static/live/tokenizer.json"

# The page's answers for a job of tests/test_live_tokenizer.py (as tests/js/live_tokenizer.mjs).
ANSWER_JS = r"""
async ([module, data, job]) => {
  const {prepare, Tokenizer} = await import(module);
  const tok = Tokenizer.fromJSON(await (await fetch(data)).json());
  const each = (inputs, f) => inputs.map((x) => {
    try { return f(x); } catch (err) { return {error: `${err.name}: ${err.message}`}; }
  });
  return {
    prepare: each(job.prepare, prepare),
    encode: each(job.encode, (t) => tok.encode(t)),
    decode: each(job.decode, (ids) => tok.decode(ids)),
    pieces: each(job.pieces, (ids) => tok.pieces(ids)),
    words: each(job.words, (t) => tok.preTokenize(t).map((chars) => chars.join(""))),
  };
}
"""


def _tests():
    """tests/test_live_tokenizer.py as a module: its inputs and its comparison."""
    spec = importlib.util.spec_from_file_location(
        "test_live_tokenizer", ROOT / "tests" / "test_live_tokenizer.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(context, origin: str, html_dir: Path) -> list[str]:
    from playwright.sync_api import Error

    from illustrated.translator.tokenizer import SubwordTokenizer

    missing = [p for p in (MODULE, DATA) if not (html_dir / p).is_file()]
    if missing:
        return [f"{PAGE}: tokenizer: the site lacks {', '.join(missing)} (scripts/vendor.py "
                f"copies tokenizer.json; build the book again)"]
    t = _tests()
    tok = SubwordTokenizer.load(html_dir / DATA)
    job = t.make_job(tok, t.held_out_french(), extra=t.held_out_english())
    expected = t.python_answers(tok, job)
    log: list[str] = []
    page = open_page(context, origin, PAGE, log)
    start = time.perf_counter()
    try:
        page.goto(f"{origin}/{PAGE}", wait_until="load")
        got = page.evaluate(ANSWER_JS, [f"/{MODULE}", f"/{DATA}", job])
    except Error as err:
        return log + [f"{PAGE}: tokenizer: the module did not run: {str(err).splitlines()[0]}"]
    finally:
        try:  # a page closed mid-download leaves a BrokenPipeError in the server's log
            page.wait_for_load_state("networkidle", timeout=5000)
        except Error:
            pass
        page.close()
    problems = [f"{PAGE}: tokenizer: {m}" for m in t.mismatches(job, expected, got)]
    print(f"tokenizer: {len(job['encode'])} texts encoded, {len(job['decode'])} decoded in "
          f"Chromium, {len(problems)} differences from Python "
          f"({time.perf_counter() - start:.1f} s)", flush=True)
    return log + problems
