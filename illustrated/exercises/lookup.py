"""The checker of chapter 2, Attention as a soft lookup: a soft dictionary lookup
``softmax(keys @ query / temperature) @ values``."""
from __future__ import annotations

import math
from typing import Callable

import torch

from ..attention import scaled_dot_product_attention
from ._frames import learner_frames_only
from ._runner import LARGE, OVERFLOW, Case, equals, nonfinite, randn, run, tensor64

_NO_SOFTMAX = ("it looks like you forgot the softmax: raw dot products `keys @ query` are "
               "not weights; turn them into weights with `softmax(scores / temperature)`.")
_TEMP_TIMES = ("it looks like you multiplied by the temperature instead of dividing: "
               "`softmax(scores / temperature)`, so a small temperature makes the lookup "
               "sharper.")
_TEMP_IGNORED = ("it looks like you ignored the temperature: divide the scores by it before "
                 "the softmax.")
_TEMP_AFTER = ("it looks like you divided by the temperature after the softmax: it belongs "
               "to the scores, `softmax(scores / temperature)`. Dividing the weights "
               "instead leaves them summing to 1/temperature, not 1, and the lookup no "
               "sharper.")
_UNIFORM = ("it looks like you averaged the values uniformly: weight each value by how well "
            "its key matches the query, `softmax(keys @ query / temperature)`.")
_WEIGHTS_ONLY = ("it looks like you returned the weights instead of the answer: combine the "
                 "values with them, `weights @ values`.")
_BY_N = ("it looks like you divided by the number of keys (n = {n}): the softmax weights "
         "already sum to 1, so `weights @ values` is already a weighted average of the values; "
         "don't divide it again.")
_SUM_NORM = ("it looks like you divided the scores by their sum instead of taking a softmax: "
             "exponentiate first, so every weight is positive.")


def _soft_lookup_reference(query, keys, values, temperature=1.0):
    # A soft lookup is attention with one query: scaled_dot_product_attention divides by
    # √d, so scale the query by √d / temperature to get softmax(keys @ query / temperature).
    d = query.shape[-1]
    table = values if values.dim() == 2 else values.unsqueeze(-1)  # (n, dv)
    q = (query * (math.sqrt(d) / temperature)).unsqueeze(0)  # (1, d)
    answer = scaled_dot_product_attention(q, keys, table)[0][0]  # (dv,)
    return answer if values.dim() == 2 else answer[0]  # (dv,) or ()


def _soft_lookup_mistakes(case: Case) -> list:
    query, keys, values = case.inputs.values()
    t = case.kwargs.get("temperature", 1.0)
    s = keys @ query  # (n,)
    found = [(OVERFLOW, nonfinite)] if (s / t).abs().max() > LARGE else []
    return found + [(_NO_SOFTMAX, equals(lambda: s @ values)),
                    (_NO_SOFTMAX, equals(lambda: s / t @ values)),
                    (_TEMP_TIMES, equals(lambda: (s * t).softmax(-1) @ values)),
                    (_TEMP_IGNORED, equals(lambda: s.softmax(-1) @ values)),
                    (_TEMP_AFTER, equals(lambda: s.softmax(-1) / t @ values)),
                    (_UNIFORM, equals(lambda: values.mean(0))),
                    (_WEIGHTS_ONLY, equals(lambda: (s / t).softmax(-1))),
                    (_BY_N.format(n=len(keys)),
                     equals(lambda: (s / t).softmax(-1) @ values / len(keys))),
                    (_SUM_NORM, equals(lambda: s / s.sum() @ values))]


def _lookup(seed, d, n, dv=None, dtype=torch.float64) -> dict:
    """Random query (d,), keys (n, d) and values (n,) or (n, dv)."""
    return {"query": randn(seed, d, dtype=dtype), "keys": randn(seed + 1, n, d, dtype=dtype),
            "values": randn(seed + 2, n, *([] if dv is None else [dv]), dtype=dtype)}


@learner_frames_only
def check_soft_lookup(fn: Callable) -> None:
    """Check ``fn(query, keys, values, temperature=1.0)``, chapter 2's soft dictionary lookup
    ``softmax(keys @ query / temperature) @ values``: ``query`` ``(d,)``, ``keys`` ``(n, d)``,
    ``values`` ``(n,)`` or ``(n, dv)``; the answer is a scalar or ``(dv,)``."""
    ages = {"query": tensor64([1, 0, 0]),
            "keys": tensor64([[1, 2, 0], [0, 0, 2], [1, 2, 0], [1, 4, 0]]),
            "values": tensor64([18, 22, 20, 19])}
    cases = [
        Case("the ages example", ages),
        Case("vector values", _lookup(50, 5, 6, 3)),
        Case("temperature 0.5", _lookup(53, 4, 5, 2), {"temperature": 0.5}),
        Case("temperature 3", _lookup(56, 4, 5), {"temperature": 3.0}),
        Case("a single key", _lookup(59, 3, 1, 2)),
        Case("float32", _lookup(62, 4, 5, 2, dtype=torch.float32), {"temperature": 0.5}),
        Case("sharp lookup", {**ages, "query": tensor64([2, 1, 0])}, {"temperature": 0.001}),
    ]
    run("check_soft_lookup", fn, cases, _soft_lookup_reference, _soft_lookup_mistakes,
         error_hint="`keys @ query` gives the n scores (n,); `weights @ values` combines "
                    "them with values (n,) or (n, dv).",
         general_hint="compute `scores = keys @ query`, `weights = softmax(scores / "
                      "temperature)`, `answer = weights @ values` step by step on this input.",
         success="your soft lookup matches on {n} tests, including the ages example and a "
                 "sharp temperature.")
