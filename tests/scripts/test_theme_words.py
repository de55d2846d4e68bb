"""scripts/theme_words.py: the theme's tooltips in the Chinese edition. The built pages are
checked by tests/site/html_rules.py's theme-words rule (every Chinese page)."""
from __future__ import annotations

import gettext
import re
import types
from pathlib import Path

import pytest
import sphinx_book_theme
import theme_words

COMPONENTS = Path(sphinx_book_theme.__file__).parent / "theme" / "sphinx_book_theme" / "components"


def test_the_catalogue_says_its_words_and_passes_on_the_others():
    chain = gettext.NullTranslations()
    chain.add_fallback(theme_words.ThemeWords())
    assert chain.gettext("Color mode") == "颜色模式"
    assert chain.gettext("Link to this heading") == "链接到本标题"
    assert chain.gettext("Dark") == "Dark"  # the theme's own catalogue says 暗色


@pytest.mark.parametrize("name", sorted(p.name for p in theme_words.TEMPLATES.glob("*.html")))
def test_each_component_is_the_themes_with_its_tooltip_read_through_the_catalogue(name):
    """A copy of the installed theme's component, but for its leading comment and its
    tooltip: a new version of the theme that changes the component fails here."""
    ours = (theme_words.TEMPLATES / name).read_text(encoding="utf-8")
    ours = re.sub(r"\A\{#-.*?-#\}\n", "", ours, flags=re.S)
    tooltips = re.findall(r"\{\{ _\('([^']+)'\) \}\}", ours)
    assert tooltips and all(t in theme_words.ZH for t in tooltips)
    assert re.sub(r"\{\{ _\('([^']+)'\) \}\}", r"\1", ours) == (
        COMPONENTS / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("language, chinese", [("zh_CN", True), ("en", False), (None, False)])
def test_only_the_chinese_edition_is_changed(language, chinese):
    config = types.SimpleNamespace(language=language, templates_path=["_templates"],
                                   html_theme_options={"search_bar_text": "Search this book..."})
    theme_words._config(types.SimpleNamespace(config=config), config)
    assert (config.templates_path[0] == str(theme_words.TEMPLATES)) is chinese
    assert (config.html_theme_options["search_bar_text"] == theme_words.SEARCH_BOX) is chinese
