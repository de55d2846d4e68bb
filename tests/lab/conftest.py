"""A JupyterLab from this environment and a headless Chromium, for tests/lab/.

The notebooks are copied into a temporary folder that JupyterLab serves (an autosave or a
save can never touch the repository); JupyterLab runs on 127.0.0.1 with a random token and
its own settings, workspaces and runtime folders (a reader's ~/.jupyter plays no part), and
draws every cell at once (``windowingMode: none``: what a reader scrolls to, drawn now).
Chromium is Debian's (/usr/bin/chromium), never a download; without it the tests skip,
and fail where CI is set.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
SETTINGS = {  # settings file under JUPYTERLAB_SETTINGS_DIR -> its JSON
    # No "get notified about Jupyter news?" toast over the notebook.
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}
TIMEOUT = 120  # seconds for JupyterLab to answer, a notebook to open, a kernel to start


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what: str, condition, timeout: float = TIMEOUT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = condition()
        except OSError:
            value = None
        if value:
            return value
        time.sleep(0.25)
    raise TimeoutError(f"{what}: not within {timeout:.0f} s")


class Lab:
    """A running JupyterLab: its root folder, URL and token, and its REST API."""

    def __init__(self, root: Path, scratch: Path):
        self.root, self.port, self.token = root, free_port(), secrets.token_hex(16)
        env = dict(os.environ)
        for name, sub in [("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                          ("JUPYTER_DATA_DIR", "data"), ("JUPYTERLAB_SETTINGS_DIR", "settings"),
                          ("JUPYTERLAB_WORKSPACES_DIR", "workspaces")]:
            env[name] = str(scratch / sub)
        # The kernel is this interpreter's, as in `make lab` (its python3 kernelspec).
        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env["PATH"]
        for name, value in SETTINGS.items():
            path = scratch / "settings" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(value))
        command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip", "127.0.0.1",
                   f"--port={self.port}", f"--IdentityProvider.token={self.token}",
                   f"--ServerApp.root_dir={root}", "--LabApp.news_url=",
                   "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                   "--KernelManager.transport_encryption=auto"]
        if os.geteuid() == 0:
            command.append("--allow-root")
        self.log = scratch / "lab.log"
        self.process = subprocess.Popen(command, env=env, stdout=self.log.open("w"),
                                        stderr=subprocess.STDOUT)
        wait_for("JupyterLab answering", lambda: self.api("/api/status"))

    def api(self, path: str, method: str = "GET"):
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read()
        return json.loads(body) if body else None

    def url(self, rel: str) -> str:
        return f"http://127.0.0.1:{self.port}/lab/tree/{rel}?reset&token={self.token}"

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


@pytest.fixture(scope="session")
def chromium() -> str:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing, and CI is set (apt-get install chromium)")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    return CHROMIUM


@pytest.fixture(scope="session")
def browser(chromium):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    """JupyterLab serving a copy of the notebooks of chapters/ and appendix/."""
    scratch = tmp_path_factory.mktemp("lab")
    root = scratch / "root"
    from tests.lab.expected import NOTEBOOKS, ROOT
    for notebook in NOTEBOOKS:
        target = root / notebook.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(notebook, target)
    running = Lab(root, scratch)
    yield running
    running.stop()
