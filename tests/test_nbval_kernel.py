"""The nbval stages start a kernel again when it dies on start-up (tests/nbval_kernel.py)."""
import importlib.util
import re
from pathlib import Path

import pytest

from tests.nbval_kernel import TRIES, retrying


def _dies(times):
    calls = []

    def start(*args, **kwargs):
        calls.append((args, kwargs))
        if len(calls) <= times:
            raise RuntimeError("Kernel died before replying to kernel_info")
        return "km", "kc"

    return start, calls


def test_a_kernel_that_died_on_start_up_is_started_again(capsys):
    start, calls = _dies(TRIES - 1)
    assert retrying(start)(kernel_name="python", cwd="x") == ("km", "kc")
    assert calls == [((), {"kernel_name": "python", "cwd": "x"})] * TRIES
    assert capsys.readouterr().err.count("starting it again") == TRIES - 1


def test_a_kernel_that_never_starts_fails_as_it_came():
    start, calls = _dies(TRIES)
    with pytest.raises(RuntimeError, match="Kernel died before replying"):
        retrying(start)()
    assert len(calls) == TRIES


def test_every_nbval_stage_loads_the_plugin():
    makefile = Path(__file__).resolve().parents[1] / "Makefile"
    nbval = re.search(r"^NBVAL := (.*?)(?<!\\)\n", makefile.read_text(), re.M | re.S).group(1)
    assert "-p tests.nbval_kernel" in nbval


def test_a_kernel_that_glues_builds_no_grammar():
    """Every notebook's kernel imports jsonschema (myst_nb's glue imports nbformat); with
    rfc3987-syntax installed that import builds a Lark grammar, 1 s of CPU per kernel, 63
    kernels a `make test`. make install leaves it out (the Makefile says why)."""
    assert importlib.util.find_spec("rfc3987_syntax") is None, (
        "rfc3987-syntax is installed: make install uninstalls it "
        "(pip uninstall -y rfc3987-syntax)")
