"""Positional encoding. Introduced in chapter 7, Embeddings and positional encoding.

Attention by itself ignores word order: shuffle the tokens and every output is shuffled
the same way. The paper adds a fixed table of sines and cosines to the embeddings so that
each position carries a signature of its own:

    PE[pos, 2i]     = sin(pos / base^(2i / d_model))
    PE[pos, 2i + 1] = cos(pos / base^(2i / d_model))

with ``base = 10000``. Each pair of columns ``(2i, 2i+1)`` turns at its own frequency,
from one radian per position (``i = 0``) down to one turn every ``2 pi base`` positions.
"""
from __future__ import annotations

import torch
from torch import nn

from .checks import check_dropout, check_positive_int, check_tensor


def check_base(base) -> None:
    """Raise unless ``base`` (the constant of the formula) is a positive number."""
    if isinstance(base, bool) or not isinstance(base, (int, float)):
        raise TypeError(f"base must be a number, got {type(base).__name__} ({base!r})")
    if not base > 0:
        raise ValueError(f"base must be positive, got base={base}")


def sinusoidal_encoding(
    length: int, d_model: int, base: float = 10000.0, interleave: bool = True,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """The table of sinusoidal positional encodings.

    Args:
        length: number of positions ``L``.
        d_model: width ``D`` of each encoding; must be even (one sin and one cos per
            frequency).
        base: the constant of the paper's formula (10000).
        interleave: ``True`` gives the paper's layout, sin and cos
            alternating ``[sin w0, cos w0, sin w1, cos w1, ...]``.
            ``False`` gives the concatenated layout
            ``[sin w0, sin w1, ... | cos w0, cos w1, ...]``: the same
            columns in another order. Tensor2Tensor's code (and the picture
            in *The Illustrated Transformer*) concatenates too but is not
            this table: its frequencies are
            ``base^(-i / (d_model/2 - 1))``, not ``base^(-2i / d_model)``
            (chapter 7 measures the difference).
        dtype: the floating-point type of the table (the rotary embeddings of
            :mod:`illustrated.decoder_only.rope` read it in float64 too).

    Returns:
        tensor ``(L, D)`` of ``dtype`` with values in ``[-1, 1]``.
    """
    check_positive_int(length, "length")
    check_positive_int(d_model, "d_model")
    if d_model % 2 != 0:
        raise ValueError(
            f"d_model must be even (a sin and a cos column per frequency), got d_model={d_model}"
        )
    check_base(base)
    # Computed in float64 and rounded once at the end, so long tables stay accurate.
    pos = torch.arange(length, dtype=torch.float64).unsqueeze(1)  # (L, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (D/2,)
    angle = pos / base ** (two_i / d_model)  # (L, D/2)
    if interleave:
        pe = torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1)  # (L, D)
    else:
        pe = torch.cat([angle.sin(), angle.cos()], dim=-1)  # (L, D)
    return pe.to(dtype)


def _check_input(module, x, start) -> None:
    """The checks of :meth:`PositionalEncoding.forward`."""
    check_tensor(x, "x", ndim=3, floating=True)
    if x.shape[2] != module.d_model:
        raise ValueError(
            f"x must have last dimension d_model={module.d_model}, got shape {tuple(x.shape)}"
        )
    check_positions(x.shape[1], start, module.max_len)


def check_positions(L: int, start: int, max_len: int) -> None:
    """Raise unless positions ``start .. start + L - 1`` are within a table of ``max_len``."""
    if isinstance(start, bool) or not isinstance(start, int) or start < 0:
        raise ValueError(f"start must be an int >= 0, got {start!r}")
    if start + L > max_len:
        raise ValueError(
            f"sequence length {start + L} is longer than max_len={max_len}; "
            f"build PositionalEncoding with a larger max_len"
        )


class PositionalEncoding(nn.Module):
    """Add the sinusoidal table to a batch of embeddings, then apply dropout.

    The table is computed once, up to ``max_len`` positions, and kept as a buffer: it moves
    with the module between devices but is not learned and not saved in the state dict
    (it can always be recomputed).

    Args:
        d_model: width ``D`` of the embeddings; must be even.
        dropout: dropout probability applied to the sum (0.1 in the paper).
        max_len: the longest sequence the module accepts.
        base: the constant of the formula (10000 in the paper).
    """

    def __init__(
        self, d_model: int, dropout: float = 0.1, max_len: int = 5000, base: float = 10000.0
    ):
        super().__init__()
        check_dropout(dropout)
        check_positive_int(max_len, "max_len")
        self.d_model, self.max_len = d_model, max_len
        pe = sinusoidal_encoding(max_len, d_model, base=base)  # (max_len, D)
        self.register_buffer("pe", pe.unsqueeze(0), persistent=False)  # (1, max_len, D)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, start: int = 0) -> torch.Tensor:
        """Args: x ``(B, L, D)`` embeddings; start: the position of ``x``'s first row
        (0 unless decoding one token at a time, where the newest token sits at position
        ``start``). Returns: ``(B, L, D)``, ``dropout(x + PE[start:start + L])``."""
        _check_input(self, x, start)
        L = x.shape[1]
        # 1) add the encodings of positions start..start+L-1 (the same for every sequence)
        x = x + self.pe[:, start:start + L].to(x.dtype)  # (B, L, D)
        # 2) dropout on the sum
        return self.dropout(x)

