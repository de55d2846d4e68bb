"""The checker of the layer norm exercise: chapter 8, Residual connections, layer norm,
dropout and the feed-forward network.

Layer norm normalises each position's own ``D`` features (the last axis) with their mean
and their *biased* variance, adds ``eps`` inside the square root, then scales by ``gamma``
and shifts by ``beta``: ``gamma * (x - mean) / sqrt(var + eps) + beta``.
"""
from __future__ import annotations

from itertools import combinations
from typing import Callable

import torch
import torch.nn.functional as F

from ._frames import learner_frames_only
from ._runner import Case, equals, exactly, randn, run, tensor64

_EPS = 1e-5  # torch.nn.LayerNorm's default, and the exercise's

_BATCH_AXIS = ("it looks like you normalised each feature across {axes}: that is batch "
               "norm's axis. Layer norm takes the mean and variance of each position's own "
               "D features: `x.mean(dim=-1, keepdim=True)`.")
_TOO_MANY = ("it looks like you normalised over {axes} together; layer norm uses the D "
             "features of one position only: `dim=-1`.")
_UNBIASED = ("it looks like you used the unbiased variance (dividing by D - 1), which is "
             "what `x.var(dim=-1)` computes by default. Layer norm divides by D: "
             "`x.var(dim=-1, unbiased=False, keepdim=True)`.")
_SWAPPED = ("it looks like gamma and beta are swapped: gamma multiplies the normalised "
            "values and beta is added, `gamma * x_hat + beta`.")
_NO_AFFINE = ("it looks like you returned the normalised values without the learned scale "
              "and shift: finish with `gamma * x_hat + beta`.")
_VARIANCE = ("it looks like you divided by the variance, `x.var(...)`, where the standard "
             "deviation belongs: divide by its square root, `torch.sqrt(var + eps)` with "
             "`var = x.var(dim=-1, unbiased=False, keepdim=True)`.")
_STD_AS_VAR = ("it looks like you took the square root of the standard deviation: `x.std` "
               "is already the square root of `x.var`. Put the variance under the root, "
               "`torch.sqrt(x.var(dim=-1, unbiased=False, keepdim=True) + eps)`.")
_BETA_BELOW = ("it looks like beta ended up in the denominator, next to the standard "
               "deviation (where eps belongs). Beta is the learned shift, added after the "
               "division: `gamma * (x - mean) / torch.sqrt(var + eps) + beta`.")
_BETA_DIVIDED = ("it looks like beta was divided by the standard deviation too: add it "
                 "after the division, `gamma * (x - mean) / torch.sqrt(var + eps) + beta`, "
                 "not `(gamma * (x - mean) + beta) / ...`.")
_NO_MEAN = "it looks like you did not subtract the mean before dividing."
_NO_EPS = ("it looks like you left out epsilon: divide by `sqrt(var + eps)`. Without it a "
           "position whose features are all equal gives 0/0 = NaN.")
_EPS_OUTSIDE = ("it looks like you added epsilon outside the square root, "
                "`sqrt(var) + eps`; torch (and this exercise) puts it inside, "
                "`sqrt(var + eps)`.")
_EPS_IGNORED = ("it looks like you ignored the `eps` argument and always used 1e-05: use "
                "the `eps` your function is given.")


def _normalise(x, gamma, beta, dims=(-1,), eps=_EPS, unbiased=False, where="inside",
               centre=True, power=0.5, swap=False):
    """Layer norm, or one of its usual mistakes, depending on the switches."""
    mean = x.mean(dim=dims, keepdim=True)
    var = x.var(dim=dims, keepdim=True, correction=int(unbiased))
    if where == "inside":
        spread = (var + eps) ** power
    elif where == "outside":
        spread = var.sqrt() + eps
    else:  # no eps at all
        spread = var ** power
    x_hat = ((x - mean) if centre else x) / spread
    return x_hat * beta + gamma if swap else x_hat * gamma + beta


def _reference(x, gamma, beta, eps=_EPS):
    return F.layer_norm(x, (x.shape[-1],), gamma, beta, eps)


def _axes_names(ndim: int, dims) -> str:
    names = ["positions L", "features D"] if ndim == 2 else ["the batch B", "positions L",
                                                             "features D"]
    return " and ".join(names[d] for d in dims)


def _axis_mistakes(x, gamma, beta, eps) -> list:
    last, found = x.dim() - 1, []
    for k in range(1, x.dim() + 1):
        for dims in combinations(range(x.dim()), k):
            if dims == (last,):
                continue
            hint = (_TOO_MANY if last in dims else _BATCH_AXIS).format(
                axes=_axes_names(x.dim(), dims))
            found.append((hint, equals(lambda d=dims: _normalise(x, gamma, beta, d, eps))))
    return found


def _layer_norm_mistakes(case: Case) -> list:
    x, gamma, beta = case.inputs.values()
    eps = case.kwargs.get("eps", _EPS)
    same = dict(dims=(-1,), eps=eps)
    found = []
    if "eps" in case.kwargs:
        found.append((_EPS_IGNORED, exactly(lambda: _reference(x, gamma, beta))))
    found += [(_NO_EPS, exactly(lambda: _normalise(x, gamma, beta, where="none"))),
              (_EPS_OUTSIDE, exactly(lambda: _normalise(x, gamma, beta, eps=eps,
                                                         where="outside")))]
    found += _axis_mistakes(x, gamma, beta, eps)
    return found + [
        (_UNBIASED, equals(lambda: _normalise(x, gamma, beta, unbiased=True, **same))),
        (_SWAPPED, equals(lambda: _normalise(x, gamma, beta, swap=True, **same))),
        (_NO_AFFINE, equals(lambda: _normalise(x, torch.ones_like(gamma),
                                                torch.zeros_like(beta), **same))),
        *_spread_mistakes(x, gamma, beta, eps),
        (_NO_MEAN, equals(lambda: _normalise(x, gamma, beta, centre=False, **same))),
    ]


def _spread_mistakes(x, gamma, beta, eps) -> list:
    """The denominator gone wrong: the variance where the standard deviation belongs (or
    the root of the standard deviation), and beta inside the division."""
    centred = x - x.mean(dim=-1, keepdim=True)  # (..., D)
    var = [x.var(dim=-1, keepdim=True, correction=c) for c in (0, 1)]  # biased, unbiased
    sigma = torch.sqrt(var[0] + eps)  # the right denominator, (..., 1)

    found = [(_VARIANCE, equals(lambda v=v, e=e: gamma * centred / (v + e) + beta))
             for v in var for e in (eps, 0.0)]
    found += [(_STD_AS_VAR, equals(lambda v=v: gamma * centred / (v.sqrt() + eps).sqrt()
                                    + beta)) for v in var]
    found += [(_BETA_BELOW, equals(lambda s=s: gamma * centred / s))  # beta below
              for s in (sigma + beta, var[0].sqrt() + beta, torch.sqrt(var[0] + beta))]
    return found + [
        (_BETA_DIVIDED, equals(lambda: (gamma * centred + beta) / sigma)),
        (_BETA_DIVIDED, equals(lambda: gamma * (centred + beta) / sigma)),
    ]


def _inputs(seed: int, *shape, dtype=torch.float64, scale=1.0, shift=0.0) -> dict:
    """x of ``shape`` and a gamma, beta of width ``shape[-1]`` far from 1 and 0, so a
    forgotten or swapped scale shows."""
    D = shape[-1]
    return {"x": shift + randn(seed, *shape, dtype=dtype, scale=scale),
            "gamma": 1.5 + 0.5 * randn(seed + 1, D, dtype=dtype),
            "beta": 0.5 + 0.5 * randn(seed + 2, D, dtype=dtype)}


@learner_frames_only
def check_layer_norm(fn: Callable) -> None:
    """Check ``fn(x, gamma, beta, eps=1e-5)``: layer norm over the last axis of ``x``
    ``(..., D)``, with the learned scale ``gamma`` ``(D,)`` and shift ``beta`` ``(D,)``,
    equal to ``torch.nn.functional.layer_norm(x, (D,), gamma, beta, eps)``."""
    flat = _inputs(56, 2, 3, 5)
    flat["x"][1, 2] = tensor64([4.0] * 5)  # a padding-like position: all its features equal
    cases = [  # B, L and D all differ, so a normalisation over the wrong axis shows
        Case("2-D (L, D)", _inputs(50, 3, 5)),
        Case("batch (B, L, D)", _inputs(53, 2, 3, 5)),
        Case("a position whose features are all equal", flat),
        Case("small spread (std 0.003)", _inputs(59, 2, 3, 5, scale=0.003, shift=10.0)),
        Case("eps=0.1", _inputs(62, 2, 3, 5), {"eps": 0.1}),
        Case("float32", _inputs(65, 2, 3, 5, dtype=torch.float32)),
    ]
    run("check_layer_norm", fn, cases, _reference, _layer_norm_mistakes,
         error_hint="your function must take `eps` as its fourth argument, "
                    "`def layer_norm(x, gamma, beta, eps=1e-5)`; a shape error when "
                    "subtracting or dividing means the mean or variance lost its axis: use "
                    "`keepdim=True`.",
         general_hint="compute the steps one at a time (mean, variance, x_hat, "
                      "`gamma * x_hat + beta`) and compare with "
                      "`torch.nn.functional.layer_norm(x, (D,), gamma, beta, eps)`.",
         success="your layer norm matches torch's on {n} tests, including equal "
                 "features, a small spread and another eps.")

