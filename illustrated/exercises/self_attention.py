"""The checker of chapter 3, Self-attention and Q, K, V: ``z = Attention(x W_q, x W_k,
x W_v)``."""
from __future__ import annotations

import math
from typing import Callable

import torch

from ..attention import scaled_dot_product_attention
from ._attend import (OVER_QUERIES, UNSCALED_SCORES, attend, averaging_mistakes, score_mistakes,
                      scores_reference)
from ._frames import learner_frames_only
from ._runner import LARGE, OVERFLOW, Case, equals, nonfinite, randn, run

_NO_PROJECTIONS = ("it looks like you used x itself as queries, keys and values: project it "
                   "first, `q = x @ w_q`, `k = x @ w_k`, `v = x @ w_v`.")
_SWAP_KV = ("it looks like you swapped W_k and W_v: keys `x @ w_k` are compared with the "
            "queries, values `x @ w_v` are what gets averaged.")
_V_WITH_WK = ("it looks like you computed the values with W_k, `v = x @ w_k`: the values "
              "have their own projection, `v = x @ w_v`.")
_SWAP_QK = ("it looks like you swapped W_q and W_k: queries are `x @ w_q` and keys `x @ w_k`; "
            "swapping them transposes the scores.")
_SQRT_D = ("it looks like you divided by √D (d_model) instead of √d_k: d_k is the width of "
           "the projected queries and keys, `w_q.shape[1]`.")
_SUM_KEEPDIM = ("it looks like your softmax divided by `e.sum(dim=-1)` without "
                "`keepdim=True`: the row sums then broadcast along the wrong axis (column j "
                "divided by the sum of row j). Keep the axis: `e.sum(dim=-1, keepdim=True)`, "
                "or use `torch.softmax(scores, dim=-1)`.")
_RETURNED_WEIGHTS = ("it looks like you returned the attention weights; return "
                     "`z = weights @ v`.")


def _self_attention_reference(x, w_q, w_k, w_v):
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)[0]  # (..., L, Dk)


def _self_attention_mistakes(case: Case) -> list:
    x, w_q, w_k, w_v = case.inputs.values()
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # (..., L, Dk)
    scores = scores_reference(q, k)  # (..., L, L)
    by_sqrt_D = q @ k.transpose(-2, -1) / math.sqrt(x.shape[-1])  # (..., L, L)
    sdpa = scaled_dot_product_attention
    found = [(OVERFLOW, nonfinite)] if scores.abs().max() > LARGE else []
    found += [(_NO_PROJECTIONS, equals(lambda: sdpa(x, x, x)[0])),
              (_NO_PROJECTIONS, equals(lambda: attend(x @ x.transpose(-2, -1), x)[0])),
              (_SWAP_KV, equals(lambda: sdpa(q, v, k)[0])),
              (_V_WITH_WK, equals(lambda: sdpa(q, k, k)[0])),
              (_SWAP_QK, equals(lambda: sdpa(k, q, v)[0])),
              (_RETURNED_WEIGHTS, equals(lambda: sdpa(q, k, v)[1])),
              (OVER_QUERIES, equals(lambda: attend(scores, v, dim=-2)[0])),
              (_SQRT_D, equals(lambda: attend(by_sqrt_D, v)[0])),
              (_SUM_KEEPDIM, equals(lambda: _no_keepdim(scores.exp()) @ v)),
              (_SUM_KEEPDIM, equals(lambda: _no_keepdim(_shifted_exp(scores)) @ v))]
    found += [(h, equals(lambda s=s: attend(s(), v)[0]))
              for h, s in score_mistakes(q, k, unscaled=UNSCALED_SCORES)]
    return found + [(h, equals(out)) for h, out in averaging_mistakes(q, k, v)]


def _shifted_exp(scores):
    return (scores - scores.max(-1, keepdim=True).values).exp()  # (..., L, L)


def _no_keepdim(e):
    """A hand-written softmax whose row sums lost their axis: (..., L, L) / (..., L)
    divides column j by row j's sum (with a batch, it raises unless B equals L)."""
    return e / e.sum(-1)  # the mistake


def _xw(seed, batch, L, D=6, d_k=3, dtype=torch.float64, scale=1.0) -> dict:
    return {"x": randn(seed, *batch, L, D, dtype=dtype, scale=scale),
            **{w: randn(seed + i, D, d_k, dtype=dtype) / math.sqrt(D)
               for i, w in enumerate(("w_q", "w_k", "w_v"), start=1)}}


@learner_frames_only
def check_self_attention(fn: Callable) -> None:
    """Check ``fn(x, w_q, w_k, w_v) -> z``, chapter 3's self-attention
    ``z = Attention(x W_q, x W_k, x W_v)``: ``x`` ``(L, D)`` or ``(B, L, D)``, each ``w_*``
    ``(D, Dk)``; ``z`` ``(L, Dk)`` or ``(B, L, Dk)``."""
    cases = [  # D, Dk, L and B all differ, so every wrong size shows
        Case("one sentence", _xw(70, (), 4)),
        Case("batch", _xw(74, (2,), 5)),
        Case("float32", _xw(78, (2,), 5, dtype=torch.float32)),
        Case("a single token", _xw(82, (), 1)),
        Case("large scores", _xw(86, (2,), 4, scale=40.0)),
    ]
    run("check_self_attention", fn, cases, _self_attention_reference,
         _self_attention_mistakes,
         error_hint="x (..., L, D) @ w_q (D, Dk) gives q (..., L, Dk); then the scores are "
                    "`q @ k.transpose(-2, -1)` (`k.T` reverses every axis of a batched "
                    "tensor).",
         general_hint="compute q, k, v, the scores, the weights and z step by step and "
                      "compare with `illustrated.attention.scaled_dot_product_attention`.",
         success="your self-attention matches on {n} tests, including a batch and large "
                 "scores.")
