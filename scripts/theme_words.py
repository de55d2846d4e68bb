"""The theme's own words in the Chinese edition: its buttons' tooltips.

Sphinx and the themes translate their words with gettext catalogues, and for zh_CN these
leave some English: Sphinx 7.4's zh_CN catalogue has no translation of "Link to this
heading" and the other tooltips of its ¶ links ("Link to this term", "... definition"); pydata-sphinx-theme 0.17's ``zh`` catalogue (which serves
zh_CN) leaves "Color mode" and "System Settings" untranslated; sphinx-book-theme 1.3 writes
"Toggle primary sidebar" and "Toggle secondary sidebar" into its component templates, out
of any catalogue; and Jupyter Book sets the search box's text, "Search this book...", as a
theme option. So, in the Chinese edition only:

- :data:`ZH` is a catalogue of those words, added behind Sphinx's and the themes' (a word
  they translate keeps their translation);
- the two sidebar buttons are the theme's components (scripts/theme_zh/) with their
  tooltips read through that catalogue;
- the search box says :data:`SEARCH_BOX`.

The English edition is left as the theme makes it. tests/site/html_rules.py's ``theme-words``
rule finds any of these English words left on a Chinese page.
"""
from __future__ import annotations

import gettext
from pathlib import Path

from editions import is_chinese

TEMPLATES = Path(__file__).resolve().parent / "theme_zh"

#: The theme's English words that no catalogue translates, and the Chinese edition's.
ZH = {
    "Toggle primary sidebar": "显示或隐藏全书目录",
    "Toggle secondary sidebar": "显示或隐藏本页目录",
    "Color mode": "颜色模式",
    "System Settings": "跟随系统设置",
    "Link to this heading": "链接到本标题",  # and the other ¶ links Sphinx writes
    "Link to this term": "链接到本术语",
    "Link to this definition": "链接到本定义",
    "Link to this code": "链接到本代码",
    "Link to this table": "链接到本表格",
    "Link to this image": "链接到本图片",
    "Link to this toctree": "链接到本目录",
}
#: The search box's placeholder (Jupyter Book's ``search_bar_text``, "Search this book...").
SEARCH_BOX = "搜索本书……"


class ThemeWords(gettext.NullTranslations):
    """:data:`ZH` as a gettext catalogue; what it lacks goes on to the next one."""

    def gettext(self, message):
        return ZH.get(message) or super().gettext(message)


def _config(app, config):
    if is_chinese(app):
        config.templates_path.insert(0, str(TEMPLATES))  # before the theme's components
        config.html_theme_options = {**config.html_theme_options,
                                     "search_bar_text": SEARCH_BOX}


def _catalogue(app):
    if is_chinese(app):
        from sphinx.locale import get_translator

        # Behind Sphinx's catalogue and the themes' (add_fallback puts it at the end).
        get_translator().add_fallback(ThemeWords())


def setup(app):
    app.connect("config-inited", _config)
    app.connect("builder-inited", _catalogue)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
