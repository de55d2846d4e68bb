"""Tests for illustrated.exercises.positional (chapter 7): check_positional_encoding accepts
correct tables written in several styles and names every planted mistake."""
import math

import numpy as np
import pytest
import torch

from illustrated.exercises import check_positional_encoding
from illustrated.positional import sinusoidal_encoding

from .helpers import HINT, assert_fails, assert_one_line, first_line


def table_loop(length, d_model, base=10000.0):
    """The formula entry by entry, in plain Python floats."""
    pe = torch.zeros(length, d_model)
    for pos in range(length):
        for i in range(d_model // 2):
            angle = pos / base ** (2 * i / d_model)
            pe[pos, 2 * i], pe[pos, 2 * i + 1] = math.sin(angle), math.cos(angle)
    return pe


def table_annotated(length, d_model, base=10000.0):
    """The Annotated Transformer's style: exp/log frequencies in float32, strided writes."""
    pe = torch.zeros(length, d_model)
    position = torch.arange(0, length).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(base) / d_model))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe


def table_float64(length, d_model, base=10000.0):
    pos = torch.arange(length, dtype=torch.float64)[:, None]
    i = torch.arange(d_model // 2, dtype=torch.float64)
    angle = pos / base ** (2 * i / d_model)
    return torch.stack([angle.sin(), angle.cos()], dim=-1).reshape(length, d_model)


@pytest.mark.parametrize("fn", [table_loop, table_annotated, table_float64,
                                lambda n, d, b: sinusoidal_encoding(n, d, b)],
                         ids=["loop", "annotated", "float64", "package"])
def test_accepts_correct(fn, capsys):
    assert check_positional_encoding(fn) is None
    out = assert_one_line(capsys, check_positional_encoding)
    assert out == ("✓ check_positional_encoding: your table matches sinusoidal_encoding on "
                   "4 tests, including the 'I am a robot' table (d_model=4, base=100).\n")


def wrong(**mistake):
    """A learner's table with one planted mistake, written independently of the checker."""
    exponent = mistake.get("exponent", "2i")
    start, base_used = mistake.get("start", 0), mistake.get("base")

    def fn(length, d_model, base):
        b = base if base_used is None else base_used
        pe = torch.zeros(length, d_model)
        for pos in range(start, start + length):
            for j in range(d_model):
                i = j // 2
                e = {"2i": 2 * i, "i": i, "j": j, "2j": 2 * j}[exponent] / d_model
                angle = pos * b ** e if mistake.get("times") else pos / b ** e
                use_sin = (j % 2 == 0) != bool(mistake.get("swap"))
                pe[pos - start, j] = math.sin(angle) if use_sin else math.cos(angle)
        if mistake.get("concat"):
            pe = torch.cat([pe[:, 0::2], pe[:, 1::2]], dim=1)
        return pe.T if mistake.get("transposed") else pe

    return fn


MISTAKES = [
    (wrong(swap=True), HINT + r"you swapped sin and cos"),
    (wrong(exponent="i"), HINT + r"you used the exponent i/d_model instead of 2i/d_model"),
    (wrong(exponent="j"), HINT + r"you put the column index j in the exponent"),
    (wrong(exponent="2j"), HINT + r"you used 2j/d_model with j the column index"),
    (wrong(concat=True), HINT + r"you built the concatenated layout"),
    (wrong(start=1), HINT + r"your positions start at 1"),
    (wrong(base=10000.0), HINT + r"you used base 10000 where this test asks for base=100:"),
    (wrong(base=1000.0), HINT + r"you used base 1000 where this test asks for base=100:"),
    (wrong(base=math.e), HINT + r"you used base e where this test asks for base=100:"),
    (wrong(times=True), HINT + r"you multiplied the position by base\^\(2i/d_model\)"),
    (wrong(transposed=True), HINT + r"you returned the transpose"),
    (lambda n, d, b: table_loop(n, d, b) + 1e-3, r"\nHint: compare your first rows"),
]
IDS = ["swapped", "i_over_d", "column_index", "column_index_2j", "concatenated",
       "from_one", "base_fixed_10000", "base_1000", "base_e", "times", "transposed", "general"]


@pytest.mark.parametrize("fn, hint", MISTAKES, ids=IDS)
def test_names_the_mistake(fn, hint):
    assert_fails(check_positional_encoding, fn, hint)


def test_a_base_mistake_is_found_on_the_papers_base_too():
    # a table that always uses base 100 passes the robot test and fails the next one
    assert_fails(check_positional_encoding, wrong(base=100.0),
                 r"on test 'the paper's base'.*" + HINT + r"you used base 100 where this "
                 r"test asks for base=10000")


def test_first_line_says_where_and_what():
    assert first_line(check_positional_encoding, wrong(swap=True)) == (
        "check_positional_encoding: on test 'I am a robot' (length=4, d_model=4, "
        "base=100.0): wrong values in the result (largest difference 1.33).")


@pytest.mark.parametrize("fn, message", [
    (lambda n, d, b: table_loop(n, d, b).numpy(),
     r"returned a ndarray; expected a torch\.Tensor of shape \(4, 4\)"),
    (lambda n, d, b: None, r"returned None \(did you forget `return`\?\)"),
    (lambda n, d, b: table_loop(n, d, b)[:, : d // 2], r"wrong shape: expected result "
                                                       r"\(4, 4\), got \(4, 2\)"),
    (lambda n, d: table_loop(n, d), r"raised TypeError.*\nHint: build the angles"),
], ids=["numpy", "none", "half_width", "no_base_argument"])
def test_wrong_return_or_signature(fn, message):
    assert_fails(check_positional_encoding, fn, message)


def test_refuses_a_non_function():
    with pytest.raises(TypeError, match=r"expects your function itself.*got Tensor"):
        check_positional_encoding(sinusoidal_encoding(4, 4))


def test_numpy_is_not_needed_but_float64_numpy_style_works(capsys):
    def numpy_style(n, d, b):
        angle = np.arange(n)[:, None] / b ** (np.arange(0, d, 2) / d)
        pe = np.empty((n, d))
        pe[:, 0::2], pe[:, 1::2] = np.sin(angle), np.cos(angle)
        return torch.from_numpy(pe)

    check_positional_encoding(numpy_style)
    assert_one_line(capsys, check_positional_encoding)
