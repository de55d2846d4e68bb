"""What the package's two commands (``python -m illustrated.train``, ``python -m
illustrated.translate``) share: a message of one line for a bad option, option types that
check their range, and warnings printed as one plain line (no category, no source line).
"""
from __future__ import annotations

import argparse
import contextlib
import sys
import warnings


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (no usage block), exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (--help lists the options)\n")


def at_least(low: int):
    """An argparse ``type``: an integer ``>= low``, or a one-line error naming both."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be {low} or more, got {value}")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


def _one_line(message, category, filename, lineno, file=None, line=None):
    print(f"warning: {message}", file=sys.stderr if file is None else file)


@contextlib.contextmanager
def plain_warnings():
    """Inside: each warning printed once as ``warning: <message>`` on stderr."""
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _one_line
        yield
