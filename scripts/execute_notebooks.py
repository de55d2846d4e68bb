"""Re-execute notebooks in place, each top to bottom in a fresh kernel.

    python scripts/execute_notebooks.py chapters/*.ipynb    (or: make notebooks)

Use it after changing the `illustrated` package or a chapter, then commit the notebooks:
`make test` (nbval) checks that the committed outputs are what a fresh run produces.
The kernel is this interpreter's (the project's .venv), so outputs never depend on
whatever Jupyter kernels a machine happens to have installed.
"""
import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def execute(path: Path, timeout: int) -> float:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)  # timestamps of an earlier run
    start = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout=timeout,
        record_timing=False,  # no timestamps in cell metadata: re-running leaves no diff
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description="Re-execute notebooks in place.")
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    args = parser.parse_args()
    # ipykernel's "python3" kernel runs sys.executable; make sure it is this venv's.
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    for path in args.notebooks:
        seconds = execute(path, args.timeout)
        print(f"{path}: executed in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
