"""Fixtures of the browser tests: the built site served on 127.0.0.1 (``origin``), Chromium
(``browser``, one per test process, tabs.py) and a fresh ``context`` for each test.

Without /usr/bin/chromium the tests are skipped, or fail where ``CI`` is set. Screenshots
go to _build/screenshots/ (emptied once at the start of a run). Long modules of tests
(LONGEST: the live pages, the explorers) start first, so that they do not end last; with
pytest-xdist's ``--dist loadscope`` each page, and each module of interactive tests, stays
in one process (one page load, one set of Python references: tests/site/conftest.py)."""
from __future__ import annotations

import os
import shutil

import pytest

from tests.site.browser import tabs

# The interactive tests that take longest (tens of seconds each, the others a few), run first.
LONGEST = ("test_live_translator", "test_live_inputs", "test_live_writer", "test_explorers")

# torch computes the live pages' Python references here, beside the browsers. Its OpenMP
# threads spin while they wait for work; on a busy CPU a spinning thread takes the core
# from the thread it waits for (in a fresh clone's make test on 2 cores: 145 s spinning,
# 3 s passive). Told to sleep while they wait (no change to any result), before torch loads:
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):  # once, in the process that runs them all
        shutil.rmtree(tabs.SCREENSHOTS, ignore_errors=True)


def pytest_collection_modifyitems(items):
    def rank(item):
        module = item.module.__name__.rsplit(".", 1)[-1]
        return LONGEST.index(module) if module in LONGEST else len(LONGEST)
    items.sort(key=rank)  # stable: the order within each rank stays


@pytest.fixture(scope="session")
def pages_folder(tmp_path_factory):
    """Where tests write small pages of their own, served as /_tests/pages/."""
    return tmp_path_factory.mktemp("pages")


@pytest.fixture(scope="session")
def origin(site, pages_folder):
    server, url = tabs.serve(site, pages_folder)
    yield url
    server.shutdown()


@pytest.fixture
def own_pages(pages_folder, origin, request):
    """(a folder for this test's own pages, the URL it is served at): the same server and
    Chromium as the site, no other to start."""
    folder = pages_folder / request.node.name.replace("/", "_").replace("[", "_").rstrip("]")
    folder.mkdir()
    return folder, f"{origin}/_tests/pages/{folder.name}"


@pytest.fixture(scope="session")
def playwright():
    if not tabs.CHROMIUM.exists():
        message = f"{tabs.CHROMIUM} not found (apt-get install -y chromium)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}, and CI is set")
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright, origin):
    browser = tabs.launch(playwright, origin)
    yield browser
    browser.close()


@pytest.fixture
def context(browser):
    """A new browser context (its own cookies and cache) at a laptop's 1280 px."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context
    context.close()


@pytest.fixture(scope="session")
def screenshots():
    tabs.SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return tabs.SCREENSHOTS
