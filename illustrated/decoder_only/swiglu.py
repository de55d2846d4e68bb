"""The gated feed-forward network SwiGLU. Used by the decoder variants of
:mod:`illustrated.decoder_only.variants`; the network it replaces is chapter 8's
:class:`~illustrated.layers.PositionwiseFeedForward`.

Chapter 8's feed-forward network widens each token vector, keeps the positive part and
projects back: ``max(0, x W1 + b1) W2 + b2``. Shazeer (2020, *GLU Variants Improve
Transformer*) multiplies two widened projections of the same input element by element:
one, through an activation, *gates* the other, linear, one (Hugging Face's Llama code calls
``W1`` ``gate_proj`` and ``W3`` ``up_proj``). SwiGLU's activation is the smooth SiLU (Swish)
``SiLU(s) = s * sigmoid(s)``:

    SwiGLU(x) = (SiLU(x W1) * (x W3)) W2      no biases; W1, W3: D x d_ff; W2: d_ff x D

as Llama writes it (its names ``w1``, ``w2``, ``w3``). Three matrices instead of two: to
keep the parameters and the work of the network it replaces, Shazeer shrinks the inner
width by a factor of 2/3 (3072 to 2048 in his experiments). Two rules for that width:
:func:`llama_d_ff`, Llama's (two thirds of ``4 * d_model``, rounded *up* to a multiple of
``multiple_of``, 256 in Llama), and :func:`matched_d_ff`, the width whose parameter count
is nearest the ReLU network's, which the decoder variants use.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..checks import check_dropout, check_positive_int, check_stream


class SwiGLUFeedForward(nn.Module):
    """``(SiLU(x W1) * (x W3)) W2``, applied to every position separately.

    Args:
        d_model: input and output width ``D``.
        d_ff: inner width (see :func:`matched_d_ff` and :func:`llama_d_ff`).
        dropout: dropout probability on the gated inner vector (where
            :class:`~illustrated.layers.PositionwiseFeedForward` drops its ReLU's output).
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.1):
        super().__init__()
        check_positive_int(d_model, "d_model")
        check_positive_int(d_ff, "d_ff")
        check_dropout(dropout)
        self.d_model = d_model
        self.w1 = nn.Linear(d_model, d_ff, bias=False)  # the gate, through the SiLU
        self.w3 = nn.Linear(d_model, d_ff, bias=False)  # the linear widened vector
        self.w2 = nn.Linear(d_ff, d_model, bias=False)  # back to d_model
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Args: x ``(B, L, D)``. Returns: ``(B, L, D)``."""
        check_stream(x, self.d_model, like=self)
        # 1) widen twice: the SiLU of one projection (the gate) times the other
        hidden = F.silu(self.w1(x)) * self.w3(x)  # (B, L, d_ff)
        # 2) dropout, 3) project back to d_model
        return self.w2(self.dropout(hidden))  # (B, L, D)


def llama_d_ff(d_model: int, multiple_of: int = 256) -> int:
    """Llama's inner width: ``int(2/3 * 4 * d_model)``, rounded up to a multiple of
    ``multiple_of`` (256 in Llama's code: 11008 for ``d_model = 4096``)."""
    check_positive_int(d_model, "d_model")
    check_positive_int(multiple_of, "multiple_of")
    hidden = int(2 * (4 * d_model) / 3)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


def relu_ffn_parameters(d_model: int, d_ff: int, bias: bool = True) -> int:
    """The parameters of chapter 8's ReLU network: ``W1``, ``W2`` and (with ``bias``)
    ``b1``, ``b2``."""
    return 2 * d_model * d_ff + (d_ff + d_model if bias else 0)


def matched_d_ff(d_model: int, d_ff: int, bias: bool = True) -> int:
    """The SwiGLU inner width whose ``3 * d_model * width`` parameters are nearest those of
    a ReLU network of inner width ``d_ff`` (with or without its biases): about
    ``2/3 * d_ff``. For ``d_model = 128, d_ff = 512`` with biases, 343, which matches
    exactly (``3 * 128 * 343 = 2 * 128 * 512 + 512 + 128``)."""
    check_positive_int(d_model, "d_model")
    check_positive_int(d_ff, "d_ff")
    return max(1, round(relu_ffn_parameters(d_model, d_ff, bias) / (3 * d_model)))
