"""The live translator page beyond the held-out sentences, against the Python package.

A job of its own (browser_checks/live_translator.py types the held-out sentences in
another worker meanwhile):

(c) The Chinese edition's copy of the page: it speaks Chinese (its status line and the
    heat map's caption) and translates a typed sentence as Python does; its refusals and
    warnings are its Chinese templates, filled by Python's check_sentence.
(d) Odd inputs typed as a reader would (browser_checks/_live_cases.py): several sentences,
    other scripts, English, digits, an over-long sentence, one longer than any training
    sentence, an empty box after a translation. The sentences the page lists, their
    refusals and warnings (word for word), source ids, tokens and shown translations are
    the command's: each line, limits.split_sentences, check_sentence, greedy_decode and
    translate. The empty box clears the page; a wide heat map scrolls inside its figure;
    the sentence menu picks whose maps and decoding are shown.
(e) The decoding lab: on held-out sentences, each step recorded by decoding.mjs (top
    pieces and log-probabilities; beam hypotheses, scores, fates) equals the package's
    own trace (greedy_decode and beam_search given a trace list); the lab shows those
    steps, and its buttons, slider and arrow keys move between them.
"""
from __future__ import annotations

import time
from pathlib import Path

from browser_checks._live_cases import check_lab, check_odd_inputs, reference
from browser_checks.live_translator import (N_TRACES, PAGE, ZH_PAGE, check_chinese_page,
                                            live_files, python_translations)


def check(context, origin: str, html_dir: Path) -> list[str]:
    from check_browser import open_page
    from playwright.sync_api import Error

    manifest, problems = live_files(html_dir)
    if manifest is None:
        return []  # live_translator.py says why, once
    if not manifest["tokenizer_js"]:
        print("live translator: odd inputs, the decoding lab and the Chinese page SKIPPED: "
              "this build has no _static/live/tokenizer.js")
        return []
    start = time.perf_counter()
    refs, package = python_translations(N_TRACES), reference()
    log: list[str] = []
    page = open_page(context, origin, PAGE, log)
    page.goto(f"{origin}/{PAGE}", wait_until="load")
    try:
        page.evaluate("window.liveTranslator.ready")
        problems += check_odd_inputs(page, package, PAGE)
        problems += check_lab(page, package, refs, PAGE)
    except Error as error:  # the page broke: say where, let the other checks run
        problems.append(f"{PAGE}: live: {str(error).splitlines()[0][:200]} (status: "
                        f"{page.locator('#lt-status').text_content()!r})")
    page.close()
    problems += log
    if (html_dir / ZH_PAGE).is_file():
        try:
            problems += check_chinese_page(context, origin, refs, package)
        except Error as error:
            problems.append(f"{ZH_PAGE}: live: {str(error).splitlines()[0][:200]}")
    print(f"live translator, more: odd inputs, the decoding lab ({len(refs)} held-out "
          f"sentences step by step) and the Chinese page: {len(problems)} problem(s) in "
          f"{time.perf_counter() - start:.0f} s", flush=True)
    return problems
