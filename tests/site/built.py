"""The built website the tests of tests/site/ read: where it is, its pages, each page parsed.

The strict build (`make book-check`, scripts/build_book.py --check) writes it into
_build/check/html; `pytest tests/site --site _build/html` tests make book's instead.
"""
from __future__ import annotations

import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK_HTML = ROOT / "_build" / "check" / "html"  # scripts/build_book.py CHECK_HTML
ZH = "zh/"  # the Chinese edition's folder in the site (scripts/build_book.py ZH)
REDIRECTS = ("index.html", "zh/index.html")  # each edition's index.html only forwards


def is_redirect(html: str) -> bool:
    """A page that only forwards the reader elsewhere (Jupyter Book's index.html)."""
    return 'http-equiv="refresh"' in html.lower() and "<body" not in html.lower()


@functools.cache
def html_pages(site: Path) -> tuple[str, ...]:
    """Every page of the site but redirects and the theme's files (in _static/ and other
    folders that start with "_"), as paths relative to ``site``, both editions."""
    return tuple(sorted(
        p.relative_to(site).as_posix() for p in site.rglob("*.html")
        if not any(part.startswith("_") for part in p.relative_to(site).parts)
        and not is_redirect(p.read_text(encoding="utf-8", errors="replace"))))


@functools.cache
def read(site: Path, page: str) -> str:
    return (site / page).read_text(encoding="utf-8")


@functools.cache
def parsed(site: Path, page: str):
    """``page`` parsed once per test process (lxml's tree of its <html>); the rules only
    read it."""
    import lxml.html

    return lxml.html.document_fromstring(read(site, page))
