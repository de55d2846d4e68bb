"""scripts/editions.py: the link between the editions, and the exercise titles as messages.

The rest (glued numbers, sidebar captions, formulas, the font) is proven by the strict build
of the Chinese edition (whose catalogue check, scripts/catalogue_check.py, covers the captions
too), tests/site/test_pages.py (the built pages) and tests/locales/test_translations.py.
"""
from __future__ import annotations

from pathlib import Path

import editions
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document
from sphinx_exercise.nodes import exercise_subtitle, exercise_title

ROOT = Path(__file__).resolve().parents[2]


def test_each_page_links_to_the_same_page_in_the_other_edition():
    english = editions.edition_link("chapters/02_soft_lookup", chinese=False)
    assert 'href="../zh/chapters/02_soft_lookup.html"' in english and 'lang="zh-CN"' in english
    chinese = editions.edition_link("chapters/02_soft_lookup", chinese=True)
    assert 'href="../../chapters/02_soft_lookup.html"' in chinese and 'lang="en"' in chinese
    assert 'href="zh/intro.html"' in editions.edition_link("intro", chinese=False)
    assert 'href="../intro.html"' in editions.edition_link("intro", chinese=True)


def test_the_switch_script_reads_the_link_edition_link_writes():
    """_static/edition-switch.js finds the link by its class and keeps its href, adding the
    section being read as the hash: the link must have that class and no hash of its own."""
    script = (ROOT / "_static" / "edition-switch.js").read_text(encoding="utf-8")
    assert 'document.querySelector(".edition-switch a")' in script
    for chinese in (False, True):
        link = editions.edition_link("chapters/06_masking", chinese)
        assert link.startswith('<p class="edition-switch"><a href="') and "#" not in link


def test_an_exercise_title_becomes_a_message_with_its_markup():
    doc = new_document("chapters/x.ipynb", get_default_settings(Parser))
    subtitle = exercise_subtitle("", nodes.Text("Why not divide by "), nodes.math("", "d_k"),
                                 nodes.Text(" in "), nodes.literal("", "softmax"),
                                 nodes.Text("?"))
    title = exercise_title("", nodes.Text("Exercise"), subtitle)
    doc += nodes.section("", title)
    editions.ExerciseTitlesAreProse(doc).apply()
    assert subtitle.rawsource == "Why not divide by $d_k$ in `softmax`?"
    assert subtitle.source == "chapters/x.ipynb"
    assert doc[editions._EXERCISE_TITLES] == [(subtitle.rawsource, "chapters/x.ipynb",
                                               subtitle.line)]


def test_nodes_parsed_in_a_document_of_their_own_are_saved_as_the_pages():
    """Sphinx's Locale transform (each translated message) and MyST's eval-rst blocks parse
    into a small document of their own and move the nodes into the page; nodes below the
    moved one still named that document, whose settings hold the build environment, and were
    pickled with the page (scripts/editions.py: 53 MB of Chinese doctrees for 9)."""
    import pickle

    page = new_document("page.md", get_default_settings(Parser))
    message = new_document("page.md:3:<translated>", get_default_settings(Parser))
    message.settings.env = "the build environment " * 50_000  # 1.1 MB, as a stand-in
    paragraph = nodes.paragraph()
    message += paragraph  # the nodes added below it now name the message as their document
    paragraph += [nodes.Text("Some "), nodes.emphasis("", "translated"), nodes.Text(" text.")]
    message.remove(paragraph)
    page += paragraph  # moved: docutils makes the paragraph the page's, not what it holds
    assert any(n.document is message for n in page.findall())
    assert len(pickle.dumps(page)) > 1_000_000
    editions._one_document(None, page)
    assert all(n.document is page for n in page.findall())
    assert len(pickle.dumps(page)) < 10_000


def test_no_space_between_chinese_and_a_chinese_emphasis():
    """Markdown needs the space in ``即 *{term}`头 <head>`*`` (no emphasis without it); the
    Chinese page drops it, on both sides, and keeps it next to Latin text."""
    paragraph = nodes.paragraph("", "", nodes.Text("更小的注意力，即 "), nodes.emphasis("", "头"),
                                nodes.Text(" 每个"), nodes.Text("讲解 "),
                                nodes.emphasis("", "Attention Is All You Need"), nodes.Text(" 的"))
    for node in list(paragraph.findall(nodes.emphasis)):
        editions.close_up(node)
    assert paragraph.astext() == "更小的注意力，即头每个讲解 Attention Is All You Need 的"
    strong = nodes.paragraph("", "", nodes.Text("年龄就是 "), nodes.strong("", "值"), nodes.Text("。"))
    editions.close_up(strong[1])
    assert strong.astext() == "年龄就是值。"


def _exercise_title():
    return nodes.title("", "", nodes.Text(" ("), nodes.Text("top-p 过滤"), nodes.Text(")"))


def test_an_exercise_title_has_full_width_parentheses_in_chinese():
    """sphinx-exercise writes "练习 13.1  (top-p 过滤)" (the number, a space, " (")."""
    title = _exercise_title()
    editions.full_width_parentheses(title)
    assert title.astext() == "（top-p 过滤）"


def test_a_solution_title_reads_as_chinese():
    """sphinx-exercise: 解答 + a link " 练习 13.1 (top-p 过滤)"."""
    from sphinx_exercise.nodes import solution_node

    link = nodes.reference("", "", nodes.Text(" 练习 13.1"), nodes.Text(" ("),
                           nodes.Text("top-p 过滤"), nodes.Text(")"), refuri="#ex-13-1")
    title = nodes.title("", "", nodes.Text("解答"), link)
    solution = solution_node("", title, title="解答 练习 13.1")
    editions.chinese_solution_title(title)
    assert title.astext() == "练习 13.1（top-p 过滤）的解答"
    assert isinstance(title[0], nodes.reference) and title[0].astext() == "练习 13.1（top-p 过滤）"
    assert solution["title"] == "练习 13.1（top-p 过滤）的解答"
    bare = nodes.title("", "", nodes.Text("解答"), nodes.reference("", "", nodes.Text(" 练习 13.2")))
    editions.chinese_solution_title(bare)
    assert bare.astext() == "练习 13.2 的解答"


def test_an_exercise_number_touches_its_chinese_title():
    body = ('<p class="admonition-title"><span class="caption-number">练习 13.1 </span>'
            "（top-p 过滤）</p>")
    assert editions.tight_numbers(body) == (
        '<p class="admonition-title"><span class="caption-number">练习 13.1</span>'
        "（top-p 过滤）</p>")
    alone = '<span class="caption-number">练习 13.2 </span></p>'  # no title: as it is
    assert editions.tight_numbers(alone) == alone
