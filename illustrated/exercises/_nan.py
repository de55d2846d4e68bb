"""How a NaN first arose in the learner's function, or in a planted mistake: from a
division 0/0 (a row of weights all zero, divided by its sum) or another way (-inf - (-inf)
in a softmax, 0 * log 0). The runner reads it to blame neither for the other."""
from __future__ import annotations

from typing import Callable

import torch
from torch.overrides import TorchFunctionMode

_DIVISIONS = {"__truediv__", "__rtruediv__", "__itruediv__", "__div__", "__rdiv__",
              "__idiv__", "div", "div_", "true_divide", "true_divide_", "divide"}


def _nan_count(x) -> int:
    if isinstance(x, torch.Tensor) and x.is_floating_point():
        return int(torch.isnan(x).sum())
    if isinstance(x, (tuple, list)):
        return sum(_nan_count(y) for y in x)
    return 0


class FirstNaN(TorchFunctionMode):
    """Watches the learner's function run and records how its first NaN arose: from a
    division 0/0 (``"0/0"``, e.g. a fully masked row of weights zeroed, then divided by
    its sum) or from anything else (``"other"``: -inf - (-inf) in a softmax, 0 * log 0),
    and in which function (``op``: "softmax", "kl_div", "__mul__", ...)."""

    def __init__(self):
        super().__init__()
        self.cause = self.op = None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.cause is not None:
            return func(*args, **kwargs)
        name = getattr(func, "__name__", "")
        # looked at before the call: an in-place op (`w /= ...`) overwrites its input
        clean = not _nan_count(list(args)) and not _nan_count(list(kwargs.values()))
        zero_by_zero = clean and name in _DIVISIONS and _zero_by_zero(name, args, kwargs)
        out = func(*args, **kwargs)
        if clean and _nan_count(out):
            self.cause, self.op = "0/0" if zero_by_zero else "other", name
        return out


def _zero_by_zero(name: str, args: tuple, kwargs: dict) -> bool:
    """Whether a division divides 0 by 0 somewhere; never raises (the learner's call
    must run exactly as it would without the watch)."""
    try:
        a, b = (*args, kwargs.get("other"))[:2]
        a, b = (b, a) if name in ("__rtruediv__", "__rdiv__") else (a, b)
        a, b = (torch.as_tensor(x) for x in (a, b))
        return bool(((a == 0) & (b == 0)).any())
    except (TypeError, RuntimeError, ValueError):
        return False


def nan_cause(test: Callable) -> str | None:
    """How the planted mistake behind ``test`` makes its first NaN (see _FirstNaN)."""
    variant = getattr(test, "variant", None)
    if variant is None:
        return None
    watch = FirstNaN()
    with watch:
        variant()
    return watch.cause
