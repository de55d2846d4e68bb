"""`make lab` shows the chapters as the book does, and opening one changes nothing (issue 32).

JupyterLab renders MyST markup (labels, {ref} roles, admonitions, exercises) only through the
jupyterlab-myst extension, pinned in requirements.txt; without it a reader sees
`(ch-soft-lookup)=` and "{ref}`chapter 1 <ch-black-box>`" as text. These tests ask the
installed JupyterLab's own configuration, without starting it (well under a second).
scripts/check_lab.py opens a chapter in a running JupyterLab in Chromium (about 30 s).
"""
import functools
import re
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_core.paths import jupyter_config_path, jupyter_path
from jupyter_server.extension.config import ExtensionConfigManager
from jupyterlab_server.config import get_federated_extensions, get_page_config

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
    sys.path.insert(0, str(ROOT / "scripts"))
    from execute_notebooks import kernelspec_metadata
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
