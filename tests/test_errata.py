"""The errata appendix (appendix/errata_*.ipynb): every claim is shown by an executed assert
and linked to the chapter section that teaches the point.

A claim is a markdown cell with a label line ``(err-<source>-<slug>)=`` followed by a ``###``
heading; it runs until the next claim or the next ``##`` heading. Inside it there must be
exactly one executed code cell that calls ``check_claim("<its label>", source=...,
corrected=..., differ=...)`` (:mod:`illustrated.errata`): the check evaluates the source's
version and the corrected one, and fails if they do not differ as the page says or if it
could not fail at all. The claim also needs a ``{ref}`` to a chapter (``ch-…``) or a
section (``sec-…``).

Every check is also *run* here, without running the notebooks: for each claim, the test
executes its check cell and only the earlier cells that define the names it needs (a
backward slice over the cells' top-level names), in a fresh namespace. A check that fails,
or that could not fail (:func:`illustrated.errata.check_claim` refuses a ``differ`` that
also holds between two equal corrected outcomes), fails its test.
"""
import ast
import builtins
import json
import linecache
import re
import symtable
from pathlib import Path

import pytest
import torch

import illustrated.errata as errata
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


# Running each check: the check cell and the earlier cells it needs, nothing else.

BUILTINS = set(dir(builtins))


def names(code: str) -> tuple[set[str], set[str]]:
    """(names a cell binds at top level, names it reads before binding them itself), reads
    inside its functions, lambdas and comprehensions included. Statement by statement, so
    that ``s, c = check_claim(...)`` followed by ``print(s)`` needs no earlier ``s``, and
    ``for name, out in ...: print(out)`` no earlier ``out``."""
    binds, reads = set(), set()
    _block(ast.parse(code).body, binds, reads)
    return binds, reads - BUILTINS


def _block(statements: list[ast.stmt], binds: set[str], reads: set[str]) -> None:
    """Add to ``binds`` and ``reads`` statement by statement, entering compound statements
    (``for``, ``with``, ``if``, ``while``, ``try``) so that their targets bind before their
    bodies read."""
    for statement in statements:
        if not isinstance(statement, (ast.For, ast.With, ast.If, ast.While, ast.Try)):
            _add(statement, binds, reads)
            continue
        items = getattr(statement, "items", [])  # with ... as ...
        for head in [getattr(statement, f, None) for f in ("iter", "test")] + [
                i.context_expr for i in items]:
            if head is not None:
                _add(head, binds, reads)
        for target in [getattr(statement, "target", None)] + [i.optional_vars for i in items]:
            if target is not None:
                binds.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        for handler in getattr(statement, "handlers", []):  # except ... as err:
            binds.update([handler.name] if handler.name else [])
            _block(handler.body, binds, reads)
        for field in ("body", "orelse", "finalbody"):
            _block(getattr(statement, field, []), binds, reads)


def _add(node: ast.AST, binds: set[str], reads: set[str]) -> None:
    """One simple statement or expression: what it reads that is not bound yet, and binds."""
    bound, read = _statement_names(ast.unparse(node))
    reads |= read - binds
    binds |= bound


def _statement_names(code: str) -> tuple[set[str], set[str]]:
    """(top-level names ``code`` binds, global names it reads anywhere), from Python's own
    symbol tables, which know the scopes of functions, lambdas and comprehensions."""
    table = symtable.symtable(code, "<cell>", "exec")
    bound = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    read = set()

    def walk(scope, top):
        read.update(s.get_name() for s in scope.get_symbols()
                    if s.is_referenced() and (top or s.is_global()))
        for child in scope.get_children():
            walk(child, False)

    walk(table, True)
    return bound, read


def code_cells(path: Path) -> list[tuple[int, str]]:
    """(index in the notebook, source) of each code cell that is Python (no magics)."""
    found = []
    for i, cell in enumerate(json.loads(path.read_text())["cells"]):
        text = "".join(cell["source"])
        if cell["cell_type"] == "code" and not _is_magic(text):
            found.append((i, text))
    return found


def _is_magic(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return True
    return False


def cells_needed(cells: list[tuple[int, str]], k: int) -> list[int]:
    """Positions in ``cells`` of the check cell ``k`` and of the earlier cells that bind a
    name it reads, directly or through those cells; walking back from the check, each name
    comes from the latest cell that binds it."""
    scanned = [names(text) for _, text in cells]
    needed, chosen = set(scanned[k][1]), [k]
    for j in range(k - 1, -1, -1):
        binds, reads = scanned[j]
        if binds & needed:
            chosen.append(j)
            needed = (needed - binds) | reads
    return sorted(chosen)


def check_cells() -> list[tuple[Path, str, int]]:
    """(notebook, label, position of its check cell among the code cells) of every check."""
    found = []
    for path in NOTEBOOKS:
        for k, (_, text) in enumerate(code_cells(path)):
            for call in _check_calls(text):
                if call.args and isinstance(call.args[0], ast.Constant):
                    found.append((path, call.args[0].value, k))
    return found


CHECKS = check_cells()


def test_every_claim_has_a_check_to_run():
    assert sorted(label for _, label, _ in CHECKS) == sorted(c["label"] for _, c in ALL)


def run_check(path: Path, label: str, k: int, monkeypatch) -> list[str]:
    """Execute the check cell ``k`` of ``path`` after the cells it needs; return the labels
    that ``check_claim`` passed, in order."""
    passed = []

    def recording(name, **kwargs):
        result = real(name, **kwargs)
        passed.append(name)
        return result

    real = errata.check_claim
    monkeypatch.setattr(errata, "check_claim", recording)  # the notebooks import it from here
    monkeypatch.chdir(path.parent)  # their paths are relative to appendix/
    cells, namespace = code_cells(path), {"__name__": "__errata__"}
    for j in cells_needed(cells, k):
        index, text = cells[j]
        filename = f"{path.name}, cell {index}"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        exec(compile(text, filename, "exec"), namespace)
    return passed


@pytest.mark.parametrize("path,label,k", CHECKS, ids=[label for _, label, _ in CHECKS])
def test_claim_check_runs_and_could_fail(path, label, k, monkeypatch):
    passed = run_check(path, label, k, monkeypatch)
    assert passed.count(label) == 1, (f"{label}: check_claim passed {passed.count(label)} times; "
                                      "its cell must call it once and not catch its failure")


def test_names_counts_only_what_a_cell_takes_from_earlier_cells():
    binds, reads = names("import torch\nx = torch.ones(2)\nf = lambda: x + y\n"
                         "for out in x:\n    print(out)\ns = g(s)\n")
    assert binds == {"torch", "x", "f", "out", "s"}
    assert reads == {"y", "g", "s"}  # s is read before this cell binds it


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


_SAVED = _cross(y, memory)  # a corrected outcome computed once, before the check


@pytest.mark.parametrize("why,kwargs,message", [
    ("differ is always true", dict(source=lambda: _cross(y, y), corrected=lambda: _cross(y, memory),
                                   differ=lambda s, c: True), "cannot fail"),
    ("differ compares identities", dict(source=lambda: _cross(y, y),
                                        corrected=lambda: _cross(y, memory),
                                        differ=lambda s, c: s is not c), "computed a second time"),
    ("differ compares identities, the corrected outcome computed beforehand",
     dict(source=lambda: _cross(y, y), corrected=lambda: _SAVED, differ=lambda s, c: s is not c),
     "a copy of the corrected outcome"),
    ("the source's version is the corrected one",
     dict(source=lambda: _cross(y, memory), corrected=lambda: _cross(y, memory),
          differ=lambda s, c: not torch.equal(s, c)), "computes the corrected value"),
    ("the source's version computes the corrected value another way",
     dict(source=lambda: y + memory.sum(dim=0) / 3, corrected=lambda: _cross(y, memory),
          differ=lambda s, c: s is not c), "computes the corrected value"),
    ("differ ignores the source", dict(source=lambda: _cross(y, y), corrected=lambda: _cross(y, memory),
                                       differ=lambda s, c: bool(c.sum() > 0)), "cannot fail"),
    ("the corrected version raises", dict(source=lambda: 1, corrected=lambda: 1 / 0,
                                          differ=lambda s, c: s != c), "corrected version raised"),
], ids=lambda v: v if isinstance(v, str) and " " in v else "")
def test_check_claim_refuses_a_check_that_cannot_fail(why, kwargs, message):
    with pytest.raises(AssertionError, match=message):
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


@pytest.mark.parametrize("bad,exc,message", [
    (dict(label="plant"), ValueError, "label must look like 'err-000-some-slug', got 'plant'"),
    (dict(source=1), TypeError, "source must be a callable .*, got int"),
    (dict(source=lambda: torch.zeros(3), corrected=lambda: torch.ones(3),
          differ=lambda s, c: s != c), TypeError, "differ must return True or False, got Tensor"),
])
def test_check_claim_explains_bad_arguments(bad, exc, message):
    kwargs = dict(label="err-000-plant", source=lambda: 1, corrected=lambda: 2,
                  differ=lambda s, c: s != c)
    kwargs.update(bad)
    with pytest.raises(exc, match=message):
        check_claim(kwargs.pop("label"), **kwargs)


@pytest.mark.parametrize("a,b,same", [
    (torch.ones(2), torch.ones(2), True), (torch.ones(2), torch.ones(2, dtype=torch.float64), False),
    ({"K": ["key"]}, {"K": ["key"]}, True), ({"K": ["key"]}, {"K": ["query"]}, False),
    ((1, 2), [1, 2], False), (ValueError("x"), ValueError("x"), True),
    (ValueError("x"), KeyError("x"), False), (torch.ones(2).numpy(), torch.ones(2).numpy(), True),
    (torch.ones(2), 1.0, False),
])
def test_same_value_looks_into_tensors_and_containers(a, b, same):
    assert errata.same_value(a, b) is same
