"""Run the stages of `make test` and end with a summary (`make test`).

    python scripts/run_tests.py [STAGE ...]    # default: every stage, in order
    python scripts/run_tests.py unit+book-check nbval   # unit and book-check at once

Each stage is a target of the Makefile (`make unit`, `make nbval`, ...), run as it is
defined there. Stages joined by "+" run at the same time: the first one's output is shown
as it comes, each other's once the one before it has ended (held until then, then shown
as it comes), so that no two stages' lines mix. pytest-xdist's "bringing up nodes..."
status lines (printed twice per pytest run when the output is not a terminal) are left out.
Every stage runs, even after one has failed; then one line per stage (passed or FAILED,
its time, the cores its processes kept busy on average, its last line of output) and a
verdict line. The exit status is 1 if any stage failed.
"""
from __future__ import annotations

import argparse
import os
import queue
import re
import subprocess
import sys
import threading
import time

# book-check keeps 1.3 of the 2 cores busy (two Sphinx builds, then one process checking
# the site), unit 1.8: side by side they fill both (measured: make test's CPU time, not
# only its wall time). The other stages keep both cores busy alone.
STAGES = ["unit+book-check", "nbval", "nbval-portable", "browser-check"]
NOISE = "bringing up nodes..."
MAKE_ERROR = re.compile(r"make(\[\d+\])?: \*\*\* ")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def minutes(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


class Stage:
    """``make <stage>`` started at once; its output lines (less the noise) go into
    ``lines`` as they come, then a None. When it has ended: ``rc``, ``last`` (its own last
    line, not make's), ``seconds`` and ``cpu`` (CPU seconds of make and the processes it
    waited for, from wait4)."""

    def __init__(self, stage: str, make: str):
        env = dict(os.environ, PYTHONUNBUFFERED="1")  # through a pipe, still line by line
        if sys.stdout.isatty():
            env.setdefault("PY_COLORS", "1")  # pytest only colours a terminal: it sees a pipe
        self.name, self.lines, self.last = stage, queue.Queue(), ""
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(
            [make, "--no-print-directory", stage], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, env=env, text=True, errors="replace")
        self.reader = threading.Thread(target=self._read)
        self.reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            plain = ANSI.sub("", line).strip()
            if plain == NOISE:
                continue
            self.lines.put(line)
            if plain and not MAKE_ERROR.match(plain):  # the stage's own last word
                self.last = plain
        _, status, usage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = self.rc = os.waitstatus_to_exitcode(status)
        self.seconds = time.perf_counter() - self.start
        self.cpu = usage.ru_utime + usage.ru_stime
        self.lines.put(None)

    def show(self) -> tuple[str, int, str, float, float]:
        """Echo its output until it ends; (stage, exit code, last line, seconds, CPU s)."""
        while (line := self.lines.get()) is not None:
            sys.stdout.write(line)
            sys.stdout.flush()
        self.reader.join()
        return self.name, self.rc, self.last, self.seconds, self.cpu


def run_stage(stage: str, make: str) -> tuple[int, str, float, float]:
    """Run ``make <stage>``, echoing its output; (exit code, its last line, seconds, CPU
    seconds of its processes)."""
    return Stage(stage, make).show()[1:]


def summary(results: list[tuple[str, int, str, float, float]], total: float) -> list[str]:
    """One line per stage (with its cores in use on average: CPU time / wall time), then
    the verdict."""
    width = max(len(stage) for stage, *_ in results)
    lines = [f"{stage:<{width}}  {'passed' if rc == 0 else 'FAILED'}  "
             f"{minutes(seconds):>12}  {cpu / max(seconds, 1e-9):4.1f} cores  {last[:100]}"
             for stage, rc, last, seconds, cpu in results]
    failed = [stage for stage, rc, *_ in results if rc != 0]
    if failed:
        lines.append(f"make test FAILED: {len(failed)} of {len(results)} stages failed "
                     f"({', '.join(failed)}), in {minutes(total)}.")
    else:
        lines.append(f"make test passed: all {len(results)} stages passed, "
                     f"in {minutes(total)}.")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stages", nargs="*", default=STAGES, metavar="STAGE",
                        help="Makefile targets to run, one after another; STAGE+STAGE "
                        f"runs them at once (default: {' '.join(STAGES)})")
    groups = parser.parse_args(argv).stages
    make = os.environ.get("MAKE", "make")
    start = time.perf_counter()
    results = []
    for group in groups:
        together = [Stage(stage, make) for stage in group.split("+")]
        results += [stage.show() for stage in together]
    print("\n== Summary ==")
    for line in summary(results, time.perf_counter() - start):
        print(line)
    return 1 if any(rc for _, rc, *_ in results) else 0


if __name__ == "__main__":
    sys.exit(main())
