"""Checking a source's claim against the corrected one. Introduced in the appendix, "What
the sources get wrong".

An erratum is only worth printing if its check could fail: if the source were right, the
check must say so. :func:`check_claim` therefore runs **both** versions, the source's and
the corrected one, and asserts three things:

1. the two outcomes are not the same value: a source that computes what is right has no
   erratum to show;
2. ``differ(source, corrected)``: the two outcomes differ in the way the page says;
3. ``differ`` finds nothing between the corrected outcome and the same outcome computed a
   second time (and between it and a copy of it): had the source said what is right, the
   same test would have found nothing. A test that is true whatever it is given (``lambda
   s, c: True``), or one that compares identities instead of values (``lambda s, c: s is
   not c``: two outcomes computed apart are never the same object), fails here.

Each version is a function of no arguments (``lambda: ...``). One that raises is not an
error of the check: its outcome is the exception, so "the source's code does not run" is a
claim like any other (``differ=lambda s, c: isinstance(s, ValueError) and ...``).
"""
from __future__ import annotations

import copy
import pickle
import re
from collections.abc import Mapping
from typing import Any, Callable

import numpy as np
import torch

LABEL = re.compile(r"^err-\d{3}-[a-z0-9-]+$")


def outcome(version: Callable[[], Any]) -> Any:
    """``version()``, or the exception it raised."""
    try:
        return version()
    except Exception as err:  # the exception *is* the outcome of code that does not run
        return err


def same_value(a: Any, b: Any) -> bool:
    """Whether two outcomes hold the same value, looking into tensors, arrays and containers.

    Two exceptions are the same when they have the same type and message; tensors and arrays
    when they have the same shape, dtype and entries (a ``meta`` tensor has no entries: its
    shape and dtype decide).
    """
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return False
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        return a.is_meta or b.is_meta or bool(torch.equal(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and bool(np.array_equal(a, b)))
    if isinstance(a, BaseException) or isinstance(b, BaseException):
        return type(a) is type(b) and str(a) == str(b)
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        return (isinstance(a, Mapping) and isinstance(b, Mapping) and a.keys() == b.keys()
                and all(same_value(a[k], b[k]) for k in a))
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(same_value(x, y) for x, y in zip(a, b)))
    try:
        return bool(a == b)
    except Exception:  # values that cannot be compared are not the same
        return False


def _copy(value: Any) -> Any:
    """A copy of ``value`` that shares no object with it (pickled and read back)."""
    try:
        return pickle.loads(pickle.dumps(value))
    except Exception:  # not picklable (e.g. holds a lambda): a deep copy will do
        return copy.deepcopy(value)


def _holds(differ: Callable[[Any, Any], bool], label: str, s: Any, c: Any) -> bool:
    result = differ(s, c)
    try:
        return bool(result)
    except Exception as err:  # e.g. a tensor of several booleans
        raise TypeError(f"{label}: differ must return True or False, got "
                        f"{type(result).__name__} {_short(result)}") from err


def check_claim(label: str, *, source: Callable[[], Any], corrected: Callable[[], Any],
                differ: Callable[[Any, Any], bool]) -> tuple[Any, Any]:
    """Run the source's version and the corrected one of the claim ``label``.

    Args:
        label: the claim's label on the page, ``err-<source number>-<slug>``.
        source: computes what the source says (its code, its formula, its number).
        corrected: computes what is right. It is run twice, so it must compute its outcome
            afresh (not train or change something the page uses afterwards).
        differ: ``differ(s, c)`` is ``True`` when ``s`` differs from ``c`` in the way the
            page states (not merely "they are not equal", and never "they are not the
            same object").

    Returns:
        ``(s, c)``, the two outcomes, for the page to print.

    Raises:
        AssertionError: the source's outcome is the corrected one; the versions do not
            differ as stated; or the test also flags the corrected outcome against the same
            outcome computed a second time, or against a copy of it (it cannot fail).
        TypeError: ``source``, ``corrected`` or ``differ`` is not callable, or ``differ``
            does not return a truth value.
    """
    if not isinstance(label, str) or not LABEL.match(label):
        raise ValueError(f"label must look like 'err-000-some-slug', got {label!r}")
    for name, fn in (("source", source), ("corrected", corrected), ("differ", differ)):
        if not callable(fn):
            raise TypeError(f"{name} must be a callable (e.g. lambda: ...), got "
                            f"{type(fn).__name__}")
    if source is corrected:
        raise AssertionError(f"{label}: source and corrected are the same function; "
                             "the check would compare a version with itself")
    s, c = outcome(source), outcome(corrected)
    if isinstance(c, Exception):
        raise AssertionError(f"{label}: the corrected version raised "
                             f"{type(c).__name__}: {c}") from c
    if same_value(s, c):
        raise AssertionError(f"{label}: the source's version computes the corrected value "
                             f"({_short(c)}); there is no erratum to show")
    if not _holds(differ, label, s, c):
        raise AssertionError(f"{label}: the source's version does not differ from the "
                             f"corrected one as the page says (source: {_short(s)}, "
                             f"corrected: {_short(c)})")
    for twin, how in ((outcome(corrected), "the corrected version computed a second time"),
                      (_copy(c), "a copy of the corrected outcome")):
        if _holds(differ, label, twin, c):
            raise AssertionError(
                f"{label}: this check cannot fail: differ(s, c) also holds between the "
                f"corrected outcome and {how}, so it would pass had the source been right; "
                f"differ must compare the values the page states, not identities "
                f"(`s is not c`), and not hold whatever it is given")
    return s, c


def _short(value: Any, width: int = 120) -> str:
    text = repr(value).replace("\n", " ")
    return text if len(text) <= width else text[: width - 3] + "..."
