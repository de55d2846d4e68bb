"""The book opened from disk (file://), as the README's "open it in a browser" invites.

A page read from a file:// URL is not served, and the browser treats it otherwise: a file
has no origin, so Chromium refuses the CORS request of the web font's preload (see
scripts/site_extras.py) and the font arrives only after the theme's script has laid the
sidebar out; the sidebar's "Glossary: English ↔ 中文" then stayed tofu boxes while the
article's Chinese was drawn (fixed in _static/cjk.css). These pages are opened from their
files, not through the check's server, and inspected with the same rules as every page
(check_browser's INSPECT_JS and page_problems: tofu, math, images), the sidebar included.
Any request off the machine is blocked and reported, as open_page does for http pages.
Console messages are not rules here: the refused preload logs an error on every page
opened from disk, and the font still loads through _static/cjk.css.
"""
from __future__ import annotations

from urllib.parse import urlparse

from check_browser import inspect, page_problems

# The landing page, a chapter with Chinese in its text, the glossary, and two pages of the
# Chinese edition (Chinese everywhere: the web font must arrive in time); every page has the
# sidebar with "Glossary: English ↔ 中文".
PAGES = ["intro.html", "chapters/01_black_box.html", "appendix/glossary.html",
         "zh/intro.html", "zh/chapters/02_soft_lookup.html"]


def is_local_file(url: str) -> bool:
    """A URL that stays on this machine: a file, inline data, or http(s) on 127.0.0.1."""
    parsed = urlparse(url)
    if parsed.scheme in ("file", "data", "blob", "about"):
        return True
    return parsed.scheme in ("http", "https") and parsed.hostname == "127.0.0.1"


def check(context, origin, html_dir) -> list[str]:
    problems = []
    for name in PAGES:
        label = f"file://{name}"
        page = context.new_page()

        def route(route, request, label=label):  # playwright passes (route, request)
            if is_local_file(request.url):
                return route.continue_()
            problems.append(f"{label}: request: to another host: {request.url}")
            return route.abort()

        page.route("**/*", route)
        page.on("pageerror", lambda e, label=label:
                problems.append(f"{label}: console: uncaught {e}"))
        page.goto((html_dir / name).resolve().as_uri(), wait_until="load")
        problems += page_problems(label, inspect(page))
        page.close()
    print(f"file:// pages: {len(PAGES)} opened from disk: {len(problems)} problem(s)")
    return problems
