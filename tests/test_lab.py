"""`make lab` shows the chapters as the book does, and opening one changes nothing (issue 32).

JupyterLab renders MyST markup (labels, {ref} roles, admonitions, exercises) only through the
jupyterlab-myst extension, pinned in requirements.txt; without it a reader sees
`(ch-soft-lookup)=` and "{ref}`chapter 1 <ch-black-box>`" as text. These tests ask the
installed JupyterLab's own configuration and read the notebooks, without starting JupyterLab
(a few seconds). tests/lab/ opens the notebooks in a running JupyterLab in Chromium
(`make lab-check`, minutes).
"""
import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from myst_nb.core.variables import format_plain_text
from jupyter_core.paths import jupyter_config_path, jupyter_path
from jupyter_server.extension.config import ExtensionConfigManager
from jupyterlab_server.config import get_federated_extensions, get_page_config

from scripts.execute_notebooks import FOLDED, kernelspec_metadata, solution_cells
from tests.lab.expected import REFERENCES, glued, roles, split_glue

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb")) + sorted(
    (ROOT / "appendix").glob("*.ipynb"))
EXTENSION = "jupyterlab-myst"  # the lab (browser) extension; its server half: jupyterlab_myst
LAB_EXTENSION = "illustrated-lab"  # the book's own: labextension/
# Formats whose answers are easy to get wrong: halves rounded to even from the exact binary
# value (0.125 is exact, 0.135 is not), carries, exponents, signs, grouping, strings.
EDGE_CASES = [("0.125", ".2f"), ("0.375", ".2f"), ("2.5", ".0f"), ("3.5", ".0f"),
              ("0.135", ".2f"), ("-0.0", ".1f"), ("-0.04", ".1f"), ("9.996", ".2f"),
              ("99999.5", ".0f"), ("1e-05", "s"), ("1e+16", "s"), ("3.0", "s"),
              ("123456789", ","), ("-1234.5", ","), ("1234.5", ",.1f"), ("0.000123", ".2g"),
              ("123456.0", ".3g"), ("0.5", ".0%"), ("0.125", ".1%"), ("12345.678", ".2e"),
              ("9.999e-05", ".2e"), ("0.0", ".2e"), ("7", "+.1f"), ("-3", "d"),
              ("2.7", "d"), ("'text'", "s"), ("[1, 2]", "s"), ("True", "s"), ("inf", ".1f"),
              ("1e-320", ".3g")]


def pinned(package: str) -> str:
    """The version requirements.txt pins ``package`` to."""
    text = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    found = re.search(rf"^{re.escape(package)}==(\S+)", text, re.M)
    assert found, f"requirements.txt pins no {package}"
    return found.group(1)


def test_jupyterlab_myst_is_installed_at_its_pin():
    extensions = get_federated_extensions(jupyter_path("labextensions"))
    assert EXTENSION in extensions, (
        f"JupyterLab has no {EXTENSION} extension (found: {sorted(extensions)}): "
        "`make lab` would show the chapters' MyST as text; install requirements.txt")
    assert extensions[EXTENSION]["version"] == pinned(EXTENSION), (
        f"{EXTENSION} {extensions[EXTENSION]['version']} is installed, "
        f"requirements.txt pins {pinned(EXTENSION)}")


def disabled(extension: str) -> list[str]:
    """The entries of JupyterLab's page config that disable ``extension`` (what `jupyter
    labextension disable` writes: labconfig/page_config.json at any level)."""
    from jupyterlab.commands import get_app_dir

    page_config = get_page_config(jupyter_path("labextensions"),
                                  app_settings_dir=str(Path(get_app_dir()) / "settings"))
    entries = page_config.get("disabledExtensions", {})
    if isinstance(entries, list):  # the older form of the setting
        entries = dict.fromkeys(entries, True)
    return [name for name, value in entries.items() if value is not False
            and (name.startswith(extension) or re.match(name, extension))]


def test_jupyterlab_myst_is_enabled():
    off = disabled(EXTENSION)
    assert not off, (f"JupyterLab's page config disables {off}: the chapters' MyST shows as "
                     f"text; `jupyter labextension enable {EXTENSION}`")
    # Its server extension makes markdown cells' trust follow the notebook's.
    # The order of jupyter_config_path() is the server's: the first place that says wins.
    config = ExtensionConfigManager(read_config_path=jupyter_config_path())
    servers = config.get_jpserver_extensions()
    assert servers.get("jupyterlab_myst") is True, (
        f"jupyter_server's extension jupyterlab_myst is not enabled: {servers}")


def test_the_book_lab_extension_is_installed_from_this_repository():
    """labextension/ (glued numbers, citations, explorers, folded solutions), linked into
    the environment's JupyterLab by `make install`; enabled like any extension."""
    extensions = get_federated_extensions(jupyter_path("labextensions"))
    assert LAB_EXTENSION in extensions, (
        f"JupyterLab has no {LAB_EXTENSION} extension (found: {sorted(extensions)}): "
        "make install links labextension/ into .venv")
    installed = Path(extensions[LAB_EXTENSION]["ext_path"]).resolve()
    assert installed == ROOT / "labextension", (
        f"JupyterLab loads {LAB_EXTENSION} from {installed}, not from this repository's "
        "labextension/ (make install links it)")
    off = disabled(LAB_EXTENSION)
    assert not off, (f"JupyterLab's page config disables {off}; "
                     f"`jupyter labextension enable {LAB_EXTENSION}`")


def test_the_lab_citations_are_those_of_references_bib():
    """labextension/static/references.json is what scripts/lab_references.py makes of
    references.bib with the book's styles."""
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "lab_references.py"),
                           "--check"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_lab_shows_what_the_book_shows(answers_of):
    """The extension's JavaScript (tests/js/lab.mjs runs it under Node) against Python: every
    glued number of the book formatted as MyST-NB formats it, with ties and other edge
    cases; each notebook's solution cells as scripts/execute_notebooks.py finds them; each
    citation's words as references.json gives them."""
    books = [nbformat.read(path, as_version=4) for path in NOTEBOOKS]
    cases = sorted({(glued(nb)[split_glue(body)[0]], split_glue(body)[1])
                    for nb in books for _, _, body in roles(nb, "glue")}) + EDGE_CASES
    cites = sorted({(role, key) for nb in books for _, role, key in roles(nb, "cite")})
    references = json.loads(REFERENCES.read_text(encoding="utf-8"))
    answers = answers_of(ROOT / "tests" / "js" / "lab.mjs", {
        "glue": cases, "cites": cites, "references": references,
        "notebooks": [[{"type": c.cell_type, "source": c.source} for c in nb.cells]
                      for nb in books]})
    wrong = [(text, spec, python, js) for (text, spec), js in zip(cases, answers["glue"])
             if js != (python := format_plain_text(text, spec))]
    assert not wrong, f"(repr, spec, Python, JavaScript) where they differ: {wrong[:10]}"
    assert answers["solutions"] == [solution_cells(nb) for nb in books]
    assert answers["cites"] == [references[key].get(role, references[key]["cite"])
                                for role, key in cites]


@functools.cache
def lab_kernelspec() -> dict:
    """The kernelspec JupyterLab writes for the kernel `make lab` starts."""
    return kernelspec_metadata()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_opening_a_notebook_in_jupyterlab_changes_nothing(path):
    """JupyterLab writes the kernel it starts into the notebook: a different one marks it
    changed on opening (the dot on its tab) and shows up in `git diff` after a save."""
    committed = dict(nbformat.read(path, as_version=4).metadata.get("kernelspec", {}))
    expected = lab_kernelspec()
    assert committed == expected, (
        f"{path.name}: its kernelspec {committed} is not the kernel JupyterLab starts "
        f"({expected}), so opening it marks it changed; scripts/execute_notebooks.py "
        "writes the right one (make notebooks NB=...)")


def folded_as_jupyterlab_keeps_it(cell) -> bool:
    """Input and outputs hidden, with the ``collapsed`` JupyterLab writes beside them
    (a markdown cell: its text hidden)."""
    if cell.cell_type == "code":
        return cell.metadata.get("jupyter") == FOLDED and cell.metadata.get("collapsed") is True
    return cell.metadata.get("jupyter") == {"source_hidden": True} and "collapsed" not in cell.metadata


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_cells_of_every_solution_are_folded(path):
    """JupyterLab folds a cell whose metadata says so; the cells of a solution, and only
    those, say so (scripts/execute_notebooks.py writes it: make notebooks NB=...)."""
    nb = nbformat.read(path, as_version=4)
    inside = solution_cells(nb)
    folded = [i for i, cell in enumerate(nb.cells)
              if cell.metadata.get("jupyter") or "collapsed" in cell.metadata]
    otherwise = [i for i in inside if not folded_as_jupyterlab_keeps_it(nb.cells[i])]
    assert (folded, otherwise) == (inside, []), (
        f"{path.name}: cells folded {folded}, the solutions' cells {inside}, folded otherwise "
        f"than JupyterLab keeps it {otherwise}; scripts/execute_notebooks.py folds them")
