"""The checker of the softmax exercise: chapter 3, Self-attention and Q, K, V (and again
in chapter 4, Scaled scores, for the numerically stable version)."""
from __future__ import annotations

from typing import Callable

import torch

from ._frames import learner_frames_only
from ._runner import LARGE, OVERFLOW, Case, equals, nonfinite, randn, run, tensor64

_GLOBAL_MAX = ("it looks like you subtracted the maximum of the whole tensor: a row far below "
               "it underflows to 0/0. Subtract each row's own maximum, "
               "`x.max(dim=-1, keepdim=True).values`.")
_WRONG_DIM = ("it looks like you took the softmax over dim {d} instead of the last one: "
              "normalise along `dim=-1`, so that each row sums to 1.")
_KEEPDIM = ("it looks like you divided by `e.sum(dim=-1)` without `keepdim=True`: the sums then "
            "broadcast along the wrong axis (column j divided by the sum of row j).")
_MAX_KEEPDIM = ("it looks like you subtracted `x.max(dim=-1).values` without "
                "`keepdim=True`: the maxima then broadcast along the wrong axis (column j "
                "shifted by the maximum of row j), which changes the result. Keep the axis: "
                "`x.max(dim=-1, keepdim=True).values`.")
_WHOLE = ("it looks like you divided by the sum over the whole tensor; sum over the last "
          "dim only: `e.sum(dim=-1, keepdim=True)`.")
_NO_EXP = ("it looks like you forgot the exponential: softmax is exp(x_i) / Σ_j exp(x_j), "
           "not x_i / Σ_j x_j.")
_NO_NORM = "it looks like you forgot to divide by the sum: each row must sum to 1."


def _softmax_mistakes(case: Case) -> list:
    x = case.inputs["x"]
    e = x.exp()
    found = []
    if x.abs().max() > LARGE:
        found += [(_GLOBAL_MAX, equals(lambda: _naive_softmax(x - x.max()))),
                  (OVERFLOW, nonfinite)]
    found += [(_WRONG_DIM.format(d=d), equals(lambda d=d: x.softmax(d)))
              for d in range(x.dim() - 1)]
    shifted = (x - x.max(-1, keepdim=True).values).exp()  # each row's maximum -> e^0
    return found + [(_KEEPDIM, equals(lambda: e / e.sum(-1))),
                    (_KEEPDIM, equals(lambda: shifted / shifted.sum(-1))),
                    (_MAX_KEEPDIM, equals(lambda: _naive_softmax(x - x.max(-1).values))),
                    (_WHOLE, equals(lambda: e / e.sum())),
                    (_NO_EXP, equals(lambda: x / x.sum(-1, keepdim=True))),
                    (_NO_NORM, equals(lambda: e))]


def _naive_softmax(x: torch.Tensor) -> torch.Tensor:
    e = x.exp()
    return e / e.sum(-1, keepdim=True)


@learner_frames_only
def check_softmax(fn: Callable) -> None:
    """Check ``fn(x)``: the softmax of ``x`` over its last dimension, any shape ``(..., n)``."""
    cases = [
        Case("random 4×4", {"x": randn(0, 4, 4)}),
        Case("random 3×5", {"x": randn(1, 3, 5)}),
        Case("3-D batch", {"x": randn(2, 2, 3, 4)}),
        Case("equal and negative values", {"x": tensor64([[2, 2, 2, 2], [-1, -2, -3, -4],
                                                     [-0.5, 0, -3, 1]])}),
        Case("float32", {"x": randn(3, 3, 5, dtype=torch.float32)}),
        Case("large scores (~1000)", {"x": tensor64([[1000, 999, 998, 0], [1000] * 4,
                                                [-1000, -1001, -1002, -1003],
                                                [-1000, 0, 1000, 500]])}),
    ]
    run("check_softmax", fn, cases, lambda x: x.softmax(-1), _softmax_mistakes,
         error_hint="a shape error when dividing usually means the sum lost its axis: "
                    "use `.sum(dim=-1, keepdim=True)`.",
         general_hint="compare your output with `torch.softmax(x, dim=-1)` on this input; "
                      "every entry must be positive and every row must sum to 1.",
         success="your softmax matches on {n} tests, including large scores.")
