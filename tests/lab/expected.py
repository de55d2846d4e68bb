"""What a notebook opened in JupyterLab should show, computed from the notebook file as the
book computes it: its glued numbers (MyST-NB's own formatting), its citations (the book's
bibliography styles, labextension/static/references.json), its explorers and the cells of
its solutions. tests/lab/test_jupyterlab.py compares the lab with these; tests/test_lab.py
checks the same facts without a browser."""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import nbformat
from myst_nb.core.variables import format_plain_text

from illustrated.explorers import JUPYTERLAB_MIME
from scripts.execute_notebooks import solution_cells

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb")) + sorted(
    (ROOT / "appendix").glob("*.ipynb"))
REFERENCES = ROOT / "labextension" / "static" / "references.json"
ROLE = re.compile(r"\{([a-z][\w:-]*)\}`([^`]*)`")


@functools.cache
def read(path: Path) -> nbformat.NotebookNode:
    """The notebook, read once a session (the tests only read it)."""
    return nbformat.read(path, as_version=4)


def roles(nb, prefix: str) -> list[tuple[int, str, str]]:
    """``(cell index, role, body)`` of every ``{prefix...}`` role in the markdown cells."""
    return [(index, m.group(1), m.group(2))
            for index, cell in enumerate(nb.cells) if cell.cell_type == "markdown"
            for m in ROLE.finditer(cell.source)
            if m.group(1) == prefix or m.group(1).startswith(prefix + ":")]


def glued(nb) -> dict[str, str]:
    """The notebook's glued values: name -> the text/plain repr the gluing cell stored
    (under ``application/papermill.record/text/plain`` if glued with ``display=False``, as
    MyST-NB reads it: ``myst_nb.ext.glue.extract_glue_data_cell``)."""
    values = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            record = output.get("metadata", {}).get("scrapbook")
            if record:
                values[record["name"]] = output.data[record.get("mime_prefix", "") + "text/plain"]
    return values


def split_glue(body: str) -> tuple[str, str]:
    """``name:spec`` as MyST-NB splits it (a name alone is formatted with "s")."""
    name, colon, spec = body.rpartition(":")
    return (name, spec) if colon else (body, "s")


def glue_texts(nb) -> list[tuple[int, str, str]]:
    """``(cell index, role body, what the book shows)`` for every {glue:text} role."""
    values = glued(nb)
    return [(index, body, format_plain_text(values[split_glue(body)[0]], split_glue(body)[1]))
            for index, role, body in roles(nb, "glue")]


def cite_texts(nb) -> list[tuple[int, str, str]]:
    """``(cell index, key, what the book shows)`` for every citation role."""
    references = json.loads(REFERENCES.read_text(encoding="utf-8"))
    return [(index, key, references[key].get(role, references[key]["cite"]))
            for index, role, key in roles(nb, "cite")]


def explorer_cells(nb) -> list[int]:
    """The code cells with an explorer's output."""
    return [index for index, cell in enumerate(nb.cells) if cell.cell_type == "code"
            and any(JUPYTERLAB_MIME in output.get("data", {}) for output in cell.outputs)]


__all__ = ["NOTEBOOKS", "read", "roles", "glued", "split_glue", "glue_texts", "cite_texts",
           "explorer_cells", "solution_cells"]
