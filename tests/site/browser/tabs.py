"""Chromium as on a reader's machine, the built site served to it, and the tabs the tests open.

Debian's ``chromium`` (CHROMIUM) is driven by playwright's Python API with
``executable_path``: no browser download. It runs without the system's CJK fonts (a
fontconfig file that rejects every font covering Chinese or Japanese, NO_CJK_FONTS), so the
site's web font must draw every CJK character, and every request off the machine goes to a
proxy that is not there (:func:`nowhere`) and fails. The site is served on 127.0.0.1 by
Python's http.server, with the tests' JavaScript (tests/js/) beside it under ``/_tests/js/``.
:func:`watch` names every request a tab makes elsewhere, every failed request or HTTP error,
every console error and uncaught script error.
"""
from __future__ import annotations

import contextlib
import functools
import http.server
import os
import socket
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[3]
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS = ROOT / "_build" / "screenshots"
TESTS_JS = ROOT / "tests" / "js"  # served as /_tests/js/
# The system's fonts less those for Chinese or Japanese (FONTCONFIG_FILE of the browser).
NO_CJK_FONTS = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <selectfont><rejectfont>
    <pattern><patelt name="lang"><string>zh-cn</string></patelt></pattern>
    <pattern><patelt name="lang"><string>zh-tw</string></patelt></pattern>
    <pattern><patelt name="lang"><string>ja</string></patelt></pattern>
  </rejectfont></selectfont>
</fontconfig>
"""
JS = Path(__file__).resolve().parent / "js"


@functools.cache
def js(name: str) -> str:
    """The function of tests/site/browser/js/<name>.js, for ``evaluate`` (its leading comment
    lines, which say what it does, left out)."""
    lines = (JS / f"{name}.js").read_text(encoding="utf-8").splitlines()
    while lines and lines[0].startswith("//"):
        lines.pop(0)
    return "\n".join(lines)


class _Site(http.server.SimpleHTTPRequestHandler):
    """The site's files; /_tests/js/... from tests/js/; /_tests/pages/... from the folder
    ``server.pages`` (the tests' own small pages, :func:`serve`)."""

    def translate_path(self, path):
        path = urlparse(path).path
        if path.startswith("/_tests/js/"):
            return str(TESTS_JS / Path(path).name)
        if path.startswith("/_tests/pages/") and getattr(self.server, "pages", None):
            return str(self.server.pages / path.removeprefix("/_tests/pages/"))
        return super().translate_path(path)

    def log_message(self, *args):
        pass


class _Server(http.server.ThreadingHTTPServer):
    """The test server: a browser that hangs up in the middle of a response (a page left
    while the model files still download) is no error; any other error is printed, as
    ``socketserver`` does."""

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipe, ConnectionReset
            return
        super().handle_error(request, client_address)


def serve(folder: Path, pages: Path | None = None) -> tuple[http.server.ThreadingHTTPServer, str]:
    """An HTTP server for ``folder`` on 127.0.0.1 (a free port), in a thread; and its origin.
    ``pages``: a folder served as /_tests/pages/ (the tests' own small pages)."""
    server = _Server(("127.0.0.1", 0), functools.partial(_Site, directory=str(folder)))
    server.pages = pages
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@functools.cache
def nowhere() -> str:
    """A proxy that is not there: a port of 127.0.0.1 bound and never listened on, so that
    every connection to it is refused at once."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    nowhere.socket = sock  # held until the process ends: the port stays ours
    return f"http://127.0.0.1:{sock.getsockname()[1]}"


def launch(playwright, origin: str | None = None):
    """Chromium without CJK fonts; with ``origin`` (our server), every request elsewhere,
    another host or another port of this one, goes through :func:`nowhere` and fails.
    (A ``page.route`` for every request would cost a round trip to Python per request.)"""
    fonts = SCREENSHOTS.parent / "no-cjk-fonts.conf"
    fonts.parent.mkdir(parents=True, exist_ok=True)
    fonts.write_text(NO_CJK_FONTS, encoding="utf-8")
    guard = [f"--proxy-server={nowhere()}",
             f"--proxy-bypass-list=<-loopback>;{urlparse(origin).netloc}"] if origin else []
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS + guard,
                                      env={**os.environ, "FONTCONFIG_FILE": str(fonts)})


def is_local(url: str, origin: str) -> bool:
    """Whether ``url`` is served by our own server (or is inline data)."""
    return url.startswith((origin + "/", "data:", "blob:", "about:")) or url == origin


class Watched:
    """What a tab did that a reader would not want: ``requests`` (to another host, failed,
    an HTTP error) and ``console`` (errors, uncaught exceptions), one line each."""

    def __init__(self, tab, origin: str):
        self.requests: list[str] = []
        self.console: list[str] = []
        self._tab = tab
        self._listeners = {
            "request": lambda r: not is_local(r.url, origin) and
            self.requests.append(f"to another host: {r.url}"),
            "requestfailed": lambda r: is_local(r.url, origin) and
            self.requests.append(f"failed {r.url} ({r.failure})"),
            "response": lambda r: r.status >= 400 and
            self.requests.append(f"HTTP {r.status} for {r.url}"),
            "console": lambda m: m.type == "error" and self.console.append(m.text[:200]),
            "pageerror": lambda e: self.console.append(f"uncaught {e}")}
        for event, listener in self._listeners.items():
            tab.on(event, listener)

    def stop(self) -> None:
        """Watch no more (the tab goes on to another page, watched by another)."""
        for event, listener in self._listeners.items():
            self._tab.remove_listener(event, listener)

    def problems(self) -> list[str]:
        return [f"request: {r}" for r in self.requests] + [f"console: {c}" for c in self.console]


def open_tab(context, origin: str, name: str, **goto):
    """A new tab of ``context`` on page ``name`` of the served site, watched from the first
    request: (the tab, its :class:`Watched`)."""
    tab = context.new_page()
    watched = Watched(tab, origin)
    tab.goto(f"{origin}/{name}", wait_until="load", **goto)
    return tab, watched


@contextlib.contextmanager
def live_page(browser, origin: str, name: str, ready: str):
    """A tab on a live page for a module of tests, once its scripts say they are ``ready``
    (``"window.liveWriter.ready"``): (the tab, its :class:`Watched`)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        tab, watched = open_tab(context, origin, name)
        tab.evaluate(ready)
        yield tab, watched
    finally:
        context.close()


def without_javascript(browser, origin: str, name: str, selectors: list[str]) -> dict:
    """Page ``name`` as a reader with JavaScript off sees it: for each selector, the text
    of its element as CSS shows it (inner_text: what display: none hides is left out), or
    None where the element is not visible."""
    context = browser.new_context(java_script_enabled=False)
    try:
        tab = context.new_page()
        tab.goto(f"{origin}/{name}", wait_until="load")
        return {s: tab.locator(s).inner_text() if tab.locator(s).is_visible() else None
                for s in selectors}
    finally:
        context.close()
