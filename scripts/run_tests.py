"""Run the stages of `make test` one after another and end with a summary (`make test`).

    python scripts/run_tests.py [STAGE ...]    # default: every stage, in order

Each stage is a target of the Makefile (`make unit`, `make nbval`, ...), run as it is
defined there. Its output is shown as it comes, without pytest-xdist's "bringing up
nodes..." status lines (printed twice per pytest run when the output is not a terminal).
Every stage runs, even after one has failed; then one line per stage (passed or FAILED,
its time, the cores its processes kept busy on average, its last line of output) and a
verdict line. The cores count the processes that were waited for, not Chromium's renderers
(browser-check's 0.6 cores were 1.7 counted in a cgroup). The exit status is 1 if any stage
failed.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import time

STAGES = ["unit", "nbval", "nbval-avx2", "nbval-portable", "book-check", "browser-check"]
NOISE = "bringing up nodes..."
MAKE_ERROR = re.compile(r"make(\[\d+\])?: \*\*\* ")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def minutes(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def cpu_seconds() -> float:
    """CPU time (user + system) of the finished child processes so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run_stage(stage: str, make: str) -> tuple[int, str, float, float]:
    """Run ``make <stage>``, echoing its output; (exit code, its last line, seconds, CPU
    seconds of its processes)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")  # through a pipe, still line by line
    if sys.stdout.isatty():
        env.setdefault("PY_COLORS", "1")  # pytest only colours a terminal, and it sees a pipe
    start, cpu = time.perf_counter(), cpu_seconds()
    proc = subprocess.Popen([make, "--no-print-directory", stage], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env, text=True, errors="replace")
    last = ""
    for line in proc.stdout:
        plain = ANSI.sub("", line).strip()
        if plain == NOISE:
            continue
        sys.stdout.write(line)
        sys.stdout.flush()
        if plain and not MAKE_ERROR.match(plain):  # the stage's own last word, not make's
            last = plain
    rc = proc.wait()
    return rc, last, time.perf_counter() - start, cpu_seconds() - cpu


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
                        help=f"Makefile targets to run (default: {' '.join(STAGES)})")
    stages = parser.parse_args(argv).stages
    make = os.environ.get("MAKE", "make")
    start = time.perf_counter()
    results = []
    for stage in stages:
        results.append((stage, *run_stage(stage, make)))
    print("\n== Summary ==")
    for line in summary(results, time.perf_counter() - start):
        print(line)
    return 1 if any(rc for _, rc, *_ in results) else 0


if __name__ == "__main__":
    sys.exit(main())
