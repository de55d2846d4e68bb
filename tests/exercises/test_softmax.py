"""Tests for illustrated.exercises.softmax (chapter 3): check_softmax accepts correct work
in several styles and names the mistake in each planted wrong version."""
import re

import pytest
import torch

from illustrated.exercises import check_softmax

from .helpers import (
    HINT,
    assert_fails,
    assert_one_line,
    first_line,
    softmax_naive,
    softmax_stable,
    softmax_torch,
)


def softmax_logsumexp(x):
    return (x - x.logsumexp(dim=-1, keepdim=True)).exp()


def softmax_in_place_on_a_copy(x):
    e = x.clone()  # in-place operations on a tensor of your own are fine
    e -= e.max(dim=-1, keepdim=True).values
    e.exp_()
    return e / e.sum(dim=-1, keepdim=True)


def softmax_in_place(x):
    x -= x.max(dim=-1, keepdim=True).values  # changes the caller's x
    x.exp_()
    return x / x.sum(dim=-1, keepdim=True)


@pytest.mark.parametrize("fn", [softmax_torch, softmax_stable, softmax_logsumexp,
                                softmax_in_place_on_a_copy])
def test_check_softmax_accepts_correct(fn, capsys):
    assert check_softmax(fn) is None
    out = assert_one_line(capsys, check_softmax)
    assert out == "✓ check_softmax: your softmax matches on 6 tests, including large scores.\n"


def shifted(x):
    """exp of x less each row's maximum: the stable numerator, right so far."""
    return (x - x.max(dim=-1, keepdim=True).values).exp()


MISTAKES = [  # (a wrong softmax, the start of its hint)
    (lambda x: torch.softmax(x, dim=0), HINT + r"you took the softmax over dim 0 instead"),
    (lambda x: torch.softmax(x, dim=1), HINT + r"you took the softmax over dim 1 instead"),
    (lambda x: x.exp() / x.exp().sum(-1), HINT + r"you divided by `e\.sum\(dim=-1\)` without "
                                                 r"`keepdim=True`"),
    (lambda x: shifted(x) / shifted(x).sum(-1), HINT + r"you divided by `e\.sum\(dim=-1\)` "
                                                     r"without `keepdim=True`"),
    (lambda x: softmax_naive(x - x.max(-1).values),
     HINT + r"you subtracted `x\.max\(dim=-1\)\.values` without `keepdim=True`"),
    (lambda x: x.exp() / x.exp().sum(), HINT + r"you divided by the sum over the whole tensor"),
    (lambda x: x / x.sum(-1, keepdim=True), HINT + r"you forgot the exponential"),
    (lambda x: x.exp(), HINT + r"you forgot to divide by the sum"),
    (softmax_naive, HINT + r"exp overflowed on large scores"),
    (lambda x: softmax_naive(x - x.max()), HINT + r"you subtracted the maximum of the whole "
                                                  r"tensor"),
    (lambda x: softmax_torch(x) + 0.01, r"\nHint: compare your output with `torch\.softmax"),
    (softmax_in_place, r"wrote into its input x: 16 of the 16 values of x differ after the "
                       r"call\.\nHint: your function changed its input `x` in place"),
]
MISTAKE_IDS = ["dim0", "dim1_on_3d", "no_keepdim", "no_keepdim_shifted",
               "max_no_keepdim", "whole_sum", "no_exp", "no_norm",
               "overflow", "global_max", "general", "in_place"]


@pytest.mark.parametrize("fn, hint", MISTAKES, ids=MISTAKE_IDS)
def test_check_softmax_names_the_mistake(fn, hint):
    assert_fails(check_softmax, fn, hint)


def test_check_softmax_first_line_names_test_and_shape():
    assert re.fullmatch(
        r"check_softmax: on test 'random 4×4' \(x \(4, 4\), float64\): wrong values in the "
        r"result \(largest difference 0\.\d+\)\.",
        first_line(check_softmax, lambda x: torch.softmax(x, dim=0)))
    assert first_line(check_softmax, softmax_naive) == (
        "check_softmax: on test 'large scores (~1000)' (x (4, 4), float64): the result "
        "contains NaN or inf.")


@pytest.mark.parametrize("fn, message", [
    (lambda x: softmax_torch(x).tolist(), r"returned a list of 4 items; expected a "
                                          r"torch\.Tensor of shape \(4, 4\)"),
    (lambda x: softmax_torch(x).sum(-1), r"wrong shape: expected result \(4, 4\), got \(4,\)"),
    (lambda x: softmax_torch(x.float()), r"(?s)wrong dtype of the result: expected "
                                         r"torch\.float64.*Hint: keep the inputs' dtype"),
], ids=["list", "shape", "dtype"])
def test_check_softmax_wrong_type_shape_dtype(fn, message):
    assert_fails(check_softmax, fn, message)
