"""illustrated.commands.common: one-line option errors, range-checked integers, plain warnings."""
import argparse
import warnings

import pytest

from illustrated.commands.common import Parser, at_least, plain_warnings


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


# What each command sees when it first imports torch (torch is not imported: the spy stops
# the command there, so the check costs a Python start, not a torch import).
SPY = """
import os, runpy, sys

class Seen(BaseException):
    pass

class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "torch":
            raise Seen(os.environ.get("OMP_WAIT_POLICY"))

sys.meta_path.insert(0, Spy())
module, sys.argv = sys.argv[1], sys.argv[1:]
try:
    runpy.run_module(module, run_name="__main__", alter_sys=True)
except Seen as seen:
    print(seen.args[0])
"""


@pytest.mark.parametrize("argv", [["train", "--steps", "1"], ["translate", "--toy", "merci"],
                                  ["generate", "The cat"], ["train-writer"], ["evaluate"]])
@pytest.mark.parametrize("policy, seen", [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_commands_let_torch_threads_sleep_unless_told_otherwise(argv, policy, seen):
    """Torch's OpenMP threads spin while they wait unless OMP_WAIT_POLICY=PASSIVE is in the
    environment when torch loads; a policy the user set is kept. Every command, run as
    ``python -m illustrated COMMAND``."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy:
        env["OMP_WAIT_POLICY"] = policy
    proc = subprocess.run([sys.executable, "-c", SPY, "illustrated", *argv], env=env,
                          capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"{seen}\n", "")


def test_idle_cores_follow_the_load_average(monkeypatch):
    import os

    from illustrated.commands.common import idle_cores

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    for load, idle in [(0.0, 4), (1.4, 3), (2.6, 1), (3.7, 1), (12.0, 1)]:
        monkeypatch.setattr(os, "getloadavg", lambda load=load: (load, 0.0, 0.0))
        assert idle_cores() == idle, load

    def unreadable():
        raise OSError("no load average")

    monkeypatch.setattr(os, "getloadavg", unreadable)
    assert idle_cores() == 4
