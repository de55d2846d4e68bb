"""Re-execute notebooks in place, each top to bottom in a fresh kernel.

    python scripts/execute_notebooks.py chapters/*.ipynb    (or: make notebooks)

Use it after changing the `illustrated` package or a chapter, then commit the notebooks:
`make test` (nbval) checks that the committed outputs are what a fresh run produces.
The kernel is this interpreter's (the project's .venv), so outputs never depend on
whatever Jupyter kernels a machine happens to have installed.

It also folds every solution's cells for JupyterLab (`fold_solutions`).
`run_notebook` is also what `make book` (scripts/build_book.py) executes chapters with.
"""
import argparse
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from traitlets.config import Config


def kernel_config() -> Config:
    """Kernels talk to us over CurveZMQ-encrypted sockets.

    jupyter_client starts kernels over plain TCP on 127.0.0.1 unless its kernel manager is
    told to provision CurveZMQ keys (``transport_encryption``, off by default), and
    ipykernel then logs "Kernel is running over TCP without encryption ... susceptible to
    eavesdropping" for every kernel. "auto" encrypts whenever the kernelspec declares
    support (ipykernel's does) and pyzmq has libsodium; otherwise it falls back to plain
    TCP, as before.
    """
    config = Config()
    config.KernelManager.transport_encryption = "auto"
    return config


def prepare_environment() -> None:
    """The kernel is this interpreter's; figures use the inline backend unless told otherwise,
    and carry their Chinese renderings."""
    # ipykernel's "python3" kernel runs sys.executable; make sure it is this venv's.
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    # Every figure's and explorer's output carries its Chinese rendering too, which the
    # Chinese pages show (illustrated.draw.words.carried_editions, scripts/site_extras.py).
    os.environ.setdefault("ILLUSTRATED_EDITIONS", "en,zh_CN")


def run_notebook(nb: nbformat.NotebookNode, cwd: Path, timeout: int,
                 allow_errors: bool = False) -> float:
    """Execute ``nb`` in place in a fresh kernel started in ``cwd``; return the seconds taken.

    Raises nbclient's ``CellExecutionError`` (which shows the failing cell and its
    traceback) unless ``allow_errors``.
    """
    start = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout=timeout,
        allow_errors=allow_errors,
        record_timing=False,  # no timestamps in cell metadata: re-running leaves no diff
        kernel_name="python3",
        resources={"metadata": {"path": str(cwd)}},
        config=kernel_config(),
    )
    client.execute()
    return time.perf_counter() - start


def kernelspec_metadata(name: str = "python3") -> dict:
    """The notebook's ``kernelspec`` as JupyterLab writes it for the kernel it starts.

    JupyterLab replaces a notebook's kernelspec by the running kernel's (name, display
    name, language) and marks the notebook as changed when they differ: a chapter saying
    "Python 3" showed the unsaved-changes dot on opening, as ipykernel's kernel is called
    "Python 3 (ipykernel)". nbclient updates ``language_info`` but not this.
    """
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(name)
    return {"display_name": spec.display_name, "language": spec.language, "name": name}


SOLUTION_MARK = re.compile(r"\{(solution-start|solution-end)\}")
#: A cell folded in JupyterLab: its input and its outputs hidden until a click unfolds them.
FOLDED = {"source_hidden": True, "outputs_hidden": True}


def solution_cells(nb: nbformat.NotebookNode) -> list[int]:
    """The indices of the cells inside a gated solution: after the cell that opens it
    (``{solution-start}``) and before the cell that closes it (``{solution-end}``). The
    cells that hold either mark also hold the exercise's words, and are not in the list."""
    inside, cells = False, []
    for index, cell in enumerate(nb.cells):
        marks = SOLUTION_MARK.findall(cell.source) if cell.cell_type == "markdown" else []
        if inside and not marks:
            cells.append(index)
        for mark in marks:
            inside = mark == "solution-start"
    return cells


def fold_solutions(nb: nbformat.NotebookNode) -> None:
    """Fold the cells of every solution, and only those, for JupyterLab.

    The book shows a solution closed under its exercise (sphinx-exercise's dropdown);
    JupyterLab, through jupyterlab-myst, folds the solution's first words the same way but
    not the cells that follow, which held the answer in plain view. JupyterLab folds a cell
    whose ``metadata.jupyter`` says ``source_hidden`` / ``outputs_hidden`` (the nbformat
    convention), and writes the older ``collapsed`` beside ``outputs_hidden`` (a cell without
    it changed on opening); the book ignores both. A markdown cell has no outputs to hide.
    """
    inside = set(solution_cells(nb))
    for index, cell in enumerate(nb.cells):
        jupyter = cell.metadata.get("jupyter", {})
        for key in FOLDED:
            jupyter.pop(key, None)
        cell.metadata.pop("collapsed", None)
        if index in inside and cell.cell_type == "code":
            jupyter.update(FOLDED)
            cell.metadata["collapsed"] = True
        elif index in inside:
            jupyter["source_hidden"] = True
        if jupyter:
            cell.metadata["jupyter"] = jupyter
        else:
            cell.metadata.pop("jupyter", None)


def execute(path: Path, timeout: int) -> float:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)  # timestamps of an earlier run
    nb.metadata.kernelspec = kernelspec_metadata()
    fold_solutions(nb)
    seconds = run_notebook(nb, path.parent, timeout)
    nbformat.write(nb, path)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description="Re-execute notebooks in place.")
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    args = parser.parse_args()
    prepare_environment()
    for path in args.notebooks:
        seconds = execute(path, args.timeout)
        print(f"{path}: executed in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
