"""scripts/editions.py: the link between the editions, and the exercise titles as messages.

The rest (glued numbers, sidebar captions, formulas, the font) is proven by the strict build
of the Chinese edition, tests/site/test_pages.py (the built pages) and tests/locales/test_translations.py.
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
