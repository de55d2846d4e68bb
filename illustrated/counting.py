"""Counting a model's size and work: its parameters (chapter 1 onwards) and the
floating-point operations of a call (chapters 5, 13, 14 and 15).

FLOPs are counted by PyTorch's ``FlopCounterMode``, which has a formula for every matrix
product (and convolution) and for PyTorch's CUDA attention kernels, but none for the fused
attention kernel a CPU runs (``need_weights=False``), which it counts as 0. Counts depend
on shapes only, so for the teaching path they are the same on every machine and can be
asserted. The count runs on one thread, the thread count restored
after it: the teaching model itself never changes torch's settings.
"""
from __future__ import annotations

from typing import Callable

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode


def count_parameters(model: nn.Module, trainable_only: bool = True) -> int:
    """The number of (trainable, by default) parameters of ``model``."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


def _flop_counter(fn: Callable, args, kwargs) -> FlopCounterMode:
    if not callable(fn):
        raise TypeError(f"fn must be a callable to run under the FLOP counter, got "
                        f"{type(fn).__name__}")
    counter, threads = FlopCounterMode(display=False), torch.get_num_threads()
    torch.set_num_threads(1)  # counts do not depend on speed; tiny products run best on one
    try:
        with counter, torch.no_grad():
            fn(*args, **kwargs)
    finally:
        torch.set_num_threads(threads)
    return counter


def count_flops(fn: Callable, *args, **kwargs) -> int:
    """Floating-point operations of the matrix products (and convolutions) that
    ``fn(*args, **kwargs)`` runs, as ``torch.utils.flop_counter.FlopCounterMode`` counts
    them: **2 per multiply-add**. Counts depend on shapes only, so they are the same on
    every machine, except for a fused attention kernel (counted on CUDA, 0 on a CPU). Introduced in chapter 5 (with :func:`count_flops_by_op`); used in
    chapters 13, 14 and 15."""
    return _flop_counter(fn, args, kwargs).get_total_flops()


def count_flops_by_op(fn: Callable, *args, **kwargs) -> dict[str, int]:
    """Like :func:`count_flops`, split by operator: e.g. ``{"aten.addmm": ..., "aten.bmm":
    ...}`` (``addmm`` for linear layers, ``bmm`` for batched per-head products)."""
    counts = _flop_counter(fn, args, kwargs).get_flop_counts()["Global"]
    return {str(op): int(n) for op, n in counts.items()}
