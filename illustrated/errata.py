"""Checking a source's claim against the corrected one. Introduced in the appendix, "What
the sources get wrong".

An erratum is only worth printing if its check could fail: if the source were right, the
check must say so. :func:`check_claim` therefore runs **both** versions, the source's and
the corrected one, and asserts two things:

1. ``differ(source, corrected)``: the two outcomes differ in the way the page says;
2. ``not differ(corrected, corrected)``: had the source said what is right, the same test
   would have found nothing. A test that is true whatever it is given (``lambda s, c:
   True``, or one that ignores the source) fails here.

Each version is a function of no arguments (``lambda: ...``). One that raises is not an
error of the check: its outcome is the exception, so "the source's code does not run" is a
claim like any other (``differ=lambda s, c: isinstance(s, ValueError) and ...``).
"""
from __future__ import annotations

import re
from typing import Any, Callable

LABEL = re.compile(r"^err-\d{3}-[a-z0-9-]+$")


def outcome(version: Callable[[], Any]) -> Any:
    """``version()``, or the exception it raised."""
    try:
        return version()
    except Exception as err:  # the exception *is* the outcome of code that does not run
        return err


def check_claim(label: str, *, source: Callable[[], Any], corrected: Callable[[], Any],
                differ: Callable[[Any, Any], bool]) -> tuple[Any, Any]:
    """Run the source's version and the corrected one of the claim ``label``.

    Args:
        label: the claim's label on the page, ``err-<source number>-<slug>``.
        source: computes what the source says (its code, its formula, its number).
        corrected: computes what is right.
        differ: ``differ(s, c)`` is ``True`` when ``s`` differs from ``c`` in the way the
            page states (not merely "they are not equal").

    Returns:
        ``(s, c)``, the two outcomes, for the page to print.

    Raises:
        AssertionError: the versions do not differ as stated, or the test would also
            have flagged the corrected version against itself (it cannot fail).
        TypeError: ``source``, ``corrected`` or ``differ`` is not callable.
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
    if not differ(s, c):
        raise AssertionError(f"{label}: the source's version does not differ from the "
                             f"corrected one as the page says (source: {_short(s)}, "
                             f"corrected: {_short(c)})")
    if differ(c, c):
        raise AssertionError(f"{label}: this check cannot fail: it also flags the "
                             f"corrected version against itself")
    return s, c


def _short(value: Any, width: int = 120) -> str:
    text = repr(value).replace("\n", " ")
    return text if len(text) <= width else text[: width - 3] + "..."
