"""The built website under test (tests/site/built.py): the ``--site`` option, the ``site``
fixture, and the parameters ``page`` (every page of both editions), ``en_page`` and
``zh_page`` (the pages of one edition) that any test of tests/site may ask for."""
from __future__ import annotations

import re
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
            pages = [p for p in built.html_pages(site_of(metafunc.config)) if keep(p)]
            metafunc.parametrize(name, pages)


def scope_of(nodeid: str) -> str:
    """The tests that share a test process under ``--dist loadscope``: a page's (every rule
    of test_pages.py on that page: it is read, or opened in Chromium, once), else a
    module's (one page of a live translator, one set of Python references)."""
    module, _, test = nodeid.partition("::")
    page = re.search(r"\[(.*?\.html)", test) if module.endswith("/test_pages.py") else None
    return f"{module}::{page.group(1)}" if page else module


def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's --dist loadscope, scoped by :func:`scope_of`. (Its --dist loadgroup
    would do with xdist_group marks, but xdist 3.8 writes the group into a node id pytest 9
    no longer reads: the groups were split.)"""
    if config.getoption("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByPage(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

    return ByPage(config, log)
