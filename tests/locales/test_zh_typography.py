"""The Chinese typography rules (tests/locales/zh_typography.py): each on a planted defect and on
the same message written right; then every catalogue of the book."""
from __future__ import annotations

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from tests.locales import zh_typography as typo

TARGETS = typo.page_targets()
PAGE = typo.CATALOGUES / "chapters" / "02_soft_lookup.po"


def rules(chinese: str, english: str = "(English)") -> list[str]:
    return [rule for rule, _ in typo.message_problems(english, chinese, PAGE, TARGETS)]


def test_the_book_numbers_chapters_and_sections_as_its_pages_do():
    # As the built pages number them: 5.3. All heads at once; 3.2.1. Step 1: ...
    assert TARGETS["ch-multi-head"]["number"] == "5"
    assert TARGETS["sec-multi-head-all-heads-at-once"]["number"] == "5.3"
    assert TARGETS["sec-self-attention-step-1-compare-every-pair"]["number"] == "3.2.1"
    assert TARGETS["chapters/05_multi_head"]["number"] == "5"
    assert TARGETS["glossary"]["number"] is None


def test_emphasis_without_spaces_around_chinese():
    assert rules("这种 *软* 查找") == ["emphasis-space", "emphasis-space"]
    assert rules("这种**软**查找，以及“*软*”查找。") == []
    # A Latin emphasis keeps the usual space between Chinese and Latin.
    assert rules("讲解 *Attention Is All You Need* 的幻灯片") == []


def test_no_punctuation_at_the_inner_edge_of_an_emphasis_next_to_chinese():
    assert rules("这是*“软”*查找") == ["emphasis-punctuation"]
    assert rules("这是“*软*”查找") == []


def test_full_width_punctuation_in_chinese_sentences():
    assert rules("所以,我们把它写成表格(见下文)") == ["half-width", "half-width", "half-width"]
    assert rules("先看 tensor, 那么结果是") == ["half-width"]
    assert rules("注意: 这里") == ["half-width"]
    assert rules("所以，我们把它写成表格（见下文）：这里") == []


def test_code_maths_roles_and_urls_are_not_prose():
    assert rules("调用 `f(x, y)` 得到 $a:b$，见 {cite:label}`source004` 和 "
                 "[文档](https://x.org/a,b)。") == []
    assert rules("式 (3-2) 把每一行相加。") == []


def test_a_verbatim_quote_keeps_the_source_s_punctuation():
    """Judged by the committed record (a fresh clone has no source documents): the same
    answer on every machine."""
    recorded = next(q for q in typo.QUOTES.read_text(encoding="utf-8").splitlines()
                    if "在某种意义上," in q)  # errata 000 quotes the blog's translation
    assert rules(f"译文原话是：「{recorded}」") == []
    # Not what the source writes: held to the rules.
    assert rules("译文原话是：「因此在某种意义,它在模型中」") == ["half-width"]


def test_every_recorded_quote_is_a_sources_own_words():
    """The record cannot excuse a quotation the sources do not hold (run where they are)."""
    if not typo.source_text():
        pytest.skip(f"the source documents are not at {typo.SEEDS} (ILLUSTRATED_SEEDS)")
    lines = typo.QUOTES.read_text(encoding="utf-8").splitlines()
    assert lines, "the record is empty"
    assert [q for q in lines if not typo.in_sources(q)] == []


def test_every_verbatim_quote_of_the_catalogues_is_recorded():
    """A new quotation of a source in a translation: rerun --record-quotes (with sources)."""
    if not typo.source_text():
        pytest.skip(f"the source documents are not at {typo.SEEDS} (ILLUSTRATED_SEEDS)")
    quotes = typo.catalogue_quotes(sorted(typo.CATALOGUES.rglob("*.po")))
    assert [q for q in quotes if typo.in_sources(q) and not typo.is_verbatim(q)] == []


def test_numbers_grouped_as_the_english_groups_them():
    assert rules("取 20 000 个样本", "take 20,000 samples") == ["thousands"]
    assert rules("取 20000 个样本", "take 20,000 samples") == ["thousands"]
    assert rules("取 20,000 个样本", "take 20,000 samples") == []


def test_links_to_chapters_and_sections_read_as_chapter_and_section_numbers():
    assert rules("见 {ref}`ch-decoding`。") == ["chapter-link"]
    assert rules("与{ref}`解码 <ch-decoding>`中完全一样。") == ["chapter-link"]
    assert rules("见 {ref}`sec-multi-head-all-heads-at-once`。") == ["chapter-link"]
    assert rules("见{ref}`第 5.2 节 <sec-multi-head-all-heads-at-once>`。") == ["chapter-link"]
    assert rules("见 {doc}`Chapter 5 <chapters/05_multi_head>`。") == ["chapter-link"]
    assert rules("见 {ref}`live translator <live-translator>`。") == ["chapter-link"]
    assert rules("见{ref}`第 10 章 <ch-decoding>`、{ref}`第 5.3 节“所有头一起算” "
                 "<sec-multi-head-all-heads-at-once>`、第 {ref}`3 <ch-self-attention>` 章、"
                 "{doc}`第 5 章 <../chapters/05_multi_head>`、{ref}`glossary` 和"
                 "{ref}`浏览器内翻译器 <live-translator>`。") == []


def test_the_illustrated_transformer_has_its_chinese_name():
    assert rules("如 The Illustrated Transformer 所画") == ["illustrated"]
    assert rules("如《图解 Transformer》所画") == []


def test_one_percent_style_no_space_before_the_percent_sign():
    assert rules("占训练的 33 % 和 {glue:text}`share:.0f` %") == ["percent", "percent"]
    assert rules("占训练的 33% 和 {glue:text}`share:.0f`%") == []


def test_a_latin_edged_link_is_spaced_from_chinese_and_a_chinese_one_is_not():
    # A bare exercise reference renders 练习 12.6: as a number, it is spaced from Chinese.
    assert rules("{ref}`ex-real-words-subwords`说明了怎样运行。") == ["link-space"]
    assert rules("{ref}`ex-real-words-subwords` 说明了怎样运行。") == []
    assert rules("见{ref}`练习 3 <ex-4-dk>`。") == []
    assert rules("用{term}`logits <logits>`计算") == ["link-space", "link-space"]
    assert rules("用 {term}`logits <logits>` 计算") == []
    assert rules("也就是 {term}`超参数 <hyperparameter>`：") == ["link-space"]
    assert rules("也就是{term}`超参数 <hyperparameter>`：") == []


def test_no_chinese_stop_after_the_english_one():
    assert rules("两种说法：*Help me!* 和 *Help me.*。") == ["doubled-stop"]
    assert rules("句子是“je suis chez moi .”。") == ["doubled-stop"]
    assert rules("编号 0, 1, 2, ...。") == ["doubled-stop"]
    assert rules("两种说法（如 *Help me!* 与 *Help me.*），算作同一个句子。") == []
    assert rules("调用 `f()`。结果是 {glue:text}`x:.1f`。") == []


def test_ratios_as_chinese_states_them():
    assert rules("减少到原来的 {glue:text}`r:.1f` 分之一") == ["times"]
    assert rules("缓存让运算少了 {glue:text}`r` 倍，多花 136 倍，短 16 倍") == ["times"] * 3
    assert rules("只有不用缓存时的 1/{glue:text}`r`，是它的 136 倍，三分之一，百分之一") == []
    assert rules("用很小的 $\\tau$ 去除分数") == ["times"]
    assert rules("把分数除以很小的 $\\tau$") == []


def test_an_emphasis_on_a_role_needs_a_space_before_it_in_markdown():
    assert rules("进入**{term}`验证集 <development set>`**（") == ["emphasis-role"]
    assert rules("即*{term}`头 <head>`*，每个") == ["emphasis-role"]
    assert rules("进入 **{term}`验证集 <development set>`**（") == []
    assert rules("每个 *{term}`头 <head>`*的") == ["emphasis-role"]


def test_english_messages_are_not_read():
    assert rules("see {ref}`ch-decoding`, the *soft* lookup, 20 000") == []


CATALOGUES = sorted(typo.CATALOGUES.rglob("*.po"))


@pytest.mark.parametrize("catalogue", CATALOGUES,
                         ids=[p.relative_to(typo.CATALOGUES).as_posix() for p in CATALOGUES])
def test_every_catalogue_follows_the_rules(catalogue):
    problems = typo.check([catalogue], TARGETS)
    shown = "\n".join(f"\"{start}\": {rule}: {what}" for _, start, rule, what in problems)
    assert not problems, f"{len(problems)} typography problem(s):\n{shown}"


def test_a_broken_rule_is_named_with_its_message(tmp_path):
    catalog = Catalog(locale="zh_CN")
    catalog.add("A *soft* lookup.", "一次 *软* 查找。")
    catalog.add("Fine.", "很好。")
    path = tmp_path / "page.po"
    with path.open("wb") as f:
        write_po(f, catalog)
    (name, start, rule, what), *_ = typo.check([path], TARGETS)
    assert (name, start, rule) == (str(path), "A *soft* lookup.", "emphasis-space")
    assert what.startswith("space before *软*")
