"""Tests for illustrated.draw.figure: texts with CJK characters get the bundled font."""
from __future__ import annotations

import warnings

import torch
from matplotlib.ft2font import FT2Font

from illustrated import draw
from illustrated.draw.figure import _FONT_FILE

from .helpers import CJK, gen, render, softmax_weights


def test_cjk_labels_draw_without_any_warning():
    w = softmax_weights(4, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figures = [
            draw.tensor_cells(torch.randn(4, 3, generator=gen()), row_labels=CJK, title="人工智能"),
            draw.attention_heatmap(w, CJK, CJK, title="注意力"),
            draw.attention_heads(torch.stack([w, w]), CJK, CJK, title="中文"),
            draw.bar_values(w[0], labels=CJK, title="机器学习 (softmax)"),
            draw.self_attention_table(CJK, torch.randn(4, 4), torch.eye(4), torch.eye(4),
                                      torch.eye(4), position=2),
            draw.stack_diagram(source="翻译", target="中文"),
        ]
        for fig in figures:
            render(fig)


def test_only_cjk_texts_get_the_bundled_font():
    ax = draw.attention_heatmap(softmax_weights(2, 2), ["人", "a"], ["工", "b"]).axes[0]
    fonts = {t.get_text(): t.get_fontproperties().get_file() for t in ax.get_yticklabels()}
    assert str(fonts["人"]).endswith("wqy-microhei-subset.ttf")
    assert fonts["a"] is None


def test_bundled_font_is_small_licensed_and_covers_the_book_characters():
    font_file = _FONT_FILE
    assert font_file.stat().st_size < 200_000
    assert (font_file.parent / "LICENSE-wqy-microhei.txt").exists()
    charmap = FT2Font(str(font_file)).get_charmap()
    needed = "人工智能中文注意力机器学习翻译" + "".join(map(chr, range(0x20, 0x7F))) + "é×"
    assert [c for c in needed if ord(c) not in charmap] == []


def test_bold_chinese_text_is_drawn_bold():
    """The bundled CJK font has one weight: a bold CJK text gets an outline of its own
    colour (path effect), a regular one and a bold Latin one do not."""
    from matplotlib.patheffects import withStroke

    from illustrated.draw.figure import finish_figure, new_figure

    fig = new_figure((2, 1))
    bold = fig.text(0, 0, "解码器 1", fontweight="bold", color="white")
    regular = fig.text(0, 0.5, "编码器 1")
    latin = fig.text(0.5, 0.5, "Decoder 1", fontweight="bold")
    finish_figure(fig)
    [effect] = bold.get_path_effects()
    assert isinstance(effect, withStroke) and effect._gc["foreground"] == "white"
    assert regular.get_path_effects() == [] and latin.get_path_effects() == []
