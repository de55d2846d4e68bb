"""The search of each edition, with what a reader types into its box.

Sphinx's search runs in the page over an index built with the site (searchindex.js). The
Chinese edition's index holds Chinese words only because Sphinx cuts Chinese text with
jieba (requirements.txt): without it a reader searching 掩码 found nothing. Each query in
QUERIES must list the page it names among its results.

Then every term of locales/zh_CN/terminology.yml (scripts/zh_search.py), searched in the
Chinese edition by the page's own search code, must find every page whose text holds it
(its article, as the built HTML has it), one test a term: the index holds the terms whole
only through scripts/zh_search.py (jieba alone cut 束搜索 into 束 + 搜索: 束搜索 found 1
page of the 8 that hold it, and 36 of the 72 terms missed pages).

So must every Chinese word the pages show as a term, found in the built pages themselves,
not in the list the build was given (:func:`shown_terms`): the glossary's names of each
term (the sources' words, its entries' Chinese runs), the text of every link to the
glossary on a Chinese page (注意力头, 键/值缓存（KV 缓存）), and every bold text of Chinese
characters only in a Chinese page's article, where a chapter introduces a word (交叉注意力,
配对自助法: jieba alone cut them, and 53 of the 102 bold texts missed pages).
"""
from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import quote

import pytest
import zh_search

from tests.site.browser import tabs


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


def search_page_links(tab, origin: str, name: str, query: str) -> list[str]:
    """The results' links once the reader has typed ``query`` into the search box (Ctrl+K)
    and pressed Enter, which leads to the search page with ``?q=``."""
    tab.goto(f"{origin}/{name}?q={quote(query)}", wait_until="load")
    tab.wait_for_selector("#search-results .search-summary", timeout=15000)
    # The results' summaries are still being fetched: a page closed now cuts them off.
    tab.wait_for_load_state("networkidle")
    return tab.eval_on_selector_all("#search-results ul.search a[href]",
                                    "links => links.map(a => a.getAttribute('href'))")


@pytest.mark.parametrize("name, query, wanted", QUERIES)
def test_a_search_finds_the_page_it_names(context, origin, name, query, wanted):
    tab = context.new_page()
    watched = tabs.Watched(tab, origin)
    links = search_page_links(tab, origin, name, query)
    assert any(wanted in href for href in links), \
        f"{query!r} does not find {wanted} ({len(links)} result(s))"
    assert not watched.problems(), "\n".join(watched.problems())


def holders(texts: dict[str, str], term: str) -> list[str]:
    """The pages whose text holds each word the search looks up for ``term``: a Chinese
    word anywhere, a Latin word (any case) between neither letters nor digits."""
    def holds(text: str, word: str) -> bool:
        if zh_search.CJK.search(word):
            return word in text
        return re.search(rf"(?<![a-z0-9]){re.escape(word.lower())}(?![a-z0-9])", text) is not None

    return [name for name, text in texts.items()
            if all(holds(text, word) for word in zh_search.query_words(term))]


def term_problems(term: str, pages: list[str], texts: dict[str, str]) -> list[str]:
    """What is wrong with the pages the search finds for ``term``: pages that hold it and
    are missed; and, for a term of Chinese words only (indexed exactly where the text holds
    them), pages found that do not hold it. (A Latin word is stemmed, logits finds logit;
    Add & Norm is two words.)"""
    holding = set(holders(texts, term))
    missed = sorted(holding - set(pages))
    chinese = all(zh_search.CJK.search(word) for word in zh_search.query_words(term))
    extra = sorted(set(pages) - holding) if chinese else []
    return ([f"missed: {', '.join(missed)}"] if missed else []) + (
        [f"found without it: {', '.join(extra)}"] if extra else [])


# A link to a glossary entry (a {term} role), as Sphinx writes it, and its text.
TERM_LINK = re.compile(r'<span class="xref std std-term">(.*?)</span>', re.S)
GLOSSARY_LIST = re.compile(r'<dl class="glossary[^"]*">(.*?)</dl>', re.S)
TAG = re.compile(r"<[^>]+>")
ARTICLE = re.compile(r'<article class="bd-article"[^>]*>(.*?)</article>', re.S)
BOLD = re.compile(r"<strong>(.*?)</strong>", re.S)


def shown_terms(site: Path) -> list[str]:
    """The Chinese terms the built pages show: every run of Chinese characters of the
    English glossary's entries (the names the sources use, each term's Chinese), the text
    of every link to the glossary that holds Chinese on a page of the Chinese edition, and
    every bold text of Chinese characters only in the article of such a page; sorted, each
    once."""
    glossary = (site / "appendix" / "glossary.html").read_text(encoding="utf-8")
    entries = " ".join(TAG.sub(" ", block) for block in GLOSSARY_LIST.findall(glossary))
    found = set(zh_search.CJK_RUN.findall(html.unescape(entries)))
    for page in sorted((site / "zh").rglob("*.html")):
        source = page.read_text(encoding="utf-8")
        for text in TERM_LINK.findall(source):
            text = html.unescape(TAG.sub("", text)).strip()
            if zh_search.CJK.search(text):
                found.add(text)
        for article in ARTICLE.findall(source):
            found.update(text for text in (html.unescape(TAG.sub("", bold)).strip()
                                           for bold in BOLD.findall(article))
                         if zh_search.CJK_RUN.fullmatch(text))
    return sorted(found)


def run_searches(browser, origin, site, terms):
    """``terms`` searched in the Chinese edition, in one load of its search page: the pages
    found for each term, the text of each indexed page, and the watched tab."""
    assert (site / ZH_SEARCH).is_file(), f"{ZH_SEARCH} was not built"
    context = browser.new_context()
    tab = context.new_page()
    watched = tabs.Watched(tab, origin)
    # A first term as the reader searches it: the search page then has run its search once
    # (and made the elements _performSearch writes to).
    search_page_links(tab, origin, ZH_SEARCH, terms[0])
    found = tab.evaluate(SEARCH_JS, terms)
    context.close()
    return found, watched


@pytest.fixture(scope="module")
def searched(browser, origin, site):
    """Every term of terminology.yml searched in the Chinese edition."""
    return run_searches(browser, origin, site, zh_search.terms())


@pytest.mark.parametrize("term", zh_search.terms())
def test_each_term_finds_every_page_that_holds_it(searched, term):
    found, _ = searched
    pages = found["found"][term]
    problems = term_problems(term, pages, found["texts"])
    assert not problems, (f"{term!r} finds {len(pages)} page(s), but "
                          f"{len(holders(found['texts'], term))} hold it; " + "; ".join(problems))


def test_every_term_the_pages_show_finds_every_page_that_holds_it(browser, origin, site):
    terms = shown_terms(site)
    assert len(terms) > 100, f"only {len(terms)} Chinese terms found in the built pages"
    found, _ = run_searches(browser, origin, site, terms)
    problems = [f"{term!r} finds {len(found['found'][term])} page(s); "
                + "; ".join(term_problems(term, found["found"][term], found["texts"]))
                for term in terms if term_problems(term, found["found"][term], found["texts"])]
    assert not problems, f"{len(problems)} of {len(terms)} terms:\n" + "\n".join(problems)


def test_the_search_page_loads_cleanly(searched):
    _, watched = searched
    assert not watched.problems(), "\n".join(watched.problems())


TEXTS = {"a": "束搜索 与 kv 缓存", "b": "只有束", "c": "log_softmax 与 softmaxes"}


def test_holders_chinese_anywhere_latin_between_non_letters():
    assert holders(TEXTS, "束搜索") == ["a"]
    assert holders(TEXTS, "KV 缓存") == ["a"]
    assert holders(TEXTS, "softmax") == ["c"]  # log_softmax holds it, softmaxes not
    assert holders(TEXTS, "Softmax") == ["c"]


def test_shown_terms_are_the_glossary_names_and_the_chinese_term_links(tmp_path):
    (tmp_path / "appendix").mkdir()
    (tmp_path / "appendix" / "glossary.html").write_text(
        '<h1>Glossary: English ↔ 中文</h1><dl class="glossary simple"><dt>head</dt><dd><p>'
        '<strong>中文</strong> 注意力头 (000); 头部 and “head” (003)</p></dd></dl>',
        encoding="utf-8")
    (tmp_path / "zh" / "chapters").mkdir(parents=True)
    (tmp_path / "zh" / "chapters" / "a.html").write_text(
        '<a><span class="xref std std-term">键/值缓存（KV 缓存）</span></a>'
        '<a><span class="xref std std-term">BLEU</span></a><article class="bd-article" '
        'role="main"><p><strong>交叉注意力</strong>，<strong>top-k</strong>，<strong>为什么重要：'
        '</strong></p></article><nav><strong>目录</strong></nav>', encoding="utf-8")
    assert shown_terms(tmp_path) == sorted(["中文", "注意力头", "头部", "键/值缓存（KV 缓存）",
                                            "交叉注意力"])


def test_term_problems_name_the_missed_and_the_extra_pages():
    texts = {"a": "束搜索", "b": "用束搜索", "c": "搜索"}
    assert term_problems("束搜索", ["a", "b"], texts) == []
    assert term_problems("搜索", ["a", "b", "c"], texts) == []
    assert term_problems("束搜索", ["a"], texts) == ["missed: b"]
    assert term_problems("束搜索", ["a", "b", "c"], texts) == ["found without it: c"]
    # Sphinx stems a Latin word: logit finds logits.
    assert term_problems("logit", ["a"], {"a": "logits"}) == []
