"""The Chinese edition is kept in step with the English (scripts/translations.py).

Every translation keeps its message's markup (glued numbers, maths, code, link targets); every
translation uses the edition's terms (locales/zh_CN/terminology.yml) and none of the
renderings it never uses. Each failure names the catalogue and the message. (That every
message of the current English is translated, none fuzzy, the Chinese build itself checks:
scripts/catalogue_check.py, tests/scripts/test_catalogue_check.py.)
"""
from __future__ import annotations

import re
from pathlib import Path

import translations
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

ROOT = Path(__file__).resolve().parents[2]


def write_catalogue(path: Path, messages: dict[str, str], fuzzy=()) -> None:
    catalog = Catalog(locale="zh_CN")
    for english, chinese in messages.items():
        catalog.add(english, chinese, flags=["fuzzy"] if english in fuzzy else [])
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalog)


def listed(problems: list[str], limit: int = 15) -> str:
    shown = "\n".join(problems[:limit])
    more = f"\n... and {len(problems) - limit} more" if len(problems) > limit else ""
    return f"{len(problems)} problem(s):\n{shown}{more}"


# ---------------------------------------------------------------- the rules, on examples
def test_markup_keeps_glue_maths_code_and_reference_targets():
    english = ("Each name gets {glue:text}`w_b:.4f`, not $\\tfrac13$; see {ref}`exercise 3 "
               "<ex-1-params>`, {term}`heads <head>` and `ages[\"Bob\"]` ([a](https://x.org)).")
    assert translations.markup(english) == {
        "{glue:text}`w_b:.4f`": 1, "$\\tfrac13$": 1, "{ref}`ex-1-params`": 1,
        "{term}`head`": 1, '`ages["Bob"]`': 1, "](https://x.org)": 1}
    good = ("每个名字得到 {glue:text}`w_b:.4f`，而不是 $\\tfrac13$；见{ref}`练习 3 <ex-1-params>`、"
            "{term}`头 <head>` 和 `ages[\"Bob\"]`（[a](https://x.org)）。")
    assert translations.markup_problems(english, good) == []


def test_markup_problems_name_what_was_lost_and_added():
    english = "The {term}`attention` weights are {glue:text}`w:.2f` and $x$."
    chinese = "{term}`注意力` 权重是 {glue:text}`w:.3f`。"
    assert translations.markup_problems(english, chinese) == [
        "lost $x$", "lost {glue:text}`w:.2f`", "lost {term}`attention`",
        "added {glue:text}`w:.3f`", "added {term}`注意力`"]


TERMS = {"never": {"变压器": "not the model"},
         "terms": [{"term": "head", "zh": "头", "english": "heads?"},
                   {"term": "key", "zh": "键", "english": "keys?"}],
         "exceptions": [{"term": "key", "english": "the key idea", "why": "not the term"}]}


def test_terminology_wants_the_editions_word_where_the_english_uses_the_term(tmp_path):
    write_catalogue(tmp_path / "chapters" / "a.po", {
        "Four heads look at the keys.": "四个头查看键。",            # fine
        "Each head has its own keys.": "每个头部有自己的键。",        # 头部 is never used
        "Compare the keys.": "比较这些钥匙。",                          # not 键
        "This is the key idea.": "这是核心思想。",                      # an exception
        "The Transformer.": "变压器。",                                 # never
        "A `key` in code is not prose.": "代码里的 `key` 不算。"})
    problems = translations.terminology_problems(tmp_path, TERMS)
    assert len(problems) == 2, problems
    assert problems[0].startswith('chapters/a.po: term: "key" is 键') and "Compare" in problems[0]
    assert problems[1].startswith("chapters/a.po: never: 变压器")
    # 头部 contains 头: the never-list, not the term rule, catches it.
    TERMS["never"]["头部"] = "the body part"
    problems = translations.terminology_problems(tmp_path, TERMS)
    assert any("never: 头部" in p and "每个头部" in p for p in problems)


def test_figure_labels_quoted_in_alt_text_are_not_terms(tmp_path):
    write_catalogue(tmp_path / "a.po", {
        "Bar chart of 4 values titled “Keys”; bars: Bob 1; y axis: key.":
            "4 个数值的柱状图，标题为“Keys”；各柱：Bob 1；纵轴：key。"})
    assert translations.terminology_problems(tmp_path, TERMS) == []


# ---------------------------------------------------------------- the catalogues themselves
def test_every_translation_keeps_its_markup():
    problems = translations.all_markup_problems()
    assert not problems, listed(problems)


def test_every_translation_uses_the_editions_terms():
    problems = translations.terminology_problems()
    assert not problems, listed(problems) + (
        "\n(fix the Chinese, or, where the English word is not the term, add an exception "
        "with its reason to locales/zh_CN/terminology.yml)")


def test_terminology_has_an_entry_for_every_glossary_term():
    glossary = (ROOT / "appendix" / "glossary.md").read_text(encoding="utf-8")
    body = glossary[glossary.index("```{glossary}"):]
    # An entry's first term names it; a second term line ("development set") is an alias.
    terms = set(re.findall(r"^(\S[^\n]*)\n(?:\S[^\n]*\n)*  \*\*中文\*\*", body, re.M))
    listed_terms = {entry["term"] for entry in translations.load_terminology()["terms"]}
    assert terms and terms == listed_terms, (
        f"glossary only: {sorted(terms - listed_terms)}; "
        f"terminology.yml only: {sorted(listed_terms - terms)}")
    # Each entry ends with the Chinese edition's word: terminology.yml's.
    block = body.split("\n", 2)[2].split("\n```")[0]  # after ```{glossary} and :sorted:
    entries = [e.strip("\n") for e in re.split(r"\n\n(?=\S)", block) if e.strip()]
    said = {}
    for entry in entries:
        edition = re.search(r"^  In this book's Chinese edition: (.*)\.$", entry, re.M)
        said[entry.split("\n", 1)[0]] = edition.group(1) if edition else None
    wanted = {e["term"]: e["zh"] for e in translations.load_terminology()["terms"]}
    assert said == wanted, sorted(set(said.items()) ^ set(wanted.items()))


def test_extracting_leaves_one_pot_per_page_of_the_current_english(tmp_path, monkeypatch):
    """translations.extract, with Sphinx's gettext builder stood in for: the .pot of a page
    renamed since the last run is removed (sphinx-intl would give it a catalogue again), and
    a message found only in the package's docstrings is left out."""
    def gettext_builder(*args):
        out = Path(args[args.index("--path-output") + 1]) / "_build" / "gettext" / "chapters"
        out.mkdir(parents=True)
        catalog = Catalog(locale="en")
        catalog.add("A page's sentence.", locations=[("chapters/a.ipynb", 3)])
        catalog.add("A docstring's sentence.", locations=[
            ("illustrated/attention.py:docstring", 1)])
        with (out / "a.pot").open("wb") as f:
            write_po(f, catalog)
        return 0, 0

    monkeypatch.setattr(translations, "jupyter_book", gettext_builder)
    stale = tmp_path / "pot" / "chapters" / "00_renamed.pot"  # a page's old name
    stale.parent.mkdir(parents=True)
    stale.write_text("", encoding="utf-8")
    written = translations.extract(tmp_path / "pot", tmp_path / "work")
    assert sorted((tmp_path / "pot").rglob("*.pot")) == written == [
        tmp_path / "pot" / "chapters" / "a.pot"]
    ids = [m.id for m in translations.read_catalogue(written[0]) if m.id]
    assert ids == ["A page's sentence."]


def test_latex_words_and_the_papers_title_are_not_terms(tmp_path):
    write_catalogue(tmp_path / "a.po", {
        "\\text{lrate} = \\min(\\text{step}^{-0.5}, \\text{warmup}^{-1.5})":
            "\\text{lrate} = \\min(\\text{step}^{-0.5}, \\text{warmup}^{-1.5})",
        "The slides on \"Attention Is All You Need\".": "介绍《Attention Is All You Need》的幻灯片。"})
    terms = {"terms": [{"term": "warm-up", "zh": "预热", "english": "warm-?up"},
                       {"term": "attention", "zh": "注意力"}]}
    assert translations.terminology_problems(tmp_path, terms) == []


def test_a_glued_words_chinese_twin_counts_as_the_word():
    english = "That made self-attention {glue:text}`verdict_2048` than the recurrence."
    assert translations.markup_problems(english, "自注意力因此{glue:text}`verdict_2048_zh`。") == []
    assert translations.markup_problems(english, "自注意力因此{glue:text}`other_zh`。") == [
        "lost {glue:text}`verdict_2048`", "added {glue:text}`other`"]


def test_house_words_are_held_to_the_same_rule(tmp_path):
    write_catalogue(tmp_path / "a.po", {"The idea": "思路", "the idea is old": "这个想法很老",
                                        "The package's loss.": "配套包的损失。"})
    terms = {"terms": [], "house": [
        {"term": "The idea", "zh": "基本思想", "english": "(?-i:^The idea$)"},
        {"term": "the package", "zh": "软件包", "english": "the (companion )?package"}]}
    problems = translations.terminology_problems(tmp_path, terms)
    assert [p.split(":")[2].strip() for p in problems] == ['"The idea" is 基本思想, which the '
                                                           'Chinese lacks', '"the package" is '
                                                           '软件包, which the Chinese lacks']


def test_an_images_file_is_not_a_message_but_its_alt_text_is():
    # An image's file path (".. image:: <work folder>/<hash>.png", Sphinx's `image` gettext
    # target, which _config.yml does not set) would change with every re-execution.
    messages = [english for _, english, _ in translations.translated_messages()]
    assert not [m for m in messages if m.startswith(".. image::")]
    assert any(m.startswith("Heat map of 0 to 15 in four bits") for m in messages)


def test_a_translation_that_would_parse_as_a_list_is_refused():
    # Sphinx parses each translation alone: "1. 黑箱" became a list, and the heading it
    # translated was dropped without a warning.
    assert translations.markup_problems("1. The black box", "1. 黑箱") == [
        "starts with '1. ', which MyST reads as a list: escape it (1\\. ...)"]
    assert translations.markup_problems("1. The black box", "1\\. 黑箱") == []


def test_the_editions_choices_of_issue_31_are_terms(tmp_path):
    # Post-LN / Pre-LN are 后置/前置层归一化, the live translator runs in the browser, an
    # epoch is a 轮, teacher forcing 教师强制: each the rule, the calques never.
    terminology = translations.load_terminology()
    zh = {e["term"]: e["zh"] for e in terminology["terms"] + terminology["house"]}
    assert (zh["post-norm"], zh["pre-norm"], zh["live translator"], zh["epoch"],
            zh["teacher forcing"]) == ("后置层归一化", "前置层归一化", "浏览器内翻译器", "轮", "教师强制")
    write_catalogue(tmp_path / "chapters" / "a.po", {
        "It trained about 3.4 passes over the training pairs.": "它在数据上过了约 3.4 遍。",
        "A post-norm stack.": "一个后置归一化的堆叠。",
        "The live translator.": "在线翻译器。",
        "Teacher forcing.": "强制教学。",
        "Two epochs, a pre-norm stack, teacher forcing and the live translator.":
            "两轮，一个前置层归一化的堆叠，教师强制，以及浏览器内翻译器。"})
    problems = translations.terminology_problems(tmp_path, terminology)
    assert sorted(p.split(": ")[1] for p in problems) == ["never"] * 4 + ["term"] * 4, problems
    assert not [p for p in problems if "两轮" in p]
