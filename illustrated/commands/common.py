"""What the package's commands (:mod:`illustrated.commands`) share: a message of one line
for a bad option, option types that check their range, warnings printed as one plain line
(no category, no source line), and CPU threads that do not fight a busy machine. This module
does not import torch at its top: ``python -m illustrated`` calls :func:`passive_waits`
before a command imports it.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from pathlib import Path


def passive_waits():
    """Call before torch is imported: its OpenMP threads then sleep while they wait for
    work (``OMP_WAIT_POLICY=PASSIVE``) instead of spinning, unless the user set the policy.
    On a busy CPU a spinning thread takes a core from the thread it waits for (the Makefile
    measured nbval at 257 s spinning and 99 s passive); the results are the same, as the
    same threads split the same work. OpenMP reads the variable once, when torch loads it."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def idle_cores() -> int:
    """The cores of this process that the last minute's load average left idle, at least 1
    (all of them where the load cannot be read)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average on this system
        return cores or 1
    return max(1, min(cores or 1, round((cores or 1) - load)))


@contextlib.contextmanager
def torch_threads(n: int | None, default):
    """Inside: torch computes on ``n`` threads (0: unchanged; ``None``: unchanged when
    ``OMP_NUM_THREADS`` is set, else ``default(torch's current count)``); restored
    afterwards. Each command picks its default: training takes the idle cores, translating
    one sentence one thread."""
    import torch  # after passive_waits (the commands import this module first)

    before = torch.get_num_threads()
    if n is None:
        n = 0 if os.environ.get("OMP_NUM_THREADS") else default(before)
    if n:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (no usage block), exit status 2."""

    def error(self, message):
        """Print ``message`` after the program's name, on one line, and exit with status 2."""
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


def input_lines(arguments) -> list[str]:
    """A command's input lines: its arguments, else stdin cut at each newline only (a line
    separator such as U+2028 inside a line does not make two lines)."""
    if arguments:
        return list(arguments)
    lines = sys.stdin.read().split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def shown(path) -> str:
    """``path`` relative to the current folder when it is inside it, else as given: for
    messages."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _one_line(message, category, filename, lineno, file=None, line=None):
    print(f"warning: {message}", file=sys.stderr if file is None else file)


@contextlib.contextmanager
def plain_warnings():
    """Inside: each warning printed once as ``warning: <message>`` on stderr."""
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _one_line
        yield
