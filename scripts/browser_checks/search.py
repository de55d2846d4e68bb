"""The search of each edition, with what a reader types into its box.

Sphinx's search runs in the page over an index built with the site (searchindex.js). The
Chinese edition's index holds Chinese words only because Sphinx cuts Chinese text with
jieba (requirements.txt): without it a reader searching 掩码 found nothing. Each query
in QUERIES must list the page it names among its results.

Then every term of locales/zh_CN/terminology.yml (scripts/zh_search.py), searched in the
Chinese edition by the page's own search code, must find every page whose text holds it
(its article, as the built HTML has it): the index holds the terms whole only through
scripts/zh_search.py (jieba alone cut 束搜索 into 束 + 搜索: 束搜索 found 1 page of the 8
that hold it, and 36 of the 72 terms missed pages).
"""
from __future__ import annotations

import re
import time
from pathlib import Path
from urllib.parse import quote

# (the search page, what a reader types, a page that must be among the results)
QUERIES = [("search.html", "mask", "chapters/06_masking.html"),
           ("zh/search.html", "掩码", "chapters/06_masking.html")]
ZH_SEARCH = "zh/search.html"

# In the loaded search page: for each query the pages its search finds, by the code the
# page runs when a reader presses Enter (searchtools.js's Search.query: _parseQuery then
# _performSearch), less the display of the results; and the text of each indexed page.
SEARCH_JS = """
async queries => {
  const found = {};
  for (const query of queries) {
    const [q, terms, excluded, highlighted, objects] = Search._parseQuery(query);
    const results = Search._performSearch(q, terms, excluded, highlighted, objects);
    found[query] = [...new Set(results.map(result => result[0]))];
  }
  // Each indexed page's article (what Sphinx indexes: no sidebars, no links to the
  // previous and next pages) as the site serves it: its text nodes apart, as the index
  // has them, Latin letters in lower case.
  const texts = {};
  for (const name of Search._index.docnames) {
    const html = await (await fetch(`${name}.html`)).text();
    const page = new DOMParser().parseFromString(html, "text/html");
    const article = page.querySelector("article.bd-article") || page.body;
    article.querySelectorAll("script, style, .headerlink").forEach(e => e.remove());
    const walker = page.createTreeWalker(article, NodeFilter.SHOW_TEXT);
    const parts = [];
    while (walker.nextNode()) parts.push(walker.currentNode.data);
    texts[name] = parts.join(" ").toLowerCase();
  }
  return {found, texts};
}
"""


def check(context, origin: str, html_dir: Path) -> list[str]:
    from check_browser import open_page

    start, problems = time.perf_counter(), []
    for name, query, wanted in QUERIES:
        if not (html_dir / name).is_file():
            problems.append(f"{name}: search: the page was not built")
            continue
        log: list[str] = []
        page = open_page(context, origin, name, log)
        links = search_page_links(page, origin, name, query)
        if not any(wanted in href for href in links):
            problems.append(f"{name}: search: {query!r} does not find {wanted} "
                            f"({len(links)} result(s))")
        page.close()
        problems += log
    term_problems, summary = check_terms(context, origin, html_dir)
    problems += term_problems
    print(f"search: {len(QUERIES)} queries typed into both editions' search pages, {summary}: "
          f"{len(problems)} problem(s) in {time.perf_counter() - start:.0f} s")
    return problems


def search_page_links(page, origin: str, name: str, query: str) -> list[str]:
    """The results' links once the reader has typed ``query`` into the search box (Ctrl+K)
    and pressed Enter, which leads to the search page with ``?q=``."""
    page.goto(f"{origin}/{name}?q={quote(query)}", wait_until="load")
    page.wait_for_selector("#search-results .search-summary", timeout=15000)
    # The results' summaries are still being fetched: a page closed now cuts them off.
    page.wait_for_load_state("networkidle")
    return page.eval_on_selector_all("#search-results ul.search a[href]",
                                     "links => links.map(a => a.getAttribute('href'))")


def check_terms(context, origin: str, html_dir: Path) -> tuple[list[str], str]:
    """Every term searched in the Chinese edition, in one load of its search page: the
    problems, and a summary of the counts."""
    from check_browser import open_page
    from zh_search import terms

    if not (html_dir / ZH_SEARCH).is_file():
        return [f"{ZH_SEARCH}: search: the page was not built"], "no Chinese search page"
    words = terms()
    log: list[str] = []
    page = open_page(context, origin, ZH_SEARCH, log)
    # A first term as the reader searches it: the search page then has run its search once
    # (and made the elements _performSearch writes to).
    search_page_links(page, origin, ZH_SEARCH, words[0])
    searched = page.evaluate(SEARCH_JS, words)
    page.close()
    texts = searched["texts"]
    problems = log + term_problems(searched["found"], texts)
    held = {term: len(holders(texts, term)) for term in words}
    unheld = [term for term, count in held.items() if not count]
    return problems, (f"{len(words)} terms searched in the Chinese edition ({sum(held.values())} "
                      f"term-pages; held by no page: {', '.join(unheld) or 'none'})")


def term_problems(found: dict[str, list[str]], texts: dict[str, str]) -> list[str]:
    """A line for each term whose search misses a page that holds it; and, for a term of
    Chinese words only (indexed exactly where the text holds them), finds a page that does
    not hold it. (A Latin word is stemmed, logits finds logit; Add & Norm is two words.)"""
    from zh_search import CJK, query_words

    problems = []
    for term, pages in found.items():
        holding = set(holders(texts, term))
        missed = sorted(holding - set(pages))
        chinese = all(CJK.search(word) for word in query_words(term))
        extra = sorted(set(pages) - holding) if chinese else []
        if missed or extra:
            problems.append(f"{ZH_SEARCH}: search: {term!r} finds {len(pages)} page(s), but "
                            f"{len(holding)} hold it"
                            + (f"; missed: {some(missed)}" if missed else "")
                            + (f"; found without it: {some(extra)}" if extra else ""))
    return problems


def some(names: list[str]) -> str:
    return ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")


def holders(texts: dict[str, str], term: str) -> list[str]:
    """The pages whose text holds each word the search looks up for ``term``: a Chinese
    word anywhere, a Latin word (any case) between neither letters nor digits."""
    from zh_search import CJK, query_words

    def holds(text: str, word: str) -> bool:
        if CJK.search(word):
            return word in text
        return re.search(rf"(?<![a-z0-9]){re.escape(word.lower())}(?![a-z0-9])", text) is not None

    return [name for name, text in texts.items()
            if all(holds(text, word) for word in query_words(term))]
