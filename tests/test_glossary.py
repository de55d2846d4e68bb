"""The glossary (appendix/glossary.md) and the chapters' {term} roles agree.

Every glossary entry has a Chinese line (``**中文** ...``, the sources' terms) and a {ref}
to the section that introduces it; every term is linked from at least one chapter's
markdown with a {term} role, and every {term} role of the chapters names an existing term
(Sphinx matches terms case-insensitively, and so does this test).

Every Chinese form the glossary attributes to a source ("多头注意力 (000, 002)", "003 also
writes 点乘积") is attested in ``tests/data/glossary_attested.tsv`` by a short excerpt of
that source; a form it attributes to no source ("Chinese texts usually write 标签平滑") is
listed there with source ``none``. When the source documents are at hand (``../shared/seeds``
beside the repository, or the folder named by ``ILLUSTRATED_SEEDS``), every excerpt must
occur in its source (whitespace collapsed) and no ``none`` form may occur in any source.
"""
from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "appendix" / "glossary.md"
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))
ATTESTED = ROOT / "tests" / "data" / "glossary_attested.tsv"
SEEDS = Path(os.environ.get("ILLUSTRATED_SEEDS", ROOT.parent / "shared" / "seeds"))

BLOCK = re.compile(r"^```\{glossary\}[^\n]*\n(.*?)^```$", re.S | re.M)
TERM_ROLE = re.compile(r"\{term\}`([^`]+)`")
REF_ROLE = re.compile(r"\{ref\}`(?:[^`<]*<)?([^`>]+)>?`")
LABEL = re.compile(r"^\(([\w-]+)\)=\s*$", re.M)
CJK_CHAR = r"[\u3400-\u9fff\uff01-\uff5e]"  # a Han character or a full-width form (－)
CJK = re.compile(CJK_CHAR + "+")
SOURCE = re.compile(r"\b00[0-4]\b")
NUMBERS = re.compile(r"\s*((?:00[0-4](?:'s)?(?:\s*,\s*|\s+and\s+|\s+or\s+)?)+)(?:\W|$)")


def parse_glossary(text: str) -> dict[str, list[str]]:
    """Map each term of the one ``{glossary}`` block to its definition lines (dedented).
    Terms on consecutive lines ("validation set", then "development set") name one entry:
    they share one list of lines."""
    blocks = BLOCK.findall(text)
    assert len(blocks) == 1, f"expected one {{glossary}} block, found {len(blocks)}"
    entries: dict[str, list[str]] = {}
    term, previous = None, None
    for line in blocks[0].splitlines():
        if not line.strip() or line.startswith(":"):
            previous = None
            continue  # blank lines and the directive's options
        if line[0].isspace():
            assert term is not None, f"definition line before any term: {line!r}"
            entries[term].append(line.strip())
        else:
            alias_of, term = previous, line.strip()
            assert term.lower() not in {t.lower() for t in entries}, f"duplicate term {term!r}"
            entries[term] = entries[alias_of] if alias_of is not None else []
        previous = term if not line[0].isspace() else None
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
    # An entry with several terms is linked when any of them is.
    linked = {id(lines) for t, lines in entries.items() if t.lower() in used}
    missing = sorted(t for t, lines in entries.items() if id(lines) not in linked)
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
        "key\n  no Chinese line\n\nvalidation set\ndevelopment set\n  **中文** 验证集\n```\n")
    assert entries == {"query": ["**中文** 查询 (004)", "Looks. {ref}`x`"],
                       "key": ["no Chinese line"], "validation set": ["**中文** 验证集"],
                       "development set": ["**中文** 验证集"]}
    missing, unknown = missing_and_unknown(
        entries, {"c.ipynb": "The {term}`queries <Query>` and a {term}`vlaue`.",
                  "d.ipynb": "The {term}`development set`."})
    assert missing == ["key"] and unknown == [("c.ipynb", "vlaue")]
    missing, _ = missing_and_unknown(entries, {"c.ipynb": "The {term}`query`."})
    assert missing == ["development set", "key", "validation set"]
    assert role_target("queries <query>") == "query" and role_target("BLEU") == "BLEU"


# --- Chinese forms and the sources they are attributed to ---------------------------------


def chinese_paragraphs(text: str) -> dict[str, str]:
    """Map each term to its first paragraph (the ``**中文**`` one), joined on one line."""
    (block,) = BLOCK.findall(text)
    paragraphs: dict[str, str] = {}
    term, lines = None, []
    for line in block.splitlines() + [""]:
        if line and not line[0].isspace() and not line.startswith(":"):
            term, lines = line.strip(), []
        elif term is not None and line.strip():
            lines.append(line.strip())
        elif term is not None and lines:
            paragraphs[term] = " ".join(lines).removeprefix("**中文**").strip()
            term = None
    return paragraphs


def _close(text: str, i: int) -> int:
    """Index of the parenthesis closing the one opened at ``text[i]`` (or ``len(text)``)."""
    depth = 0
    for j in range(i, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return j
    return len(text)


def _top_level(text: str, seps: str) -> list[str]:
    """Split ``text`` at any character of ``seps`` where no parenthesis is open."""
    parts, depth, start = [], 0, 0
    for j, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch in seps and depth == 0:
            parts.append(text[start:j])
            start = j + 1
    return parts + [text[start:]]


def _leading_sources(text: str) -> set[str]:
    """``"000 and 003 describe..."`` -> ``{"000", "003"}``; no leading number -> empty."""
    m = NUMBERS.match(text)
    return set(SOURCE.findall(m.group(1))) if m else set()


def _paren_sources(text: str, i: int) -> set[str]:
    """Sources named at the top level of the parenthesis opened at ``text[i]``:
    ``(000, 001 "x"; 003, ...)`` -> ``{000, 001, 003}``; empty unless it starts with one."""
    inner = text[i + 1:_close(text, i)]
    if not _leading_sources(inner):
        return set()
    return set().union(*(_leading_sources(part) for part in _top_level(inner, ",;")))


def _enclosing_source_paren(clause: str, pos: int) -> int | None:
    """Start of the innermost parenthesis open at ``pos`` that starts with a source."""
    stack: list[int] = []
    for j in range(pos):
        if clause[j] == "(":
            stack.append(j)
        elif clause[j] == ")" and stack:
            stack.pop()
    return next((j for j in reversed(stack) if _paren_sources(clause, j)), None)


def _sources_of(clause: str, m: re.Match, lead: set[str]) -> set[str]:
    inside = _enclosing_source_paren(clause, m.start())
    if inside is not None:  # in "(000 "词嵌入算法 ...", 001)": the last source before it
        return {SOURCE.findall(clause[inside:m.start()])[-1]}
    after = clause[m.end():]
    direct = re.match(r"[”\"]?\s*\(", after)
    if direct and _paren_sources(after, direct.end() - 1):  # "多头注意力 (000, 002)"
        return _paren_sources(after, direct.end() - 1)
    if lead:  # "003 also writes 点乘积"
        return lead
    nxt = re.match(r"([^;()]*?)\(", after)  # "独热码 and one-hot 向量 (003)"
    if nxt and re.fullmatch(r"[”\"]?\s*(?:and|or|,)\s.*", nxt.group(1), re.S):
        return _paren_sources(after, nxt.end() - 1)
    return set()


def attributions(paragraph: str) -> list[tuple[str, frozenset[str]]]:
    """``[(form, sources)]`` for each run of Chinese characters of a ``**中文**`` paragraph:
    the sources the glossary gives it (empty where it names none). A form takes the
    sources of the parenthesis right after it, else those a clause opens with ("003 also
    writes ..."), else those of the next parenthesis after "and"/"or"; inside a
    parenthesis that lists sources, the last source before it."""
    found = []
    for clause in _top_level(paragraph, ";"):
        lead = _leading_sources(clause)
        for m in CJK.finditer(clause):
            found.append((m.group(0), frozenset(_sources_of(clause, m, lead))))
    return found


def _context(paragraph: str, form: str) -> str:
    """The parenthesis right after ``form`` in ``paragraph`` (its quoted context, as in
    "键 (004, in its 键值对字典)"), or "" if none follows it."""
    m = re.search(f"(?<!{CJK_CHAR}){re.escape(form)}" + r"[”\"]?\s*\(", paragraph)
    return paragraph[m.end():_close(paragraph, m.end() - 1)] if m else ""


def embedded_forms(text: str) -> set[tuple[str, str, tuple[str, ...]]]:
    """``{(form, source, longer)}``: a form the glossary attributes to a source next to
    longer forms of the same entry that contain it ("点乘积" contains "点乘"). The source
    must then use the form on its own, outside those longer forms, unless a longer form is
    quoted in the form's own parenthesis as its context."""
    found = set()
    for paragraph in chinese_paragraphs(text).values():
        pairs = attributions(paragraph)
        forms = {f for f, _ in pairs}
        for form, sources in pairs:
            context = _context(paragraph, form)
            longer = tuple(sorted(g for g in forms if form in g and g != form and g not in context))
            found |= {(form, source, longer) for source in sources if longer}
    return found


def outside(form: str, text: str, longer: tuple[str, ...]) -> bool:
    """Does ``form`` occur in ``text`` other than inside one of the ``longer`` forms?"""
    for g in sorted(longer, key=len, reverse=True):
        text = text.replace(g, "\0")
    return form in text


def glossary_attributions(text: str) -> set[tuple[str, str]]:
    """``{(form, source)}`` over the whole glossary, ``source`` being ``"none"`` for a
    form attributed to no source."""
    return {(form, source) for paragraph in chinese_paragraphs(text).values()
            for form, sources in attributions(paragraph) for source in (sources or {"none"})}


def read_attested(path: Path = ATTESTED) -> dict[tuple[str, str], str]:
    """``{(form, source): excerpt}`` from the TSV (columns form, source, excerpt)."""
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    assert rows and set(rows[0]) == {"form", "source", "excerpt"}, f"bad header in {path}"
    return {(r["form"], r["source"]): r["excerpt"] for r in rows}


def unattested(claimed: set[tuple[str, str]], attested: dict[tuple[str, str], str]):
    """Attributions the TSV does not back, TSV rows the glossary no longer makes, and
    excerpts that do not contain their form."""
    missing = sorted(claimed - set(attested))
    stale = sorted(set(attested) - claimed)
    bad = sorted((f, s) for (f, s), excerpt in attested.items() if s != "none" and f not in excerpt)
    return missing, stale, bad


def collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def seed_texts(folder: Path = SEEDS) -> dict[str, str]:
    """``{"000": text, ...}`` with whitespace collapsed, from ``NNN_*.txt``."""
    return {p.name[:3]: collapse(p.read_text(encoding="utf-8")) for p in folder.glob("00[0-4]_*.txt")}


def not_in_sources(attested: dict[tuple[str, str], str], texts: dict[str, str]):
    """Excerpts missing from their source, and ``none`` forms that a source does contain."""
    absent = sorted((f, s) for (f, s), ex in attested.items()
                    if s != "none" and ex not in texts.get(s, ""))
    present = sorted((f, n) for (f, s) in attested if s == "none"
                     for n, text in texts.items() if f in text)
    return absent, present


@pytest.fixture(scope="module")
def claimed():
    return glossary_attributions(GLOSSARY.read_text(encoding="utf-8"))


def test_every_chinese_form_is_attested_for_its_sources(claimed):
    missing, stale, bad = unattested(claimed, read_attested())
    assert not missing, (
        f"the glossary attributes these (form, source) pairs, but {ATTESTED.name} has no "
        f"excerpt for them (grep the source, add a row): {missing}")
    assert not stale, f"{ATTESTED.name} rows the glossary no longer makes: {stale}"
    assert not bad, f"excerpts that do not contain their form: {bad}"


def test_a_form_listed_with_longer_ones_is_attested_on_its_own():
    attested = read_attested()
    inside = sorted((form, source, longer) for form, source, longer in
                    embedded_forms(GLOSSARY.read_text(encoding="utf-8"))
                    if not outside(form, attested.get((form, source), ""), longer))
    assert not inside, (
        "the glossary lists these forms next to longer ones that contain them, but the "
        f"excerpt shows them only inside the longer ones (form, source, longer): {inside}")


@pytest.mark.skipif(not SEEDS.is_dir(), reason=(
    f"the five source documents are not in this checkout ({SEEDS}; set ILLUSTRATED_SEEDS "
    f"to their folder): the glossary's excerpts are checked against "
    f"tests/data/glossary_attested.tsv only"))
def test_every_excerpt_occurs_in_its_source():
    texts = seed_texts()
    absent, present = not_in_sources(read_attested(), texts)
    assert not absent, f"excerpts not found verbatim in their source: {absent}"
    assert not present, f"forms the glossary attributes to no source, found in one: {present}"
    inside = sorted((form, source) for form, source, longer in
                    embedded_forms(GLOSSARY.read_text(encoding="utf-8"))
                    if not outside(form, texts[source], longer))
    assert not inside, f"forms their source uses only inside a longer form: {inside}"


def test_the_attribution_checks_can_fail():
    paragraph = ('多头注意力 (000, 001 "x (y)"; 003); 多头自注意力 (004) for the x; 003 also writes '
                 '点乘积 and 独热码 and one-hot 向量 (002); Chinese texts write 标签平滑')
    assert attributions(paragraph) == [
        ("多头注意力", {"000", "001", "003"}), ("多头自注意力", {"004"}), ("点乘积", {"003"}),
        ("独热码", {"003"}), ("向量", {"002"}), ("标签平滑", frozenset())]
    assert attributions('词嵌入 (000 "词嵌入算法 (e)", 001)')[1] == ("词嵌入算法", {"000"})
    claimed = {("点乘积", "003"), ("点乘积", "002"), ("标签平滑", "none")}
    attested = {("点乘积", "003"): "query和key的点乘积得出", ("标签平滑", "none"): "",
                ("点积", "001"): "缩放点乘"}
    assert unattested(claimed, attested) == (
        [("点乘积", "002")], [("点积", "001")], [("点积", "001")])
    texts = {"003": "这个得分是 query和key的点乘积得出 来的", "004": "标签平滑"}
    assert not_in_sources(attested, texts) == ([("点积", "001")], [("标签平滑", "004")])
    glossary = ("```{glossary}\ndot\n  **中文** 点积 (001); 003 also writes 点乘 and 点乘积.\n\n"
                "key\n  **中文** 键 (004, in its 键值对字典).\n```\n")
    assert embedded_forms(glossary) == {("点乘", "003", ("点乘积",))}  # 键值对字典 is context
    assert not outside("点乘", "query和key的点乘积得出", ("点乘积",))
    assert outside("点乘", "点乘与点乘积", ("点乘积",))
