"""The checkers of the scores ``Q Kᵀ / √d_k`` (chapter 4, Scaled scores) and of the whole
of scaled dot-product attention with masks (chapter 6, Masking, once masks are taught)."""
from __future__ import annotations

import math
from typing import Callable

import torch

from ..attention import scaled_dot_product_attention
from ..masks import padding_mask, subsequent_mask
from ._attend import (OVER_QUERIES, UNSCALED_SCORES, attend, averaging_mistakes, score_mistakes,
                      scores_reference)
from ._frames import learner_frames_only
from ._runner import (
    LARGE,
    OVERFLOW,
    Case,
    equals,
    nonfinite,
    part_equals,
    randn,
    run,
)

_MATMUL = ("the scores are `q @ k.transpose(-2, -1)`: `(..., L, d_k) @ (..., d_k, S)` gives "
           "`(..., L, S)`. Note that `k.T` reverses *every* axis of a batched tensor; use "
           "`k.transpose(-2, -1)` (or `k.mT`).")

# ---------------------------------------------------------------- scores


def _scores_mistakes(case: Case) -> list:
    return [(h, equals(s)) for h, s in score_mistakes(*case.inputs.values())]


@learner_frames_only
def check_scores(fn: Callable) -> None:
    """Check ``fn(q, k)``: the scaled scores ``Q Kᵀ / √d_k`` of shape ``(..., L, S)``,
    for ``q`` ``(..., L, d_k)`` and ``k`` ``(..., S, d_k)``."""
    cases = [  # L, S, d_k (and B, H) all differ, so every wrong size shows
        Case("2-D, L ≠ S", {"q": randn(10, 3, 6), "k": randn(11, 5, 6)}),
        Case("batch", {"q": randn(12, 2, 3, 6), "k": randn(13, 2, 5, 6)}),
        Case("batch and heads", {"q": randn(14, 2, 4, 3, 6), "k": randn(15, 2, 4, 5, 6)}),
        Case("a single key", {"q": randn(16, 3, 6), "k": randn(17, 1, 6)}),
        Case("float32", {"q": randn(18, 2, 3, 6, dtype=torch.float32),
                          "k": randn(19, 2, 5, 6, dtype=torch.float32)}),
    ]
    run("check_scores", fn, cases, scores_reference, _scores_mistakes, error_hint=_MATMUL,
         general_hint="compute `q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])` step by "
                      "step and compare with your function on this input.",
         success="your scores match on {n} tests, including batched inputs and L ≠ S ≠ d_k.")


# ---------------------------------------------------------------- attention

_SWAPPED = "it looks like you returned (weights, output); return them as (output, weights)."
_INVERTED = ("it looks like your mask convention is inverted: in this book True means "
             "'may attend' and False means 'blocked', so fill the scores where the mask is "
             "False: `scores.masked_fill(~mask, torch.finfo(scores.dtype).min)`.")
AFTER = ("it looks like you applied the mask after the softmax, so the kept weights no "
          "longer sum to 1. Fill blocked scores with `torch.finfo(scores.dtype).min` *before* "
          "the softmax; it then gives them weight 0.")
ZERO_FILL = ("it looks like you filled blocked scores with 0, but exp(0) = 1, so blocked "
              "keys still get weight: fill with the most negative number of the dtype, "
              "`torch.finfo(scores.dtype).min`.")
NEG_INF = ("it looks like you filled blocked scores with -inf: on a row whose keys are all "
            "blocked every score is -inf, and the softmax computes -inf - (-inf) = NaN. Fill "
            "with `torch.finfo(scores.dtype).min` instead, and zero the blocked weights "
            "after the softmax: `weights = weights.masked_fill(~mask, 0.0)`.")
RENORMALISED = ("it looks like you zeroed the blocked weights and then divided each row by "
                 "its sum: on a row whose keys are all blocked that is 0/0 = NaN. The "
                 "softmax already makes each row sum to 1: after it, only set "
                 "`weights = weights.masked_fill(~mask, 0.0)`, and divide nothing.")
NOT_ZEROED = ("it looks like you did not zero the blocked weights after the softmax, so a "
               "query whose keys are all blocked gets uniform weights over them. A row with "
               "nothing to attend to must read nothing (weights 0, output 0): after the "
               "softmax set `weights = weights.masked_fill(~mask, 0.0)`.")


def _allowed_get_no_weight(mask):
    """Diagnosis for an inverted mask: weights vanish where the mask says *may attend*."""

    def test(gots) -> bool:
        w = torch.nan_to_num(gots[1])
        m = mask.expand(w.shape)
        mixed = (m.any(-1) & (~m).any(-1)).unsqueeze(-1)  # rows with both kinds of keys
        return bool(mixed.any()) and bool(w[m & mixed].abs().max() < 1e-6) and bool(
            w[~m & mixed].abs().sum() > 0)

    return test


def _attention_mistakes(case: Case) -> list:
    q, k, v = case.inputs["q"], case.inputs["k"], case.inputs["v"]
    mask = case.inputs.get("mask")
    scores = scores_reference(q, k)  # (..., L, S)
    found = [(OVERFLOW, nonfinite)] if scores.abs().max() > LARGE else []
    if mask is not None:  # these differ from the reference only on a fully blocked row
        found += [(NEG_INF, part_equals(1, lambda: attend(scores, v, mask, fill=-math.inf,
                                                             after=False)[1])),
                  (NOT_ZEROED, equals(lambda: attend(scores, v, mask, after=False)))]
    found += [(_SWAPPED, equals(lambda: scaled_dot_product_attention(q, k, v, mask)[::-1])),
              (OVER_QUERIES, equals(lambda: attend(scores, v, mask, dim=-2)))]
    found += [(h, equals(lambda s=s: attend(s(), v, mask)))
              for h, s in score_mistakes(q, k, unscaled=UNSCALED_SCORES)]
    found += [(h, part_equals(0, out)) for h, out in averaging_mistakes(q, k, v, mask)]
    if mask is not None:
        found += [(_INVERTED, _allowed_get_no_weight(mask)),
                  (AFTER, equals(lambda: attend(scores, v, mask, before=False))),
                  (ZERO_FILL, equals(lambda: attend(scores, v, mask, fill=0.0,
                                                       after=False)))]
    return found


def _qkv(seed, batch, L, S, d_k=6, d_v=7, dtype=torch.float64, scale=1.0) -> dict:
    """Random q (*batch, L, d_k), k (*batch, S, d_k), v (*batch, S, d_v); d_v != S, so
    swapped outputs show in the shapes."""
    return {"q": randn(seed, *batch, L, d_k, dtype=dtype, scale=scale),
            "k": randn(seed + 1, *batch, S, d_k, dtype=dtype, scale=scale),
            "v": randn(seed + 2, *batch, S, d_v, dtype=dtype)}


@learner_frames_only
def check_attention(fn: Callable) -> None:
    """Check ``fn(q, k, v, mask=None) -> (output, weights)`` against
    :func:`illustrated.attention.scaled_dot_product_attention`: ``q`` ``(..., L, d_k)``,
    ``k`` ``(..., S, d_k)``, ``v`` ``(..., S, d_v)``, ``mask`` bool (True = may attend).

    Blocked keys get weight exactly 0, and a query whose keys are *all* blocked gets
    weights 0 and an output of 0 (it has nothing to attend to, so it reads nothing): fill
    blocked scores with ``torch.finfo(scores.dtype).min`` before the softmax (not
    ``-inf``, which gives NaN on such a row), and after it set
    ``weights = weights.masked_fill(~mask, 0.0)``."""
    pad = padding_mask(torch.tensor([[5, 2, 1, 0, 0], [1, 3, 1, 4, 0]]))  # (2, 1, 5)
    nothing = pad.expand(2, 3, 5).clone()  # (2, 3, 5)
    nothing[0, 1] = False  # query 1 of sentence 0 may attend to no key at all
    cases = [
        Case("2-D, L = S", _qkv(20, (), 4, 4)),
        Case("batch, L ≠ S", _qkv(23, (2,), 3, 5)),
        Case("batch and heads", _qkv(26, (2, 4), 3, 5)),
        Case("a single key", _qkv(29, (2,), 3, 1)),
        Case("float32", _qkv(32, (2,), 3, 5, dtype=torch.float32)),
        Case("padding mask", {**_qkv(35, (2,), 3, 5), "mask": pad}),
        Case("causal mask", {**_qkv(38, (2,), 4, 4), "mask": subsequent_mask(4)}),
        Case("large scores", _qkv(41, (2,), 3, 5, scale=30.0)),
        Case("a query with every key blocked", {**_qkv(44, (2,), 3, 5), "mask": nothing}),
    ]
    run("check_attention", fn, cases, scaled_dot_product_attention, _attention_mistakes,
         error_hint=_MATMUL + " Then `weights @ v`: `(..., L, S) @ (..., S, d_v)`.",
         general_hint="compute the steps one at a time (scores, mask, softmax over the "
                      "keys, `weights @ v`) and compare each with "
                      "`illustrated.attention.scaled_dot_product_attention`.",
         success="your attention matches the reference on {n} tests, including a padding "
                 "mask, a causal mask, large scores and a query with every key blocked.",
         zero_by_zero=RENORMALISED)
