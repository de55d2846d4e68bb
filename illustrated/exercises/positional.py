"""The checker of chapter 7, Embeddings and positional encoding: the table of sinusoidal
positional encodings, ``PE[pos, 2i] = sin(pos / base^(2i/d))``, ``PE[pos, 2i+1] = cos(...)``."""
from __future__ import annotations

import math
from typing import Callable

import torch

from ..positional import sinusoidal_encoding
from ._frames import learner_frames_only
from ._runner import Case, equals, run

_SWAPPED = ("it looks like you swapped sin and cos: the even columns 2i hold the sine, "
            "the odd columns 2i+1 the cosine (row 0 is [0, 1, 0, 1, ...]).")
_I_OVER_D = ("it looks like you used the exponent i/d_model instead of 2i/d_model: i counts "
             "the sin/cos pairs, so the frequencies are `base ** (-2 * i / d_model)` for "
             "i = 0 .. d_model/2 - 1.")
_COLUMN = ("it looks like you put the column index j in the exponent (`base ** (j / "
           "d_model)`): both columns of a pair, 2i and 2i+1, share one frequency, "
           "`base ** (2i / d_model)`, with i = j // 2.")
_COLUMN_2J = ("it looks like you used 2j/d_model with j the column index: the pair index is "
              "i = j // 2, so columns 2i and 2i+1 share the exponent 2i/d_model.")
_CONCAT = ("it looks like you built the concatenated layout [sin ... sin | cos ... cos] "
           "(Tensor2Tensor's, and the picture in The Illustrated Transformer); the paper "
           "interleaves them: column 2i is a sine, column 2i+1 its cosine.")
_FROM_ONE = ("it looks like your positions start at 1; the first token is at position 0, "
             "so the first row is sin(0), cos(0), ... = [0, 1, 0, 1, ...]. Use "
             "`torch.arange(length)`.")
_BASE = ("it looks like you used base {got} where this test asks for base={want}: use the "
         "`base` argument instead of a fixed number.")
_TIMES = ("it looks like you multiplied the position by base^(2i/d_model) instead of "
          "dividing by it: the angle is `pos / base ** (2 * i / d_model)`.")
_TRANSPOSED = ("it looks like you returned the transpose: rows are positions and columns "
               "the d_model dimensions, shape (length, d_model).")
_BASES = (10000.0, 1000.0, 100.0, math.e)


def _variant(length: int, d_model: int, base: float, *, exponent="2i", swap=False,
             interleave=True, start=0, times=False) -> torch.Tensor:
    """The table with one planted mistake (the defaults give the right table)."""
    pos = torch.arange(start, start + length, dtype=torch.float64).unsqueeze(1)  # (L, 1)
    j = torch.arange(d_model, dtype=torch.float64)  # (D,) column index
    # each column's exponent: the right one is 2i/d with i = j // 2 (the pair index)
    power = {"2i": 2 * (j // 2), "i": j // 2, "j": j, "2j": 2 * j}[exponent] / d_model  # (D,)
    angle = pos * base ** power if times else pos / base ** power  # (L, D)
    even = (j % 2 == 0) != swap  # the columns that get a sine
    pe = torch.where(even, angle.sin(), angle.cos())  # (L, D)
    if not interleave:
        pe = torch.cat([pe[:, 0::2], pe[:, 1::2]], dim=1)  # (L, D)
    return pe.float()


def _positional_mistakes(case: Case) -> list:
    L, d, base = case.kwargs["length"], case.kwargs["d_model"], case.kwargs["base"]

    def planted(**kw):
        return equals(lambda: _variant(L, d, base, **kw))

    # The base mistakes come first: a table made with a fixed base (100, say) passes the
    # robot test and fails the next one, where it equals the exponent i/d with base 10000
    # (100 = √10000). Base 10 is left out: on the robot test it equals i/d with base 100.
    found = []
    for other in _BASES:
        if not math.isclose(other, base):
            got = "e" if other == math.e else f"{other:g}"
            found.append((_BASE.format(got=got, want=f"{base:g}"),
                          equals(lambda other=other: _variant(L, d, other))))
    found += [(_SWAPPED, planted(swap=True)),
              (_I_OVER_D, planted(exponent="i")),
              (_COLUMN, planted(exponent="j")),
              (_COLUMN_2J, planted(exponent="2j")),
              (_CONCAT, planted(interleave=False)),
              (_FROM_ONE, planted(start=1)),
              (_TIMES, planted(times=True)),
              (_TRANSPOSED, equals(lambda: _variant(L, d, base).T))]
    return found


@learner_frames_only
def check_positional_encoding(fn: Callable) -> None:
    """Check ``fn(length, d_model, base)``: the ``(length, d_model)`` table of sinusoidal
    positional encodings in the paper's interleaved layout, positions ``0 .. length-1``.

    The table may be float32 or float64; it is compared in float32."""
    if not callable(fn):
        raise TypeError(
            "check_positional_encoding expects your function itself, e.g. "
            f"check_positional_encoding(positional_table), got {type(fn).__name__}"
        )

    def called(length, d_model, base):  # positional, whatever the learner named them
        table = fn(length, d_model, base)
        if isinstance(table, torch.Tensor) and table.dtype == torch.float64:
            return table.float()
        return table

    cases = [
        Case("I am a robot", {}, {"length": 4, "d_model": 4, "base": 100.0}),
        Case("the paper's base", {}, {"length": 10, "d_model": 8, "base": 10000.0}),
        Case("one pair", {}, {"length": 3, "d_model": 2, "base": 10000.0}),
        Case("longer and wider", {}, {"length": 50, "d_model": 16, "base": 10000.0}),
    ]
    run("check_positional_encoding", called, cases,
         lambda length, d_model, base: sinusoidal_encoding(length, d_model, base),
         _positional_mistakes,
         error_hint="build the angles as a (length, 1) column of positions divided by a "
                    "(d_model/2,) row of `base ** (2i / d_model)`; broadcasting gives "
                    "(length, d_model/2).",
         general_hint="compare your first rows with the formula by hand: row 0 is "
                      "[0, 1, 0, 1, ...], row 1 is [sin 1, cos 1, sin(1/base^(2/d)), ...].",
         success="your table matches sinusoidal_encoding on {n} tests, including the "
                 "'I am a robot' table (d_model=4, base=100).")
