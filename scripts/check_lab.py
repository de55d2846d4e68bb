"""Open chapters in JupyterLab in headless Chromium: is their MyST rendered, are they unchanged?

    .venv/bin/python scripts/check_lab.py [NOTEBOOK ...] [--screenshots DIR]

(default: chapters/02_soft_lookup.ipynb; screenshots _build/lab/lab_<name>.png). What `make
lab` promises a reader (issue 32): the chapters' markup (labels, {ref} roles, admonitions,
exercises) is rendered by the jupyterlab-myst extension, not shown as text, and opening a
chapter marks nothing as changed (no unsaved-changes dot on its tab).

The notebooks are copied into a temporary folder that JupyterLab serves (an autosave or a
save can never touch the repository); JupyterLab runs from this interpreter's environment
on 127.0.0.1 with a random token and its own settings, workspaces and runtime folders (a
reader's ~/.jupyter plays no part). Once a notebook's kernel is idle the script saves it
(Ctrl+S) and compares the saved notebook with the original, value by value: a difference
is what JupyterLab changed by opening it. About 20 s to start and 10 to 25 s a notebook on
2 busy cores (all 20 notebooks: 332 s at a load of 20), so not part of `make test`;
tests/test_lab.py checks the extension and the kernelspec in a few seconds. Run it after
changing the jupyterlab or jupyterlab-myst pins. Exits non-zero on any failure.
Chromium: /usr/bin/chromium (Debian's), as scripts/check_browser.py.
"""
import argparse
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_lab(root_dir: Path, scratch: Path, port: int, token: str) -> subprocess.Popen:
    """JupyterLab from this interpreter's environment, isolated from the user's settings."""
    env = dict(os.environ)
    for name, sub in [("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                      ("JUPYTER_DATA_DIR", "data"), ("JUPYTERLAB_SETTINGS_DIR", "settings"),
                      ("JUPYTERLAB_WORKSPACES_DIR", "workspaces")]:
        env[name] = str(scratch / sub)
    # The kernel is this interpreter's, as in `make lab` (its python3 kernelspec).
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env["PATH"]
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip", "127.0.0.1",
               f"--port={port}", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={root_dir}", "--LabApp.news_url=",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
               "--KernelManager.transport_encryption=auto"]
    if os.geteuid() == 0:
        command.append("--allow-root")
    # No "get notified about Jupyter news?" toast over the screenshot.
    notification = scratch / "settings" / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True)
    notification /= "notification.jupyterlab-settings"
    notification.write_text('{"fetchNews": "false", "checkForUpdates": false}')
    log = open(scratch / "lab.log", "w")
    return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)


def api(port: int, token: str, path: str):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                     headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def wait_for(what: str, condition, timeout: float):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = condition()
        except OSError:
            value = None
        if value:
            return value
        time.sleep(0.5)
    raise TimeoutError(f"{what}: not within {timeout:.0f} s")


def complete_json(path: Path) -> str | None:
    """The file's text once it is whole JSON (a save in progress is not)."""
    text = path.read_text(encoding="utf-8")
    try:
        json.loads(text)
    except ValueError:
        return None
    return text


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


def check_notebook(page, port: int, token: str, rel: str, served: Path,
                   screenshot: Path, timeout: float) -> list[str]:
    """Open one served notebook in the lab; return its failures."""
    failures = []
    original = served.read_text(encoding="utf-8")
    page.goto(f"http://127.0.0.1:{port}/lab/tree/{rel}?reset&token={token}")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=timeout * 1000)
    # The kernel started for the notebook is idle: its info reply (name, language) is in.
    wait_for(f"{rel}'s kernel idle", lambda: [
        s for s in api(port, token, "/api/sessions")
        if s["path"] == rel and s["kernel"]["execution_state"] == "idle"], timeout)
    page.wait_for_timeout(3000)  # let the notebook panel apply what the kernel said
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-current")
    if "jp-mod-dirty" in (tab.get_attribute("class") or ""):
        failures.append(f"opening {rel} marked it as changed (the dot on its tab)")
    first = page.locator(".jp-MarkdownCell").first.inner_text()
    if ")=" in first:
        failures.append(f"{rel}: the first cell shows its label as text: {first[:60]!r}")
    rendered = page.locator(".jp-MarkdownCell .jp-RenderedMarkdown")
    raw = {role: rendered.filter(has_text=role).count() for role in ("{ref}", "{glue:text}")}
    if any(raw.values()):
        failures.append(f"{rel}: rendered cells show roles as text: {raw}")
    page.screenshot(path=str(screenshot))
    before = served.stat().st_mtime_ns
    page.keyboard.press("Control+s")  # then read back what JupyterLab holds
    saved = wait_for(f"{rel} saved", lambda: served.stat().st_mtime_ns != before
                     and complete_json(served), timeout)
    changes = json_changes(json.loads(original), json.loads(saved))
    if changes:
        failures.append(f"saving the freshly opened {rel} changed {len(changes)} value(s): "
                        + "; ".join(changes[:8]))
    elif saved != original:
        print(f"note: {rel} saved again has the same content, written otherwise "
              "(JavaScript writes 0.0 as 0)")
    for session in api(port, token, "/api/sessions"):  # one kernel at a time
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/sessions/{session['id']}", method="DELETE",
            headers={"Authorization": f"token {token}"})
        urllib.request.urlopen(request, timeout=30).close()
    return failures


def check(notebooks: list[Path], screenshots: Path, timeout: float) -> list[str]:
    """Open each notebook in one JupyterLab; return the failures (empty: all good)."""
    from playwright.sync_api import sync_playwright

    failures = []
    scratch = Path(tempfile.mkdtemp(prefix="check_lab_"))
    served = {}
    for notebook in notebooks:
        rel = f"{notebook.parent.name}/{notebook.name}"
        served[rel] = scratch / "root" / rel
        served[rel].parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(notebook, served[rel])
    port, token = free_port(), secrets.token_hex(16)
    start = time.monotonic()
    lab = start_lab(scratch / "root", scratch, port, token)
    try:
        wait_for("JupyterLab answering", lambda: api(port, token, "/api/status"), timeout)
        extensions = api(port, token, "/lab/api/extensions")
        myst = [e for e in extensions if e["name"] == "jupyterlab-myst"]
        if not (myst and myst[0]["enabled"]):
            failures.append(f"jupyterlab-myst is not installed and enabled in the lab: {myst}")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            for rel, path in served.items():
                opened = time.monotonic()
                shot = screenshots / f"lab_{path.stem}.png"
                found = check_notebook(page, port, token, rel, path, shot, timeout)
                failures += found
                print(f"{rel}: {'FAILED' if found else 'ok'} "
                      f"({time.monotonic() - opened:.1f} s; {shot})")
            browser.close()
        # A {ref} to another notebook's label is unknown to the lab (each notebook is
        # rendered alone): it logs "Cross reference target was not found" and keeps the text.
        others = [e for e in errors if "Cross reference target was not found" not in e]
        print(f"browser console: {len(errors)} error(s), "
              f"{len(errors) - len(others)} of them cross references to other notebooks")
        for e in others[:5]:
            print("  console error:", e[:200])
    finally:
        lab.terminate()
        lab.wait(timeout=30)
        print(f"lab check took {time.monotonic() - start:.1f} s")
    if failures:
        print(f"the lab's log and the saved notebooks: {scratch}")
    else:
        shutil.rmtree(scratch)
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path,
                        default=[ROOT / "chapters" / "02_soft_lookup.ipynb"])
    parser.add_argument("--screenshots", type=Path, default=ROOT / "_build" / "lab",
                        help="folder for lab_<notebook>.png (default _build/lab)")
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    args.screenshots.mkdir(parents=True, exist_ok=True)
    failures = check([n.resolve() for n in args.notebooks], args.screenshots, args.timeout)
    for f in failures:
        print("FAIL:", f)
    print("lab check " + ("FAILED" if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
