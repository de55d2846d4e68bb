"""The Chinese edition's search finds every term of its terminology (issue 31).

Sphinx indexes Chinese text with jieba (sphinx.search.zh), whose general dictionary does
not know the book's terms: it cut 束搜索 into 束 + 搜索, so the index held no 束搜索 and a
reader's search for it found 1 page of the 8 that hold it. And Sphinx drops one-character
words (头, 键, 值) from its index, and jieba, even taught a term, may cut the text around
it otherwise (位置编码器: 位置 + 编码器, no 位置编码).

The page's search looks each word of the query up as a whole word of the index (the
query is cut where searchtools.js's ``splitQuery`` cuts it: at anything but letters,
digits and ``_``). So the Chinese edition indexes with :class:`TermsChinese`: Sphinx's
Chinese search, with the Chinese words of every term (``words``, read from
locales/zh_CN/terminology.yml at each build, passed as ``html_search_options["terms"]``)
taught to jieba and added to the index of every piece of text that holds them.

A reader also searches for what the pages show beside the book's own terms: the
other names the glossary gives for a term (the sources' words, 注意力汇聚, 集束搜索, 层标准化),
the words a chapter links to the glossary with ({term}`注意力头 <head>`), and the words it
sets in bold where it introduces them (**交叉注意力**, **配对自助法**, **熵**: jieba cut
them, and a search for 交叉注意力 found no page). ``words`` holds those too: every Chinese
run of the glossary page's source (:func:`glossary_names`), and every Chinese link text of a
``{term}`` role and every bold text of Chinese characters only in the Chinese catalogues
(:func:`shown_in_catalogues`). tests/site/browser/test_search.py finds the same words again
in the built pages and searches each one there.
"""
from __future__ import annotations

import re
from pathlib import Path

import yaml
from sphinx.search.zh import SearchChinese

ROOT = Path(__file__).resolve().parent.parent
TERMINOLOGY = ROOT / "locales" / "zh_CN" / "terminology.yml"
GLOSSARY = ROOT / "appendix" / "glossary.md"
CATALOGUES = ROOT / "locales" / "zh_CN" / "LC_MESSAGES"
# searchtools.js's splitQuery: `query.split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu)`.
QUERY_SEPARATOR = re.compile(r"[^\w]+")
CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff]")
#: A run of Chinese text (query_words then cuts it where the search would).
CJK_RUN = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff]+")
# A {term} role's text: {term}`注意力头 <head>` or {term}`head`.
TERM_ROLE = re.compile(r"\{term\}`([^`<]*?)\s*(?:<[^`>]*>)?`")
# Bold markdown, **交叉注意力**; kept when its text is Chinese characters only.
BOLD = re.compile(r"\*\*([^*]+?)\*\*")


def terms(terminology: Path = TERMINOLOGY) -> list[str]:
    """Every Chinese rendering terminology.yml lists (``zh`` and ``also`` of its ``terms``
    and ``house`` entries), as a reader would type it into the search box."""
    data = yaml.safe_load(terminology.read_text(encoding="utf-8")) or {}
    found = []
    for section in ("terms", "house"):
        entries = data.get(section) or []
        if not isinstance(entries, list):
            raise ValueError(f"{terminology}: `{section}:` should be a list of entries, "
                             f"not {type(entries).__name__}")
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("zh"), str):
                raise ValueError(f"{terminology}: each entry of `{section}:` needs a `zh:` "
                                 f"string; got {entry!r}")
            found += [entry["zh"], *(entry.get("also") or [])]
    return list(dict.fromkeys(found))


def glossary_names(glossary: Path = GLOSSARY) -> list[str]:
    """Every run of Chinese characters of the glossary page's source, in order, each once:
    the sources' names of each term (the entries' **中文** lines), and the edition's own."""
    return list(dict.fromkeys(CJK_RUN.findall(glossary.read_text(encoding="utf-8"))))


def shown_in_catalogues(catalogues: Path = CATALOGUES) -> list[str]:
    """In the translations of the Chinese catalogues: the text of every ``{term}`` role that
    holds Chinese (``注意力头`` of {term}`注意力头 <head>`), and every bold text of Chinese
    characters only (``交叉注意力`` of **交叉注意力**); each once, sorted."""
    from babel.messages.pofile import read_po

    found = set()
    for path in sorted(catalogues.rglob("*.po")):
        with path.open("rb") as f:
            for message in read_po(f):
                strings = message.string if isinstance(message.string, tuple) else (
                    message.string,)
                for string in filter(None, strings):
                    found.update(t for t in TERM_ROLE.findall(string) if CJK.search(t))
                    found.update(t.strip() for t in BOLD.findall(string)
                                 if CJK_RUN.fullmatch(t.strip()))
    return sorted(found)


def query_words(query: str) -> list[str]:
    """The words the page's search looks up for ``query`` (splitQuery's cut)."""
    return [word for word in QUERY_SEPARATOR.split(query) if word]


def words(terminology: Path = TERMINOLOGY, glossary: Path = GLOSSARY,
          catalogues: Path = CATALOGUES) -> list[str]:
    """The Chinese words a search for any term looks up: what the index must hold
    wherever the text holds them. The terms of terminology.yml, the glossary's names and
    the text of the links to it and of the pages' bold Chinese (:func:`glossary_names`,
    :func:`shown_in_catalogues`). Latin words (softmax, BLEU) are left to Sphinx, which
    indexes every Latin word already."""
    every = terms(terminology) + glossary_names(glossary) + shown_in_catalogues(catalogues)
    found = [word for term in every for word in query_words(term) if CJK.search(word)]
    return sorted(set(found))


class LatinTerms(set):
    """The Latin words Sphinx's Chinese search has met, as a set: Sphinx 7.4 keeps them in a
    list (``latin_terms.extend`` at each piece of text it splits) and looks each word it
    stems up in it, so that indexing took time quadratic in the book's Latin words (in a
    profile of the Chinese build, 69 s of 183 went to that lookup)."""

    def extend(self, words) -> None:
        self.update(words)


class TermsChinese(SearchChinese):
    """Sphinx's Chinese search that indexes every word of ``options["terms"]`` (``words``)
    wherever a piece of text holds it, whatever jieba makes of that text."""

    def init(self, options: dict) -> None:
        super().init(options)
        import jieba

        self.latin_terms = LatinTerms()  # the same answers, looked up in a set
        self.terms = frozenset(options.get("terms") or ())
        for word in self.terms:
            # Taught to jieba too, so that the text around a term is cut as around a word.
            jieba.add_word(word)

    def split(self, input: str) -> list[str]:
        return super().split(input) + [word for word in self.terms if word in input]

    def word_filter(self, stemmed_word: str) -> bool:
        # Sphinx keeps no one-character word; the terms 头, 键 and 值 are words.
        return stemmed_word in self.terms or super().word_filter(stemmed_word)
