"""Tests for illustrated.draw: each figure is computed from the tensors it is given,
renders, rejects wrong shapes with a clear message, and changes no global state."""
from __future__ import annotations

import io
import subprocess
import sys
import warnings

import matplotlib
import pytest
import torch
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font

from illustrated import draw
from illustrated.attention import scaled_dot_product_attention

CJK = list("人工智能")


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def render(fig: Figure) -> None:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    assert buffer.getvalue().startswith(b"\x89PNG")


def texts(ax, gid=None) -> list[str]:
    return [t.get_text() for t in ax.texts if gid is None or t.get_gid() == gid]


def softmax_weights(*shape, seed=0) -> torch.Tensor:
    return torch.softmax(torch.randn(*shape, generator=gen(seed)) * 2, dim=-1)


def thinking_machines(seed=0):
    """The example of chapter 3: two words, D = 4, Dk = 3."""
    g = gen(seed)
    x = torch.randn(2, 4, generator=g)  # (L, D)
    w_q, w_k, w_v = (torch.randn(4, 3, generator=g) for _ in range(3))  # (D, Dk)
    return ["Thinking", "Machines"], x, w_q, w_k, w_v


FIGURES = {  # name: (make the figure, expected number of axes)
    "tensor_cells": (lambda: draw.tensor_cells(torch.randn(2, 4, generator=gen())), 1),
    "tensor_cells_colorbar": (lambda: draw.tensor_cells(torch.randn(20, 512), colorbar=True), 2),
    "matmul_figure": (lambda: draw.matmul_figure(torch.randn(2, 4), torch.randn(4, 3)), 1),
    "self_attention_table": (lambda: draw.self_attention_table(*thinking_machines()), 1),
    "attention_heatmap": (lambda: draw.attention_heatmap(softmax_weights(3, 4)), 1),
    "attention_heads": (lambda: draw.attention_heads(softmax_weights(8, 4, 4), ncols=4), 8),
    "histograms_side": (lambda: draw.histograms({"std 100": torch.randn(500) * 100,
                                                 "std 1": torch.randn(500)}), 2),
    "histograms_overlay": (lambda: draw.histograms({"a": torch.randn(500),
                                                    "b": torch.randn(500) * 2}), 1),
    "bar_values": (lambda: draw.bar_values(softmax_weights(10)), 1),
    "line_plot": (lambda: draw.line_plot([1, 2, 4], {"a": [1, 2, 3], "b": [3, 2, 1]}), 1),
    "stack_diagram": (lambda: draw.stack_diagram(), 1),
    "stack_diagram_detail": (lambda: draw.stack_diagram(detail=True), 1),
    "black_box": (lambda: draw.black_box(), 1),
}


@pytest.mark.parametrize("name", FIGURES)
def test_each_function_returns_a_figure_that_renders(name):
    make, n_axes = FIGURES[name]
    fig = make()
    assert isinstance(fig, Figure)
    assert len(fig.axes) == n_axes
    width, height = fig.get_size_inches()
    assert 2.5 <= width <= 10.5 and 1.0 <= height <= 10.5, (width, height)
    # Renders to PNG, through the method Jupyter calls to show a figure without pyplot.
    assert fig._repr_png_().startswith(b"\x89PNG")


# ---------------------------------------------------------------------------- tensor_cells
def test_tensor_cells_draws_one_box_per_number_and_prints_the_values():
    x = torch.tensor([[0.123, -1.5, 2.0, 0.333], [1.0, 0.5, -0.25, 0.7]])
    fig = draw.tensor_cells(x, row_labels=["Thinking", "Machines"])
    ax = fig.axes[0]
    (cells,) = [c for c in ax.collections if c.get_gid() == "cells"]
    assert len(cells.get_paths()) == x.numel()
    assert texts(ax) == [f"{v:.2f}" for v in x.flatten().tolist()]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Thinking", "Machines"]


def test_tensor_cells_colours_are_symmetric_around_zero():
    fig = draw.tensor_cells(torch.tensor([0.0, 1.0, 3.0]))  # 1-D: one row
    (cells,) = fig.axes[0].collections
    white = matplotlib.colormaps[draw.DIVERGING](0.5)
    assert cells.get_facecolors()[0] == pytest.approx(white)  # 0 is the middle of the scale
    assert len(cells.get_paths()) == 3


def test_tensor_cells_wide_tensor_hides_values():
    fig = draw.tensor_cells(torch.randn(2, 512, generator=gen()))
    ax = fig.axes[0]
    assert texts(ax) == []
    assert len(ax.collections[0].get_paths()) == 1024
    assert fig.get_size_inches()[0] <= 10


def test_tensor_cells_accepts_lists_and_an_axes():
    host = Figure()
    ax = host.add_subplot()
    assert draw.tensor_cells([[1, 2], [3, 4]], ax=ax) is host
    assert texts(ax) == ["1.00", "2.00", "3.00", "4.00"]


def test_tensor_cells_rejects_bad_shapes_and_labels():
    with pytest.raises(ValueError, match=r"got shape \(2, 3, 4\)"):
        draw.tensor_cells(torch.zeros(2, 3, 4))
    with pytest.raises(ValueError, match="row_labels has 3 labels but there are 2 rows"):
        draw.tensor_cells(torch.zeros(2, 3), row_labels=["a", "b", "c"])
    with pytest.raises(TypeError, match="x must be a torch.Tensor"):
        draw.tensor_cells("not numbers")


# ---------------------------------------------------------------------------- matmul_figure
def test_matmul_figure_shows_the_product_and_the_shapes():
    a, b = torch.randn(2, 4, generator=gen(1)), torch.randn(4, 3, generator=gen(2))
    fig = draw.matmul_figure(a, b, row_labels=["Thinking", "Machines"])
    ax = fig.axes[0]
    assert texts(ax, "operand2") == [f"{v:.2f}" for v in (a @ b).flatten().tolist()]
    for label in ("X (2×4)", "$W^Q$ (4×3)", "Q (2×3)", "×", "="):
        assert label in texts(ax)


def test_matmul_figure_rejects_shapes_that_do_not_chain():
    with pytest.raises(ValueError, match=r"columns of a \(4\) must equal the rows of b \(3\)"):
        draw.matmul_figure(torch.zeros(2, 4), torch.zeros(3, 3))
    with pytest.raises(ValueError, match=r"c must have shape \(2, 3\)"):
        draw.matmul_figure(torch.zeros(2, 4), torch.zeros(4, 3), c=torch.zeros(3, 2))
    with pytest.raises(ValueError, match="b must be 2-D"):
        draw.matmul_figure(torch.zeros(2, 4), torch.zeros(4))


# ---------------------------------------------------------------------------- self_attention_table
@pytest.mark.parametrize("position", [0, 1])
def test_self_attention_table_prints_the_attention_output(position):
    words, x, w_q, w_k, w_v = thinking_machines()
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    z, weights = scaled_dot_product_attention(q[position:position + 1], k, v)
    ax = draw.self_attention_table(words, x, w_q, w_k, w_v, position=position).axes[0]
    assert [float(t) for t in texts(ax, "z")] == [round(val, 2) for val in z[0].tolist()]
    assert [float(t) for t in texts(ax, "softmax")] == [round(p, 2) for p in weights[0].tolist()]
    assert [float(t) for t in texts(ax, "q")] == [round(val, 2) for val in q[position].tolist()]
    assert len(texts(ax, "x")) == 8 and len(texts(ax, "k")) == 6 and len(texts(ax, "v")) == 6
    scores = [round(s, 2) for s in (k @ q[position]).tolist()]
    assert [float(t) for t in texts(ax, "score")] == scores
    assert f"Self-attention for “{words[position]}”" == ax.get_title()


def test_self_attention_table_rejects_mismatched_inputs():
    words, x, w_q, w_k, w_v = thinking_machines()
    with pytest.raises(ValueError, match="words has 3 labels but there are 2 rows in x"):
        draw.self_attention_table(words + ["extra"], x, w_q, w_k, w_v)
    with pytest.raises(ValueError, match=r"w_k must be 2-D \(D, Dk\) with D=4 rows"):
        draw.self_attention_table(words, x, w_q, torch.zeros(5, 3), w_v)
    with pytest.raises(ValueError, match="same width Dk"):
        draw.self_attention_table(words, x, w_q, torch.zeros(4, 2), w_v)
    with pytest.raises(ValueError, match="position must be an int in"):
        draw.self_attention_table(words, x, w_q, w_k, w_v, position=2)


# ---------------------------------------------------------------------------- attention maps
def test_attention_heatmap_shows_the_weights_with_token_labels():
    w = softmax_weights(3, 4)
    ax = draw.attention_heatmap(w, ["a", "b", "c"], ["w", "x", "y", "z"]).axes[0]
    (image,) = ax.images
    assert torch.allclose(torch.as_tensor(image.get_array()), w.double())
    assert image.get_clim() == (0, 1)
    assert texts(ax) == [f"{p:.2f}" for p in w.flatten().tolist()]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["w", "x", "y", "z"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]


def test_attention_heatmap_rejects_3d_weights_with_a_clear_message():
    with pytest.raises(ValueError, match=r"weights must be 2-D \(L, S\), got shape \(2, 3, 4\)"):
        draw.attention_heatmap(torch.zeros(2, 3, 4))
    with pytest.raises(ValueError, match="key_labels has 2 labels but there are 4 keys"):
        draw.attention_heatmap(torch.zeros(3, 4), key_labels=["a", "b"])


def test_attention_heatmap_drops_values_when_cells_are_small():
    fig = draw.attention_heatmap(softmax_weights(40, 40))
    assert texts(fig.axes[0]) == []


@pytest.mark.parametrize("shape", [(3, 4, 5), (1, 3, 4, 5)])
def test_attention_heads_draws_one_titled_map_per_head(shape):
    fig = draw.attention_heads(softmax_weights(*shape), ncols=2)
    assert [ax.get_title() for ax in fig.axes] == ["head 1", "head 2", "head 3"]


def test_attention_heads_rejects_other_shapes():
    with pytest.raises(ValueError, match=r"batch of 1, \(1, H, L, S\), got shape \(2, 3, 4, 4\)"):
        draw.attention_heads(torch.zeros(2, 3, 4, 4))
    with pytest.raises(ValueError, match=r"3-D \(H, L, S\) or 4-D"):
        draw.attention_heads(torch.zeros(4, 4))


# ---------------------------------------------------------------------------- plots
def test_histograms_layouts():
    wide, narrow = torch.randn(1000, generator=gen()) * 100, torch.randn(1000, generator=gen(1))
    assert len(draw.histograms({"std 100": wide, "std 1": narrow}).axes) == 2  # > 10x apart
    assert len(draw.histograms({"a": narrow, "b": narrow * 2}).axes) == 1
    assert len(draw.histograms({"a": wide, "b": narrow}, layout="overlay").axes) == 1
    with pytest.raises(ValueError, match="layout must be"):
        draw.histograms({"a": narrow}, layout="grid")
    with pytest.raises(ValueError, match=r"must be 1-D, got shape \(2, 3\)"):
        draw.histograms({"a": torch.zeros(2, 3)})
    with pytest.raises(TypeError, match="dict"):
        draw.histograms([narrow])


def test_bar_values_writes_each_value_on_its_bar():
    p = softmax_weights(10)
    ax = draw.bar_values(p, labels=[str(i) for i in range(10)]).axes[0]
    assert len(ax.patches) == 10
    assert texts(ax) == [f"{v:.3f}" for v in p.tolist()]
    with pytest.raises(ValueError, match="labels has 2 labels but there are 10 values"):
        draw.bar_values(p, labels=["a", "b"])


def test_line_plot_draws_each_series():
    d_k = torch.tensor([1.0, 2, 4, 8, 16])
    ax = draw.line_plot(d_k, {"unscaled": d_k, "scaled": torch.ones(5)}, logx=True).axes[0]
    assert [line.get_label() for line in ax.lines] == ["unscaled", "scaled"]
    assert list(ax.lines[0].get_ydata()) == d_k.tolist()
    assert ax.get_xscale() == "log"
    with pytest.raises(ValueError, match="has 2 values but x has 5"):
        draw.line_plot(d_k, {"short": [1, 2]})
    with pytest.raises(ValueError, match="logy=True needs positive values"):
        draw.line_plot(d_k, {"zero": torch.zeros(5)}, logy=True)


@pytest.mark.parametrize("function", [draw.tensor_cells, draw.attention_heatmap,
                                      draw.bar_values, draw.histograms, draw.line_plot])
def test_functions_with_ax_draw_into_it(function):
    host = Figure()
    ax = host.add_subplot()
    data = torch.rand(4)
    args = {draw.tensor_cells: (data,), draw.attention_heatmap: (data.view(2, 2),),
            draw.bar_values: (data,), draw.histograms: ({"a": data},),
            draw.line_plot: (data, {"a": data})}[function]
    assert function(*args, ax=ax) is host
    assert len(host.axes) == 1


# ---------------------------------------------------------------------------- diagrams
def all_texts(fig) -> list[str]:
    return [t.get_text() for t in fig.axes[0].texts]


def accent_patches(fig) -> list:
    accent = to_rgba(draw.ACCENT)
    return [p for p in fig.axes[0].patches if p.get_edgecolor() == pytest.approx(accent)]


def test_stack_diagram_draws_n_encoders_and_decoders_with_io():
    names = all_texts(draw.stack_diagram(n_layers=3))
    for i in (1, 2, 3):
        assert f"Encoder {i}" in names and f"Decoder {i}" in names
    assert "Encoder 4" not in names
    assert "je suis étudiant" in names and "I am a student" in names
    assert "je suis étudiant" not in all_texts(draw.stack_diagram(show_io=False))


def test_stack_diagram_detail_draws_the_sublayers():
    names = all_texts(draw.stack_diagram(detail=True))
    assert names.count("Add & Norm") == 5  # 2 in the encoder, 3 in the decoder
    assert names.count("Feed-forward") == 2
    for part in ("Self-attention", "Masked self-attention", "Encoder-decoder attention",
                 "Positional\nencoding", "× 6"):
        assert part in names


@pytest.mark.parametrize("part, count", [("encoder", 6), ("decoder", 6), ("add-norm", 5),
                                         ("positional", 2), ("self-attention", 1),
                                         ("masked self-attention", 1), ("feed-forward", 2),
                                         ("encoder-decoder attention", 1)])
def test_stack_diagram_highlights_the_named_part(part, count):
    assert len(accent_patches(draw.stack_diagram(highlight=part))) == count
    assert accent_patches(draw.stack_diagram()) == []


def test_stack_diagram_rejects_an_unknown_part_listing_the_valid_ones():
    with pytest.raises(ValueError, match="bogus") as info:
        draw.stack_diagram(highlight="bogus")
    for part in draw.PARTS:
        assert repr(part) in str(info.value)
    with pytest.raises(ValueError, match="n_layers must be positive"):
        draw.stack_diagram(n_layers=0)


def test_black_box_shows_both_sentences():
    names = all_texts(draw.black_box("ich bin Student", "I am a student"))
    assert {"ich bin Student", "Transformer", "I am a student"} <= set(names)
    with pytest.raises(TypeError, match="strings"):
        draw.black_box(["je", "suis"])


# ---------------------------------------------------------------------------- fonts and state
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
    from illustrated.draw._base import _FONT_FILE as font_file
    assert font_file.stat().st_size < 200_000
    assert (font_file.parent / "LICENSE-wqy-microhei.txt").exists()
    charmap = FT2Font(str(font_file)).get_charmap()
    needed = "人工智能中文注意力机器学习翻译" + "".join(map(chr, range(0x20, 0x7F))) + "é×"
    assert [c for c in needed if ord(c) not in charmap] == []


def test_importing_and_drawing_touch_no_global_state():
    code = (
        "import sys, io, matplotlib\n"
        # every setting but 'backend', whose reading would itself resolve a backend
        "def settings():\n"
        "    keys = [k for k in matplotlib.rcParams if k != 'backend']\n"
        "    return {k: repr(matplotlib.rcParams[k]) for k in keys}\n"
        "before = settings()\n"
        "import illustrated.draw as d\n"
        "d.tensor_cells([[1.0, -2.0]], row_labels=['人']).savefig(io.BytesIO(), format='png')\n"
        "d.stack_diagram().savefig(io.BytesIO(), format='png')\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot was imported'\n"
        "assert before == settings(), 'rcParams changed'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
