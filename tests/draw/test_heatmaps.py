"""Tests for illustrated.draw.heatmaps: attention_heatmap, attention_heads."""
from __future__ import annotations

import pytest
import torch

from illustrated import draw

from .helpers import softmax_weights, texts


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


def test_attention_heads_titles_the_rows_queries_unless_told():
    assert draw.attention_heads(softmax_weights(2, 3, 4)).axes[0].get_ylabel() == "queries"
    fig = draw.attention_heads(softmax_weights(2, 3, 4), ylabel="token written")
    assert fig.axes[0].get_ylabel() == "token written"


def test_attention_heads_rejects_other_shapes():
    with pytest.raises(ValueError, match=r"batch of 1, \(1, H, L, S\), got shape \(2, 3, 4, 4\)"):
        draw.attention_heads(torch.zeros(2, 3, 4, 4))
    with pytest.raises(ValueError, match=r"3-D \(H, L, S\) or 4-D"):
        draw.attention_heads(torch.zeros(4, 4))
