"""The book opened from disk (file://), as the README's "open it in a browser" invites.

A page read from a file:// URL is not served, and the browser treats it otherwise: a file
has no origin, so Chromium refuses the CORS request of the web font's preload (see
scripts/site_extras.py) and the font arrives only after the theme's script has laid the
sidebar out; the sidebar's "Glossary: English ↔ 中文" then stayed tofu boxes while the
article's Chinese was drawn (fixed in _static/cjk.css). These pages are opened from their
files, not through the server, and read with the rules every page meets (rules.py: math,
images, code width, slant, tofu), the sidebar included. Any request off the machine is
blocked and named. Console messages are not a rule here: the refused preload logs an error
on every page opened from disk, and the font still loads through _static/cjk.css. The live
pages, which need a server for their model files, say so in one line.
"""
from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests.site.browser import rules

# The landing page, a chapter with Chinese in its text, the glossary, and two pages of the
# Chinese edition (Chinese everywhere: the web font must arrive in time); every page has the
# sidebar with "Glossary: English ↔ 中文".
PAGES = ["intro.html", "chapters/01_black_box.html", "appendix/glossary.html",
         "zh/intro.html", "zh/chapters/02_soft_lookup.html"]
# The live pages and the element whose words say what to do.
LIVE = [("chapters/live_translator.html", "#lt-status"), ("chapters/live_writer.html", "#lw-status")]


def is_local_file(url: str) -> bool:
    """A URL that stays on this machine: a file, inline data, or http(s) on 127.0.0.1."""
    parsed = urlparse(url)
    if parsed.scheme in ("file", "data", "blob", "about"):
        return True
    return parsed.scheme in ("http", "https") and parsed.hostname == "127.0.0.1"


def open_file(context, site, name: str, elsewhere: list[str], errors: list[str]):
    """A tab on ``name`` read from disk; requests off the machine aborted and listed in
    ``elsewhere``, uncaught script errors in ``errors``."""
    tab = context.new_page()

    def route(route, request):  # playwright passes (route, request)
        if is_local_file(request.url):
            return route.continue_()
        elsewhere.append(request.url)
        return route.abort()

    tab.route("**/*", route)
    tab.on("pageerror", lambda e: errors.append(f"uncaught {e}"))
    tab.goto((site / name).resolve().as_uri(), wait_until="load")
    return tab


@pytest.mark.parametrize("name", PAGES)
def test_a_page_opened_from_disk_reads_as_served(context, site, name):
    elsewhere, errors = [], []
    tab = open_file(context, site, name, elsewhere, errors)
    found = rules.inspect(tab)
    drawn = rules.math(found) + rules.images(found) + rules.code_width(found)
    drawn += rules.slant(found) + [f"tofu: {t}" for t in rules.tofu(tab)]
    assert not elsewhere, f"requests to another host: {elsewhere}"
    assert not errors, "\n".join(errors)
    assert not drawn, "\n".join(drawn)


@pytest.mark.parametrize("name, status", LIVE)
def test_a_live_page_opened_from_disk_says_to_serve_it(context, site, name, status):
    tab = context.new_page()
    tab.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:")
              else r.abort())
    tab.goto((site / name).resolve().as_uri(), wait_until="load")
    said = tab.locator(status).text_content()
    assert "make serve" in said, f"opened from file:// it says {said!r}, not to run make serve"


def test_the_guard_keeps_requests_on_the_machine():
    assert is_local_file("file:///book/_static/cjk.css") and is_local_file("data:font/woff2;x")
    assert is_local_file("http://127.0.0.1:8000/x.js")
    assert not is_local_file("https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex.js")
    assert not is_local_file("http://127.0.0.1.evil.com/x")
    assert not is_local_file("http://127.0.0.1:80@evil.com/x")
