"""tests/site/html_rules.py, rule by rule, on small HTML pages shaped like the real ones.

Each rule is shown finding what it must on a bad page and nothing on a good one. The markup
copies what Sphinx, MyST-NB and sphinx-exercise write (seen in _build/html).
"""
import types

import pytest

from tests.site import html_rules as rules

API = rules.API_PAGE
CHAPTER = "chapters/09_example.html"


def page(body: str) -> str:
    return f"<html><head><script>var x = ':param ';</script></head><body>{body}</body></html>"


def doc(body: str):
    return rules.parse(page(body))


def sig(name: str) -> str:
    module, _, short = name.rpartition(".")
    return (f'<dl class="py class"><dt class="sig sig-object py" id="{name}">'
            f'<span class="sig-prename descclassname">{module}.</span>'
            f'<span class="sig-name descname">{short}</span></dt><dd><p>Doc.</p></dd></dl>')


# ---------------------------------------------------------------- raw-rst
UNRENDERED_API = """
<p>.. py:class:: Encoder(N: int, d_model: int, h: int, d_ff: int, dropout: float = 0.1)</p>
<div class="highlight"><pre>:module: illustrated.model

A stack of N identical encoder layers.

:param N: number of layers (6 in the paper).
</pre></div>
<p>================== ===================== =========</p>
"""


def test_raw_rst_finds_autodoc_output_parsed_as_markdown():
    found = rules.raw_rst(API, doc(UNRENDERED_API))
    assert any(".. py:class:: Encoder" in f for f in found)
    assert any(":param N:" in f for f in found)
    assert any("=====" in f for f in found)


def test_raw_rst_shows_the_first_lines_then_a_count():
    found = rules.raw_rst(CHAPTER, doc("".join(f"<p>:param x{i}: a parameter</p>"
                                               for i in range(8))))
    assert len(found) == 6 and found[-1] == "... and 3 more"


@pytest.mark.parametrize("text", [".. automodule:: illustrated.masks", ":returns: the mask",
                                  ".. autofunction:: f", ":rtype: Tensor"])
def test_raw_rst_finds_any_directive_or_field(text):
    assert rules.raw_rst(CHAPTER, doc(f"<p>{text}</p>"))


def test_raw_rst_passes_rendered_pages_and_ignores_scripts():
    body = sig("illustrated.model.Encoder") + "<p>Parameters: N – number of layers.</p>"
    assert rules.raw_rst(API, doc(body)) == []


def test_table_borders_only_matter_on_the_api_page():
    body = '<div class="output"><pre>=========\nloss 0.25\n</pre></div>'
    assert rules.raw_rst(CHAPTER, doc(body)) == []
    assert rules.raw_rst(API, doc(body))


# ---------------------------------------------------------------- api
def test_api_modules_are_read_from_eval_rst_and_myst_blocks():
    source = """
```{eval-rst}
.. automodule:: illustrated
```
```{eval-rst}
.. automodule:: illustrated.model
   :members:
```
```{automodule} illustrated.masks
:members:
```
"""
    assert rules.api_modules(source) == ["illustrated", "illustrated.model", "illustrated.masks"]


def _module(name, all_=None):
    module = types.ModuleType(name)
    exec("import math\nfrom pathlib import Path\nX = 1\n"
         "def f(): pass\ndef _g(): pass\nclass C: pass\nclass _D: pass\n", vars(module))
    for obj in (module.f, module.C, module._g, module._D):
        obj.__module__ = name
    if all_ is not None:
        module.__all__ = all_
    return module


def test_public_names_without_all_are_the_functions_and_classes_defined_there():
    assert rules.public_names(_module("pkg.mod")) == ["f", "C"]


def test_public_names_with_all_follow_all_including_reexports_and_constants():
    assert rules.public_names(_module("pkg.mod", ["f", "Path", "X"])) == ["f", "Path", "X"]


def test_rendered_signatures_are_the_ids_of_the_signatures():
    body = sig("illustrated.model.Encoder") + sig("illustrated.model.make_model")
    assert rules.rendered_signatures(doc(body)) == {"illustrated.model.Encoder",
                                                    "illustrated.model.make_model"}
    assert rules.rendered_signatures(doc(UNRENDERED_API)) == set()


def test_expected_api_of_the_real_page_covers_the_package():
    expected = rules.expected_api(rules.API_SOURCE.read_text(encoding="utf-8"))
    assert {"illustrated.model.Transformer", "illustrated.attention.MultiHeadAttention",
            "illustrated.exercises.check_softmax",
            "illustrated.draw.attention_heatmap"} <= set(expected)


# ---------------------------------------------------------------- glue-quotes
@pytest.mark.parametrize("pasted", [
    '<span class="output text_plain">‘24’</span>',  # {glue} role, str repr after smartquotes
    "<span class=\"output text_plain\">'44,304'</span>",
    '<span class="pasted-text">“7”</span>',  # {glue:text}
    '<span class="output text_html">"x"</span>',
])
def test_glue_quotes_finds_a_quoted_inline_paste(pasted):
    found = rules.glue_quotes(doc(f"<p>The model has {pasted} parameters.</p>"))
    assert len(found) == 1 and found[0].startswith("pasted ") and "parameters" in found[0]


def test_glue_quotes_finds_a_quoted_block_paste():
    body = '<div class="output text_plain highlight-myst-ansi"><pre>\'hello\'</pre></div>'
    assert rules.glue_quotes(doc(body))


def test_glue_quotes_passes_numbers_and_cell_outputs():
    body = ('<p>About <span class="output text_plain">24</span> times, '
            '<span class="pasted-text">44,304</span> parameters, '
            '<span class="pasted-text">‘ok</span>.</p>'
            '<div class="cell docutils container"><div class="cell_output docutils container">'
            '<div class="output text_plain highlight-myst-ansi"><pre>\'a str\'</pre></div>'
            '</div></div>')
    assert rules.glue_quotes(doc(body)) == []


# ---------------------------------------------------------------- solutions
def cell(source: str) -> str:
    return (f'<div class="cell docutils container"><div class="cell_input docutils container">'
            f'<div class="highlight-ipython3 notranslate"><div class="highlight"><pre>{source}\n'
            f'</pre></div></div></div><div class="cell_output docutils container">'
            f'<div class="output stream highlight-myst-ansi"><pre>out</pre></div></div></div>')


def exercise(n):
    return (f'<div class="exercise admonition" id="ex-{n}"><p class="admonition-title">'
            f'Exercise 9.{n}</p><section id="exercise-content"><p>Do it.</p></section></div>')


def solution(n, inside="", dropdown=True):
    classes = "solution dropdown admonition" if dropdown else "solution admonition"
    return (f'<div class="{classes}" id="sol-{n}"><p class="admonition-title">Solution to '
            f'Exercise 9.{n}</p><section id="solution-content"><p>Because.</p>{inside}'
            f'</section></div>')


EXERCISES = ('<section id="exercises">'
             '<h2>9.6. Exercises<a class="headerlink" href="#exercises">#</a></h2>')


def test_solutions_pass_the_gated_form():
    body = (cell("x = 1") + EXERCISES + exercise(1)
            + solution(1, cell("def f():\n    return 1")) + exercise(2) + solution(2)
            + "</section>")
    assert rules.open_solutions(doc(body)) == []


def test_solutions_find_a_cell_after_the_solution_directive():
    body = (EXERCISES + exercise(1) + solution(1) + cell("\ndef soft_lookup(q):\n    pass")
            + "</section>")
    assert rules.open_solutions(doc(body)) == [
        "code cell after Exercises outside a closed solution: def soft_lookup(q):"]


def test_solutions_find_a_cell_in_a_later_section_too():
    body = (EXERCISES + exercise(1) + solution(1) + "</section>"
            + '<section id="more"><h2>Further reading</h2>' + cell("print(2)") + "</section>")
    assert len(rules.open_solutions(doc(body))) == 1


def test_solutions_find_a_solution_that_is_not_a_dropdown():
    body = EXERCISES + exercise(1) + solution(1, cell("y = 2"), dropdown=False) + "</section>"
    assert rules.open_solutions(doc(body)) == [
        '"Solution to Exercise 9.1" is not a dropdown (add `:class: dropdown`)',
        "code cell after Exercises outside a closed solution: y = 2"]


def test_solutions_ignore_pages_without_exercises():
    assert rules.open_solutions(doc(cell("x = 1") + "<h2>Summary</h2>" + cell("y"))) == []


# ---------------------------------------------------------------- code-width
def test_code_width_finds_a_line_longer_than_the_limit():
    line = "x = torch.randn(4, generator=g, dtype=torch.float64)  # (D,)  the decoder's last vector"
    code = ('<div class="cell docutils container"><div class="cell_input docutils container">'
            '<div class="highlight-ipython3 notranslate"><div class="highlight"><pre>'
            '<span></span>{}</pre></div></div></div></div>')
    page_ = doc(code.format("short = 1\n" + line + "\n" + "y" * 101))
    found = rules.long_code_lines(page_)
    assert len(found) == 1 and found[0].startswith("101 characters (the limit is 100): yyy")
    assert rules.long_code_lines(page_, limit=80)[0].startswith(
        f"{len(line)} characters (the limit is 80): x = torch.randn")
    # Printed output is not source code (it wraps, _static/outputs.css).
    output = '<div class="cell_output docutils container"><pre>{}</pre></div>'.format("z" * 300)
    assert rules.long_code_lines(doc(output)) == []


def test_an_output_box_with_nothing_in_it_is_found():
    code = ('<div class="cell docutils container"><div class="cell_input docutils container">'
            '<pre>print(1)</pre></div><div class="cell_output docutils container">{}</div></div>')
    box = ('<div class="output stream highlight-myst-ansi notranslate">'
           '<pre><span></span>{}</pre></div>')
    assert rules.empty_outputs(doc(code.format(box.format("1\n")))) == []
    found = rules.empty_outputs(doc(code.format(box.format("1") + box.format("\n"))))
    assert found == ["an empty output box after the cell starting 'print(1)'"]


def test_code_width_column_follows_the_theme():
    """COLUMN: the 906-px code box at 1280 px (_static/layout.css: the contents a drawer
    below 1600 px) over 8.43 px per character (14-px DejaVu Sans Mono, measured in
    Chromium); a line of CODE_LINE characters does not wrap."""
    assert rules.COLUMN == int(906 / 8.4287)
    assert rules.CODE_LINE <= rules.COLUMN


# ---------------------------------------------------------------- edition
def edition_site(tmp_path, zh_body: str, zh_lang: str = "zh-CN"):
    (tmp_path / "zh" / "chapters").mkdir(parents=True)
    (tmp_path / "chapters").mkdir()
    english = ('<p class="edition-switch"><a href="../zh/chapters/06.html">中文</a></p>'
               '<article><h1>6. Masks</h1></article>')
    chinese = ('<p class="edition-switch"><a href="../../chapters/06.html">English</a></p>'
               + zh_body)
    (tmp_path / "chapters" / "06.html").write_text(f"<html lang='en'><body>{english}</body></html>")
    (tmp_path / "zh" / "chapters" / "06.html").write_text(
        f"<html lang='{zh_lang}'><body>{chinese}</body></html>")
    return {name: rules.parse((tmp_path / name).read_text())
            for name in ("chapters/06.html", "zh/chapters/06.html")}


def test_edition_rules_want_a_working_switch_and_chinese_titles(tmp_path):
    good = ('<article><h1>6. 掩码</h1></article><div class="exercise">'
            '<p class="admonition-title">练习 6.1 (写出后续掩码)</p></div>'
            '<div class="bd-sidebar-primary"><p class="caption">注意力</p></div>')
    docs = edition_site(tmp_path, good)
    for name, page_ in docs.items():
        assert rules.edition_switch(name, page_, tmp_path) == []
    assert rules.untranslated(docs["zh/chapters/06.html"]) == []
    bad = good.replace("写出后续掩码", "Write the subsequent mask").replace("练习", "Exercise")
    bad = bad.replace('<p class="caption">注意力', '<p class="caption">Attention')
    docs = edition_site(tmp_path / "b", bad, zh_lang="en")
    assert [f.split(" not")[0].split("=")[0] for f in
            rules.untranslated(docs["zh/chapters/06.html"])] == [
        "lang", "exercise title", "sidebar caption"]
    (tmp_path / "b" / "chapters" / "06.html").unlink()
    assert rules.edition_switch("zh/chapters/06.html", docs["zh/chapters/06.html"],
                                tmp_path / "b") == ["its link ../../chapters/06.html leads to no page"]
    assert rules.edition_switch("chapters/06.html", doc("<p>no switch</p>"), tmp_path) == [
        "no link to the other edition"]


def test_emphasis_rule_wants_chinese_emphasis_upright():
    good = '<p>这种<em class="zh-emphasis">软</em>查找，讲解 <em>Attention Is All You Need</em> 的</p>'
    bad = "".join(f"<p>这种<em>软{i}</em>查找</p>" for i in range(7))
    assert rules.italic_chinese(doc(good)) == []
    found = rules.italic_chinese(doc(bad))
    assert found[0] == "<em>软0</em> is set in italics, not as zh-emphasis (着重号)"
    assert found[-1] == "... and 2 more"


def test_section_ids_are_read_in_order():
    assert rules.section_ids('<section id="a"><section id="b"></section></section>') == ["a", "b"]


# ---------------------------------------------------------------- machine-path
def test_a_page_showing_the_build_machines_path_is_named(tmp_path):
    html = ('<dt class="sig">PROBE = PosixPath(\'' + str(tmp_path)
            + '/chapters/data/tatoeba/probe.tsv\')</dt>')
    [found] = rules.machine_path(html, root=tmp_path)
    assert found.startswith("the build machine's path") and "PROBE = PosixPath(" in found
    assert rules.machine_path("<dt>PROBE = PosixPath('chapters/data/tatoeba/probe.tsv')</dt>",
                              root=tmp_path) == []


# ---------------------------------------------------------------- link
def test_link_target_resolves_relative_links():
    assert rules.link_target("../appendix/api.html#x", "chapters/a.html") == ("appendix/api.html", "x")
    assert rules.link_target("#top", "chapters/a.html") == ("chapters/a.html", "top")
    assert rules.link_target("./", "zh/intro.html") == ("zh/index.html", "")
    assert rules.link_target("../_sources/a.ipynb", "chapters/a.html") == ("_sources/a.ipynb", "")
    assert rules.link_target("https://arxiv.org/abs/1706.03762", "intro.html") is None
    assert rules.link_target("mailto:a@b.org", "intro.html") is None


def test_broken_links_name_missing_files_and_anchors(tmp_path):
    (tmp_path / "a.html").write_text("a")
    (tmp_path / "b.html").write_text("b")
    (tmp_path / "f.png").write_text("png")
    links = ["b.html#s1", "b.html#gone", "c.html", "#top", "#nowhere", "f.png", "g.png",
             "https://x.org"]
    page_ = doc('<p id="top">' + "".join(f'<a href="{h}">x</a>' for h in links) + "</p>")
    ids = {"a.html": rules.anchors(page_), "b.html": {"s1"}}
    assert rules.broken_links("a.html", page_, tmp_path, ids.get) == [
        "#nowhere -> a.html has no anchor #nowhere", "b.html#gone -> b.html has no anchor #gone",
        "c.html -> no file c.html", "g.png -> no file g.png"]


def test_anchors_are_ids_and_names():
    assert rules.anchors(doc('<p id="a"><a name="b">x</a><span id="c"></span></p>')) == {
        "a", "b", "c"}


# ---------------------------------------------------------------- struck
def test_struck_rule_finds_a_bare_token_read_as_a_tag():
    bare = rules.parse(page("<article><p>it is fed “<s> I am a” and must predict</p></article>"))
    [found] = rules.struck_text(bare)
    assert found.startswith("<s> strikes through") and "I am a” and must predict" in found
    code = ('<article><p>it is fed “<code class="docutils literal notranslate"><span class="pre">'
            "&lt;s&gt;</span></code> I am a”</p></article>")
    assert rules.struck_text(rules.parse(page(code))) == []
    assert rules.struck_text(doc("<nav><s>outside the article</s></nav>")) == []


# ---------------------------------------------------------------- table-words
def table(*heads: str) -> str:
    cells = "".join(f"<th>{h}</th>" for h in heads)
    return (f'<article><table class="dataframe"><thead><tr>{cells}</tr></thead>'
            "<tbody><tr><th>greedy</th><td>1</td></tr></tbody></table></article>")


def test_table_words_rule_finds_an_english_header_on_a_chinese_page():
    zh = f"{rules.ZH}chapters/12_real_sentences.html"
    [found] = rules.english_table_headers(zh, doc(table("贪心", "chrF change")))
    assert "'chrF change' is English" in found
    same = table("BLEU 95% 区间", "--preset laptop", "模型宽度（d_model）", "nn.RNN", "GPT-2 small")
    assert rules.english_table_headers(zh, doc(same)) == []  # names, code: as they are
    assert rules.english_table_headers("chapters/12_real_sentences.html",
                                       doc(table("chrF change"))) == []  # English page


# ---------------------------------------------------------------- licence
def footer(text: str) -> str:
    """The theme's footer with the extra_footer _config.yml sets."""
    return ('<footer class="bd-footer-content"><div class="footer-item">'
            f'<div class="extra_footer">{text}</div></div></footer>')


MIT = '<a href="https://opensource.org/license/mit" rel="license">MIT</a>'
BY_SA = ('<a href="https://creativecommons.org/licenses/by-sa/4.0/{}" rel="license">'
         'CC BY-SA 4.0</a>')


def test_licence_rule_wants_both_licences_linked_in_the_footer():
    good = footer(f"Code: {MIT}. Text: {BY_SA.format('')}.")
    assert rules.licence_footer(CHAPTER, doc(good)) == []
    assert rules.licence_footer(CHAPTER, doc("<footer><p>By us</p></footer>")) == [
        "no licence in the footer (_config.yml, html: extra_footer:)"]
    found = rules.licence_footer(CHAPTER, doc(footer(f"Code: {MIT}. Text: CC BY-SA 4.0.")))
    assert found == ["the footer does not link to the CC BY-SA 4.0 licence "
                     "(creativecommons.org/licenses/by-sa/4.0/)"]
    unlicensed = MIT.replace(' rel="license"', "")
    assert rules.licence_footer(CHAPTER, doc(footer(f"{unlicensed} {BY_SA.format('')}"))) == [
        "the footer does not link to the MIT licence (opensource.org/license/mit)"]


def test_licence_rule_wants_the_chinese_footer_in_chinese():
    chinese = footer(f"代码采用 {MIT} 许可证；正文与图采用 {BY_SA.format('deed.zh-hans')} 许可。")
    english = footer(f"Code: {MIT}. Text: {BY_SA.format('')}.")
    assert rules.licence_footer("zh/" + CHAPTER, doc(chinese)) == []
    assert rules.licence_footer("zh/" + CHAPTER, doc(english))[0].startswith(
        "the footer says the licence in English")


# ---------------------------------------------------------------- theme-words
def test_theme_words_rule_finds_english_tooltips_around_the_article():
    good = ('<button title="显示或隐藏全书目录"></button><input placeholder="搜索本书……">'
            '<a title="列印成 PDF"></a><article><h2>注意力<a class="headerlink" '
            'title="链接到本标题">¶</a></h2><a title="Dive into Deep Learning">d2l</a></article>')
    bad = ('<button title="Toggle primary sidebar"></button><i title="System Settings"></i>'
           '<button data-bs-title="Color mode"></button><input placeholder="Search this book...">'
           '<article><h2>注意力<a class="headerlink" title="Link to this heading">¶</a></h2>'
           '</article>')
    assert rules.english_theme_words(doc(good)) == []
    assert rules.english_theme_words(doc(bad)) == [
        '<a title="Link to this heading">', '<button data-bs-title="Color mode">',
        '<button title="Toggle primary sidebar">', '<i title="System Settings">',
        '<input placeholder="Search this book...">']
