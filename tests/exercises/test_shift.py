"""Tests for illustrated.exercises.shift (chapter 11, exercise ex-11-shift): check_shift
accepts the shift make_batch does, written several ways, and names the mistake in each
planted wrong version."""
import pytest
import torch

from illustrated.data import make_batch
from illustrated.exercises import check_shift
from illustrated.exercises.shift import _CASES, shift_reference

from .helpers import HINT, assert_fails, assert_one_line, first_line


def test_the_reference_is_make_batch():
    """The checker's reference is what make_batch gives for the same sentences."""
    for case in _CASES:
        tgt = case.inputs["tgt"]
        pad = 3 if case.name == "pad 3, bos 4, eos 5" else 0
        rows = [row.tolist() for row in tgt]
        for row in rows:  # the sentences before padding: strip the pads on the right
            while row[-1] == pad:
                row.pop()
        batch = make_batch(rows, rows, pad_id=pad)
        tgt_in, tgt_out = shift_reference(tgt)
        assert torch.equal(batch.tgt_in, tgt_in) and torch.equal(batch.tgt_out, tgt_out)


def shift_narrow(tgt):
    T = tgt.shape[1] - 1
    return tgt.narrow(1, 0, T), tgt.narrow(1, 1, T)


def shift_index(tgt):
    columns = torch.arange(tgt.shape[1])
    return tgt[:, columns[:-1]], tgt[:, columns[1:]]


@pytest.mark.parametrize("fn", [shift_reference, shift_narrow, shift_index])
def test_check_shift_accepts_correct(fn, capsys):
    assert check_shift(fn) is None
    assert_one_line(capsys, check_shift)


def wrong_in_last_case(tgt):
    tgt_in, tgt_out = tgt[:, :-1].clone(), tgt[:, 1:]
    if tgt[0, 0] == 4:  # the case whose <bos> is 4
        tgt_in[1, 1] = 9
    return tgt_in, tgt_out


def writes_into_tgt(tgt):
    tgt[:, -1] = 0  # "the last column is never read": but it is the caller's tensor
    return tgt[:, :-1], tgt[:, 1:]


SHIFT_MISTAKES = [  # (wrong shift, what the message must say)
    (lambda tgt: (tgt[:, 1:], tgt[:, :-1]), HINT + r"you shifted the wrong way"),
    (lambda tgt: (tgt[:, :-1], tgt[:, :-1]), HINT + r"`tgt_out` is the same as `tgt_in`"),
    (lambda tgt: (tgt, tgt), HINT + r"`tgt_out` is the same as `tgt_in`"),
    (lambda tgt: (tgt, tgt.roll(-1, dims=1)), HINT + r"you used `torch\.roll`"),
    (lambda tgt: (tgt, tgt.roll(-1)), HINT + r"you used `torch\.roll`"),
    (lambda tgt: (tgt, tgt[:, 1:]), HINT + r"your `tgt_in` kept the last column"),
    (lambda tgt: (tgt[:, :-1], tgt), HINT + r"your `tgt_out` kept the first column"),
    (lambda tgt: (tgt[:-1], tgt[1:]), HINT + r"you cut along the batch axis"),
    (lambda tgt: (tgt[:, :-1].float(), tgt[:, 1:]),
     r"wrong dtype of tgt_in: expected torch\.int64, got torch\.float32\.\nHint: token ids"),
    (lambda tgt: tgt[:, :-1],
     r"returned a Tensor; expected a tuple \(tgt_in, tgt_out\)"),
    (lambda tgt: tgt.shift(1), r"raised AttributeError: .*\nHint: slice the columns"),
    (writes_into_tgt, r"your function wrote into its input tgt: 1 of the 10 values"),
    (wrong_in_last_case,
     r"test 'pad 3, bos 4, eos 5' \(tgt \(3, 5\), int64\): wrong values in tgt_in: 1 of "
     r"its 12 ids differ\.\nHint: print your `tgt_in` and `tgt_out`"),
]
SHIFT_IDS = ["backwards", "copy", "copy_uncut", "roll", "roll_flat", "in_uncut",
             "out_uncut", "batch_axis", "float", "one_tensor", "raises", "in_place",
             "general"]


@pytest.mark.parametrize("fn, pattern", SHIFT_MISTAKES, ids=SHIFT_IDS)
def test_check_shift_names_the_mistake(fn, pattern):
    assert_fails(check_shift, fn, pattern)


def test_check_shift_first_failure_names_the_batch():
    assert first_line(check_shift, lambda tgt: (tgt[:, 1:], tgt[:, :-1])) == (
        "check_shift: on test 'two sentences, one padded' (tgt (2, 5), int64): wrong values "
        "in tgt_in: 7 of its 8 ids differ.")


def test_check_shift_wants_a_function():
    with pytest.raises(TypeError, match=r"check_shift expects your function itself"):
        check_shift(torch.zeros(2, 5))


def test_check_shift_reports_none_and_keeps_an_exception():
    assert_fails(check_shift, lambda tgt: None, r"returned None \(did you forget `return`\?\)")

    def raises(tgt):
        raise ValueError("boom")

    with pytest.raises(AssertionError) as info:
        check_shift(raises)
    assert isinstance(info.value.__context__, ValueError)  # kept, not printed twice
