"""Tests for illustrated.decoder_only.swiglu: the formula, the widths, the parameters."""
import pytest
import torch

from illustrated.counting import count_parameters
from illustrated.decoder_only.swiglu import (SwiGLUFeedForward, llama_d_ff, matched_d_ff,
                                             relu_ffn_parameters)
from illustrated.layers import PositionwiseFeedForward


def test_the_formula():
    torch.manual_seed(0)
    ffn = SwiGLUFeedForward(8, 6, dropout=0.0).double()
    x = torch.randn(2, 3, 8, dtype=torch.float64)
    W1, W2, W3 = ffn.w1.weight.T, ffn.w2.weight.T, ffn.w3.weight.T  # (D, d_ff), ...
    s = x @ W1
    expected = ((s * torch.sigmoid(s)) * (x @ W3)) @ W2  # (SiLU(x W1) * x W3) W2
    torch.testing.assert_close(ffn(x), expected, atol=1e-12, rtol=1e-12)
    assert all(m.bias is None for m in (ffn.w1, ffn.w2, ffn.w3))


def test_llama_widths():
    """Llama's rule: two thirds of 4 * d_model, rounded up to a multiple of 256
    (Llama 7B: d_model 4096, inner width 11008)."""
    assert llama_d_ff(4096) == 11008
    assert llama_d_ff(128, multiple_of=1) == 341 and llama_d_ff(128, multiple_of=8) == 344


@pytest.mark.parametrize("bias", [True, False])
def test_parameter_matched_to_the_relu_network_at_chapter_13s_sizes(bias):
    """d_model 128, d_ff 512: with the ReLU network's biases the match is exact (343 wide,
    131,712 parameters each); without them, 341 wide, 128 parameters (0.1 %) short."""
    d_model, d_ff = 128, 512
    relu = count_parameters(PositionwiseFeedForward(d_model, d_ff, bias=bias))
    assert relu == relu_ffn_parameters(d_model, d_ff, bias)
    width = matched_d_ff(d_model, d_ff, bias)
    swiglu = count_parameters(SwiGLUFeedForward(d_model, width))
    assert (width, relu - swiglu) == ((343, 0) if bias else (341, 128))
    assert abs(relu - swiglu) <= 3 * d_model / 2  # the nearest width: within half a step


def test_bad_sizes_are_named():
    with pytest.raises(TypeError, match="d_ff must be an int"):
        SwiGLUFeedForward(8, 5.5)
    with pytest.raises(ValueError, match=r"x must have shape \(B, L, d_model=8\)"):
        SwiGLUFeedForward(8, 6)(torch.randn(2, 3, 7))
