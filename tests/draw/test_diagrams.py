"""Tests for illustrated.draw.diagrams: black_box, stack_diagram."""
from __future__ import annotations

import pytest
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
