"""Planted wrong attention shared by the checkers of chapter 3 (self-attention) and
chapter 4 (scores, attention): the usual mistakes in ``Q Kᵀ / √d_k`` and in the softmax
that follows, each with its hint."""
from __future__ import annotations

import math

import torch

_UNSCALED = "it looks like you forgot to divide by √d_k (these are the raw Q Kᵀ)."
_BY_DK = "it looks like you divided by d_k instead of √d_k: use math.sqrt(d_k)."
_TIMES = "it looks like you multiplied by √d_k instead of dividing by it."
_KQT = ("it looks like you computed K Qᵀ instead of Q Kᵀ: row i belongs to query i, so "
        "q comes first: q @ k.transpose(-2, -1).")
_WRONG_SIZE = ("it looks like you took the square root of the wrong size: you divided by √{n}, "
               "but d_k = {d_k} is the width of each query and key, q.shape[-1].")
_OVER_QUERIES = ("it looks like you took the softmax over the queries (dim=-2); each query's "
                 "weights over the keys must sum to 1: softmax(dim=-1).")


def _scores_reference(q, k):
    # The package has no function for the scores alone: this is the line of
    # scaled_dot_product_attention that computes them.
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., L, S)


def _score_mistakes(q: torch.Tensor, k: torch.Tensor) -> list:
    """(hint, function giving the wrong scores) for the usual mistakes in Q Kᵀ / √d_k."""
    d_k, kt = q.shape[-1], k.transpose(-2, -1)
    found = [(_UNSCALED, lambda: q @ kt),
             (_BY_DK, lambda: q @ kt / d_k),
             (_TIMES, lambda: q @ kt * math.sqrt(d_k)),
             (_KQT, lambda: k @ q.transpose(-2, -1) / math.sqrt(d_k))]
    sizes = sorted((set(q.shape[:-1]) | set(k.shape[:-1])) - {1, d_k})  # B, H, L, S
    return found + [(_WRONG_SIZE.format(n=n, d_k=d_k), lambda n=n: q @ kt / math.sqrt(n))
                    for n in sizes]


def _attend(scores, v, mask=None, fill=None, dim=-1, after=False):
    """Finish attention from (possibly wrong) scores, optionally in a wrong way."""
    if mask is not None and not after:
        fill = torch.finfo(scores.dtype).min if fill is None else fill
        scores = scores.masked_fill(~mask, fill)
    w = scores.softmax(dim)  # (..., L, S)
    if mask is not None and after:
        w = w.masked_fill(~mask, 0.0)
    return w @ v, w  # (..., L, Dv), (..., L, S)
