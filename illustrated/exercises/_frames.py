"""What a learner sees when a checker fails: their own lines and the checker's message,
not the machinery in between.

A checker's ``AssertionError`` travels through the checker, the runner and (when the
learner's code raised) the NaN watch; printed whole, that is a screen of this package's
code before the message. :func:`learner_frames_only` wraps every public checker so that
the traceback keeps only frames from outside this folder: the learner's function (where
it raised), and whatever it called (torch, the package's modules).
"""
from __future__ import annotations

import functools
import os
import types
from typing import Callable

_HERE = os.path.dirname(os.path.abspath(__file__))  # illustrated/exercises


def _ours(tb: types.TracebackType) -> bool:
    return os.path.dirname(os.path.abspath(tb.tb_frame.f_code.co_filename)) == _HERE


def _learner_frames(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback ``tb`` without the frames of this folder's files (checkers, runner,
    NaN watch), rebuilt from the frames that remain, innermost last."""
    kept = []
    while tb is not None:
        if not _ours(tb):
            kept.append(tb)
        tb = tb.tb_next
    chain = None
    for t in reversed(kept):
        chain = types.TracebackType(chain, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return chain


def learner_frames_only(check: Callable) -> Callable:
    """Wrap a public checker: its ``AssertionError`` is raised again with the learner's
    frames only. The one frame the raise adds, this wrapper's, is marked
    ``__tracebackhide__``, which IPython (Jupyter) and pytest leave out when the learner's
    frames follow it."""

    @functools.wraps(check)
    def checker(*args, **kwargs):
        __tracebackhide__ = True  # noqa: F841 (read by IPython and pytest)
        try:
            return check(*args, **kwargs)
        except AssertionError as failure:
            # the checker's message, after the learner's own frames only:
            raise failure.with_traceback(_learner_frames(failure.__traceback__)) from None

    return checker
