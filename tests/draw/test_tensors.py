"""Tests for illustrated.draw.tensors: tensor_cells, matmul_figure, self_attention_table."""
from __future__ import annotations

import matplotlib
import pytest
import torch
from matplotlib.figure import Figure

from illustrated import draw
from illustrated.attention import scaled_dot_product_attention

from .helpers import gen, texts, thinking_machines


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
