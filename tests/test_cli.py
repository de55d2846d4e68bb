"""illustrated._cli: one-line option errors, range-checked integers, plain warnings."""
import argparse
import warnings

import pytest

from illustrated._cli import Parser, at_least, plain_warnings


def test_at_least_checks_the_range_and_the_type():
    assert at_least(1)("3") == 3 and at_least(0)("0") == 0
    with pytest.raises(argparse.ArgumentTypeError, match="must be 1 or more, got 0"):
        at_least(1)("0")
    with pytest.raises(argparse.ArgumentTypeError, match="expected an integer, got '1.5'"):
        at_least(1)("1.5")


def test_parser_error_is_one_line(capsys):
    p = Parser(prog="cmd")
    p.add_argument("--n", type=at_least(1))
    with pytest.raises(SystemExit) as exit_:
        p.parse_args(["--n", "0"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == ("cmd: argument --n: must be 1 or more, got 0 "
                                       "(--help lists the options)\n")


def test_plain_warnings_print_one_line(capsys):
    with plain_warnings():
        warnings.warn("unknown words mapped to <unk>: ['gare']", UserWarning)
    assert capsys.readouterr().err == "warning: unknown words mapped to <unk>: ['gare']\n"
    assert warnings.showwarning.__name__ != "_one_line"  # restored afterwards
