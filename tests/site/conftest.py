"""The built website under test (tests/site/built.py): the ``--site`` option, the ``site``
fixture, and the parameters ``page`` (every page of both editions), ``en_page`` and
``zh_page`` (the pages of one edition) that any test of tests/site may ask for."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.site import built


def pytest_addoption(parser):
    group = parser.getgroup("site", "the built website (tests/site)")
    group.addoption("--site", type=Path, default=built.CHECK_HTML,
                    help="the built site to test (default: the strict build's, "
                    "_build/check/html; make book's is _build/html)")
    group.addoption("--full-screenshots", action="store_true",
                    help="tests/site/browser: screenshots of whole pages in "
                    "_build/screenshots/, not only their first screen")


def site_of(config) -> Path:
    site = config.getoption("site").resolve()
    if not (site / "index.html").is_file():
        raise pytest.UsageError(f"{site}/index.html not found: build the site first "
                                "(make book-check; or make book, then --site _build/html)")
    return site


@pytest.fixture(scope="session")
def site(pytestconfig) -> Path:
    return site_of(pytestconfig)


def pytest_generate_tests(metafunc):
    editions = {"page": lambda p: True, "en_page": lambda p: not p.startswith(built.ZH),
                "zh_page": lambda p: p.startswith(built.ZH)}
    for name, keep in editions.items():
        if name in metafunc.fixturenames:
            # Each page in one test process (pytest-xdist's --dist loadgroup): read once.
            pages = [pytest.param(p, marks=pytest.mark.xdist_group(p))
                     for p in built.html_pages(site_of(metafunc.config)) if keep(p)]
            metafunc.parametrize(name, pages)
