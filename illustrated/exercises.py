"""Auto-checkers for the exercises at the end of chapters 2–4 (more come with later chapters).

Call a checker with *your* function in a notebook cell::

    from illustrated.exercises import check_softmax
    check_softmax(my_softmax)
    # ✓ check_softmax: your softmax matches on 6 tests, including large scores.

Each checker runs your function on random inputs (fixed seeds) and on edge cases, and
compares the result with the package's reference (:mod:`illustrated.attention`). When they
differ it raises ``AssertionError``: the first line says which test failed and on which
shapes, the ``Hint:`` names the mistake your output most resembles. To find it, the
checker computes the usual wrong versions itself (softmax over the wrong axis, no
``√d_k``, inverted mask, ...) and looks for the one your output equals.

Masks follow the package convention: bool, ``True`` means *may attend*.
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import torch

from .attention import scaled_dot_product_attention
from .masks import padding_mask, subsequent_mask

# (rtol, atol): torch.testing.assert_close's for float64, a little looser for float32 so
# that an equivalent order of operations (einsum, a loop) passes too.
_TOL = {torch.float64: (1e-7, 1e-7), torch.float32: (1e-5, 1e-5)}
_LOOSE = 100  # a planted mistake "matches" within 100x that tolerance
_LARGE = 80.0  # exp(80) is near float32's limit (e^88.7): a naive softmax overflows above


class _Case(NamedTuple):
    name: str
    inputs: dict  # argument name -> tensor, passed to the function positionally, in order
    kwargs: dict = {}  # keyword arguments, e.g. temperature


def _randn(seed: int, *shape, dtype=torch.float64, scale: float = 1.0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)  # local: the reader's global seed is untouched
    return scale * torch.randn(*shape, generator=g, dtype=dtype)


def _t(rows) -> torch.Tensor:
    return torch.tensor(rows, dtype=torch.float64)


# ---------------------------------------------------------------- shared machinery


def _describe(case: _Case) -> str:
    parts = [f"{n} {tuple(x.shape)}" for n, x in case.inputs.items()]
    parts += [f"{n}={v}" for n, v in case.kwargs.items()]
    dtype = str(next(iter(case.inputs.values())).dtype).replace("torch.", "")
    return f"test '{case.name}' ({', '.join(parts)}, {dtype})"


def _kind(obj) -> str:
    if obj is None:
        return "None (did you forget `return`?)"
    if isinstance(obj, (tuple, list)):
        return f"a {type(obj).__name__} of {len(obj)} items"
    name = type(obj).__name__
    return f"{'an' if name[0] in 'aeiouAEIOU' else 'a'} {name}"


def _close(a: torch.Tensor, b: torch.Tensor, loose: float = 1.0, equal_nan: bool = False
           ) -> bool:
    if a.shape != b.shape:
        return False
    rtol, atol = _TOL.get(b.dtype, (1e-3, 1e-3))
    return torch.allclose(a.to(b.dtype), b, rtol * loose, atol * loose, equal_nan=equal_nan)


def _equals(variant: Callable) -> Callable:
    """A diagnosis: does the learner's output equal ``variant()``, a planted mistake?"""

    def test(gots: tuple) -> bool:
        v = variant()
        vs = v if isinstance(v, tuple) else (v,)
        return len(vs) == len(gots) and all(
            _close(g, w, loose=_LOOSE, equal_nan=True) for g, w in zip(gots, vs)
        )

    return test


def _nonfinite(gots: tuple) -> bool:
    return any(not bool(torch.isfinite(g).all()) for g in gots)


def _diagnose(gots: tuple, mistakes: list) -> str | None:
    for hint, test in mistakes:
        try:
            if test(gots):
                return hint
        except (RuntimeError, IndexError, ValueError):
            continue  # this mistake cannot even produce these shapes
    return None


def _unpack(got, want, where: str, checker: str) -> tuple:
    """The learner's result as a tuple of tensors, or an AssertionError about its type."""
    if isinstance(want, tuple):
        if isinstance(got, (tuple, list)) and len(got) == 2:
            if all(isinstance(g, torch.Tensor) for g in got):
                return tuple(g.detach() for g in got)
        raise AssertionError(
            f"{checker}: on {where}: your function returned {_kind(got)}; expected a tuple "
            f"(output, weights) of two tensors.\nHint: end with `return output, weights`."
        )
    if isinstance(got, (int, float)) and not isinstance(got, bool) and want.dim() == 0:
        return (torch.tensor(got, dtype=want.dtype),)  # a Python number for a scalar is fine
    if not isinstance(got, torch.Tensor):
        hint = "return a torch.Tensor."
        if isinstance(got, tuple):
            hint = ("return one tensor; if you reuse a function that returns (output, "
                    "weights), keep its output only: z, _ = attention(q, k, v).")
        raise AssertionError(
            f"{checker}: on {where}: your function returned {_kind(got)}; expected a "
            f"torch.Tensor of shape {tuple(want.shape)}.\nHint: {hint}"
        )
    return (got.detach(),)


def _problem(gots: tuple, wants: tuple) -> str:
    """One line saying how the learner's tensors differ from the reference."""
    names = ("output", "weights") if len(wants) == 2 else ("result",)
    if [g.shape for g in gots] != [w.shape for w in wants]:
        expected = " and ".join(f"{n} {tuple(w.shape)}" for n, w in zip(names, wants))
        got = " and ".join(str(tuple(g.shape)) for g in gots)
        return f"wrong shape: expected {expected}, got {got}"
    for n, g, w in zip(names, gots, wants):
        if g.dtype != w.dtype:
            return f"wrong dtype of the {n}: expected {w.dtype} (the inputs'), got {g.dtype}"
        if not _close(g, w):
            if _nonfinite((g,)):
                return f"the {n} contains NaN or inf"
            diff = (g.to(w.dtype) - w).abs().max().item()
            return f"wrong values in the {n} (largest difference {diff:.3g})"
    return "mismatch"


def _run(checker: str, fn, cases: list, reference: Callable, mistakes: Callable, *,
         error_hint: str, general_hint: str, success: str) -> None:
    """Run ``fn`` on every case, raise on the first mismatch, print one line on success.

    ``mistakes(case)`` lists ``(hint, test)`` pairs; the first ``test(outputs)`` that holds
    names the likely mistake, else ``general_hint`` is given."""
    if not callable(fn):
        raise TypeError(
            f"{checker} expects your function itself, e.g. {checker}(my_function), "
            f"got {type(fn).__name__}"
        )
    for case in cases:
        want = reference(*case.inputs.values(), **case.kwargs)
        wants = want if isinstance(want, tuple) else (want,)
        where = _describe(case)
        args = [x.clone() for x in case.inputs.values()]  # your function may change them
        try:
            got = fn(*args, **case.kwargs)
        except Exception as exc:
            raise AssertionError(
                f"{checker}: on {where}: your function raised {type(exc).__name__}: {exc}\n"
                f"Hint: {error_hint}"
            ) from exc
        gots = _unpack(got, want, where, checker)
        if all(g.dtype == w.dtype and _close(g, w) for g, w in zip(gots, wants)):
            continue
        hint = _diagnose(gots, mistakes(case))
        if hint is None and [g.dtype for g in gots] != [w.dtype for w in wants]:
            hint = _DTYPE
        problem = _problem(gots, wants)
        raise AssertionError(f"{checker}: on {where}: {problem}.\nHint: {hint or general_hint}")
    print(f"✓ {checker}: {success.format(n=len(cases))}")


_DTYPE = ("keep the inputs' dtype: a tensor you create inside (torch.tensor(...), "
          "torch.ones(...)) is float32 unless you pass dtype=x.dtype.")
_OVERFLOW = ("it looks like exp overflowed on large scores (exp(1000) is inf, and inf/inf "
             "is NaN): subtract the largest score of each row before exp, or use "
             "torch.softmax.")

# ---------------------------------------------------------------- softmax (chapter 3)

_GLOBAL_MAX = ("it looks like you subtracted the maximum of the whole tensor: a row far below "
               "it underflows to 0/0. Subtract each row's own maximum, "
               "x.max(dim=-1, keepdim=True).values.")
_WRONG_DIM = ("it looks like you took the softmax over dim {d} instead of the last one: "
              "normalise along dim=-1, so that each row sums to 1.")
_KEEPDIM = ("it looks like you divided by e.sum(dim=-1) without keepdim=True: the sums then "
            "broadcast along the wrong axis (column j divided by the sum of row j).")
_WHOLE = ("it looks like you divided by the sum over the whole tensor; sum over the last "
          "dim only: e.sum(dim=-1, keepdim=True).")
_NO_EXP = ("it looks like you forgot the exponential: softmax is exp(x_i) / Σ_j exp(x_j), "
           "not x_i / Σ_j x_j.")
_NO_NORM = "it looks like you forgot to divide by the sum: each row must sum to 1."


def _softmax_mistakes(case: _Case) -> list:
    x = case.inputs["x"]
    e = x.exp()
    found = []
    if x.abs().max() > _LARGE:
        found += [(_GLOBAL_MAX, _equals(lambda: _naive_softmax(x - x.max()))),
                  (_OVERFLOW, _nonfinite)]
    found += [(_WRONG_DIM.format(d=d), _equals(lambda d=d: x.softmax(d)))
              for d in range(x.dim() - 1)]
    return found + [(_KEEPDIM, _equals(lambda: e / e.sum(-1))),
                    (_WHOLE, _equals(lambda: e / e.sum())),
                    (_NO_EXP, _equals(lambda: x / x.sum(-1, keepdim=True))),
                    (_NO_NORM, _equals(lambda: e))]


def _naive_softmax(x: torch.Tensor) -> torch.Tensor:
    e = x.exp()
    return e / e.sum(-1, keepdim=True)


def check_softmax(fn: Callable) -> None:
    """Check ``fn(x)``: the softmax of ``x`` over its last dimension, any shape ``(..., n)``."""
    cases = [
        _Case("random 4×4", {"x": _randn(0, 4, 4)}),
        _Case("random 3×5", {"x": _randn(1, 3, 5)}),
        _Case("3-D batch", {"x": _randn(2, 2, 3, 4)}),
        _Case("equal and negative values", {"x": _t([[2, 2, 2, 2], [-1, -2, -3, -4],
                                                     [-0.5, 0, -3, 1]])}),
        _Case("float32", {"x": _randn(3, 3, 5, dtype=torch.float32)}),
        _Case("large scores (~1000)", {"x": _t([[1000, 999, 998, 0], [1000] * 4,
                                                [-1000, -1001, -1002, -1003],
                                                [-1000, 0, 1000, 500]])}),
    ]
    _run("check_softmax", fn, cases, lambda x: x.softmax(-1), _softmax_mistakes,
         error_hint="a shape error when dividing usually means the sum lost its axis: "
                    "use .sum(dim=-1, keepdim=True).",
         general_hint="compare your output with torch.softmax(x, dim=-1) on this input; "
                      "every entry must be positive and every row must sum to 1.",
         success="your softmax matches on {n} tests, including large scores.")


# ---------------------------------------------------------------- scores (chapter 4)

_UNSCALED = "it looks like you forgot to divide by √d_k (these are the raw Q Kᵀ)."
_BY_DK = "it looks like you divided by d_k instead of √d_k: use math.sqrt(d_k)."
_TIMES = "it looks like you multiplied by √d_k instead of dividing by it."
_KQT = ("it looks like you computed K Qᵀ instead of Q Kᵀ: row i belongs to query i, so "
        "q comes first: q @ k.transpose(-2, -1).")
_WRONG_SIZE = ("it looks like you took the square root of the wrong size: you divided by √{n}, "
               "but d_k = {d_k} is the width of each query and key, q.shape[-1].")
_MATMUL = ("the scores are q @ k.transpose(-2, -1): (..., L, d_k) @ (..., d_k, S) gives "
           "(..., L, S). Note that k.T reverses *every* axis of a batched tensor; use "
           "k.transpose(-2, -1) (or k.mT).")


def _score_mistakes(q: torch.Tensor, k: torch.Tensor) -> list:
    """(hint, function giving the wrong scores) for the usual mistakes in Q Kᵀ / √d_k."""
    d_k, kt = q.shape[-1], k.transpose(-2, -1)
    found = [(_UNSCALED, lambda: q @ kt),
             (_BY_DK, lambda: q @ kt / d_k),
             (_TIMES, lambda: q @ kt * math.sqrt(d_k)),
             (_KQT, lambda: k @ q.transpose(-2, -1) / math.sqrt(d_k))]
    sizes = sorted((set(q.shape[:-1]) | set(k.shape[:-1])) - {1, d_k})  # B, H, L, S
    return found + [(_WRONG_SIZE.format(n=n, d_k=d_k), lambda n=n: q @ kt / math.sqrt(n))
                    for n in sizes]


def _scores_reference(q, k):
    # The package has no function for the scores alone: this is the line of
    # scaled_dot_product_attention that computes them.
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., L, S)


def _scores_mistakes(case: _Case) -> list:
    return [(h, _equals(s)) for h, s in _score_mistakes(*case.inputs.values())]


def check_scores(fn: Callable) -> None:
    """Check ``fn(q, k)``: the scaled scores ``Q Kᵀ / √d_k`` of shape ``(..., L, S)``,
    for ``q`` ``(..., L, d_k)`` and ``k`` ``(..., S, d_k)``."""
    cases = [  # L, S, d_k (and B, H) all differ, so every wrong size shows
        _Case("2-D, L ≠ S", {"q": _randn(10, 3, 6), "k": _randn(11, 5, 6)}),
        _Case("batch", {"q": _randn(12, 2, 3, 6), "k": _randn(13, 2, 5, 6)}),
        _Case("batch and heads", {"q": _randn(14, 2, 4, 3, 6), "k": _randn(15, 2, 4, 5, 6)}),
        _Case("a single key", {"q": _randn(16, 3, 6), "k": _randn(17, 1, 6)}),
        _Case("float32", {"q": _randn(18, 2, 3, 6, dtype=torch.float32),
                          "k": _randn(19, 2, 5, 6, dtype=torch.float32)}),
    ]
    _run("check_scores", fn, cases, _scores_reference, _scores_mistakes, error_hint=_MATMUL,
         general_hint="compute q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) step by "
                      "step and compare with your function on this input.",
         success="your scores match on {n} tests, including batched inputs and L ≠ S ≠ d_k.")


# ---------------------------------------------------------------- attention (chapter 4)

_SWAPPED = "it looks like you returned (weights, output); return them as (output, weights)."
_OVER_QUERIES = ("it looks like you took the softmax over the queries (dim=-2); each query's "
                 "weights over the keys must sum to 1: softmax(dim=-1).")
_INVERTED = ("it looks like your mask convention is inverted: in this book True means "
             "'may attend' and False means 'blocked', so fill the scores where the mask is "
             "False: scores.masked_fill(~mask, -1e9).")
_AFTER = ("it looks like you applied the mask after the softmax, so the kept weights no "
          "longer sum to 1. Fill blocked scores with a very negative number *before* the "
          "softmax; it then gives them weight 0.")
_ZERO_FILL = ("it looks like you filled blocked scores with 0, but exp(0) = 1, so blocked "
              "keys still get weight: fill with a very negative number such as -1e9.")


def _attend(scores, v, mask=None, fill=None, dim=-1, after=False):
    """Finish attention from (possibly wrong) scores, optionally in a wrong way."""
    if mask is not None and not after:
        fill = torch.finfo(scores.dtype).min if fill is None else fill
        scores = scores.masked_fill(~mask, fill)
    w = scores.softmax(dim)  # (..., L, S)
    if mask is not None and after:
        w = w.masked_fill(~mask, 0.0)
    return w @ v, w  # (..., L, Dv), (..., L, S)


def _allowed_get_no_weight(mask):
    """Diagnosis for an inverted mask: weights vanish where the mask says *may attend*."""

    def test(gots) -> bool:
        w = torch.nan_to_num(gots[1])
        m = mask.expand(w.shape)
        mixed = (m.any(-1) & (~m).any(-1)).unsqueeze(-1)  # rows with both kinds of keys
        return bool(mixed.any()) and bool(w[m & mixed].abs().max() < 1e-6) and bool(
            w[~m & mixed].abs().sum() > 0)

    return test


def _attention_mistakes(case: _Case) -> list:
    q, k, v = case.inputs["q"], case.inputs["k"], case.inputs["v"]
    mask = case.inputs.get("mask")
    scores = _scores_reference(q, k)  # (..., L, S)
    found = [(_OVERFLOW, _nonfinite)] if scores.abs().max() > _LARGE else []
    found += [(_SWAPPED, _equals(lambda: scaled_dot_product_attention(q, k, v, mask)[::-1])),
              (_OVER_QUERIES, _equals(lambda: _attend(scores, v, mask, dim=-2)))]
    found += [(h, _equals(lambda s=s: _attend(s(), v, mask))) for h, s in _score_mistakes(q, k)]
    if mask is not None:
        found += [(_INVERTED, _allowed_get_no_weight(mask)),
                  (_AFTER, _equals(lambda: _attend(scores, v, mask, after=True))),
                  (_ZERO_FILL, _equals(lambda: _attend(scores, v, mask, fill=0.0)))]
    return found


def _qkv(seed, batch, L, S, d_k=6, d_v=7, dtype=torch.float64, scale=1.0) -> dict:
    """Random q (*batch, L, d_k), k (*batch, S, d_k), v (*batch, S, d_v); d_v != S, so
    swapped outputs show in the shapes."""
    return {"q": _randn(seed, *batch, L, d_k, dtype=dtype, scale=scale),
            "k": _randn(seed + 1, *batch, S, d_k, dtype=dtype, scale=scale),
            "v": _randn(seed + 2, *batch, S, d_v, dtype=dtype)}


def check_attention(fn: Callable) -> None:
    """Check ``fn(q, k, v, mask=None) -> (output, weights)`` against
    :func:`illustrated.attention.scaled_dot_product_attention`: ``q`` ``(..., L, d_k)``,
    ``k`` ``(..., S, d_k)``, ``v`` ``(..., S, d_v)``, ``mask`` bool (True = may attend)."""
    pad = padding_mask(torch.tensor([[5, 2, 1, 0, 0], [1, 3, 1, 4, 0]]))  # (2, 1, 5)
    cases = [
        _Case("2-D, L = S", _qkv(20, (), 4, 4)),
        _Case("batch, L ≠ S", _qkv(23, (2,), 3, 5)),
        _Case("batch and heads", _qkv(26, (2, 4), 3, 5)),
        _Case("a single key", _qkv(29, (2,), 3, 1)),
        _Case("float32", _qkv(32, (2,), 3, 5, dtype=torch.float32)),
        _Case("padding mask", {**_qkv(35, (2,), 3, 5), "mask": pad}),
        _Case("causal mask", {**_qkv(38, (2,), 4, 4), "mask": subsequent_mask(4)}),
        _Case("large scores", _qkv(41, (2,), 3, 5, scale=30.0)),
    ]
    _run("check_attention", fn, cases, scaled_dot_product_attention, _attention_mistakes,
         error_hint=_MATMUL + " Then weights @ v: (..., L, S) @ (..., S, d_v).",
         general_hint="compute the steps one at a time (scores, mask, softmax over the "
                      "keys, weights @ v) and compare each with "
                      "illustrated.attention.scaled_dot_product_attention.",
         success="your attention matches the reference on {n} tests, including a padding "
                 "mask, a causal mask and large scores.")


# ---------------------------------------------------------------- soft lookup (ch. 2)

_NO_SOFTMAX = ("it looks like you forgot the softmax: raw dot products keys @ query are not "
               "weights; turn them into weights with softmax(scores / temperature).")
_TEMP_TIMES = ("it looks like you multiplied by the temperature instead of dividing: "
               "softmax(scores / temperature), so a small temperature makes the lookup sharper.")
_TEMP_IGNORED = ("it looks like you ignored the temperature: divide the scores by it before "
                 "the softmax.")
_UNIFORM = ("it looks like you averaged the values uniformly: weight each value by how well "
            "its key matches the query, softmax(keys @ query / temperature).")
_WEIGHTS_ONLY = ("it looks like you returned the weights instead of the answer: combine the "
                 "values with them, weights @ values.")
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


def _soft_lookup_mistakes(case: _Case) -> list:
    query, keys, values = case.inputs.values()
    t = case.kwargs.get("temperature", 1.0)
    s = keys @ query  # (n,)
    found = [(_OVERFLOW, _nonfinite)] if (s / t).abs().max() > _LARGE else []
    return found + [(_NO_SOFTMAX, _equals(lambda: s @ values)),
                    (_NO_SOFTMAX, _equals(lambda: s / t @ values)),
                    (_TEMP_TIMES, _equals(lambda: (s * t).softmax(-1) @ values)),
                    (_TEMP_IGNORED, _equals(lambda: s.softmax(-1) @ values)),
                    (_UNIFORM, _equals(lambda: values.mean(0))),
                    (_WEIGHTS_ONLY, _equals(lambda: (s / t).softmax(-1))),
                    (_SUM_NORM, _equals(lambda: s / s.sum() @ values))]


def _lookup(seed, d, n, dv=None, dtype=torch.float64) -> dict:
    """Random query (d,), keys (n, d) and values (n,) or (n, dv)."""
    return {"query": _randn(seed, d, dtype=dtype), "keys": _randn(seed + 1, n, d, dtype=dtype),
            "values": _randn(seed + 2, n, *([] if dv is None else [dv]), dtype=dtype)}


def check_soft_lookup(fn: Callable) -> None:
    """Check ``fn(query, keys, values, temperature=1.0)``, chapter 2's soft dictionary lookup
    ``softmax(keys @ query / temperature) @ values``: ``query`` ``(d,)``, ``keys`` ``(n, d)``,
    ``values`` ``(n,)`` or ``(n, dv)``; the answer is a scalar or ``(dv,)``."""
    ages = {"query": _t([1, 0, 0]), "keys": _t([[1, 2, 0], [0, 0, 2], [1, 2, 0], [1, 4, 0]]),
            "values": _t([18, 22, 20, 19])}
    cases = [
        _Case("the ages example", ages),
        _Case("vector values", _lookup(50, 5, 6, 3)),
        _Case("temperature 0.5", _lookup(53, 4, 5, 2), {"temperature": 0.5}),
        _Case("temperature 3", _lookup(56, 4, 5), {"temperature": 3.0}),
        _Case("a single key", _lookup(59, 3, 1, 2)),
        _Case("float32", _lookup(62, 4, 5, 2, dtype=torch.float32), {"temperature": 0.5}),
        _Case("sharp lookup", {**ages, "query": _t([2, 1, 0])}, {"temperature": 0.001}),
    ]
    _run("check_soft_lookup", fn, cases, _soft_lookup_reference, _soft_lookup_mistakes,
         error_hint="keys @ query gives the n scores (n,); weights @ values combines them "
                    "with values (n,) or (n, dv).",
         general_hint="compute scores = keys @ query, weights = softmax(scores / "
                      "temperature), answer = weights @ values step by step on this input.",
         success="your soft lookup matches on {n} tests, including the ages example and a "
                 "sharp temperature.")


# ---------------------------------------------------------------- self-attention (ch. 3)

_NO_PROJECTIONS = ("it looks like you used x itself as queries, keys and values: project it "
                   "first, q = x @ w_q, k = x @ w_k, v = x @ w_v.")
_SWAP_KV = ("it looks like you swapped W_k and W_v: keys x @ w_k are compared with the "
            "queries, values x @ w_v are what gets averaged.")
_SWAP_QK = ("it looks like you swapped W_q and W_k: queries are x @ w_q and keys x @ w_k; "
            "swapping them transposes the scores.")
_SQRT_D = ("it looks like you divided by √D (d_model) instead of √d_k: d_k is the width of "
           "the projected queries and keys, w_q.shape[1].")
_RETURNED_WEIGHTS = "it looks like you returned the attention weights; return z = weights @ v."


def _self_attention_reference(x, w_q, w_k, w_v):
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)[0]  # (..., L, Dk)


def _self_attention_mistakes(case: _Case) -> list:
    x, w_q, w_k, w_v = case.inputs.values()
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # (..., L, Dk)
    scores = _scores_reference(q, k)  # (..., L, L)
    by_sqrt_D = q @ k.transpose(-2, -1) / math.sqrt(x.shape[-1])  # (..., L, L)
    sdpa = scaled_dot_product_attention
    found = [(_OVERFLOW, _nonfinite)] if scores.abs().max() > _LARGE else []
    found += [(_NO_PROJECTIONS, _equals(lambda: sdpa(x, x, x)[0])),
              (_NO_PROJECTIONS, _equals(lambda: _attend(x @ x.transpose(-2, -1), x)[0])),
              (_SWAP_KV, _equals(lambda: sdpa(q, v, k)[0])),
              (_SWAP_QK, _equals(lambda: sdpa(k, q, v)[0])),
              (_RETURNED_WEIGHTS, _equals(lambda: sdpa(q, k, v)[1])),
              (_OVER_QUERIES, _equals(lambda: _attend(scores, v, dim=-2)[0])),
              (_SQRT_D, _equals(lambda: _attend(by_sqrt_D, v)[0]))]
    return found + [(h, _equals(lambda s=s: _attend(s(), v)[0])) for h, s in _score_mistakes(q, k)]


def _xw(seed, batch, L, D=6, d_k=3, dtype=torch.float64, scale=1.0) -> dict:
    return {"x": _randn(seed, *batch, L, D, dtype=dtype, scale=scale),
            **{w: _randn(seed + i, D, d_k, dtype=dtype) / math.sqrt(D)
               for i, w in enumerate(("w_q", "w_k", "w_v"), start=1)}}


def check_self_attention(fn: Callable) -> None:
    """Check ``fn(x, w_q, w_k, w_v) -> z``, chapter 3's self-attention
    ``z = Attention(x W_q, x W_k, x W_v)``: ``x`` ``(L, D)`` or ``(B, L, D)``, each ``w_*``
    ``(D, Dk)``; ``z`` ``(L, Dk)`` or ``(B, L, Dk)``."""
    cases = [  # D, Dk, L and B all differ, so every wrong size shows
        _Case("one sentence", _xw(70, (), 4)),
        _Case("batch", _xw(74, (2,), 5)),
        _Case("float32", _xw(78, (2,), 5, dtype=torch.float32)),
        _Case("a single token", _xw(82, (), 1)),
        _Case("large scores", _xw(86, (2,), 4, scale=40.0)),
    ]
    _run("check_self_attention", fn, cases, _self_attention_reference,
         _self_attention_mistakes,
         error_hint="x (..., L, D) @ w_q (D, Dk) gives q (..., L, Dk); then the scores are "
                    "q @ k.transpose(-2, -1) (k.T reverses every axis of a batched tensor).",
         general_hint="compute q, k, v, the scores, the weights and z step by step and "
                      "compare with illustrated.attention.scaled_dot_product_attention.",
         success="your self-attention matches on {n} tests, including a batch and large "
                 "scores.")
