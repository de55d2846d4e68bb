"""The checkers of chapter 5, Multi-head attention: splitting a ``(B, L, D)`` tensor into
heads ``(B, H, L, Dk)`` and merging them back."""
from __future__ import annotations

from typing import Callable

import torch

from ._runner import _Case, _equals, _randn, _run


def _split_reference(x: torch.Tensor, h: int) -> torch.Tensor:
    B, L, D = x.shape
    return x.view(B, L, h, D // h).transpose(1, 2)  # (B, H, L, Dk)


def _merge_reference(z: torch.Tensor) -> torch.Tensor:
    B, H, L, Dk = z.shape
    return z.transpose(1, 2).reshape(B, L, H * Dk)  # (B, L, D)


_NO_TRANSPOSE = ("it looks like you used `view` or `reshape` straight to the target shape, "
                 "without `transpose(1, 2)`: the shape is right but each head then holds "
                 "numbers of different tokens. View as (B, L, H, Dk) first, then swap L and H.")
_INTERLEAVED = ("it looks like your heads take every h-th column (the head axis last: "
                "(B, L, Dk, H)); head i owns the contiguous columns i*Dk to (i+1)*Dk.")
_KEPT_LAYOUT = ("it looks like you stopped at (B, L, H, Dk): move the head axis in front of "
                "the length with `.transpose(1, 2)`.")
_FLATTENED = ("it looks like you merged batch and heads into one axis (B*H, L, Dk), as "
              "d2l's transpose_qkv does; keep them separate: (B, H, L, Dk).")
_SUMMED = ("it looks like you added or averaged the heads; concatenate them side by side "
           "instead, so that the result has width D = H * Dk.")


def _split_mistakes(case: _Case) -> list:
    x, h = case.inputs["x"], case.kwargs["h"]
    B, L, D = x.shape
    return [(_NO_TRANSPOSE, _equals(lambda: x.reshape(B, h, L, D // h))),
            (_INTERLEAVED, _equals(lambda: x.view(B, L, D // h, h).permute(0, 3, 1, 2))),
            (_KEPT_LAYOUT, _equals(lambda: x.view(B, L, h, D // h))),
            (_FLATTENED, _equals(lambda: _split_reference(x, h).reshape(B * h, L, D // h)))]


def check_split_heads(fn: Callable) -> None:
    """Check ``fn(x, h=...)``: ``x`` ``(B, L, D)`` -> ``(B, H, L, Dk)``, head ``i`` holding
    columns ``i*Dk`` to ``(i+1)*Dk`` of every token."""
    cases = [_Case("2 heads", {"x": _randn(50, 2, 3, 8)}, {"h": 2}),
             _Case("4 heads, L = 5", {"x": _randn(51, 3, 5, 12)}, {"h": 4}),
             _Case("float32", {"x": _randn(52, 2, 3, 12, dtype=torch.float32)}, {"h": 3})]
    _run("check_split_heads", fn, cases, _split_reference, _split_mistakes,
         error_hint="`x.view(B, L, h, D // h).transpose(1, 2)`: view first, then swap axes.",
         general_hint="compare your result with `x.view(B, L, h, D // h).transpose(1, 2)`.",
         success="your split matches on {n} tests.")


def _merge_mistakes(case: _Case) -> list:
    z = case.inputs["z"]
    B, H, L, Dk = z.shape
    return [(_NO_TRANSPOSE, _equals(lambda: z.reshape(B, L, H * Dk))),
            (_INTERLEAVED, _equals(lambda: z.permute(0, 2, 3, 1).reshape(B, L, H * Dk))),
            (_SUMMED, _equals(lambda: z.sum(1))),
            (_SUMMED, _equals(lambda: z.mean(1)))]


def check_merge_heads(fn: Callable) -> None:
    """Check ``fn(z)``: ``z`` ``(B, H, L, Dk)`` -> ``(B, L, H*Dk)``, the heads side by
    side in order (the inverse of splitting)."""
    cases = [_Case("2 heads", {"z": _randn(60, 2, 2, 3, 4)}),
             _Case("4 heads, L = 5", {"z": _randn(61, 3, 4, 5, 3)}),
             _Case("float32", {"z": _randn(62, 2, 3, 3, 4, dtype=torch.float32)})]
    _run("check_merge_heads", fn, cases, _merge_reference, _merge_mistakes,
         error_hint="after `transpose(1, 2)` the tensor is not contiguous, so `view` fails: "
                    "use `.reshape(B, L, H * Dk)` (or `.contiguous().view(...)`).",
         general_hint="compare your result with `z.transpose(1, 2).reshape(B, L, -1)`.",
         success="your merge matches on {n} tests.")
