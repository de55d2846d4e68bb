"""Planted wrong attention shared by the checkers of chapter 3 (self-attention), chapter 4
(scores) and chapter 6 (attention with a mask): the usual mistakes in ``Q Kᵀ / √d_k``, in
the softmax that follows and in the average after it, each with its hint."""
from __future__ import annotations

import math

import torch

_UNSCALED = "it looks like you forgot to divide by √d_k (these are the raw Q Kᵀ)."
UNSCALED_SCORES = ("it looks like you forgot to divide the scores `q @ kᵀ` by √d_k before "
                    "the softmax.")
_BY_DK = "it looks like you divided by d_k instead of √d_k: use `math.sqrt(d_k)`."
_TIMES = "it looks like you multiplied by √d_k instead of dividing by it."
_KQT = ("it looks like you computed K Qᵀ instead of Q Kᵀ: row i belongs to query i, so "
        "q comes first: `q @ k.transpose(-2, -1)`.")
_WRONG_SIZE = ("it looks like you took the square root of the wrong size: you divided by √{n}, "
               "but d_k = {d_k} is the width of each query and key, `q.shape[-1]`.")
OVER_QUERIES = ("it looks like you took the softmax over the queries (dim=-2); each query's "
                 "weights over the keys must sum to 1: `softmax(dim=-1)`.")
_DIVIDED_AFTER = ("it looks like you divided by √d_k after the softmax: the scaling belongs to "
                  "the scores, `softmax(q @ kᵀ / √d_k)`. Dividing the weights instead leaves "
                  "them summing to 1/√d_k, not 1.")
_BY_S = ("it looks like you divided the output by the number of keys ({S}): the softmax "
         "weights already sum to 1, so `weights @ v` is already an average of the values; "
         "don't divide it again.")


def scores_reference(q, k):
    # The package has no function for the scores alone: this is the line of
    # scaled_dot_product_attention that computes them.
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., L, S)


def score_mistakes(q: torch.Tensor, k: torch.Tensor, unscaled: str = _UNSCALED) -> list:
    """(hint, function giving the wrong scores) for the usual mistakes in Q Kᵀ / √d_k;
    ``unscaled`` is the hint for a forgotten √d_k, worded for what the checker returns."""
    d_k, kt = q.shape[-1], k.transpose(-2, -1)
    found = [(unscaled, lambda: q @ kt),
             (_BY_DK, lambda: q @ kt / d_k),
             (_TIMES, lambda: q @ kt * math.sqrt(d_k)),
             (_KQT, lambda: k @ q.transpose(-2, -1) / math.sqrt(d_k))]
    sizes = sorted((set(q.shape[:-1]) | set(k.shape[:-1])) - {1, d_k})  # B, H, L, S
    return found + [(_WRONG_SIZE.format(n=n, d_k=d_k), lambda n=n: q @ kt / math.sqrt(n))
                    for n in sizes]


def attend(scores, v, mask=None, fill=None, dim=-1, before=True, after=True):
    """Finish attention from (possibly wrong) scores. Masked as the reference does by
    default: blocked scores filled with the dtype's minimum (or ``fill``) ``before`` the
    softmax, blocked weights set to 0 ``after`` it; either step can be left out."""
    if mask is not None and before:
        fill = torch.finfo(scores.dtype).min if fill is None else fill
        scores = scores.masked_fill(~mask, fill)
    w = scores.softmax(dim)  # (..., L, S)
    if mask is not None and after:
        w = w.masked_fill(~mask, 0.0)
    return w @ v, w  # (..., L, Dv), (..., L, S)


def averaging_mistakes(q, k, v, mask=None) -> list:
    """(hint, function giving the wrong output) for mistakes around the weighted average:
    √d_k applied to the weights instead of the scores, the average divided again by S."""
    raw_weights = attend(q @ k.transpose(-2, -1), v, mask)[1]  # (..., L, S), unscaled
    output = attend(scores_reference(q, k), v, mask)[0]  # (..., L, Dv), right
    S = k.shape[-2]
    return [(_DIVIDED_AFTER, lambda: raw_weights / math.sqrt(q.shape[-1]) @ v),
            (_BY_S.format(S=S), lambda: output / S)]
