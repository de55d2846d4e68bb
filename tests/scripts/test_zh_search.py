"""The Chinese search's terms (scripts/zh_search.py); the search itself is tried in Chromium
by tests/site/browser/test_search.py (`make browser-check`)."""
from __future__ import annotations

import pytest
import zh_search

TERMINOLOGY = """
terms:
  - {term: beam search, zh: 束搜索}
  - {term: KV cache, zh: KV 缓存}
  - {term: encoder-decoder attention, zh: 编码器-解码器注意力}
  - {term: head, zh: 头}
  - {term: softmax, zh: softmax, also: [Softmax]}
house:
  - {term: batch, zh: 批次, also: [一批, 头]}
"""


@pytest.fixture
def terminology(tmp_path):
    path = tmp_path / "terminology.yml"
    path.write_text(TERMINOLOGY, encoding="utf-8")
    return path


def test_terms_are_the_zh_and_also_of_terms_and_house_once_each(terminology):
    assert zh_search.terms(terminology) == ["束搜索", "KV 缓存", "编码器-解码器注意力", "头",
                                            "softmax", "Softmax", "批次", "一批"]


def test_query_words_cut_where_the_page_search_cuts():
    assert zh_search.query_words("编码器-解码器注意力") == ["编码器", "解码器注意力"]
    assert zh_search.query_words("KV 缓存") == ["KV", "缓存"]
    assert zh_search.query_words("Add & Norm") == ["Add", "Norm"]
    assert zh_search.query_words("log_softmax") == ["log_softmax"]


GLOSSARY = """```{glossary}
beam search
  **中文** 集束搜索 (000) and 束搜索 (003); 003 calls it 束搜索的宽度.
```
"""

CATALOGUE = r"""msgid "The {term}`head <head>` and the {term}`KV cache`."
msgstr "{term}`注意力头 <head>`与{term}`键/值缓存（KV 缓存） <KV cache>`，{term}`BLEU`。"

msgid "**Cross-attention** and **the pair's bootstrap**, **top-k**, **why it matters:**"
msgstr "**交叉注意力**与**配对自助法**，**top-k**，**为什么重要：**"
"""


@pytest.fixture
def glossary(tmp_path):
    path = tmp_path / "glossary.md"
    path.write_text(GLOSSARY, encoding="utf-8")
    return path


@pytest.fixture
def catalogues(tmp_path):
    (tmp_path / "LC_MESSAGES" / "chapters").mkdir(parents=True)
    (tmp_path / "LC_MESSAGES" / "chapters" / "a.po").write_text(CATALOGUE, encoding="utf-8")
    return tmp_path / "LC_MESSAGES"


def test_glossary_names_are_its_chinese_runs(glossary):
    assert zh_search.glossary_names(glossary) == ["中文", "集束搜索", "束搜索", "束搜索的宽度"]


def test_shown_in_catalogues_are_the_chinese_term_links_and_bold_chinese(catalogues):
    # bold Latin, and bold Chinese with punctuation (a phrase, not a term), are left out
    assert zh_search.shown_in_catalogues(catalogues) == sorted(
        ["注意力头", "键/值缓存（KV 缓存）", "交叉注意力", "配对自助法"])


def test_words_are_the_chinese_words_of_the_terms_names_and_links(terminology, glossary,
                                                                   catalogues):
    assert zh_search.words(terminology, glossary, catalogues) == sorted(
        ["束搜索", "缓存", "编码器", "解码器注意力", "头", "批次", "一批",  # terminology
         "中文", "集束搜索", "束搜索的宽度",  # the glossary's names
         "注意力头", "键", "值缓存",  # the links' texts, cut where the search cuts
         "交叉注意力", "配对自助法"])  # bold Chinese


def test_the_real_terminology_gives_its_compound_terms_whole():
    words = zh_search.words()
    assert {"束搜索", "贪心解码", "位置编码", "层归一化", "头"} <= set(words)
    assert {"注意力汇聚", "集束搜索", "层标准化", "注意力头", "交叉注意力"} <= set(words)
    assert not [word for word in words if zh_search.QUERY_SEPARATOR.search(word)]


@pytest.mark.parametrize("text, problem", [
    ("terms: {zh: 头}\n", "`terms:` should be a list of entries, not dict"),
    ("terms:\n  - {term: head}\n",
     "each entry of `terms:` needs a `zh:` string; got {'term': 'head'}"),
])
def test_bad_terminology_says_what_was_expected(tmp_path, text, problem):
    path = tmp_path / "terminology.yml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=problem.replace("{", r"\{").replace("}", r"\}")):
        zh_search.terms(path)


def test_zh_config_passes_the_words_to_the_search():
    import build_book

    assert build_book.zh_config()["html_search_options"] == {"terms": zh_search.words()}


def test_the_index_holds_each_term_wherever_the_text_holds_it():
    import jieba

    terms = zh_search.TermsChinese({"terms": ["束搜索", "位置编码", "头"]})
    words = terms.split("位置编码器的每个头都用束搜索")
    assert {"束搜索", "位置编码", "头"} <= set(words)
    # jieba alone, even taught the term, cuts 位置编码器 into 位置 + 编码器.
    assert "位置编码" not in jieba.lcut_for_search("位置编码器")


def test_one_character_terms_are_words():
    terms = zh_search.TermsChinese({"terms": ["头"]})
    assert terms.word_filter("头") and not terms.word_filter("的")
    assert not zh_search.SearchChinese({}).word_filter("头")  # Sphinx's own drops it


def test_without_terms_it_is_sphinx_chinese_search():
    terms = zh_search.TermsChinese({})
    assert terms.split("我们") == zh_search.SearchChinese({}).split("我们")


def test_latin_words_are_stemmed_as_sphinx_does_and_looked_up_in_a_set():
    """Sphinx keeps the Latin words it met in a list and looks each word it stems up in it
    (quadratic: 69 s of a 183 s profiled build); ours keeps a set, with the same stems."""
    text = "the GPU and BPE of CNN attention heads 位置编码 softmax"
    ours, sphinx = zh_search.TermsChinese({}), zh_search.SearchChinese({})
    ours.split(text)
    sphinx.latin_terms = []  # Sphinx's list is shared by every instance (a class attribute)
    sphinx.split(text)
    assert isinstance(ours.latin_terms, set) and ours.latin_terms == set(sphinx.latin_terms)
    words = ["GPU", "BPE", "CNN", "heads", "attention", "softmax", "the", "running", "tokens"]
    assert [ours.stem(w) for w in words] == [sphinx.stem(w) for w in words]
