"""Rotary position embeddings (RoPE). Used by the decoder variants of
:mod:`illustrated.decoder_only.variants`; the idea is chapter 7's.

Chapter 7 (section "A fixed offset is a fixed rotation") shows that the sinusoidal table
moves from position ``p`` to ``p + k`` by one block-diagonal rotation ``M_k``, which depends
on ``k`` only. Su et al. (2021, *RoFormer*) use that rotation directly: instead of adding
a position vector to the token, they *rotate* each query and key by its own position,
pair of dimensions ``i`` by the angle ``p * theta_i`` with

    theta_i = base^(-2i / d_k),   i = 0 .. d_k/2 - 1,  base = 10000,

the frequencies of chapter 7's table for a width of ``d_k``
(:func:`~illustrated.positional.sinusoidal_encoding` gives their sines and cosines, and
:func:`rope_cos_sin` reads them from it). A query
rotated by ``m * theta`` and a key rotated by ``n * theta`` have the dot product of the
unrotated pair turned by ``(n - m) * theta``: the score depends on the offset ``n - m``
only, never on where the pair sits. Values are not rotated: they carry content, not
position.

Two layouts of the same rotation are in use. **Interleaved**, the paper's and Meta's Llama
code's: the pairs are dimensions ``(0, 1), (2, 3), ...``. **Rotate half**, GPT-NeoX's and
Llama's Hugging Face code: the pairs are ``(i, i + d_k/2)``. They are the same rotation of
permuted dimensions (:func:`half_order`); a checkpoint moves from one to the other by
permuting the rows of ``W^Q`` and ``W^K`` of each head, as Hugging Face's Llama conversion
script does.

Tensors are ``(B, H, T, Dk)``: heads of queries or keys, batch-first.
"""
from __future__ import annotations

import torch

from ..checks import check_tensor
from ..positional import check_base, sinusoidal_encoding

LAYOUTS = ("interleaved", "half")


def rope_cos_sin(start: int, length: int, d_k: int, base: float = 10000.0,
                 dtype: torch.dtype = torch.float32, device=None):
    """The cosines and sines of the angles ``p * theta_i`` for positions
    ``p = start .. start + length - 1``: chapter 7's sinusoidal table, whose column ``2i``
    is ``sin(p * theta_i)`` and ``2i + 1`` is ``cos(p * theta_i)``.

    Returns: ``(cos, sin)``, ``(length, Dk/2)`` each, of ``dtype``."""
    table = sinusoidal_encoding(start + length, d_k, base, dtype=torch.float64)  # (P+T, Dk)
    table = table[start:].to(dtype=dtype, device=device)  # (T, Dk)
    return table[:, 1::2], table[:, 0::2]  # (T, Dk/2) each: cos, sin


def apply_rope(x: torch.Tensor, start: int = 0, base: float = 10000.0,
               layout: str = "interleaved") -> torch.Tensor:
    """Rotate every pair of dimensions of ``x`` by its position times ``theta_i``.

    Args:
        x: queries or keys ``(B, H, T, Dk)``, ``Dk`` even.
        start: the position of ``x``'s first row: with a key/value cache holding ``P``
            positions, the new rows sit at ``P .. P + T - 1`` (the cached keys were rotated
            at their own positions when they were new).
        base: the ``base`` of ``theta_i`` (10000, RoFormer's and Llama's).
        layout: ``"interleaved"`` (pairs ``(2i, 2i+1)``, the paper) or ``"half"`` (pairs
            ``(i, i + Dk/2)``, Llama's Hugging Face code).

    Returns: ``(B, H, T, Dk)``, ``x`` rotated; lengths are unchanged.
    """
    _check_rope(x, start, base, layout)
    T, d_k = x.shape[-2], x.shape[-1]
    cos, sin = rope_cos_sin(start, T, d_k, base, x.dtype, x.device)  # (T, Dk/2) each
    if layout == "interleaved":
        x1, x2 = x[..., 0::2], x[..., 1::2]  # (B, H, T, Dk/2) each: the pairs' two halves
    else:
        x1, x2 = x[..., :d_k // 2], x[..., d_k // 2:]  # (B, H, T, Dk/2) each
    # 1) rotate each pair (x1, x2) by the angle p * theta_i (RoFormer's R_{Theta,p})
    y1 = x1 * cos - x2 * sin  # (B, H, T, Dk/2)
    y2 = x1 * sin + x2 * cos  # (B, H, T, Dk/2)
    # 2) put the pairs back where they came from
    if layout == "interleaved":
        return torch.stack([y1, y2], dim=-1).flatten(-2)  # (B, H, T, Dk)
    return torch.cat([y1, y2], dim=-1)  # (B, H, T, Dk)


def half_order(d_k: int) -> torch.Tensor:
    """The permutation that takes the interleaved layout to the rotate-half one:
    ``x[..., half_order(d_k)]`` puts dimension ``2i`` at ``i`` and ``2i + 1`` at
    ``i + Dk/2``, so ``apply_rope(x, layout="interleaved")[..., order]`` equals
    ``apply_rope(x[..., order], layout="half")``. Applied to the rows of one head's
    ``W^Q`` and ``W^K``, it converts a checkpoint."""
    if isinstance(d_k, bool) or not isinstance(d_k, int) or d_k <= 0 or d_k % 2:
        raise ValueError(f"d_k must be a positive even int, got {d_k!r}")
    return torch.cat([torch.arange(0, d_k, 2), torch.arange(1, d_k, 2)])  # (Dk,)


def _check_rope(x, start, base, layout) -> None:
    """The checks of :func:`apply_rope`."""
    check_tensor(x, "x", min_ndim=2, floating=True)
    if x.shape[-1] % 2:
        raise ValueError(f"the last dimension of x (d_k) must be even: RoPE rotates pairs "
                         f"of dimensions; got shape {tuple(x.shape)}")
    if isinstance(start, bool) or not isinstance(start, int) or start < 0:
        raise ValueError(f"start must be an int >= 0, got {start!r}")
    check_base(base)
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
