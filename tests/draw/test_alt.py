"""Alt texts of illustrated.draw: built from each figure's arguments (shape, labels, title)."""
from __future__ import annotations

import torch

from illustrated import draw
from illustrated.draw.figure import alt_sentence, listed

from .helpers import CJK, gen, softmax_weights


def test_listed_joins_and_truncates():
    assert listed(["a"]) == "a"
    assert listed(["a", "b", "c"]) == "a, b and c"
    assert listed([str(i) for i in range(10)], limit=3) == "0, 1, 2 and 7 more"


def test_alt_adds_title_and_non_empty_details():
    assert alt_sentence("Plot", "A  title", "", "x: t") == "Plot titled “A title”; x: t."
    assert alt_sentence("Plot") == "Plot."


def test_heatmap_alt_names_shape_title_and_labels():
    alt = draw.attention_heatmap(softmax_weights(4, 3), CJK, ["a", "b", "c"], title="W").alt_text
    assert "4 queries × 3 keys" in alt and "“W”" in alt
    assert "人, 工, 智 and 能" in alt and "a, b and c" in alt


def test_heads_alt_counts_heads():
    alt = draw.attention_heads(softmax_weights(3, 2, 5)).alt_text
    assert alt.startswith("3 heat maps") and "2 queries × 5 keys" in alt
    assert "(head 1 to head 3), each 2 queries × 5 keys" in alt


def test_heads_alt_of_a_single_head_is_singular_without_a_range():
    alt = draw.attention_heads(softmax_weights(1, 2, 5)).alt_text
    assert alt.startswith("1 heat map of attention weights for one head, 2 queries × 5 keys on")
    assert "heat maps" not in alt and "head 1 to" not in alt


def test_tensor_cells_alt_says_vector_or_matrix():
    assert "vector of 5 numbers" in draw.tensor_cells(torch.arange(5.0)).alt_text
    alt = draw.tensor_cells(torch.randn(2, 3, generator=gen()), row_labels=["x", "y"]).alt_text
    assert "2 × 3 matrix" in alt and "rows: x and y" in alt


def test_matmul_alt_has_every_shape():
    alt = draw.matmul_figure(torch.ones(2, 3), torch.ones(3, 4), names=("A", "B", "C")).alt_text
    assert "A (2 × 3) × B (3 × 4) = C (2 × 4)" in alt


def test_plots_alt_names_series_and_values():
    assert "0 0.250" in draw.bar_values([0.25, 0.75]).alt_text
    alt = draw.line_plot([1, 2], {"loss": [3, 1], "acc": [0, 1]}, xlabel="step").alt_text
    assert "2 curves" in alt and "loss and acc" in alt and "step from 1 to 2" in alt
    alt = draw.histograms({"s": torch.randn(30, generator=gen())}, xlabel="v").alt_text
    assert "1 histogram" in alt and "s (30 values" in alt


def test_bar_values_alt_names_the_largest_bar_when_the_list_is_cut():
    one_hot = torch.zeros(20)
    one_hot[18] = 1.0  # past the 12 bars the alt text lists
    alt = draw.bar_values(one_hot).alt_text
    assert "11 0.000 and 8 more" in alt and "largest: 18 1.000" in alt
    assert "largest" not in draw.bar_values([0.25, 0.75]).alt_text  # every bar listed


def test_diagrams_alt_quotes_the_sentences():
    assert "“a b”" in draw.black_box("a b", "c").alt_text
    alt = draw.stack_diagram(n_layers=2, highlight="decoder").alt_text
    assert "2 encoder layers" in alt and "decoder part is highlighted" in alt


def test_line_plot_alt_names_both_logarithmic_axes_as_before():
    """The English alt texts are messages of the Chinese pages' catalogues (locales/): a
    changed wording would leave them untranslated, so it stays as the chapters have it."""
    from illustrated import draw

    fig = draw.line_plot([1, 2, 4], {"a": [1, 2, 3]}, logx=True, logy=True)
    assert fig.alt_text.endswith("; logarithmic x and logarithmic y scale.")


def test_detailed_stack_alt_says_what_the_decoder_reads():
    alt = draw.stack_diagram(n_layers=2, detail=True).alt_text
    assert "shifted right: “<bos> I am a”" in alt
    assert "shifted right" not in draw.stack_diagram(n_layers=2).alt_text
