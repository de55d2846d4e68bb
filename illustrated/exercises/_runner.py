"""The machinery every checker shares: run the learner's function on fixed cases, compare
with the reference, and name the planted mistake its output equals.

A checker module (one per chapter's exercise) supplies its cases, a reference function and
a list of ``(hint, test)`` pairs for its usual mistakes; :func:`run` does the rest.
"""
from __future__ import annotations

import re
import textwrap
from typing import Callable, NamedTuple

import torch

from ._nan import FirstNaN, nan_cause

# (rtol, atol): torch.testing.assert_close's for float64, a little looser for float32 so
# that an equivalent order of operations (einsum, a loop) passes too.
_TOL = {torch.float64: (1e-7, 1e-7), torch.float32: (1e-5, 1e-5)}
_LOOSE = 100  # a planted mistake "matches" within 100x that tolerance
LARGE = 80.0  # exp(80) is near float32's limit (e^88.7): a naive softmax overflows above
WIDTH = 64  # the book's output boxes inside a solution show about 65 characters
_NO_BREAK = "\0"  # stands in for a space that wrapping must not break at
_UNBREAKABLE = re.compile(r"`[^`]*`|\w+ \([\d, ]*\)")  # `code`, and a name with its shape


class Case(NamedTuple):
    name: str
    inputs: dict  # argument name -> tensor, passed to the function positionally, in order
    kwargs: dict = {}  # keyword arguments, e.g. temperature


def randn(seed: int, *shape, dtype=torch.float64, scale: float = 1.0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)  # local: the reader's global seed is untouched
    return scale * torch.randn(*shape, generator=g, dtype=dtype)


def tensor64(rows) -> torch.Tensor:
    return torch.tensor(rows, dtype=torch.float64)


# ---------------------------------------------------------------- shared machinery


def describe(case: Case) -> str:
    """The case's name and its inputs: a tensor by its shape (and the dtype of the first),
    anything else (a size, a pad id) by its value."""
    parts = [f"{n} {tuple(x.shape)}" if isinstance(x, torch.Tensor) else f"{n}={x}"
             for n, x in case.inputs.items()]
    parts += [f"{n}={v}" for n, v in case.kwargs.items()]
    tensors = [x for x in case.inputs.values() if isinstance(x, torch.Tensor)]
    if tensors:
        parts.append(str(tensors[0].dtype).replace("torch.", ""))
    return f"test '{case.name}' ({', '.join(parts)})"


def kind(obj) -> str:
    if obj is None:
        return "None (did you forget `return`?)"
    if isinstance(obj, (tuple, list)):
        return f"a {type(obj).__name__} of {len(obj)} items"
    name = type(obj).__name__
    return f"{'an' if name[0] in 'aeiouAEIOU' else 'a'} {name}"


def close(a: torch.Tensor, b: torch.Tensor, loose: float = 1.0, equal_nan: bool = False
           ) -> bool:
    if a.shape != b.shape:
        return False
    if torch.bool in (a.dtype, b.dtype):  # masks: the same True/False in every place
        return a.dtype == b.dtype and torch.equal(a, b)
    rtol, atol = _TOL.get(b.dtype, (1e-3, 1e-3))
    return torch.allclose(a.to(b.dtype), b, rtol * loose, atol * loose, equal_nan=equal_nan)


def equals(variant: Callable) -> Callable:
    """A diagnosis: does the learner's output equal ``variant()``, a planted mistake?"""

    def test(gots: tuple) -> bool:
        v = variant()
        vs = v if isinstance(v, tuple) else (v,)
        return len(vs) == len(gots) and all(
            close(g, w, loose=_LOOSE, equal_nan=True) for g, w in zip(gots, vs)
        )

    test.variant, test.part = variant, None  # for _coincides
    return test


def exactly(variant: Callable) -> Callable:
    """Like :func:`equals` but at the checker's own tolerance: a mistake in eps differs
    from the reference by about eps, too little for the loose comparison."""
    return lambda gots: close(gots[0], variant(), equal_nan=True)


def part_equals(i: int, variant: Callable) -> Callable:
    """A diagnosis on one returned tensor only (0: the output, 1: the weights): does it
    equal ``variant()``, whatever the others hold?"""
    def test(gots: tuple) -> bool:
        return len(gots) > i and close(gots[i], variant(), loose=_LOOSE, equal_nan=True)

    test.variant, test.part = variant, i  # for _coincides
    return test


def nonfinite(gots: tuple) -> bool:
    return any(not bool(torch.isfinite(g).all()) for g in gots)


def nan_in(op: str) -> Callable:
    """A diagnosis by where the learner's first NaN arose: inside the function ``op``
    (e.g. "kl_div", given an argument it cannot take the log of). :func:`_diagnose`
    compares ``test.nan_op`` with what the watch saw."""

    def test(gots: tuple) -> bool:
        return nonfinite(gots)

    test.nan_op = op
    return test


def _coincides(test: Callable, wants: tuple) -> bool:
    """Whether a planted mistake gives the reference's own output on this case (a
    temperature of 1 multiplied or divided, a mask that blocks nothing): then it cannot be
    told from a right answer here, and must not be named."""
    variant = getattr(test, "variant", None)
    if variant is None:
        return False
    v = variant()
    vs = v if isinstance(v, tuple) else (v,)
    if test.part is not None:
        vs, wants = vs[:1], wants[test.part:test.part + 1]
    return len(vs) == len(wants) and all(
        close(v, w, loose=_LOOSE, equal_nan=True) for v, w in zip(vs, wants))


def _diagnose(gots: tuple, mistakes: list, wants: tuple = (), cause: str | None = None,
              op: str | None = None) -> str | None:
    """The hint of the first planted mistake whose output equals the learner's, skipping
    those that equal the reference ``wants`` too (no diagnosis by coincidence), and, when
    the learner's first NaN came from 0/0 (``cause``), those that make their NaN another
    way (a -inf fill); a mistake known by the function its NaN arises in (``nan_op``)
    is named only when the learner's first NaN arose there (``op``)."""
    for hint, test in mistakes:
        try:
            if (test(gots) and not (wants and _coincides(test, wants))
                    and not (cause == "0/0" and nan_cause(test) == "other")
                    and getattr(test, "nan_op", op) == op):
                return hint
        except (RuntimeError, IndexError, ValueError):
            continue  # this mistake cannot even produce these shapes
    return None


def failure(checker: str, where: str, problem: str, hint: str) -> AssertionError:
    """Every failure has one shape: a paragraph saying where and what went wrong, then one
    paragraph starting ``Hint:``, each wrapped to fit the book's output boxes."""
    head, tail = (fill(text) for text in (f"{checker}: on {where}: {problem}", f"Hint: {hint}"))
    return AssertionError(f"{head}\n{tail}")


def fill(text: str) -> str:
    """Wrap ``text`` at spaces, but not inside `code` or ``q (2, 3, 6)``: a snippet, or a
    tensor and its shape, stays on one line."""
    kept = _UNBREAKABLE.sub(lambda m: m.group().replace(" ", _NO_BREAK), text)
    wrapped = textwrap.fill(kept, WIDTH, break_long_words=False, break_on_hyphens=False)
    return wrapped.replace(_NO_BREAK, " ")


def check_inputs_unchanged(checker: str, where: str, case: Case, args: list) -> None:
    """Raise if the learner's function wrote into a tensor it was given: in a notebook that
    would silently change the caller's tensor (their scores, their x)."""
    changed = [(n, a, x) for (n, x), a in zip(case.inputs.items(), args)
               if isinstance(x, torch.Tensor) and not torch.equal(a, x)]
    if changed:
        name, after, before = changed[0]
        differ = (after != before).sum().item() if after.shape == before.shape else "all"
        inputs = ("input " if len(changed) == 1 else "inputs ") + " and ".join(
            n for n, _, _ in changed)
        raise failure(checker, where, f"your function wrote into its {inputs}: {differ} "
                       f"of the {before.numel()} values of {name} differ after the call.",
                       _IN_PLACE.format(x=name))


def _unpack(got, want, where: str, checker: str) -> tuple:
    """The learner's result as a tuple of tensors, or an AssertionError about its type."""
    if isinstance(want, tuple):
        if isinstance(got, (tuple, list)) and len(got) == 2:
            if all(isinstance(g, torch.Tensor) for g in got):
                return tuple(g.detach() for g in got)
        raise failure(checker, where, f"your function returned {kind(got)}; expected a "
                       f"tuple (output, weights) of two tensors.",
                       "end with `return output, weights`.")
    if isinstance(got, (int, float)) and not isinstance(got, bool) and want.dim() == 0:
        return (torch.tensor(got, dtype=want.dtype),)  # a Python number for a scalar is fine
    if not isinstance(got, torch.Tensor):
        hint = "return a torch.Tensor."
        if isinstance(got, tuple):
            hint = ("return one tensor; if you reuse a function that returns (output, "
                    "weights), keep its output only: `z, _ = attention(q, k, v)`.")
        raise failure(checker, where, f"your function returned {kind(got)}; expected a "
                       f"torch.Tensor of shape {tuple(want.shape)}.", hint)
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
            source = " (the inputs')" if w.is_floating_point() else ""
            return f"wrong dtype of the {n}: expected {w.dtype}{source}, got {g.dtype}"
        if not close(g, w) and w.dtype == torch.bool:
            return f"wrong values: {(g != w).sum().item()} of the {w.numel()} entries differ"
        if not close(g, w):
            if nonfinite((g,)):
                return f"the {n} {'contain' if n == 'weights' else 'contains'} NaN or inf"
            diff = (g.to(w.dtype) - w).abs().max().item()
            return f"wrong values in the {n} (largest difference {diff:.3g})"
    return "mismatch"


def run(checker: str, fn, cases: list, reference: Callable, mistakes: Callable, *,
         error_hint: str, general_hint: str, success: str, zero_by_zero: str = "") -> None:
    """Run ``fn`` on every case, raise on the first mismatch, print one line on success.

    ``mistakes(case)`` lists ``(hint, test)`` pairs; the first ``test(outputs)`` that holds
    (and does not hold for the reference too) names the likely mistake, else
    ``general_hint`` is given. A NaN that first arose from a division 0/0 is never blamed
    on a mistake that makes its NaN otherwise (-inf - (-inf)); unnamed, it gets
    ``zero_by_zero`` (or a general hint about 0/0)."""
    if not callable(fn):
        raise TypeError(
            f"{checker} expects your function itself, e.g. {checker}(my_function), "
            f"got {type(fn).__name__}"
        )
    for case in cases:
        want = reference(*case.inputs.values(), **case.kwargs)
        wants = want if isinstance(want, tuple) else (want,)
        where = describe(case)
        args = [x.clone() if isinstance(x, torch.Tensor) else x  # case.inputs stay pristine
                for x in case.inputs.values()]
        watch = FirstNaN()
        try:
            with watch:
                got = fn(*args, **case.kwargs)
        except Exception as exc:
            raise failure(checker, where, f"your function raised {type(exc).__name__}: "
                           f"{exc}", error_hint).with_traceback(exc.__traceback__) from None
        check_inputs_unchanged(checker, where, case, args)
        gots = _unpack(got, want, where, checker)
        if all(g.dtype == w.dtype and close(g, w) for g, w in zip(gots, wants)):
            continue
        hint = _diagnose(gots, mistakes(case), wants, watch.cause, watch.op)
        if hint is None and watch.cause == "0/0" and nonfinite(gots):
            hint = zero_by_zero or _ZERO_BY_ZERO
        if hint is None and [g.dtype for g in gots] != [w.dtype for w in wants]:
            hint = _DTYPE if wants[0].is_floating_point() else DTYPE_IDS
        problem = _problem(gots, wants)
        raise failure(checker, where, f"{problem}.", hint or general_hint)
    line = f"✓ {checker}: {success.format(n=len(cases))}"
    print(textwrap.fill(line, WIDTH, subsequent_indent="  ", break_long_words=False))


_DTYPE = ("keep the inputs' dtype: a tensor you create inside (`torch.tensor(...)`, "
          "`torch.ones(...)`) is float32 unless you pass `dtype=x.dtype`.")
DTYPE_IDS = ("token ids are whole numbers: keep them `torch.long` (int64). Create the "
              "tensor with `dtype=torch.long` (`torch.full((B, 1), bos_id, "
              "dtype=torch.long)`), and take ids from `argmax`, which returns long; "
              "`torch.cat` of a float and a long tensor gives float.")
_ZERO_BY_ZERO = ("it looks like a division 0/0 made NaN: a row of numbers that are all 0 "
                 "(e.g. weights of a query whose keys are all blocked, set to 0) was divided "
                 "by its sum, 0. Guard the division, or leave such a row at 0 without "
                 "dividing it.")
_IN_PLACE = ("your function changed its input `{x}` in place (with an operation such as "
             "`{x} -= …`, `{x}.exp_()` or `{x}[i] = …`); the caller's tensor is modified. "
             "Compute into a new tensor: `{x} = {x} - …` instead of `{x} -= …`.")
OVERFLOW = ("it looks like exp overflowed on large scores (exp(1000) is inf, and inf/inf "
             "is NaN): subtract the largest score of each row before exp, or use "
             "`torch.softmax`.")
