"""The checker of the RMSNorm exercise: the decoders chapter after chapter 13.

RMSNorm divides each position's own ``D`` features (the last axis) by their root mean
square, with ``eps`` inside the square root, then scales by the gain ``g``:
``x / sqrt(mean(x^2) + eps) * g``. Unlike chapter 8's layer norm it subtracts no mean and
adds no shift.
"""
from __future__ import annotations

from itertools import combinations
from typing import Callable

import torch

from ..decoder_only.rmsnorm import RMSNorm
from ._frames import learner_frames_only
from ._runner import Case, equals, exactly, randn, run

_EPS = 1e-5  # torch.nn.RMSNorm's eps when given none is the dtype's; the package's is 1e-5

_CENTRED = ("it looks like you subtracted the mean: that is layer norm. "
            "RMSNorm does not centre the vector: divide `x` itself by "
            "`torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)`.")
_STD = ("it looks like you divided by the standard deviation (`x.std` or `x.var`): that "
        "measures the spread around the mean. RMSNorm divides by the root mean square, "
        "`torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)`; the two differ whenever "
        "the mean is not 0.")
_EPS_OUTSIDE = ("it looks like you added epsilon outside the square root, "
                "`sqrt(mean(x^2)) + eps`; this exercise, like torch.nn.RMSNorm and Llama's "
                "code, puts it inside, `sqrt(mean(x^2) + eps)`.")
_NO_EPS = ("it looks like you left out epsilon: divide by `sqrt(mean(x^2) + eps)`. "
           "Without it a position whose features are all 0 gives 0/0 = NaN.")
_EPS_IGNORED = ("it looks like you ignored the `eps` argument and always used 1e-05: use "
                "the `eps` your function is given.")
_AXIS = ("it looks like you took the mean square over {axes}; RMSNorm takes it over each "
         "position's own D features only: `x.pow(2).mean(dim=-1, keepdim=True)`.")
_NO_GAIN = ("it looks like you forgot the gain: finish with `* g`, one learned number per "
            "feature.")
_SUM = ("it looks like you took the root of the *sum* of squares (`x.norm(dim=-1)` is "
        "that): RMSNorm divides by the root of their *mean*, `x.pow(2).mean(dim=-1, "
        "keepdim=True)`, which is the sum divided by D.")
_NO_ROOT = ("it looks like you divided by the mean square itself: take its square root, "
            "`torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)`.")
_GAIN_ADDED = ("it looks like you added the gain: `g` multiplies the normalised values, "
               "`x / rms * g`.")


def _reference(x, g, eps=_EPS):
    """The package's RMSNorm holding ``g`` as its gain."""
    norm = RMSNorm(x.shape[-1], eps=eps).to(x.dtype)
    with torch.no_grad():
        norm.weight.copy_(g)
        return norm(x)  # (..., D)


def _planted(x, g, eps=_EPS, dims=(-1,), where="inside", centre=False, spread="rms",
             gain="times"):
    """RMSNorm, or one of its usual mistakes, depending on the switches (the defaults give
    the right one)."""
    if centre:
        x = x - x.mean(dim=-1, keepdim=True)  # (..., D): layer norm's centring
    square = {"rms": x.pow(2).mean(dim=dims, keepdim=True),  # (..., 1) or fewer axes
              "sum": x.pow(2).sum(dim=dims, keepdim=True),
              "var": x.var(dim=dims, keepdim=True, correction=0),
              "unbiased": x.var(dim=dims, keepdim=True)}[spread]
    if where == "inside":
        denominator = (square + eps).sqrt()
    elif where == "outside":
        denominator = square.sqrt() + eps
    elif where == "no root":
        denominator = square + eps
    else:  # no eps at all
        denominator = square.sqrt()
    y = x / denominator  # (..., D)
    return {"times": y * g, "none": y, "plus": y + g}[gain]


def _axis_mistakes(x, g, eps) -> list:
    """The mean square over any other set of axes than the last alone."""
    names = ("the batch B", "positions L", "features D")[-x.dim():]
    found = []
    for k in range(1, x.dim() + 1):
        for dims in combinations(range(x.dim()), k):
            if dims != (x.dim() - 1,):
                axes = " and ".join(names[d] for d in dims)
                found.append((_AXIS.format(axes=axes),
                              equals(lambda d=dims: _planted(x, g, eps, dims=d))))
    return found


def _rms_norm_mistakes(case: Case) -> list:
    x, g = case.inputs.values()
    eps = case.kwargs.get("eps", _EPS)
    found = []
    if "eps" in case.kwargs:
        found.append((_EPS_IGNORED, exactly(lambda: _reference(x, g))))
    found += [(_NO_EPS, exactly(lambda: _planted(x, g, where="none"))),
              (_EPS_OUTSIDE, exactly(lambda: _planted(x, g, eps, where="outside")))]
    found += _axis_mistakes(x, g, eps)
    found += [(_CENTRED, equals(lambda s=s: _planted(x, g, eps, centre=True, spread=s)))
              for s in ("rms", "unbiased")]
    found += [(_STD, equals(lambda s=s: _planted(x, g, eps, spread=s)))
              for s in ("var", "unbiased")]
    return found + [
        (_NO_GAIN, equals(lambda: _planted(x, g, eps, gain="none"))),
        (_GAIN_ADDED, equals(lambda: _planted(x, g, eps, gain="plus"))),
        (_SUM, equals(lambda: _planted(x, g, eps, spread="sum"))),
        (_SUM, equals(lambda: _planted(x, g, where="none", spread="sum"))),
        (_NO_ROOT, equals(lambda: _planted(x, g, eps, where="no root"))),
    ]


def _inputs(seed: int, *shape, dtype=torch.float64, scale=1.0, shift=0.5) -> dict:
    """x of ``shape``, its mean away from 0 (so that subtracting it shows), and a gain of
    width ``shape[-1]`` far from 1 (so that forgetting it shows)."""
    return {"x": shift + randn(seed, *shape, dtype=dtype, scale=scale),
            "g": 1.5 + 0.5 * randn(seed + 1, shape[-1], dtype=dtype)}


@learner_frames_only
def check_rms_norm(fn: Callable) -> None:
    """Check ``fn(x, g, eps=1e-5)``: RMSNorm over the last axis of ``x`` ``(..., D)``, with
    the learned gain ``g`` ``(D,)``: ``x / sqrt(mean(x^2) + eps) * g``, equal to
    ``illustrated.decoder_only.rmsnorm.RMSNorm`` (and ``torch.nn.RMSNorm``) with
    ``g`` as its weight."""
    zeros = _inputs(56, 2, 3, 5)
    zeros["x"][1, 2] = 0.0  # a position whose features are all 0
    cases = [  # B, L and D all differ, so a mean over the wrong axis shows
        Case("2-D (L, D)", _inputs(50, 3, 5)),
        Case("batch (B, L, D)", _inputs(53, 2, 3, 5)),
        Case("a position whose features are all 0", zeros),
        Case("small values (0.003)", _inputs(59, 2, 3, 5, scale=0.003, shift=0.001)),
        Case("eps=0.1", _inputs(62, 2, 3, 5), {"eps": 0.1}),
        Case("float32", _inputs(65, 2, 3, 5, dtype=torch.float32)),
    ]
    run("check_rms_norm", fn, cases, _reference, _rms_norm_mistakes,
         error_hint="your function must take `eps` as its third argument, "
                    "`def rms_norm(x, g, eps=1e-5)`; a shape error when dividing means "
                    "the mean square lost its axis: use `keepdim=True`.",
         general_hint="compute the steps one at a time (the mean square over `dim=-1`, "
                      "its root with eps inside, the division, `* g`) and compare with "
                      "`torch.nn.functional.rms_norm(x, (D,), g, eps)`.",
         success="your RMSNorm matches the package's on {n} tests, including a zero "
                 "vector, small values and another eps.")
