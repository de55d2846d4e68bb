"""The checker of the shifted target exercise: chapter 11, Loss and training a translator.

A target batch ``tgt`` ``(B, T + 1)`` holds ``<bos> w1 ... wn <eos>`` per row, padded on the
right. The decoder reads ``tgt_in = tgt[:, :-1]`` and is scored against
``tgt_out = tgt[:, 1:]``, as :func:`illustrated.data.make_batch` does: position t reads the
words up to ``w_t`` and must predict ``w_{t+1}``. The learner's ``shift(tgt)`` returns the
pair; the checker names the usual wrong versions (the wrong way round, no shift at all, a
column left uncut, the batch axis cut, ``torch.roll``).
"""
from __future__ import annotations

import textwrap
from typing import Callable

import torch

from ._frames import learner_frames_only
from ._runner import (DTYPE_IDS, WIDTH, Case, check_inputs_unchanged, describe,
                      failure, kind)

_NAMES = ("tgt_in", "tgt_out")
_BACKWARDS = ("it looks like you shifted the wrong way (or returned the two in the other "
              "order): your `tgt_in` starts at the first word and your `tgt_out` at "
              "`<bos>`, so the decoder would read the word it must predict. The decoder "
              "reads `<bos> w1 …`, the loss expects `w1 … <eos>`: `tgt_in = tgt[:, :-1]`, "
              "`tgt_out = tgt[:, 1:]`.")
_COPY = ("it looks like `tgt_out` is the same as `tgt_in`: position t would be scored on "
         "the word it reads, and the model would learn to copy its input (a perfect loss, "
         "no translation). Shift by one: `tgt_in = tgt[:, :-1]`, `tgt_out = tgt[:, 1:]`.")
_IN_UNCUT = ("it looks like your `tgt_in` kept the last column: `T + 1` positions read, "
             "`T` words to predict, and the last token (`<eos>` or padding) has nothing "
             "after it to predict. Drop it: `tgt_in = tgt[:, :-1]`.")
_OUT_UNCUT = ("it looks like your `tgt_out` kept the first column, `<bos>`: `<bos>` is "
              "never predicted, only read. Drop it: `tgt_out = tgt[:, 1:]`.")
_ROLL = ("it looks like you used `torch.roll`: it wraps around, so the last target of "
         "each row became a token from the row's start (or from the next row). Slice "
         "instead: `tgt_in = tgt[:, :-1]`, `tgt_out = tgt[:, 1:]`.")
_BATCH_AXIS = ("it looks like you cut along the batch axis (axis 0), shifting whole "
               "sentences instead of words: `tgt[:-1]` drops the last sentence. Cut the "
               "columns: `tgt[:, :-1]` and `tgt[:, 1:]`.")
_GENERAL = ("print your `tgt_in` and `tgt_out` for the first test and compare them with "
            "`tgt[:, :-1]` and `tgt[:, 1:]`: row by row, `tgt_out[t]` must be the word "
            "after `tgt_in[t]`.")
_ERROR = ("slice the columns of the `(B, T + 1)` batch: `tgt[:, :-1]` for what the "
          "decoder reads, `tgt[:, 1:]` for what it must predict.")


def shift_reference(tgt: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """What :func:`illustrated.data.make_batch` does: ``(tgt_in, tgt_out)``, both
    ``(B, T)``, from ``tgt`` ``(B, T + 1)``."""
    return tgt[:, :-1], tgt[:, 1:]


def _same(a, b) -> bool:
    return a.shape == b.shape and torch.equal(a, b.to(a.dtype))


def _is(*variant) -> Callable:
    """A diagnosis: the learner's pair equals ``variant``."""
    return lambda got: all(_same(g, v) for g, v in zip(got, variant))


def _mistakes(tgt: torch.Tensor) -> list:
    right_in, right_out = shift_reference(tgt)
    return [
        (_BACKWARDS, _is(right_out, right_in)),
        (_COPY, lambda got: _same(got[0], got[1])),
        (_ROLL, lambda got: any(_is(tgt, rolled)(got) for rolled in
                                (tgt.roll(-1, dims=1), tgt.roll(-1)))),
        (_IN_UNCUT, _is(tgt, right_out)),
        (_OUT_UNCUT, _is(right_in, tgt)),
        (_BATCH_AXIS, _is(tgt[:-1], tgt[1:])),
    ]


def _ids(*rows) -> torch.Tensor:
    return torch.tensor(rows, dtype=torch.long)


# <pad> = 0, <bos> = 1, <eos> = 2, as in the book's vocabularies; the last case uses others.
_CASES = [
    Case("two sentences, one padded", {"tgt": _ids([1, 9, 4, 7, 2], [1, 5, 2, 0, 0])}),
    Case("no padding", {"tgt": _ids([1, 6, 3, 2], [1, 8, 8, 2], [1, 4, 5, 2])}),
    Case("one sentence of one word", {"tgt": _ids([1, 7, 2])}),
    Case("pad 3, bos 4, eos 5", {"tgt": _ids([4, 9, 9, 6, 5], [4, 7, 5, 3, 3],
                                              [4, 8, 6, 5, 3])}),
]


def _pair(got, where: str) -> tuple:
    """The learner's result as two tensors, or an AssertionError about its type."""
    if (isinstance(got, (tuple, list)) and len(got) == 2
            and all(isinstance(g, torch.Tensor) for g in got)):
        return tuple(g.detach() for g in got)
    raise failure("check_shift", where, f"your function returned {kind(got)}; expected "
                   "a tuple (tgt_in, tgt_out) of two tensors.",
                   "end with `return tgt_in, tgt_out`.")


def _problem(got: tuple, want: tuple) -> str:
    """One line saying how the learner's pair differs from the reference."""
    if [g.shape for g in got] != [w.shape for w in want]:
        expected = " and ".join(f"{n} {tuple(w.shape)}" for n, w in zip(_NAMES, want))
        return f"wrong shape: expected {expected}, got {tuple(got[0].shape)} and " \
               f"{tuple(got[1].shape)}"
    for name, g, w in zip(_NAMES, got, want):
        if g.dtype != w.dtype:
            return f"wrong dtype of {name}: expected {w.dtype}, got {g.dtype}"
    for name, g, w in zip(_NAMES, got, want):
        if not torch.equal(g, w):
            return f"wrong values in {name}: {(g != w).sum().item()} of its {w.numel()} " \
                   "ids differ"
    return "mismatch"


@learner_frames_only
def check_shift(fn: Callable) -> None:
    """Check ``fn(tgt) -> (tgt_in, tgt_out)``: the decoder's input and the loss's target
    from a padded target batch ``tgt`` ``(B, T + 1)``, as
    :func:`illustrated.data.make_batch` builds them (``tgt[:, :-1]`` and ``tgt[:, 1:]``)."""
    if not callable(fn):
        raise TypeError(f"check_shift expects your function itself, e.g. "
                        f"check_shift(my_function), got {type(fn).__name__}")
    for case in _CASES:
        tgt = case.inputs["tgt"]
        want = shift_reference(tgt)
        where = describe(case)
        given = tgt.clone()  # the case stays pristine whatever fn does
        try:
            got = fn(given)
        except Exception as exc:
            raise failure("check_shift", where, f"your function raised "
                           f"{type(exc).__name__}: {exc}",
                           _ERROR).with_traceback(exc.__traceback__) from None
        check_inputs_unchanged("check_shift", where, case, [given])
        got = _pair(got, where)
        if all(g.dtype == w.dtype and _same(g, w) for g, w in zip(got, want)):
            continue
        hint = next((h for h, test in _mistakes(tgt) if test(got)), None)
        if hint is None and any(g.dtype != torch.long for g in got):
            hint = DTYPE_IDS
        raise failure("check_shift", where, _problem(got, want) + ".", hint or _GENERAL)
    line = (f"✓ check_shift: your shift matches make_batch's on {len(_CASES)} batches, "
            "padded and not, with other ids for the specials.")
    print(textwrap.fill(line, WIDTH, subsequent_indent="  ", break_long_words=False))
