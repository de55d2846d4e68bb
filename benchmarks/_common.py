"""Shared helpers of the benchmarks (run by ``make bench``, not by ``make test``).

Every benchmark times our code and PyTorch's reference in the same process, alternating
(ours, theirs, ours, theirs, ...) after a warm-up, so a machine that slows down or speeds up
during the run affects both sides alike; it reports the fastest sample of each (the least
disturbed by other work on a shared machine; ``statistic="median"`` for medians) and the
ratio ours/theirs.
"""
from __future__ import annotations

import json
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

RESULTS = Path(__file__).resolve().parent / "results"


def alternate(fns: dict, repeats: int = 7, warmup: int = 2, min_time: float = 0.02,
              statistic: str = "min") -> dict:
    """Wall-clock seconds per call of each callable in ``fns`` (its fastest sample, or with
    ``statistic="median"`` the median), called in turn ``repeats`` times after ``warmup``
    untimed rounds. A call shorter than ``min_time`` is
    repeated within one sample until the sample lasts about ``min_time`` (as ``timeit``'s
    autorange does), so a tiny call is not timed one call at a time, where one descheduling
    of the process by a busy machine would swamp it."""
    number = {}
    for name, fn in fns.items():
        t0 = time.perf_counter()
        for _ in range(max(warmup, 1)):
            fn()
        once = (time.perf_counter() - t0) / max(warmup, 1)
        number[name] = max(1, min(1000, int(min_time / max(once, 1e-7))))
    times = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            n = number[name]
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            times[name].append((time.perf_counter() - t0) / n)
    pick = min if statistic == "min" else statistics.median
    return {name: pick(ts) for name, ts in times.items()}


def progress(i: int, n: int, text: str) -> None:
    print(f"[{i}/{n}] {text}", flush=True)


def table(rows: list[dict], columns: list[str]) -> str:
    """A plain-text table of ``rows`` (dicts) with the given columns."""
    def fmt(v):
        return f"{v:.4g}" if isinstance(v, float) else str(v)
    cells = [[fmt(r[c]) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(columns, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


def report(name: str, rows: list[dict], columns: list[str], note: str = "") -> Path:
    """Print the table and write ``results/<name>.json`` with the rows and the machine."""
    print(table(rows, columns))
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    meta = {"torch": torch.__version__, "python": sys.version.split()[0],
            "machine": platform.machine(), "threads": torch.get_num_threads(),
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "note": note}
    path.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    print(f"wrote {path}", flush=True)
    return path


def full_flag() -> bool:
    """``--full`` on the command line asks for the issue's whole sweep."""
    return "--full" in sys.argv[1:]
