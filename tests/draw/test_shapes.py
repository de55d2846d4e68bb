"""Tests for illustrated.draw.shapes: a diagram sized to its drawing, and one layer seen
inside with a box per sublayer."""
from __future__ import annotations

import pytest
from matplotlib.patches import FancyBboxPatch

from illustrated.draw.palette import DECODER, ENCODER
from illustrated.draw.shapes import (DECODER_LAYER, ENCODER_LAYER, SUBLAYER_H, blank_diagram,
                                     draw_box, draw_layer, finish_diagram)


def test_a_diagram_is_sized_to_its_drawing():
    fig, ax = blank_diagram()
    draw_box(ax, 0, 0, 4, 2, "a box", ENCODER)
    assert finish_diagram(fig, (0, 4, 0, 2), "A box.", scale=0.5) is fig
    assert tuple(fig.get_size_inches()) == (2.0, 1.0)  # 0.5 inch a data unit
    assert (ax.get_xlim(), ax.get_ylim(), fig.alt_text) == ((0, 4), (0, 2), "A box.")
    fig, ax = blank_diagram()  # too wide for max_w: the scale shrinks to fit
    finish_diagram(fig, (0, 40, 0, 2), "Wide.", scale=0.5, max_w=10)
    assert tuple(fig.get_size_inches()) == (10.0, 0.5)


def test_a_layer_seen_inside_has_a_box_per_sublayer_and_cards_for_the_others():
    for sublayers, n, cards in ((ENCODER_LAYER, 1, 0), (DECODER_LAYER, 6, 2)):
        fig, ax = blank_diagram()
        layer = draw_layer(ax, 0.0, 0.0, "decoder", DECODER, sublayers, n, None, side=1)
        boxes = [p for p in ax.patches if isinstance(p, FancyBboxPatch)]
        assert len(boxes) == cards + 1 + len(sublayers)  # cards behind, the frame, sublayers
        centres = layer["centres"]
        assert len(centres) == len(sublayers) and centres == sorted(centres)
        assert layer["last"] == pytest.approx(centres[-1] + SUBLAYER_H / 2)  # the top box's top
        assert layer["last"] < layer["top"]
