"""The paper's learning-rate schedule: a linear warm-up, then a decay as the inverse
square root of the step. Introduced in chapter 11, Training; both trainers use it
(:mod:`illustrated.training` for the toy translator, :mod:`illustrated.translator.training`
for the real one).
"""
from __future__ import annotations


def rate(step: int, d_model: int, warmup: int, factor: float = 1.0) -> float:
    """``factor * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5)``, step counted from 1."""
    step = max(step, 1)
    return factor * d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
