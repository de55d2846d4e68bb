"""The glossary (appendix/glossary.md) and the chapters' {term} roles agree.

Every glossary entry has a Chinese line (``**中文** ...``, the sources' terms) and a {ref}
to the section that introduces it; every term is linked from at least one chapter's
markdown with a {term} role, and every {term} role of the chapters names an existing term
(Sphinx matches terms case-insensitively, and so does this test).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "appendix" / "glossary.md"
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))

BLOCK = re.compile(r"^```\{glossary\}[^\n]*\n(.*?)^```$", re.S | re.M)
TERM_ROLE = re.compile(r"\{term\}`([^`]+)`")
REF_ROLE = re.compile(r"\{ref\}`(?:[^`<]*<)?([^`>]+)>?`")
LABEL = re.compile(r"^\(([\w-]+)\)=\s*$", re.M)


def parse_glossary(text: str) -> dict[str, list[str]]:
    """Map each term of the one ``{glossary}`` block to its definition lines (dedented)."""
    blocks = BLOCK.findall(text)
    assert len(blocks) == 1, f"expected one {{glossary}} block, found {len(blocks)}"
    entries: dict[str, list[str]] = {}
    term = None
    for line in blocks[0].splitlines():
        if not line.strip() or line.startswith(":"):
            continue  # blank lines and the directive's options
        if line[0].isspace():
            assert term is not None, f"definition line before any term: {line!r}"
            entries[term].append(line.strip())
        else:
            term = line.strip()
            assert term.lower() not in {t.lower() for t in entries}, f"duplicate term {term!r}"
            entries[term] = []
    return entries


def role_target(role_text: str) -> str:
    """``queries <query>`` -> ``query``; ``query`` -> ``query``."""
    m = re.fullmatch(r"(?s).*<([^<>]+)>\s*", role_text)
    return (m.group(1) if m else role_text).strip()


def markdown_of(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def term_roles(text: str) -> list[str]:
    return [role_target(r) for r in TERM_ROLE.findall(text)]


def missing_and_unknown(entries: dict[str, list[str]], chapters: dict[str, str]):
    """Terms no chapter links to, and (chapter, target) roles naming no term."""
    known = {t.lower() for t in entries}
    used = {t.lower() for text in chapters.values() for t in term_roles(text)}
    missing = sorted(t for t in entries if t.lower() not in used)
    unknown = sorted((name, t) for name, text in chapters.items()
                     for t in term_roles(text) if t.lower() not in known)
    return missing, unknown


@pytest.fixture(scope="module")
def entries():
    return parse_glossary(GLOSSARY.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def chapters():
    return {p.name: markdown_of(p) for p in NOTEBOOKS}


def test_glossary_has_enough_terms(entries):
    assert len(entries) >= 35, f"only {len(entries)} terms"
    for must in ("attention", "query", "key", "value", "softmax", "multi-head attention",
                 "mask", "positional encoding", "layer normalisation", "encoder", "decoder",
                 "teacher forcing", "beam search", "label smoothing", "BLEU"):
        assert must.lower() in {t.lower() for t in entries}, f"{must!r} is not in the glossary"


def test_every_entry_has_a_chinese_line_and_a_ref(entries, chapters):
    labels = {lab for text in chapters.values() for lab in LABEL.findall(text)}
    for term, lines in entries.items():
        assert lines and lines[0].startswith("**中文**"), (
            f"{term!r}: the definition must start with a '**中文** ...' line")
        refs = REF_ROLE.findall(" ".join(lines))
        assert refs, f"{term!r} has no {{ref}} to the section that introduces it"
        for ref in refs:
            assert ref in labels, f"{term!r} links to {ref!r}, which no chapter defines"


def test_every_term_is_linked_from_a_chapter_and_every_role_is_known(entries, chapters):
    missing, unknown = missing_and_unknown(entries, chapters)
    assert not missing, f"no chapter links these terms with {{term}}: {missing}"
    assert not unknown, f"{{term}} roles naming no glossary term: {unknown}"


def test_term_roles_sit_only_in_markdown_cells():
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] == "code":
                assert "{term}`" not in "".join(cell["source"]), f"{path.name}: role in code"


def test_the_checks_can_fail():
    entries = parse_glossary(
        "```{glossary}\n:sorted:\n\nquery\n  **中文** 查询 (004)\n\n  Looks. {ref}`x`\n\n"
        "key\n  no Chinese line\n```\n")
    assert entries == {"query": ["**中文** 查询 (004)", "Looks. {ref}`x`"],
                       "key": ["no Chinese line"]}
    missing, unknown = missing_and_unknown(
        entries, {"c.ipynb": "The {term}`queries <Query>` and a {term}`vlaue`."})
    assert missing == ["key"] and unknown == [("c.ipynb", "vlaue")]
    assert role_target("queries <query>") == "query" and role_target("BLEU") == "BLEU"
