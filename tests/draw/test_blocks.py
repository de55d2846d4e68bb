"""Tests for illustrated.draw.blocks: multi_head_figure, add_norm_figure."""
from __future__ import annotations

import pytest
import torch

from illustrated import draw

from .helpers import gen, texts


# ------------------------------------------------------------------------- add_norm_figure
def test_add_norm_figure_shows_the_sum_and_the_layer_norm_of_each_row():
    x, sub = torch.randn(3, 4, generator=gen(1)), torch.randn(3, 4, generator=gen(2))
    fig = draw.add_norm_figure(x, sub, row_labels=[f"position {i}" for i in range(3)])
    ax = fig.axes[0]
    total = (x + sub).double()
    normed = (total - total.mean(-1, keepdim=True)) / torch.sqrt(
        total.var(-1, unbiased=False, keepdim=True) + 1e-5)  # each row alone
    assert texts(ax, "operand2") == [f"{v:.2f}" for v in total.flatten().tolist()]
    assert texts(ax, "operand3") == [f"{v:.2f}" for v in normed.flatten().tolist()]
    for label in ("$x$\n(3×4)", "sub-layer($x$)\n(3×4)", "+", "=", "→"):
        assert label in texts(ax)
    assert "3 positions of 4 features" in fig.alt_text


def test_add_norm_figure_rejects_shapes_that_differ():
    with pytest.raises(ValueError, match=r"got x \(3, 4\) and sublayer_out \(3, 5\)"):
        draw.add_norm_figure(torch.zeros(3, 4), torch.zeros(3, 5))
    with pytest.raises(ValueError, match=r"must both be \(L, D\)"):
        draw.add_norm_figure(torch.zeros(4), torch.zeros(4))


# ---------------------------------------------------------------------------- multi_head_figure
def test_multi_head_figure_splits_concatenates_and_multiplies():
    q = torch.randn(3, 4, generator=gen(3))  # (L, D)
    heads = torch.randn(2, 3, 2, generator=gen(4))  # (H, L, Dk)
    w_o = torch.randn(4, 4, generator=gen(5))  # (D, D)
    ax = draw.multi_head_figure(q, heads, w_o).axes[0]

    def shown(gid):
        return texts(ax, gid)

    def printed(t):
        return [f"{v:.2f}".replace("-0.00", "0.00") for v in t.flatten().tolist()]

    concat = torch.cat([heads[0], heads[1]], dim=-1)  # (L, D): head 1 on the left
    assert shown("q2") == printed(q[:, 2:])  # head 2 owns the last Dk columns of Q
    assert shown("head1") == printed(heads[0])
    assert shown("concat") == printed(concat)
    assert shown("out") == printed(concat @ w_o)
    for label in ("Q (3×4)", "$Q_2$ (3×2)", r"$\mathrm{head}_1$ (3×2)",
                  r"$\mathrm{Concat}$ (3×4)", "$W^O$ (4×4)", "×", "=", "split"):
        assert label in texts(ax)


def test_multi_head_figure_rejects_shapes_that_do_not_fit():
    q, heads, w_o = torch.zeros(3, 4), torch.zeros(2, 3, 2), torch.zeros(4, 4)
    with pytest.raises(ValueError, match=r"q must be \(L, H\*Dk\) = \(3, 6\)"):
        draw.multi_head_figure(q, torch.zeros(3, 3, 2), w_o)
    with pytest.raises(ValueError, match=r"w_o must be \(D, D\) = \(4, 4\), got \(4, 3\)"):
        draw.multi_head_figure(q, heads, torch.zeros(4, 3))
    with pytest.raises(ValueError, match=r"heads \(H, L, Dk\), got q \(3, 4\) and heads"):
        draw.multi_head_figure(q, torch.zeros(3, 4), w_o)
    with pytest.raises(ValueError, match=r"out must be \(L, D\) = \(3, 4\)"):
        draw.multi_head_figure(q, heads, w_o, out=torch.zeros(4, 3))


# ------------------------------------------------------------------------ decoder_only_figure
def test_decoder_only_figure_drops_the_cross_attention_and_reads_the_pieces():
    fig = draw.decoder_only_figure(["<bos>", "The", "cat"], ["The", "cat", "is"], n_layers=3)
    names = texts(fig.axes[0])
    # both layers drawn: the translator's with three sub-layers, the decoder-only's with two
    assert names.count("Masked self-attention") == 2 and names.count("Feed-forward") == 2
    assert names.count("Encoder-decoder attention") == 1 and names.count("Add & Norm") == 5
    crossed = [line for line in fig.axes[0].lines if line.get_gid() == "removed"]
    box = next(t for t in fig.axes[0].texts if t.get_text() == "Encoder-decoder attention")
    assert len(crossed) == 2 and all(  # the two lines cross the box of the removed sub-layer
        min(line.get_ydata()) < box.get_position()[1] < max(line.get_ydata())
        for line in crossed)
    assert "<bos> The cat" in names and "The cat is" in names and names.count("× 3") == 2
    assert "reading “<bos> The cat” and predicting “The cat is”" in fig.alt_text


def test_decoder_only_figure_rejects_lists_that_do_not_fit():
    with pytest.raises(ValueError, match="predicted has 1 labels but there are 2 tokens"):
        draw.decoder_only_figure(["<bos>", "The"], ["The"])
    with pytest.raises(TypeError, match="tokens must be a non-empty list of strings"):
        draw.decoder_only_figure("<bos> The", ["The", "cat"])
    with pytest.raises(ValueError, match="n_layers must be positive"):
        draw.decoder_only_figure(["<bos>"], ["The"], n_layers=0)
