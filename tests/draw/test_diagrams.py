"""Tests for illustrated.draw.diagrams: black_box, stack_diagram, beam_tree,
position_flow."""
from __future__ import annotations

import pytest
import torch
from matplotlib.colors import to_rgba

from illustrated import draw


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


BEAM = [[(None, "<bos>", 0.0, "kept")],
        [(0, "i", -0.11, "kept"), (0, "we", -2.5, "dropped")],
        [(0, "am", -0.2, "kept"), (0, "<eos>", -3.0, "finished"), (1, "see", -4.0, "dropped")]]


def test_beam_tree_draws_every_hypothesis_with_its_score():
    fig = draw.beam_tree(BEAM, title="A beam")
    texts = all_texts(fig)
    for word, score in [("<bos>", "0.00"), ("i", "-0.11"), ("am", "-0.20"), ("see", "-4.00")]:
        assert f"{word}\n{score}" in texts
    assert "A beam" in texts
    assert "3 kept, 2 dropped, 1 finished" in fig.alt_text
    assert "the start and 2 steps" in fig.alt_text  # 3 columns: <bos>, then 2 steps


@pytest.mark.parametrize("levels, message", [
    ([], "non-empty list"),
    ([[(None, "a", 0.0, "maybe")]], "state must be one of"),
    ([[(None, "a", 0.0, "kept")], [(3, "b", -1.0, "kept")]], "parent must be"),
    ([[(0, "a", 0.0, "kept")]], "parent must be None"),
    ([[("a", 0.0)]], r"\(parent, word, score, state\)"),
])
def test_beam_tree_rejects_bad_levels(levels, message):
    with pytest.raises(ValueError, match=message):
        draw.beam_tree(levels)


def flow_vectors(L=3, d=4):
    """inputs, attended, outputs, states: four (L, d) tensors of distinct values."""
    return (torch.arange(4 * L * d, dtype=torch.float64).view(4, L, d) - 2 * L * d) / 10


def test_position_flow_draws_every_vector_of_both_panels():
    x, z, r, h = flow_vectors()
    fig = draw.position_flow(["je", "suis", "étudiant"], x, z, r, h)
    names = all_texts(fig)
    for v in (z, r, h):  # each vector once, cell by cell
        for value in v.flatten().tolist():
            assert names.count(f"{value:.1f}".replace("-0.0", "0.0")) >= 1
    assert names.count(f"{x[0, 0].item():.1f}") == 2  # the inputs feed both panels
    assert names.count("feed-forward") == 3  # one per position, the same network
    assert [n for n in names if n.startswith("step")] == ["step 1", "step 2", "step 3"]
    assert names.count("je") == 2 and "3 positions in the same step" in fig.alt_text
    arrows = [p for p in fig.axes[0].patches if hasattr(p, "get_path")
              and type(p).__name__ == "FancyArrowPatch"]
    assert len(arrows) == 3 * 3 + 3 * 2 + 3 + 2  # attention L², FFN in and out, RNN


def test_position_flow_rejects_mismatched_shapes_and_labels():
    x, z, r, h = flow_vectors()
    with pytest.raises(ValueError, match=r"must all be \(L, d\), got shapes "
                                         r"\(3, 4\), \(2, 4\), \(3, 4\), \(3, 4\)"):
        draw.position_flow(["a", "b", "c"], x, z[:2], r, h)
    with pytest.raises(ValueError, match="tokens has 2 labels but there are 3 vectors"):
        draw.position_flow(["a", "b"], x, z, r, h)
