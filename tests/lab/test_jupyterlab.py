"""A chapter opened in JupyterLab (`make lab`) reads as its page does, and opening it
changes nothing. Each notebook is opened once, in a JupyterLab from this environment and
headless Chromium (tests/lab/conftest.py), and each test asserts one finding on it:

* opening it marks nothing as changed, and saving it writes back what it read;
* its MyST is rendered (jupyterlab-myst): no label or role shown as text;
* its explorers draw as charts, not as the page's note for readers without JavaScript;
* its glued numbers show their values, formatted as the book formats them (those of a
  solution once it is unfolded: each test reads the page as it opened, or unfolded);
* its citations show what the book shows, not jupyterlab-myst's "Citation Not Found";
* the cells of its solutions are folded, without their first line giving the answer away.

The last four are the book's lab extension (labextension/, linked by `make install`).
About 10 s a notebook and 15 s to start: `make lab-check` (not part of `make test`), or
one notebook, ``pytest -m lab tests/lab -k 02_soft_lookup``.
"""
from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

import pytest

from tests.lab.conftest import TIMEOUT, wait_for
from tests.lab.expected import (NOTEBOOKS, ROOT, cite_texts, explorer_cells, glue_texts, read,
                                solution_cells)

pytestmark = pytest.mark.lab

# Everything a test looks at, read from the page at once: per cell (in the notebook's
# order) what jupyterlab-myst and the lab extension drew.
READ_PAGE = """() => {
  const tab = document.querySelector(".lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-current");
  const cells = [...document.querySelectorAll(".jp-Notebook .jp-Cell")].map(cell => {
    const preview = cell.querySelector(".jp-InputPlaceholder .jp-PlaceholderText");
    return {
      text: cell.querySelector(".jp-RenderedMarkdown")?.innerText ?? "",
      inputFolded: !!cell.querySelector(".jp-InputPlaceholder"),
      outputsFolded: !!cell.querySelector(".jp-OutputPlaceholder"),
      previewShown: !!preview && getComputedStyle(preview).display !== "none",
      glue: [...cell.querySelectorAll("[data-glue]")].map(s => [s.dataset.glue, s.textContent]),
      cites: [...cell.querySelectorAll("[data-cite]")].map(s => [s.dataset.cite, s.textContent]),
      citeWarnings: cell.querySelectorAll('span[title="Citation Not Found"]').length,
      charts: cell.querySelectorAll(".jp-RenderedVegaLite canvas, .jp-RenderedVegaLite svg.marks").length,
      notes: cell.querySelectorAll(".vl-explorer-note").length,
    };
  });
  return {dirty: (tab?.className ?? "").includes("jp-mod-dirty"), cells};
}"""


@dataclasses.dataclass
class Opened:
    """What JupyterLab showed of one notebook, as it opened (``cells``) and with every folded
    cell unfolded (``unfolded``), and what saving it as it opened changed."""
    dirty: bool
    cells: list[dict]
    unfolded: list[dict]
    changes: list[str]
    console: list[str]


def json_changes(before, after, where="") -> list[str]:
    """Where two parsed notebooks differ ('metadata.kernelspec.display_name: ...')."""
    if isinstance(before, dict) and isinstance(after, dict):
        return [change for key in sorted(before.keys() | after.keys())
                for change in json_changes(before.get(key), after.get(key),
                                           f"{where}.{key}" if where else key)]
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [change for i, (b, a) in enumerate(zip(before, after))
                for change in json_changes(b, a, f"{where}[{i}]")]
    return [] if before == after else [f"{where}: {before!r} -> {after!r}"]


def settled(page, nb, folded=()) -> bool:
    """Whether the page shows what the extension draws for ``nb`` outside the ``folded``
    cells: every glued number, citation and chart (a failing extension never gets there:
    the caller stops waiting)."""
    counts = page.evaluate("""() => [
        document.querySelectorAll("[data-glue]").length,
        document.querySelectorAll("[data-cite]").length,
        document.querySelectorAll(".jp-RenderedVegaLite canvas, .jp-RenderedVegaLite svg.marks").length]""")
    return counts == [len([i for i, *_ in found(nb) if i not in folded])
                      for found in (glue_texts, cite_texts)] + [len(explorer_cells(nb))]


def wait_until_settled(page, nb, folded=()):
    try:
        wait_for("the page drawn", lambda: settled(page, nb, folded), timeout=20)
    except TimeoutError:
        pass  # the tests say what is missing
    page.wait_for_timeout(500)


def open_notebook(browser, lab, path: Path) -> Opened:
    rel = path.relative_to(ROOT).as_posix()
    served = lab.root / rel
    original = served.read_text(encoding="utf-8")
    nb = read(path)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    console = []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}")
            if m.type in ("error", "warning") else None)
    try:
        page.goto(lab.url(rel))
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=TIMEOUT * 1000)
        # The kernel started for the notebook is idle: its info reply (name, language) is in.
        wait_for(f"{rel}'s kernel idle", lambda: [
            s for s in lab.api("/api/sessions")
            if s["path"] == rel and s["kernel"]["execution_state"] == "idle"])
        wait_until_settled(page, nb, folded=solution_cells(nb))
        page.wait_for_timeout(500)  # let the panel apply what the kernel said
        closed = page.evaluate(READ_PAGE)
        before = served.stat().st_mtime_ns
        page.keyboard.press("Control+s")  # then read back what JupyterLab holds
        saved = wait_for(f"{rel} saved", lambda: served.stat().st_mtime_ns != before
                         and complete_json(served))
        # A reader unfolds the solutions: what they show is drawn then.
        page.evaluate("""() => document.querySelectorAll(
            ".jp-InputPlaceholder .jp-Placeholder-content").forEach(e => e.click())""")
        wait_until_settled(page, nb)
        opened = page.evaluate(READ_PAGE)
    finally:
        page.close()
        for session in lab.api("/api/sessions"):  # one kernel at a time
            lab.api(f"/api/sessions/{session['id']}", method="DELETE")
    return Opened(closed["dirty"], closed["cells"], opened["cells"],
                  json_changes(json.loads(original), json.loads(saved)), console)


def complete_json(path: Path) -> str | None:
    """The file's text once it is whole JSON (a save in progress is not)."""
    text = path.read_text(encoding="utf-8")
    try:
        json.loads(text)
    except ValueError:
        return None
    return text


@pytest.fixture(scope="session")
def opened(browser, lab):
    """``opened(path)``: the notebook as JupyterLab showed it (opened once a session)."""
    return functools.cache(lambda path: open_notebook(browser, lab, path))


def notebooks(having=None):
    """The notebooks as test parameters: all, or those where ``having(nb)`` finds something."""
    chosen = [p for p in NOTEBOOKS if having is None or having(read(p))]
    return pytest.mark.parametrize("path", chosen, ids=lambda p: p.name)


# ------------------------------------------------------------------ opening changes nothing
@notebooks()
def test_opening_marks_nothing_as_changed(opened, path):
    assert not opened(path).dirty, (
        f"opening {path.name} in JupyterLab marked it as changed (the dot on its tab)")


@notebooks()
def test_saving_a_freshly_opened_notebook_changes_nothing(opened, path):
    changes = opened(path).changes
    assert not changes, (f"saving the freshly opened {path.name} changed {len(changes)} "
                         "value(s): " + "; ".join(changes[:8]))


# ------------------------------------------------------------------ the MyST is rendered
@notebooks()
def test_markup_is_rendered_not_shown_as_text(opened, path):
    shown = [cell["text"] for cell in opened(path).unfolded if cell["text"]]
    raw = [text[:80] for text in shown
           if ")=" in text.splitlines()[0] or any(r in text for r in ("{ref}", "{glue", "{cite"))]
    assert not raw, f"{path.name}: rendered cells show MyST as text: {raw}"


# ------------------------------------------------------------------ what the extension draws
@notebooks(having=explorer_cells)
def test_explorers_draw_as_charts(opened, path):
    cells = opened(path).cells
    drawn = [i for i, cell in enumerate(cells) if cell["charts"]]
    notes = [i for i, cell in enumerate(cells) if cell["notes"]]
    assert (drawn, notes) == (explorer_cells(read(path)), []), (
        f"{path.name}: explorers drawn as charts in cells {drawn}, shown as the page's note "
        f"in cells {notes}; the explorers are in cells {explorer_cells(read(path))}")


@notebooks(having=glue_texts)
def test_glued_numbers_show_their_values(opened, path):
    shown = [(i, body, text) for i, cell in enumerate(opened(path).unfolded)
             for body, text in cell["glue"]]
    assert shown == glue_texts(read(path)), (
        f"{path.name}: the glued numbers (cell, role, text) are not what the book shows")


@notebooks(having=cite_texts)
def test_citations_show_as_in_the_book(opened, path):
    cells = opened(path).unfolded
    shown = [(i, key, text) for i, cell in enumerate(cells) for key, text in cell["cites"]]
    warnings = sum(cell["citeWarnings"] for cell in cells)
    assert (shown, warnings) == (cite_texts(read(path)), 0), (
        f"{path.name}: citations (cell, key, text) and 'Citation Not Found' warnings")


@notebooks(having=solution_cells)
def test_solutions_are_folded(opened, path):
    nb = read(path)
    cells = opened(path).cells
    folded = [i for i, cell in enumerate(cells) if cell["inputFolded"]]
    outputs = [i for i in solution_cells(nb) if nb.cells[i].cell_type == "code"
               and nb.cells[i].outputs and not cells[i]["outputsFolded"]]
    previews = [i for i, cell in enumerate(cells) if cell["previewShown"]]
    assert (folded, outputs, previews) == (solution_cells(nb), [], []), (
        f"{path.name}: folded cells {folded} (the solutions' cells: {solution_cells(nb)}), "
        f"solution outputs in view {outputs}, folded cells showing their first line {previews}")
