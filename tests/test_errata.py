"""The errata appendix (appendix/errata_*.ipynb): every claim is shown by an executed assert
and linked to the chapter section that teaches the point.

A claim is a markdown cell with a label line ``(err-<source>-<slug>)=`` followed by a ``###``
heading; it runs until the next claim or the next ``##`` heading. Inside it there must be
exactly one executed code cell that calls ``check_claim("<its label>", source=...,
corrected=..., differ=...)`` (:mod:`illustrated.errata`): the check evaluates the source's
version and the corrected one, and fails if they do not differ as the page says or if it
could not fail at all. The claim also needs a ``{ref}`` to a chapter (``ch-…``) or a
section (``sec-…``).
"""
import ast
import json
import re
from pathlib import Path

import pytest
import torch

from illustrated.errata import check_claim, outcome

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


def _check_calls(code: str) -> list[ast.Call]:
    try:
        tree = ast.parse(code)
    except SyntaxError:  # IPython magics: not a check cell
        return []
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and getattr(n.func, "id", getattr(n.func, "attr", None)) == "check_claim"]


def problems(claim: dict) -> list[str]:
    """What is wrong with one claim's cells (empty when it keeps the format)."""
    label, found = claim["label"], []
    first = "".join(claim["cells"][0]["source"])
    if not re.search(r"^### ", first, re.M):
        found.append("no ### heading after the label")
    checks = [(c, call) for c in claim["cells"] if c["cell_type"] == "code"
              for call in _check_calls("".join(c["source"]))]
    if len(checks) != 1:
        found.append(f"{len(checks)} check_claim(...) calls; a claim has exactly one")
    for cell, call in checks:
        args = {k.arg: k.value for k in call.keywords}
        named = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
        if named != label:
            found.append(f"check_claim names {named!r}, not its own label")
        missing = {"source", "corrected", "differ"} - set(args)
        if missing:
            found.append(f"check_claim without {sorted(missing)}")
        elif ast.dump(args["source"]) == ast.dump(args["corrected"]):
            found.append("source= and corrected= are the same expression")
        if not cell.get("execution_count"):
            found.append("the check cell was not executed")
        if any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
            found.append("the check cell's committed output is an error")
    prose = "".join("".join(c["source"]) for c in claim["cells"] if c["cell_type"] == "markdown")
    links = LINK.findall(prose)
    if not links:
        found.append("no {ref} to the chapter section that teaches it")
    unknown = set(links) - chapter_labels()
    if unknown:
        found.append(f"links to labels no chapter defines: {sorted(unknown)}")
    return [f"{label}: {p}" for p in found]


@pytest.mark.parametrize("path,claim", ALL, ids=[c["label"] for _, c in ALL])
def test_claim_is_checked_and_linked(path, claim):
    assert not problems(claim)


# The format catches a check that cannot fail. Each plant below is a way an erratum's check
# has gone wrong before (errata 000's cross-attention check subtracted a value from itself).

def _md(text):
    return {"cell_type": "markdown", "source": text}


def _code(text, n=1):
    return {"cell_type": "code", "source": text, "execution_count": n, "outputs": []}


PLANTED = [
    ("an assert instead of check_claim", "wrong = cross(y, y, y) - cross(y, y, y)\n"
     "assert wrong.abs().max() == 0"),
    ("no source version", 'check_claim("err-000-plant", corrected=lambda: 1, differ=f)'),
    ("the same expression twice", 'check_claim("err-000-plant", source=lambda: f(y), '
     'corrected=lambda: f(y), differ=g)'),
    ("another claim's label", 'check_claim("err-000-other", source=lambda: 5, '
     'corrected=lambda: 6, differ=g)'),
]


@pytest.mark.parametrize("why,code", PLANTED, ids=[w for w, _ in PLANTED])
def test_format_rejects_a_planted_claim(why, code):
    claim = {"label": "err-000-plant", "cells": [
        _md("(err-000-plant)=\n### A planted claim\n{ref}`ch-black-box`"), _code(code)]}
    assert problems(claim), why


def test_format_accepts_a_well_formed_claim():
    claim = {"label": "err-000-plant", "cells": [
        _md("(err-000-plant)=\n### A planted claim\nTaught in {ref}`ch-black-box`."),
        _code('check_claim("err-000-plant", source=lambda: 5, corrected=lambda: 6,\n'
              '            differ=lambda s, c: s < c)')]}
    assert problems(claim) == []


def _cross(x, memory):  # stand-in for encoder-decoder attention: reads memory
    return x + memory.mean(dim=0)


y, memory = torch.ones(3, 2), torch.zeros(3, 2)


@pytest.mark.parametrize("why,kwargs", [
    ("differ is always true", dict(source=lambda: _cross(y, y), corrected=lambda: _cross(y, memory),
                                   differ=lambda s, c: True)),
    ("the source's version is the corrected one",
     dict(source=lambda: _cross(y, memory), corrected=lambda: _cross(y, memory),
          differ=lambda s, c: not torch.equal(s, c))),
    ("differ ignores the source", dict(source=lambda: _cross(y, y), corrected=lambda: _cross(y, memory),
                                       differ=lambda s, c: bool(c.sum() > 0))),
    ("the corrected version raises", dict(source=lambda: 1, corrected=lambda: 1 / 0,
                                          differ=lambda s, c: s != c)),
], ids=lambda v: v if isinstance(v, str) else "")
def test_check_claim_refuses_a_check_that_cannot_fail(why, kwargs):
    with pytest.raises(AssertionError):
        check_claim("err-000-plant", **kwargs)


def test_check_claim_passes_a_real_difference_and_returns_both():
    s, c = check_claim("err-000-plant", source=lambda: _cross(y, y), corrected=lambda: _cross(y, memory),
                       differ=lambda s, c: not torch.equal(s, c))
    assert torch.equal(s, _cross(y, y)) and torch.equal(c, _cross(y, memory))


def test_a_source_that_raises_is_an_outcome():
    err = outcome(lambda: [][1])
    assert isinstance(err, IndexError)
    s, _ = check_claim("err-000-plant", source=lambda: [][1], corrected=lambda: [0, 1][1],
                       differ=lambda s, c: isinstance(s, IndexError) and not isinstance(c, Exception))
    assert isinstance(s, IndexError)


@pytest.mark.parametrize("bad,exc", [(dict(label="plant"), ValueError),
                                     (dict(source=1), TypeError)])
def test_check_claim_explains_bad_arguments(bad, exc):
    kwargs = dict(label="err-000-plant", source=lambda: 1, corrected=lambda: 2,
                  differ=lambda s, c: s != c)
    kwargs.update(bad)
    with pytest.raises(exc):
        check_claim(kwargs.pop("label"), **kwargs)
