"""Tests for illustrated.decoder_only.rmsnorm: equal to torch.nn.RMSNorm."""
import pytest
import torch
from torch import nn

from illustrated.decoder_only.rmsnorm import RMSNorm


@pytest.mark.parametrize("shape", [(8,), (2, 5, 8), (2, 3, 4, 8)])
@pytest.mark.parametrize("eps", [1e-5, 1e-6, 0.1])
@pytest.mark.parametrize("affine", [True, False])
def test_equals_torch_rmsnorm(shape, eps, affine):
    g = torch.Generator().manual_seed(0)
    x = 3.0 + torch.randn(shape, generator=g, dtype=torch.float64)  # a mean far from 0
    ours = RMSNorm(8, eps=eps, elementwise_affine=affine).double()
    theirs = nn.RMSNorm(8, eps=eps, elementwise_affine=affine).double()
    if affine:
        with torch.no_grad():
            ours.weight.copy_(torch.randn(8, generator=g, dtype=torch.float64))
            theirs.weight.copy_(ours.weight)
    torch.testing.assert_close(ours(x), theirs(x), atol=1e-12, rtol=1e-12)


def test_the_mean_is_kept_and_the_root_mean_square_is_one():
    """Unlike layer norm, RMSNorm does not centre: a constant vector stays constant (and
    non-zero), and every output has root mean square 1 (gain 1, eps 0)."""
    x = torch.tensor([[2.0, 2.0, 2.0, 2.0], [1.0, -3.0, 0.5, 4.0]], dtype=torch.float64)
    y = RMSNorm(4, eps=0.0).double()(x)
    torch.testing.assert_close(y[0], torch.ones(4, dtype=torch.float64))
    torch.testing.assert_close(y.pow(2).mean(-1), torch.ones(2, dtype=torch.float64))


def test_bad_input_is_named():
    norm = RMSNorm(8)
    with pytest.raises(ValueError, match="last dimension d_model=8"):
        norm(torch.randn(2, 7))
    with pytest.raises(TypeError, match="floating-point"):
        norm(torch.ones(2, 8, dtype=torch.long))
    with pytest.raises(ValueError, match="eps must be a number >= 0"):
        RMSNorm(8, eps=-1.0)
    with pytest.raises(TypeError, match="d_model must be an int"):
        RMSNorm(8.0)
