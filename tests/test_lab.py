"""`make lab` shows the chapters as the book does, and opening one changes nothing (issue 32).

JupyterLab renders MyST markup (labels, {ref} roles, admonitions, exercises) only through the
jupyterlab-myst extension, pinned in requirements.txt; without it a reader sees
`(ch-soft-lookup)=` and "{ref}`chapter 1 <ch-black-box>`" as text. These tests ask the
installed JupyterLab's own configuration and read the notebooks, without starting JupyterLab
(a few seconds). tests/lab/ opens the notebooks in a running JupyterLab in Chromium
(`make lab-check`, minutes).
"""
import functools
import re
from pathlib import Path

import nbformat
import pytest
from jupyter_core.paths import jupyter_config_path, jupyter_path
from jupyter_server.extension.config import ExtensionConfigManager
from jupyterlab_server.config import get_federated_extensions, get_page_config

from scripts.execute_notebooks import FOLDED, kernelspec_metadata, solution_cells

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb")) + sorted(
    (ROOT / "appendix").glob("*.ipynb"))
EXTENSION = "jupyterlab-myst"  # the lab (browser) extension; its server half: jupyterlab_myst


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


def test_jupyterlab_myst_is_enabled():
    # What `jupyter labextension disable` writes (labconfig/page_config.json at any level).
    from jupyterlab.commands import get_app_dir

    page_config = get_page_config(jupyter_path("labextensions"),
                                  app_settings_dir=str(Path(get_app_dir()) / "settings"))
    disabled = page_config.get("disabledExtensions", {})
    if isinstance(disabled, list):  # the older form of the setting
        disabled = dict.fromkeys(disabled, True)
    off = [name for name, value in disabled.items() if value is not False
           and (name.startswith(EXTENSION) or re.match(name, EXTENSION))]
    assert not off, (f"JupyterLab's page config disables {off}: the chapters' MyST shows as "
                     f"text; `jupyter labextension enable {EXTENSION}`")
    # Its server extension makes markdown cells' trust follow the notebook's.
    # The order of jupyter_config_path() is the server's: the first place that says wins.
    config = ExtensionConfigManager(read_config_path=jupyter_config_path())
    servers = config.get_jpserver_extensions()
    assert servers.get("jupyterlab_myst") is True, (
        f"jupyter_server's extension jupyterlab_myst is not enabled: {servers}")


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
