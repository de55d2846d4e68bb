"""An explorer on a page opened from disk (file://), as a reader opens a built page.

A browser fetches no ES module from a file:// page (it has no origin: CORS): an explorer
whose script was a module stayed the page's note, "drawn here when the page runs
JavaScript", on a page that runs JavaScript. The page here is made as the book makes one:
the explorer's HTML, and the scripts scripts/site_extras.py adds to a page with an explorer,
with the attributes it gives them, the vendor files from node_modules (`npm ci`, which
`make book` runs) and _static/explorers.js. Opened from its file in Chromium, the explorer
is drawn; one that fails there says to serve the book (`make serve`).
"""
from __future__ import annotations

import html
import shutil
from pathlib import Path

import pytest

from illustrated import explorers
from scripts import site_extras, vendor

pytestmark = pytest.mark.lab
ROOT = Path(__file__).resolve().parents[2]


class ScriptsOf:
    """What Sphinx's app records of ``add_js_file`` calls (a stand-in for the app)."""

    def __init__(self, srcdir: Path):
        self.srcdir, self.scripts = srcdir, []

    def add_js_file(self, name, priority=500, loading_method=None, **attributes):
        if loading_method:
            attributes[loading_method] = True
        self.scripts.append((priority, name, attributes))


def script_tag(name: str, attributes: dict) -> str:
    words = [key if value is True else f'{key}="{html.escape(str(value))}"'
             for key, value in attributes.items()]
    return f'<script src="_static/{name}" {" ".join(words)}></script>'


def page_with(tmp_path: Path, body: str) -> Path:
    """A page as the book makes one for ``body``, the HTML of an explorer."""
    static = tmp_path / "_static"
    (static / "vendor").mkdir(parents=True)
    for source, name in vendor.FILES.items():
        if name.startswith(("vega", "LICENSE-vega")):
            if not (vendor.MODULES / source).is_file():
                pytest.skip(f"node_modules/{source} is missing (npm ci, which make book runs)")
            shutil.copyfile(vendor.MODULES / source, static / "vendor" / name)
    shutil.copyfile(ROOT / "_static" / "explorers.js", static / "explorers.js")
    app = ScriptsOf(tmp_path)
    site_extras._explorer_scripts(app, "page", "page.html", {"body": body}, None)
    scripts = "\n".join(script_tag(name, attributes)
                        for _, name, attributes in sorted(app.scripts, key=lambda s: s[0]))
    page = tmp_path / "page.html"
    page.write_text(f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">{scripts}'
                    f"</head><body>{body}</body></html>", encoding="utf-8")
    return page


def opened(browser, page_file: Path) -> tuple[str | None, str | None]:
    """The explorer's state (explorers.js sets it once it has tried) and its note."""
    page = browser.new_page()
    try:
        page.goto(page_file.as_uri(), wait_until="load")
        try:
            page.wait_for_selector("div.vl-explorer[data-state]", timeout=15_000)
        except Exception:
            pass  # the assert says what the page shows
        return (page.evaluate("() => document.querySelector('div.vl-explorer').dataset.state"),
                page.evaluate("() => document.querySelector('.vl-explorer-note')?.textContent"))
    finally:
        page.close()


def test_an_explorer_opened_from_a_file_is_drawn(browser, tmp_path):
    state, note = opened(browser, page_with(tmp_path, explorers.mask_explorer(width=8).to_html()))
    assert state == "ready", (
        f"an explorer opened from file:// is not drawn (state {state!r}); it says {note!r}")


def test_an_explorer_that_fails_from_a_file_says_to_serve_the_book(browser, tmp_path):
    broken = explorers.Explorer({"datasets": {}, "mark": "no-such-mark"}, "a broken chart")
    state, note = opened(browser, page_with(tmp_path, broken.to_html()))
    assert state == "failed" and "make serve" in (note or ""), (
        f"a failing explorer opened from file:// (state {state!r}) says {note!r}")
