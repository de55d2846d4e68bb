"""Tests for illustrated.positional (chapter 7)."""
import math

import pytest
import torch

from illustrated.positional import PositionalEncoding, sinusoidal_encoding


def loop_encoding(length, d_model, base=10000.0):
    """The paper's formula, one entry at a time, in float64."""
    pe = torch.zeros(length, d_model, dtype=torch.float64)
    for pos in range(length):
        for i in range(d_model // 2):
            angle = pos / base ** (2 * i / d_model)
            pe[pos, 2 * i] = math.sin(angle)
            pe[pos, 2 * i + 1] = math.cos(angle)
    return pe


@pytest.mark.parametrize("length, d_model, base", [(1, 2, 10000.0), (50, 16, 10000.0), (7, 6, 100)])
def test_interleaved_matches_the_formula(length, d_model, base):
    pe = sinusoidal_encoding(length, d_model, base=base)
    assert pe.shape == (length, d_model)
    assert pe.dtype == torch.float32
    torch.testing.assert_close(pe.double(), loop_encoding(length, d_model, base), atol=1e-7, rtol=0)


def test_concatenated_layout_is_a_column_permutation():
    inter = sinusoidal_encoding(30, 12)
    concat = sinusoidal_encoding(30, 12, interleave=False)
    # [sin w0, cos w0, sin w1, cos w1, ...] -> [sin w0, sin w1, ... | cos w0, cos w1, ...]
    perm = list(range(0, 12, 2)) + list(range(1, 12, 2))
    assert torch.equal(concat, inter[:, perm])


def test_i_am_a_robot_with_d_model_4_and_base_100():
    # "I am a robot": four tokens at positions 0..3; with d = 4 and n = 100 the two
    # frequencies are 1 and 1/10.
    pe = sinusoidal_encoding(4, 4, base=100)
    expected = torch.tensor(
        [[math.sin(p), math.cos(p), math.sin(p / 10), math.cos(p / 10)] for p in range(4)]
    )
    torch.testing.assert_close(pe, expected)
    torch.testing.assert_close(pe[0], torch.tensor([0.0, 1.0, 0.0, 1.0]))
    rounded = torch.tensor([0.8415, 0.5403, 0.0998, 0.9950])  # the row as a table would print it
    torch.testing.assert_close(pe[1], rounded, atol=1e-4, rtol=0)


def test_values_are_bounded_and_positions_distinct():
    pe = sinusoidal_encoding(500, 64)
    assert pe.abs().max() <= 1.0
    # every position gets its own encoding
    assert torch.cdist(pe, pe).add(torch.eye(500) * 1e3).min() > 1e-3
    # each sin/cos pair lies on the unit circle
    torch.testing.assert_close(pe[:, 0::2] ** 2 + pe[:, 1::2] ** 2, torch.ones(500, 32))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(length=0, d_model=4), ValueError, r"length must be positive, got length=0"),
        (dict(length=-3, d_model=4), ValueError, r"length=-3"),
        (dict(length=5, d_model=7), ValueError, r"d_model must be even.*d_model=7"),
        (dict(length=5, d_model=0), ValueError, r"d_model must be positive"),
        (dict(length=5.0, d_model=4), TypeError, r"length must be an int"),
        (dict(length=5, d_model="4"), TypeError, r"d_model must be an int"),
        (dict(length=5, d_model=4, base=0), ValueError, r"base must be positive"),
        (dict(length=5, d_model=4, base="big"), TypeError, r"base must be a number"),
    ],
)
def test_bad_arguments_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        sinusoidal_encoding(**kwargs)


def test_module_adds_the_table():
    torch.manual_seed(0)
    module = PositionalEncoding(8, dropout=0.0, max_len=20).eval()
    x = torch.randn(3, 11, 8, dtype=torch.float64)
    out = module(x)
    assert out.shape == x.shape and out.dtype == torch.float64
    torch.testing.assert_close(out - x, sinusoidal_encoding(11, 8).double().expand(3, 11, 8))


def test_module_buffer_is_not_saved_and_not_learned():
    module = PositionalEncoding(8, max_len=20)
    assert module.pe.shape == (1, 20, 8)
    assert "pe" not in module.state_dict()
    assert len(list(module.parameters())) == 0


def test_module_dropout_in_training_mode():
    torch.manual_seed(0)
    module = PositionalEncoding(16, dropout=0.5, max_len=10).train()
    out = module(torch.zeros(4, 10, 16))
    assert (out == 0).any()  # some entries dropped
    kept = out != 0
    torch.testing.assert_close(out[kept], (2 * module.pe.expand(4, 10, 16))[kept])


def test_module_errors():
    module = PositionalEncoding(8, dropout=0.0, max_len=5)
    with pytest.raises(ValueError, match=r"length 6 is longer than max_len=5"):
        module(torch.zeros(1, 6, 8))
    with pytest.raises(ValueError, match=r"last dimension d_model=8"):
        module(torch.zeros(1, 3, 6))
    with pytest.raises(ValueError, match=r"x must be 3-D"):
        module(torch.zeros(3, 8))
    with pytest.raises(TypeError, match=r"floating-point"):
        module(torch.zeros(1, 3, 8, dtype=torch.long))
    with pytest.raises(ValueError, match=r"d_model must be even"):
        PositionalEncoding(5)
    with pytest.raises(ValueError, match=r"dropout must be in \[0, 1\)"):
        PositionalEncoding(8, dropout=1.0)
