"""The search of each edition, with what a reader types into its box.

Sphinx's search runs in the page over an index built with the site (searchindex.js). The
Chinese edition's index holds Chinese words only because Sphinx cuts Chinese text with
jieba (requirements.txt): without it a reader searching 掩码 found nothing. Each query
below must list the page it names among its results.
"""
from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import quote

# (the search page, what a reader types, a page that must be among the results)
QUERIES = [("search.html", "mask", "chapters/06_masking.html"),
           ("zh/search.html", "掩码", "chapters/06_masking.html"),
           ("zh/search.html", "束搜索", "chapters/10_decoding.html")]


def check(context, origin: str, html_dir: Path) -> list[str]:
    from check_browser import open_page

    start, problems = time.perf_counter(), []
    for name, query, wanted in QUERIES:
        if not (html_dir / name).is_file():
            problems.append(f"{name}: search: the page was not built")
            continue
        log: list[str] = []
        page = open_page(context, origin, name, log)
        # Where the search box (Ctrl+K) leads once the reader presses Enter.
        page.goto(f"{origin}/{name}?q={quote(query)}", wait_until="load")
        page.wait_for_selector("#search-results .search-summary", timeout=15000)
        links = page.eval_on_selector_all("#search-results ul.search a[href]",
                                          "links => links.map(a => a.getAttribute('href'))")
        if not any(wanted in href for href in links):
            problems.append(f"{name}: search: {query!r} does not find {wanted} "
                            f"({len(links)} result(s))")
        page.close()
        problems += log
    print(f"search: {len(QUERIES)} queries typed into both editions' search pages: "
          f"{len(problems)} problem(s) in {time.perf_counter() - start:.0f} s")
    return problems
