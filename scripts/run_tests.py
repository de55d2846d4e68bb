"""Run the stages of `make test` and end with a summary (`make test`).

    python scripts/run_tests.py              # every stage, in GROUPS: some side by side
    python scripts/run_tests.py STAGE ...    # these stages, one after another

Each stage is a target of the Makefile (`make unit`, `make nbval`, ...), run as it is
defined there, without pytest-xdist's "bringing up nodes..." status lines (printed twice
per pytest run when the output is not a terminal). A stage that runs alone shows its
output as it comes; two stages side by side each show theirs, whole, when they end.
Every stage runs, even after one has failed; then one line per stage (passed or FAILED,
its time, the cores its processes kept busy on average, its last line of output) and a
verdict line. The exit status is 1 if any stage failed.

Why side by side: run one after another on the 2-core CI machine, the stages kept these
cores busy on average (the summary's figures): unit 2.0, nbval-portable 1.9, book-check
1.2, nbval 1.0 (its two torch threads rarely both work), browser-check 0.5 (the browser
mostly waits). GROUPS pairs a stage that leaves a core idle with another one: nbval with
book-check, unit with browser-check (which reads the site book-check built), and
nbval-portable alone.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import threading
import time

STAGES = ["unit", "nbval", "nbval-portable", "book-check", "browser-check"]
GROUPS = [("nbval", "book-check"), ("unit", "browser-check"), ("nbval-portable",)]
NOISE = "bringing up nodes..."
MAKE_ERROR = re.compile(r"make(\[\d+\])?: \*\*\* ")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def minutes(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def _echo(line: str) -> None:
    sys.stdout.write(line)
    sys.stdout.flush()


def run_stage(stage: str, make: str, write=_echo) -> tuple[int, str, float, float]:
    """Run ``make <stage>``, each line of its output to ``write`` (default: stdout, as it
    comes); (exit code, its last line, seconds, CPU seconds of make and its processes)."""
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
        write(line)
        if plain and not MAKE_ERROR.match(plain):  # the stage's own last word, not make's
            last = plain
    proc.stdout.close()
    # wait4: this process's own resource use, its reaped descendants included (a stage
    # beside it has its own).
    _, status, used = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, last, time.perf_counter() - start, used.ru_utime + used.ru_stime


def run_group(group: tuple[str, ...], make: str) -> list[tuple[int, str, float, float]]:
    """Run the stages of ``group`` at the same time; each one's output, whole, when it ends."""
    if len(group) == 1:
        return [run_stage(group[0], make)]
    print(f"== {' and '.join(group)}, side by side: each one's output follows when it ends ==",
          flush=True)
    lock = threading.Lock()

    def one(stage):
        lines: list[str] = []
        result = run_stage(stage, make, lines.append)
        with lock:
            _echo("".join(lines))
        return result

    with concurrent.futures.ThreadPoolExecutor(len(group)) as pool:
        return list(pool.map(one, group))


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
    parser.add_argument("stages", nargs="*", metavar="STAGE",
                        help=f"Makefile targets to run one after another (default: "
                        f"{' '.join(STAGES)}, in the groups {GROUPS})")
    stages = parser.parse_args(argv).stages
    groups = [(stage,) for stage in stages] if stages else GROUPS
    make = os.environ.get("MAKE", "make")
    start = time.perf_counter()
    done = {}
    for group in groups:
        done.update(zip(group, run_group(group, make)))
    results = [(stage, *done[stage]) for stage in (stages or STAGES)]
    print("\n== Summary ==")
    for line in summary(results, time.perf_counter() - start):
        print(line)
    return 1 if any(rc for _, rc, *_ in results) else 0


if __name__ == "__main__":
    sys.exit(main())
