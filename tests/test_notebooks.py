"""The committed notebooks are executed, in order, in a fresh kernel.

nbval silently skips a code cell whose ``execution_count`` is null, so an unexecuted
cell would never be checked. These tests make that impossible, and check that every
notebook the book lists exists (and every chapter notebook is listed).
"""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))


def code_cells(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]


def test_there_are_chapters():
    assert NOTEBOOKS, "no notebooks found under chapters/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_code_cell_was_executed_in_order(path):
    counts = [c["execution_count"] for c in code_cells(path)]
    never_run = [i for i, n in enumerate(counts) if n is None]
    assert not never_run, f"{path.name}: code cells {never_run} have execution_count null; run `make notebooks`"
    assert counts == list(range(1, len(counts) + 1)), (
        f"{path.name}: execution counts {counts} are not 1, 2, 3, ...: "
        "re-run it top to bottom in a fresh kernel (`make notebooks NB=...`)"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_committed_errors(path):
    for cell in code_cells(path):
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", f"{path.name}: a cell's output is an error: {out.get('ename')}"


def test_toc_lists_every_chapter_and_nothing_missing():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r"file:\s*(\S+)", toc))
    for path in NOTEBOOKS:
        assert f"chapters/{path.stem}" in listed, f"{path.name} is not in _toc.yml"
    for entry in listed:
        matches = list(ROOT.glob(entry + ".*"))
        assert matches, f"_toc.yml lists {entry}, which does not exist"
