"""Run the stages of `make test` and end with a summary (`make test`).

    python scripts/run_tests.py [STAGE ...]    # default: every stage, in order
    python scripts/run_tests.py unit+book-check nbval    # unit and book-check side by side

Each stage is a target of the Makefile (`make unit`, `make nbval`, ...), run as it is
defined there. Stages joined by "+" run at the same time: the first one's output is shown as
it comes, each other's once it has ended (so the lines of two stages never mix). `make test`
groups its stages so as to keep both cores busy (the Makefile's `test` says how). Output is shown without pytest-xdist's "bringing up nodes..." status lines (printed
twice per pytest run when the output is not a terminal). Every stage runs, even after one
has failed; then one line per stage (passed or FAILED, its time, the cores its processes
kept busy on average, its last line of output) and a verdict line. The cores count the
processes that were waited for, not Chromium's renderers (browser-check's 0.6 cores were 1.7
counted in a cgroup). The exit status is 1 if any stage failed.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

STAGES = ["unit+book-check", "nbval", "nbval-avx2", "nbval-portable", "browser-check"]
NOISE = "bringing up nodes..."
MAKE_ERROR = re.compile(r"make(\[\d+\])?: \*\*\* ")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def minutes(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def run_stage(stage: str, make: str, out=None) -> tuple[int, str, float, float]:
    """Run ``make <stage>``, writing its output to ``out`` (default: standard output) as it
    comes; (exit code, its last line, seconds, CPU seconds of its processes)."""
    out = out or sys.stdout
    env = dict(os.environ, PYTHONUNBUFFERED="1")  # through a pipe, still line by line
    if sys.stdout.isatty():
        env.setdefault("PY_COLORS", "1")  # pytest only colours a terminal, and it sees a pipe
    start = time.perf_counter()
    proc = subprocess.Popen([make, "--no-print-directory", stage], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env, text=True, errors="replace")
    last = ""
    for line in proc.stdout:
        plain = ANSI.sub("", line).strip()
        if plain == NOISE:
            continue
        out.write(line)
        out.flush()
        if plain and not MAKE_ERROR.match(plain):  # the stage's own last word, not make's
            last = plain
    # os.wait4: this stage's CPU time alone (with the processes it waited for), even while
    # another stage runs beside it.
    _, status, used = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return (proc.returncode, last, time.perf_counter() - start, used.ru_utime + used.ru_stime)


def run_side_by_side(stages: list[str], make: str) -> list[tuple[int, str, float, float]]:
    """The stages at the same time: the first one's output as it comes, each other's (held
    in a temporary file) once the first has ended and it has too. Their results, in order."""
    results: dict[int, tuple] = {}
    held = [tempfile.TemporaryFile("w+", encoding="utf-8") for _ in stages[1:]]
    threads = [threading.Thread(target=lambda i=i, stage=stage: results.update(
        {i: run_stage(stage, make, held[i - 1])})) for i, stage in enumerate(stages) if i]
    for thread in threads:
        thread.start()
    results[0] = run_stage(stages[0], make)
    for thread, out in zip(threads, held):
        thread.join()
        out.seek(0)
        sys.stdout.write(out.read())
        sys.stdout.flush()
        out.close()
    return [results[i] for i in range(len(stages))]


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
                        help="Makefile targets to run, one after another; targets joined "
                             f"by + run at the same time (default: {' '.join(STAGES)})")
    groups = [group.split("+") for group in parser.parse_args(argv).stages]
    make = os.environ.get("MAKE", "make")
    start = time.perf_counter()
    results = []
    for group in groups:
        results += [(stage, *result) for stage, result in
                    zip(group, run_side_by_side(group, make) if len(group) > 1
                        else [run_stage(group[0], make)])]
    print("\n== Summary ==")
    for line in summary(results, time.perf_counter() - start):
        print(line)
    return 1 if any(rc for _, rc, *_ in results) else 0


if __name__ == "__main__":
    sys.exit(main())
