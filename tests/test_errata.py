"""The errata appendix (appendix/errata_*.ipynb): every claim is shown by an executed assert
and linked to the chapter section that teaches the point.

A claim is a markdown cell with a label line ``(err-<source>-<slug>)=`` followed by a ``###``
heading; it runs until the next claim or the next ``##`` heading. Inside it there must be
a code cell that asserts (``assert`` or ``assert_close``), executed (it has an execution
count), and a ``{ref}`` to a chapter (``ch-…``) or a section (``sec-…``).
"""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "appendix").glob("errata_*.ipynb"))
LABEL = re.compile(r"^\((err-(\d{3})-[a-z0-9-]+)\)=\s*$", re.M)
LINK = re.compile(r"\{ref\}`[^`]*?<?((?:ch|sec)-[a-z0-9-]+)>?`")
MINIMUM_CLAIMS = 30


def chapter_labels() -> set[str]:
    labels = set()
    for nb in (ROOT / "chapters").glob("*.ipynb"):
        for cell in json.loads(nb.read_text())["cells"]:
            if cell["cell_type"] == "markdown":
                labels.update(re.findall(r"^\(((?:ch|sec)-[a-z0-9-]+)\)=", "".join(cell["source"]), re.M))
    return labels


def claims(path: Path) -> list[dict]:
    """Split a notebook into claims: label, source number, its cells."""
    found, current = [], None
    for cell in json.loads(path.read_text())["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            m = LABEL.search(text)
            if m:
                current = {"label": m.group(1), "source": m.group(2), "cells": []}
                found.append(current)
            elif re.search(r"^## ", text, re.M):
                current = None
        if current is not None:
            current["cells"].append(cell)
    return found


ALL = [(p, c) for p in NOTEBOOKS for c in claims(p)]


def test_enough_claims():
    assert len(ALL) >= MINIMUM_CLAIMS, f"{len(ALL)} errata claims, expected at least {MINIMUM_CLAIMS}"


def test_every_source_has_claims():
    sources = {c["source"] for _, c in ALL}
    assert sources >= {"000", "001", "002", "003", "004"}, sorted(sources)


def test_labels_are_unique():
    labels = [c["label"] for _, c in ALL]
    assert len(labels) == len(set(labels)), [x for x in labels if labels.count(x) > 1]


@pytest.mark.parametrize("path,claim", ALL, ids=[c["label"] for _, c in ALL])
def test_claim_is_asserted_and_linked(path, claim):
    first = "".join(claim["cells"][0]["source"])
    assert re.search(r"^### ", first, re.M), f"{claim['label']}: no ### heading after the label"
    code = [c for c in claim["cells"] if c["cell_type"] == "code"]
    asserting = [c for c in code if re.search(r"\bassert\b|assert_close", "".join(c["source"]))]
    assert asserting, f"{claim['label']}: no code cell asserts the correct result"
    assert all(c.get("execution_count") for c in asserting), f"{claim['label']}: not executed"
    prose = "".join("".join(c["source"]) for c in claim["cells"] if c["cell_type"] == "markdown")
    links = LINK.findall(prose)
    assert links, f"{claim['label']}: no {{ref}} to the chapter section that teaches it"
    unknown = set(links) - chapter_labels()
    assert not unknown, f"{claim['label']}: links to labels no chapter defines: {sorted(unknown)}"
