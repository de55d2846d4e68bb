"""The committed fonts cover every character their pages and figures can show
(scripts/subset_font.py)."""
from __future__ import annotations

from pathlib import Path

import subset_font
from editions import ZH_FOOTER
from fontTools.ttLib import TTFont

ROOT = Path(__file__).resolve().parents[2]


def test_cjk_characters_finds_only_cjk():
    assert subset_font.cjk_characters("Attention 注意力，ok") == {"注", "意", "力", "，"}


def test_site_characters_reads_notebook_strings(tmp_path):
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "x.ipynb").write_text('{"cells": [{"source": ["\\u4eba"]}]}')
    (tmp_path / "intro.md").write_text("# 工")
    assert {"人", "工"} <= subset_font.site_characters(tmp_path)


def test_a_figures_chinese_words_are_the_chinese_editions_only(tmp_path):
    """A figure's output keeps its Chinese rendering's alt text in the metadata's zh_CN:
    shown by the Chinese pages only, so counted for the Chinese font, not the English."""
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "x.ipynb").write_text(
        '{"cells": [{"source": ["\u4eba"], "outputs": [{"metadata": {"image/png": '
        '{"alt": "A map.", "zh_CN": {"alt": "\u70ed\u529b\u56fe"}}}}]}]}')
    assert subset_font.site_characters(tmp_path) == {"人"} | set(subset_font.cjk_characters(
        subset_font.CHARACTERS))
    assert subset_font.site_characters(tmp_path, chinese=True) == {"热", "力", "图"}


def missing_from(font: Path, characters) -> str:
    """The characters of ``characters`` that ``font`` has no glyph for, sorted."""
    cmap = TTFont(font).getBestCmap()
    return "".join(sorted(c for c in characters if ord(c) not in cmap))


def test_committed_web_font_covers_every_cjk_character_of_the_english_edition():
    missing = missing_from(subset_font.WEB_TARGET, subset_font.english_characters())
    assert not missing, (f"the English edition's web font lacks {missing}: run "
                         "`python scripts/subset_font.py` (see its docstring) and commit it")


def test_each_editions_font_draws_the_other_editions_switch_link():
    """The link at the top of every page, as scripts/editions.py writes it: its Chinese
    ("阅读本页的中文版") is on every English page, so the English font must draw it."""
    for font, chinese in ((subset_font.WEB_TARGET, False), (subset_font.ZH_WEB_TARGET, True)):
        link = subset_font.switch_link(chinese)
        missing = missing_from(font, subset_font.cjk_characters(link))
        assert not missing, (f"{font.name} lacks {missing} of the switch link {link!r}: run "
                             "`python scripts/subset_font.py` and commit it")


def test_english_characters_include_the_switch_link_and_the_scripts_words():
    found = subset_font.english_characters()
    assert {"阅", "读"} <= found  # the switch link to the Chinese edition
    assert {"绪", "秒"} <= found  # the live translator's Chinese messages
    assert subset_font.site_characters() <= found


def test_figure_characters_are_the_catalogues_translations(tmp_path):
    folder = tmp_path / "illustrated" / "draw" / "locale" / "zh_CN"
    folder.mkdir(parents=True)
    (folder / "draw.po").write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; '
                                    'charset=UTF-8\\n"\n\nmsgid "Head {i}"\nmsgstr "第 {i} 头 τ₁"\n',
                                    encoding="utf-8")
    assert subset_font.figure_characters(tmp_path) == set("第 {i}头τ₁")
    assert {ord("头"), ord("₁")} <= set(subset_font.unicodes(tmp_path))


def test_figure_font_holds_every_cjk_character_of_the_figures_catalogues():
    """Static figures draw their Chinese words with the package's font, their Greek letters,
    subscripts and signs (τ, √, −) included."""
    words = {c for c in subset_font.figure_characters(pattern=subset_font.DRAWN_CATALOGUES)
             if not c.isspace()}
    missing = missing_from(subset_font.TARGET, words | subset_font.cjk_characters(
        subset_font.CHARACTERS))
    assert not missing, (f"{subset_font.TARGET.name} lacks {missing} of the figures' "
                         "catalogues: run `python scripts/subset_font.py` and commit it")


def test_web_font_is_small_and_declared_in_the_css():
    assert subset_font.WEB_TARGET.stat().st_size < 300_000
    css = (ROOT / "_static" / "cjk.css").read_text()
    assert f"fonts/{subset_font.WEB_TARGET.name}" in css and '"WQY Web"' in css


def test_chinese_editions_font_covers_every_character_of_its_pages():
    missing = missing_from(subset_font.ZH_WEB_TARGET, subset_font.edition_characters())
    assert not missing, (f"the Chinese edition's web font lacks {missing}: run "
                         "`python scripts/subset_font.py` and commit it")
    assert subset_font.ZH_WEB_TARGET.stat().st_size < 1_500_000


def test_edition_characters_include_the_translations_and_the_themes_words():
    found = subset_font.edition_characters()
    assert subset_font.cjk_characters(ZH_FOOTER) <= found  # the licence in every footer
    assert {"搜", "索"} <= found  # Sphinx's and the theme's "搜索" (search)
    assert {"剪", "贴"} <= found  # the copy button's "复制到剪贴板" (copy to clipboard)
    assert subset_font.english_characters() < found


def test_every_font_sets_brackets_next_to_the_text_they_enclose():
    """（ hugs the right of its square and ） the left (subset_font.set_brackets), in the
    figures' font and both web fonts; Micro Hei itself draws them near the middle."""
    root = Path(subset_font.ROOT)
    for path in (subset_font.TARGET, subset_font.WEB_TARGET, subset_font.ZH_WEB_TARGET):
        font = TTFont(root / path)
        cmap, glyf, hmtx = font.getBestCmap(), font["glyf"], font["hmtx"]
        em = font["head"].unitsPerEm
        for code, side in subset_font.BRACKETS.items():
            glyph = glyf[cmap[code]]
            glyph.recalcBounds(glyf)
            advance = hmtx[cmap[code]][0]
            gap = advance - glyph.xMax if side == "right" else glyph.xMin
            assert advance == em and gap <= 0.06 * em, (path.name, chr(code), gap)
