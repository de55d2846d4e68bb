"""scripts/check_site.py, rule by rule, on small HTML pages shaped like the real ones.

Each rule is shown failing on a bad page and passing on a good one. The markup copies what
Sphinx, MyST-NB and sphinx-exercise write (seen in _build/html).
"""
import importlib.util
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("check_site", ROOT / "scripts" / "check_site.py")
check_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_site)

API = check_site.API_PAGE
CHAPTER = "chapters/09_example.html"


def page(body: str) -> str:
    return f"<html><head><script>var x = ':param ';</script></head><body>{body}</body></html>"


def run(rule, body, page_name=CHAPTER, *args):
    return rule(page_name, check_site.soup(page(body)), *args)


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


def test_raw_rst_fails_on_autodoc_output_parsed_as_markdown():
    problems = run(check_site.check_raw_rst, UNRENDERED_API, API)
    assert any(".. py:class:: Encoder" in p for p in problems)
    assert any(":param N:" in p for p in problems)
    assert any("=====" in p for p in problems)
    assert all(p.startswith(f"{API}: raw-rst: ") for p in problems)


def test_raw_rst_shows_the_first_lines_then_a_count():
    body = "".join(f"<p>:param x{i}: a parameter</p>" for i in range(8))
    problems = run(check_site.check_raw_rst, body)
    assert len(problems) == 6
    assert problems[-1] == f"{CHAPTER}: raw-rst: ... and 3 more such lines"


@pytest.mark.parametrize("text", [".. automodule:: illustrated.masks", ":returns: the mask",
                                  ".. autofunction:: f", ":rtype: Tensor"])
def test_raw_rst_fails_on_any_page(text):
    assert run(check_site.check_raw_rst, f"<p>{text}</p>")


def test_raw_rst_passes_rendered_pages_and_ignores_scripts():
    body = sig("illustrated.model.Encoder") + "<p>Parameters: N – number of layers.</p>"
    assert run(check_site.check_raw_rst, body, API) == []


def test_table_borders_only_matter_on_the_api_page():
    body = '<div class="output"><pre>=========\nloss 0.25\n</pre></div>'
    assert run(check_site.check_raw_rst, body, CHAPTER) == []
    assert run(check_site.check_raw_rst, body, API)


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
    assert check_site.api_modules(source) == [
        "illustrated", "illustrated.model", "illustrated.masks"]


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
    assert check_site.public_names(_module("pkg.mod")) == ["f", "C"]


def test_public_names_with_all_follow_all_including_reexports_and_constants():
    assert check_site.public_names(_module("pkg.mod", ["f", "Path", "X"])) == ["f", "Path", "X"]


def test_api_passes_when_every_public_name_has_a_signature():
    expected = {"illustrated.model": ["Encoder", "make_model"], "illustrated": []}
    body = sig("illustrated.model.Encoder") + sig("illustrated.model.make_model")
    assert run(check_site.check_api, body, API, expected) == []


def test_api_fails_for_each_missing_signature():
    expected = {"illustrated.model": ["Encoder", "make_model"], "illustrated.draw": ["INK"]}
    problems = run(check_site.check_api, sig("illustrated.model.Encoder"), API, expected)
    assert problems == [f"{API}: api: no rendered signature for illustrated.model.make_model",
                        f"{API}: api: no rendered signature for illustrated.draw.INK"]


def test_api_fails_when_the_directives_were_not_run():
    expected = {"illustrated.model": ["Encoder"]}
    assert run(check_site.check_api, UNRENDERED_API, API, expected)


def test_api_fails_when_the_page_lists_no_module():
    assert run(check_site.check_api, sig("illustrated.model.Encoder"), API, {})


def test_expected_api_of_the_real_page_covers_the_package():
    expected = check_site.expected_api(check_site.API_SOURCE.read_text(encoding="utf-8"))
    assert "Transformer" in expected["illustrated.model"]
    assert "MultiHeadAttention" in expected["illustrated.attention"]
    assert "check_softmax" in expected["illustrated.exercises"]
    assert "attention_heatmap" in expected["illustrated.draw"]


# ---------------------------------------------------------------- glue-quotes
@pytest.mark.parametrize("pasted", [
    '<span class="output text_plain">‘24’</span>',  # {glue} role, str repr after smartquotes
    "<span class=\"output text_plain\">'44,304'</span>",
    '<span class="pasted-text">“7”</span>',  # {glue:text}
    '<span class="output text_html">"x"</span>',
])
def test_glue_quotes_fails_on_a_quoted_inline_paste(pasted):
    problems = run(check_site.check_glue_quotes, f"<p>The model has {pasted} parameters.</p>")
    assert len(problems) == 1
    assert problems[0].startswith(f"{CHAPTER}: glue-quotes: pasted ")
    assert "parameters" in problems[0]


def test_glue_quotes_fails_on_a_quoted_block_paste():
    body = '<div class="output text_plain highlight-myst-ansi"><pre>\'hello\'</pre></div>'
    assert run(check_site.check_glue_quotes, body)


def test_glue_quotes_passes_numbers_and_cell_outputs():
    body = ('<p>About <span class="output text_plain">24</span> times, '
            '<span class="pasted-text">44,304</span> parameters, '
            '<span class="pasted-text">‘ok</span>.</p>'
            '<div class="cell docutils container"><div class="cell_output docutils container">'
            '<div class="output text_plain highlight-myst-ansi"><pre>\'a str\'</pre></div>'
            '</div></div>')
    assert run(check_site.check_glue_quotes, body) == []


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
    assert run(check_site.check_solutions, body) == []


def test_solutions_fail_on_a_cell_after_the_solution_directive():
    body = (EXERCISES + exercise(1) + solution(1) + cell("\ndef soft_lookup(q):\n    pass")
            + "</section>")
    assert run(check_site.check_solutions, body) == [
        f"{CHAPTER}: solutions: code cell after Exercises outside a closed solution: "
        "def soft_lookup(q):"]


def test_solutions_fail_on_a_cell_in_a_later_section_too():
    body = (EXERCISES + exercise(1) + solution(1) + "</section>"
            + '<section id="more"><h2>Further reading</h2>' + cell("print(2)") + "</section>")
    assert len(run(check_site.check_solutions, body)) == 1


def test_solutions_fail_when_a_solution_is_not_a_dropdown():
    body = EXERCISES + exercise(1) + solution(1, cell("y = 2"), dropdown=False) + "</section>"
    problems = run(check_site.check_solutions, body)
    assert (f'{CHAPTER}: solutions: "Solution to Exercise 9.1" is not a dropdown '
            "(add `:class: dropdown`)") in problems
    assert (f"{CHAPTER}: solutions: code cell after Exercises outside a closed solution: "
            "y = 2") in problems


def test_solutions_ignore_pages_without_exercises():
    assert run(check_site.check_solutions, cell("x = 1") + "<h2>Summary</h2>" + cell("y")) == []


# ---------------------------------------------------------------- the whole site
def test_check_site_reports_every_rule_with_its_page(tmp_path):
    (tmp_path / "appendix").mkdir()
    (tmp_path / "chapters").mkdir()
    (tmp_path / API).write_text(page(UNRENDERED_API), encoding="utf-8")
    (tmp_path / CHAPTER).write_text(page(
        '<p>About <span class="output text_plain">‘7’</span> times.</p>'
        + EXERCISES + exercise(1) + solution(1) + cell("answer = 42") + "</section>"),
        encoding="utf-8")
    source = "```{eval-rst}\n.. automodule:: illustrated.masks\n   :members:\n```\n"
    problems = check_site.check_site(tmp_path, api_source=source)
    rules = {p.split(": ")[1] for p in problems}
    assert rules == {"api", "raw-rst", "glue-quotes", "solutions", "edition"}
    assert f"{API}: api: no rendered signature for illustrated.masks.padding_mask" in problems


def test_check_site_passes_a_good_site(tmp_path):
    (tmp_path / "appendix").mkdir()
    (tmp_path / "chapters").mkdir()
    names = check_site.public_names(__import__("illustrated.masks", fromlist=["x"]))
    # Each page links to "the other edition": here, itself (the link must lead to a page).
    (tmp_path / API).write_text(page(
        '<p class="edition-switch"><a href="api.html">中文</a></p>'
        + "".join(sig(f"illustrated.masks.{n}") for n in names)), encoding="utf-8")
    (tmp_path / CHAPTER).write_text(page(
        f'<p class="edition-switch"><a href="{Path(CHAPTER).name}">中文</a></p>'
        '<p>About <span class="output text_plain">7</span> times.</p>'
        + EXERCISES + exercise(1) + solution(1, cell("answer = 42")) + "</section>"),
        encoding="utf-8")
    source = "```{eval-rst}\n.. automodule:: illustrated.masks\n   :members:\n```\n"
    assert check_site.check_site(tmp_path, api_source=source) == []


def test_check_site_fails_without_pages(tmp_path):
    assert check_site.check_site(tmp_path) == [f"{tmp_path}: no HTML pages: build the book first (make book-check)"]


def test_code_width_catches_a_line_longer_than_the_limit():
    line = "x = torch.randn(4, generator=g, dtype=torch.float64)  # (D,)  the decoder's last vector"
    cell = ('<div class="cell docutils container"><div class="cell_input docutils container">'
            '<div class="highlight-ipython3 notranslate"><div class="highlight"><pre>'
            '<span></span>{}</pre></div></div></div></div>')
    doc = check_site.soup(cell.format("short = 1\n" + line + "\n" + "y" * 101))
    problems = check_site.check_code_width(CHAPTER, doc)
    assert len(problems) == 1 and problems[0].startswith(
        f"{CHAPTER}: code-width: 101 characters (the limit is 100): yyy")
    assert check_site.check_code_width(CHAPTER, doc, limit=80)[0].startswith(
        f"{CHAPTER}: code-width: {len(line)} characters (the limit is 80): x = torch.randn")
    # Printed output is not source code (it wraps, _static/outputs.css).
    output = '<div class="cell_output docutils container"><pre>{}</pre></div>'.format("z" * 300)
    assert check_site.check_code_width(CHAPTER, check_site.soup(output)) == []


def test_code_width_column_follows_the_theme():
    """COLUMN: the 906-px code box at 1280 px (_static/layout.css: the contents a drawer
    below 1600 px) over 8.43 px per character (14-px DejaVu Sans Mono, measured in
    Chromium); a line of CODE_LINE characters does not wrap."""
    assert check_site.COLUMN == int(906 / 8.4287)
    assert check_site.CODE_LINE <= check_site.COLUMN


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
    return {name: check_site.soup((tmp_path / name).read_text())
            for name in ("chapters/06.html", "zh/chapters/06.html")}


def test_edition_rule_wants_a_working_switch_and_chinese_titles(tmp_path):
    good = ('<article><h1>6. 掩码</h1></article><div class="exercise">'
            '<p class="admonition-title">练习 6.1 (写出后续掩码)</p></div>'
            '<div class="bd-sidebar-primary"><p class="caption">注意力</p></div>')
    docs = edition_site(tmp_path, good)
    for name, doc in docs.items():
        assert check_site.check_edition(name, doc, tmp_path) == []
    bad = good.replace("写出后续掩码", "Write the subsequent mask").replace("练习", "Exercise")
    bad = bad.replace('<p class="caption">注意力', '<p class="caption">Attention')
    docs = edition_site(tmp_path / "b", bad, zh_lang="en")
    problems = check_site.check_edition("zh/chapters/06.html", docs["zh/chapters/06.html"],
                                        tmp_path / "b")
    assert [p.split(": ")[2].split(" not")[0].split("=")[0] for p in problems] == [
        "lang", "exercise title", "sidebar caption"]
    (tmp_path / "b" / "chapters" / "06.html").unlink()
    assert "leads to no page" in check_site.check_edition(
        "zh/chapters/06.html", docs["zh/chapters/06.html"], tmp_path / "b")[0]


def test_emphasis_rule_wants_chinese_emphasis_upright_on_chinese_pages():
    good = '<p>这种<em class="zh-emphasis">软</em>查找，讲解 <em>Attention Is All You Need</em> 的</p>'
    bad = "".join(f"<p>这种<em>软{i}</em>查找</p>" for i in range(7))
    assert run(check_site.check_emphasis, good, "zh/chapters/02.html") == []
    problems = run(check_site.check_emphasis, bad, "zh/chapters/02.html")
    assert problems[0] == ("zh/chapters/02.html: emphasis: <em>软0</em> is set in italics, "
                           "not as zh-emphasis (着重号)")
    assert problems[-1] == "zh/chapters/02.html: emphasis: ... and 2 more such emphases"
    # The English edition's pages are not read.
    assert run(check_site.check_emphasis, bad, CHAPTER) == []


def test_a_redirect_page_without_the_icon_is_named(tmp_path):
    redirect = '<meta http-equiv="Refresh" content="0; url=intro.html" />\n'
    (tmp_path / "zh").mkdir()
    (tmp_path / "index.html").write_text(redirect, encoding="utf-8")
    (tmp_path / "zh" / "index.html").write_text(
        redirect + '<link rel="icon" href="_static/favicon.svg" />\n', encoding="utf-8")
    assert [p.split(": ")[:2] for p in check_site.check_redirect_icons(tmp_path)] == [
        ["index.html", "icon"]]


def test_a_page_showing_the_build_machines_path_is_named(tmp_path):
    page = ('<dt class="sig">PROBE = PosixPath(\'' + str(tmp_path)
            + '/chapters/data/tatoeba/probe.tsv\')</dt>')
    [problem] = check_site.check_machine_path("appendix/api.html", page, root=tmp_path)
    assert problem.startswith("appendix/api.html: machine-path: the build machine's path")
    assert "PROBE = PosixPath(" in problem
    assert check_site.check_machine_path(
        "appendix/api.html", "<dt>PROBE = PosixPath('chapters/data/tatoeba/probe.tsv')</dt>",
        root=tmp_path) == []
