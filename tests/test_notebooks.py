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


def markdown(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_figures_are_computed_by_the_package(path):
    """Figures come from illustrated.draw: no pyplot in a chapter, no pasted images."""
    code = "\n".join("".join(c["source"]) for c in code_cells(path))
    assert "pyplot" not in code and "plt." not in code, f"{path.name}: draw with illustrated.draw, not pyplot"
    text = markdown(path)
    pasted = re.findall(r"!\[[^\]]*\]\([^)]*\)|```\{(?:image|figure)\}|<img\b", text)
    assert not pasted, f"{path.name}: pasted images {pasted}; compute figures with illustrated.draw"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_outline(path):
    """Every chapter opens with one title, says what you will learn, and ends with a
    summary and at least four exercises, each with a solution."""
    text = markdown(path)
    assert len(re.findall(r"^# ", text, re.M)) == 1, f"{path.name}: needs exactly one '# ' title"
    assert "What you will learn" in text, f"{path.name}: no 'What you will learn'"
    assert re.search(r"^## Summary", text, re.M), f"{path.name}: no '## Summary'"
    assert re.search(r"^## Exercises", text, re.M), f"{path.name}: no '## Exercises'"
    exercises = re.findall(r"```\{exercise\}", text)
    solutions = re.findall(r"```\{solution(?:-start)?\}", text)  # plain or gated form
    assert len(exercises) >= 4, f"{path.name}: {len(exercises)} exercises, want at least 4"
    assert len(solutions) >= len(exercises), f"{path.name}: an exercise has no solution"


def cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_bookkeeping_is_hidden_and_imports_foldable(path):
    """glue calls live in cells the site removes; the imports cell is folded, not removed,
    so a reader can see where `draw`, `glue` and the package's functions come from."""
    code = [c for c in cells(path) if c["cell_type"] == "code"]
    assert "hide-cell" in tags(code[0]), f"{path.name}: tag the imports cell hide-cell"
    for cell in code:
        source = "".join(cell["source"])
        if re.search(r"^\s*glue\(", source, re.M):
            assert "remove-cell" in tags(cell), (
                f"{path.name}: a cell calling glue() is shown on the site; move the glue "
                f"calls into a cell tagged remove-cell:\n{source[:200]}")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_exercise_code_lives_inside_solutions(path):
    """After '## Exercises', every code cell sits between a gated `solution-start` and its
    `solution-end`, so a closed solution hides the code, its output and any demonstration
    of a typical mistake."""
    inside, seen_exercises = False, False
    for cell in cells(path):
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            seen_exercises = seen_exercises or bool(re.search(r"^## Exercises", source, re.M))
            for directive in re.findall(r"```\{(solution-start|solution-end)\}", source):
                opening = directive == "solution-start"
                assert inside != opening, f"{path.name}: unbalanced {directive}"
                inside = opening
        elif seen_exercises and source.strip():
            assert inside, f"{path.name}: exercise code outside a solution:\n{source[:200]}"
    assert not inside, f"{path.name}: a solution-start has no solution-end"
