"""scripts/catalogue_check.py: the Chinese build warns, once a message, where a page's
catalogue lacks a translation, has none yet, or holds one marked fuzzy; and about a
catalogue whose page is gone. A small Sphinx project in a temporary folder (about a
second), built as the book's Chinese edition is: language zh_CN, catalogues in locales/.
"""
from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx

from tests.locales.test_translations import write_catalogue as catalogue

PAGE = """Attention
=========

A query scores every key.

The weights sum to one.

.. image:: figure.png
   :alt: 折线图，已经是中文
"""


def build(src: Path, language: str = "zh_CN") -> list[str]:
    """The catalogue warnings of a build of ``src`` (each a line; Sphinx's dummy builder
    reads and transforms every page as the HTML builder does, and writes nothing)."""
    (src / "conf.py").write_text(
        "extensions = ['catalogue_check']\nlocale_dirs = ['locales']\n"
        "gettext_compact = False\n", encoding="utf-8")
    warnings = src / "warnings.txt"
    with warnings.open("w", encoding="utf-8") as stream:
        app = Sphinx(src, src, src / "_build", src / "_doctrees", "dummy", status=None,
                     warning=stream, freshenv=True, confoverrides={"language": language})
        app.build()
    # (A second Sphinx in one process warns that Sphinx's own nodes are registered again.)
    return [w for w in warnings.read_text(encoding="utf-8").splitlines()
            if "WARNING" in w and "LC_MESSAGES" in w]


def test_a_message_missing_untranslated_or_fuzzy_warns(tmp_path):
    (tmp_path / "index.rst").write_text(PAGE, encoding="utf-8")
    po = tmp_path / "locales" / "zh_CN" / "LC_MESSAGES" / "index.po"
    catalogue(po, {"Attention": "注意力", "A query scores every key.": "查询给每个键打分。"})
    found = build(tmp_path)
    assert len(found) == 1 and 'missing: "The weights sum to one."' in found[0], found
    assert "locales/zh_CN/LC_MESSAGES/index.po" in found[0] and "make translations" in found[0]
    assert "index.rst:6" in found[0]  # where the English is

    catalogue(po, {"Attention": "注意力", "A query scores every key.": "查询给每个键打分。",
                   "The weights sum to one.": ""})
    assert ['untranslated: "The weights sum to one."' in w for w in build(tmp_path)] == [True]

    catalogue(po, {"Attention": "注意力", "A query scores every key.": "查询给每个键打分。",
                   "The weights sum to one.": "权重之和为一。"}, fuzzy=["Attention"])
    assert ['fuzzy (the English changed): "Attention"' in w for w in build(tmp_path)] == [True]

    catalogue(po, {"Attention": "注意力", "A query scores every key.": "查询给每个键打分。",
                   "The weights sum to one.": "权重之和为一。"})
    assert build(tmp_path) == []  # the Chinese alt text is no message to translate
    assert build(tmp_path, language="en") == []  # the English edition is not checked


def test_a_catalogue_of_no_page_warns(tmp_path):
    (tmp_path / "index.rst").write_text("Title\n=====\n", encoding="utf-8")
    folder = tmp_path / "locales" / "zh_CN" / "LC_MESSAGES"
    catalogue(folder / "index.po", {"Title": "标题"})
    catalogue(folder / "chapters" / "00_renamed.po", {})
    found = build(tmp_path)
    assert len(found) == 1 and "chapters/00_renamed.po: a catalogue of no page" in found[0]
