"""The tests draw figures and explorers as the book's executions do: with their Chinese
renderings (``illustrated.draw.words.carried_editions``; a reader's run carries English only,
which tests/test_words.py checks).

tests/site/ tests the built website (make book-check's strict build), tests/site/browser/
the same site in Chromium: they run only when named (`make book-check` runs tests/site,
`make browser-check` tests/site/browser), not in a run of all of tests/ (`make unit`),
which has no site to read."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

SITE_TESTS = Path(__file__).resolve().parent / "site"


def pytest_ignore_collect(collection_path, config):
    """tests/site/ and tests/site/browser/, unless the command line names them (or a path
    inside them)."""
    if collection_path not in (SITE_TESTS, SITE_TESTS / "browser"):
        return None
    here = config.invocation_params.dir
    named = [(here / arg.split("::")[0]).resolve() for arg in config.args]
    return not any(p == collection_path or collection_path in p.parents for p in named)

os.environ.setdefault("ILLUSTRATED_EDITIONS", "en,zh_CN")


def pytest_collection_modifyitems(items):
    """The tests marked ``long`` (ten seconds or more each, most of them starting processes
    that import torch) first, the rest in their order: ``make unit``'s two workers take
    tests from the front of the list, and one of these taken last kept one worker busy
    alone at the end."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)  # stable


@pytest.fixture(scope="session")
def node():
    """Node.js, which runs the live page's JavaScript for tests/test_live_*.py
    (tests/js/): a skip where it is missing, a failure on CI."""
    path = shutil.which("node")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("node is not on the PATH, and CI is set (install Node.js 20)")
        pytest.skip("node is not on the PATH: the live page's JavaScript is not tested")
    return path


@pytest.fixture(scope="session")
def answers_of(node):
    """``answers_of(runner, job)``: what a tests/js/ runner writes on stdout
    for ``job`` on stdin, JSON both ways (one Node process)."""
    def run(runner, job):
        proc = subprocess.run([node, str(runner)], input=json.dumps(job),
                              capture_output=True, text=True, encoding="utf-8",
                              timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return json.loads(proc.stdout)
    return run
