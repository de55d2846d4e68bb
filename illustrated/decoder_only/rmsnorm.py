"""RMSNorm: layer normalisation without the mean. Used by the decoder variants of
:mod:`illustrated.decoder_only.variants`; the layer norm it replaces is chapter 8's.

Chapter 8's layer norm centres each token vector (subtracts its mean), divides by its
standard deviation, then scales and shifts it: ``g * (x - mean) / std + b``. Zhang and
Sennrich (2019, *Root Mean Square Layer Normalization*) drop the centring and the shift
and divide by the root mean square instead:

    RMSNorm(x) = x / sqrt(mean(x^2) + eps) * g

one learned gain ``g`` per dimension, no bias. Llama, Mistral, Qwen and Gemma normalise
this way. ``torch.nn.RMSNorm`` computes the same (the tests prove it).
"""
from __future__ import annotations

import torch
from torch import nn

from ..checks import check_positive_int, check_tensor


class RMSNorm(nn.Module):
    """``x / sqrt(mean(x^2) + eps) * g`` over the last dimension.

    Args:
        d_model: width ``D`` of the vectors normalised.
        eps: added to the mean square, so a zero vector gives zeros, not NaN.
        elementwise_affine: whether to learn the gain ``g`` (``D`` numbers, starting at 1).
    """

    def __init__(self, d_model: int, eps: float = 1e-5, elementwise_affine: bool = True):
        super().__init__()
        check_positive_int(d_model, "d_model")
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not eps >= 0:
            raise ValueError(f"eps must be a number >= 0, got eps={eps!r}")
        self.d_model, self.eps = d_model, float(eps)
        self.weight = nn.Parameter(torch.ones(d_model)) if elementwise_affine else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Args: x ``(..., D)``. Returns: ``(..., D)``, each vector divided by its root
        mean square (and times ``g``)."""
        check_tensor(x, "x", min_ndim=1, floating=True)
        if x.shape[-1] != self.d_model:
            raise ValueError(f"x must have last dimension d_model={self.d_model}, got "
                             f"shape {tuple(x.shape)}")
        # 1) the root mean square of every vector (no mean subtracted: that is the point)
        rms = (x.pow(2).mean(dim=-1, keepdim=True) + self.eps).sqrt()  # (..., 1)
        # 2) divide, then scale each dimension by its gain
        y = x / rms  # (..., D)
        return y if self.weight is None else y * self.weight  # (..., D)

    def extra_repr(self) -> str:
        return f"{self.d_model}, eps={self.eps}, elementwise_affine={self.weight is not None}"
