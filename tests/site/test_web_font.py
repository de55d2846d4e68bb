"""The committed web font covers every CJK character of the site (scripts/subset_font.py)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from fontTools.ttLib import TTFont

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("subset_font", ROOT / "scripts" / "subset_font.py")
subset_font = importlib.util.module_from_spec(spec)
spec.loader.exec_module(subset_font)


def test_cjk_characters_finds_only_cjk():
    assert subset_font.cjk_characters("Attention 注意力，ok") == {"注", "意", "力", "，"}


def test_site_characters_reads_notebook_strings(tmp_path):
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "x.ipynb").write_text('{"cells": [{"source": ["\\u4eba"]}]}')
    (tmp_path / "intro.md").write_text("# 工")
    assert {"人", "工"} <= subset_font.site_characters(tmp_path)


def test_committed_web_font_covers_every_cjk_character_of_the_site():
    cmap = TTFont(subset_font.WEB_TARGET).getBestCmap()
    missing = sorted(c for c in subset_font.site_characters() if ord(c) not in cmap)
    assert not missing, (f"the web font lacks {''.join(missing)}: run "
                         "`python scripts/subset_font.py` (see its docstring) and commit it")


def test_web_font_is_small_and_declared_in_the_css():
    assert subset_font.WEB_TARGET.stat().st_size < 300_000
    css = (ROOT / "_static" / "cjk.css").read_text()
    assert f"fonts/{subset_font.WEB_TARGET.name}" in css and '"WQY Web"' in css


def test_chinese_editions_font_covers_every_character_of_its_pages():
    cmap = TTFont(subset_font.ZH_WEB_TARGET).getBestCmap()
    missing = sorted(c for c in subset_font.edition_characters() if ord(c) not in cmap)
    assert not missing, (f"the Chinese edition's web font lacks {''.join(missing)}: run "
                         "`python scripts/subset_font.py` and commit it")
    assert subset_font.ZH_WEB_TARGET.stat().st_size < 1_500_000


def test_edition_characters_include_the_translations_and_the_themes_words():
    found = subset_font.edition_characters()
    assert {"搜", "索"} <= found  # Sphinx's and the theme's "搜索" (search)
    assert subset_font.site_characters() < found
