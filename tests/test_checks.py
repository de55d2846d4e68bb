"""Tests for illustrated._checks: the cheap integer checks agree with PyTorch's rules."""
import itertools

import pytest
import torch

from illustrated._checks import broadcast_shape


def _torch(*shapes):
    try:
        return tuple(torch.broadcast_shapes(*shapes))
    except RuntimeError:
        return None


def test_broadcast_shape_agrees_with_torch_on_every_small_case():
    sizes = [(), (0,), (1,), (2,), (3,), (1, 2), (2, 1), (3, 2), (2, 2), (1, 1, 2),
             (2, 1, 1), (2, 3, 2), (0, 2)]
    for a, b in itertools.product(sizes, repeat=2):
        assert broadcast_shape(a, b) == _torch(a, b), (a, b)
    for a, b, c in itertools.product(sizes[:8], repeat=3):
        assert broadcast_shape(a, b, c) == _torch(a, b, c), (a, b, c)


@pytest.mark.parametrize("shapes, expected", [
    (((2, 1, 5), (2, 4, 5, 5)), None),
    (((1, 5, 5), (2, 4, 5, 5)), (2, 4, 5, 5)),
    ((torch.Size([2, 1, 5]), (2, 5, 5)), (2, 5, 5)),
])
def test_broadcast_shape_on_attention_masks(shapes, expected):
    assert broadcast_shape(*shapes) == expected
