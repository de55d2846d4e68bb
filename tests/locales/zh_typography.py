"""Chinese typography of the catalogues' translations, as rules a reader of a Chinese book expects.

    pytest tests/locales/test_zh_typography.py [-k 02_soft_lookup]   # every (or one) catalogue
    python -m tests.locales.zh_typography --record-quotes          # with the sources at hand: QUOTES

tests/locales/test_zh_typography.py applies the rules to every catalogue, one test each, which
lists each broken rule as ``"<English start>": <rule>: <what>``.

Only the Chinese of a message is read (a ``msgstr`` holding a CJK character), and only its
prose: inline code, maths, roles ({ref}`…`, {glue}`…`, {cite}`…`), link targets and URLs are
masked first, so ``f(x, y)`` or ``$a:b$`` break nothing. The rules (the edition's style,
decided in issue 31):

- ``emphasis-space``: no space between a CJK character (or full-width punctuation) and the
  ``*`` of an emphasis whose edge is CJK: "这种*软*查找", not "这种 *软* 查找". (A Latin
  emphasis keeps the usual space between Chinese and Latin: "讲解 *Attention Is All You Need* 的".)
- ``emphasis-punctuation``: no punctuation at the inner edge of an emphasis next to a CJK
  character: ``这是*“软”*查找`` is not emphasis to markdown (the ``*`` is not left-flanking);
  write ``这是“*软*”查找``.
- ``half-width``: , ; : ? ! ( ) in Chinese sentences are full-width (，；：？！（）); a
  verbatim quotation of a source keeps the source's own punctuation. Which quotations are
  verbatim is recorded in ``locales/zh_CN/verbatim_quotes.txt`` (``QUOTES``), so that a
  fresh clone, which has no source documents, judges as a machine that has them:
  ``--record-quotes`` writes it from the sources (``../shared/seeds`` or
  ``ILLUSTRATED_SEEDS``), and a test checks every recorded quote against them where they
  are at hand.
- ``thousands``: numbers are grouped as the English writes them (20,000), never "20 000",
  and an English "20,000" is not written "20000".
- ``chapter-link``: a link to a chapter or section reads 第 N 章 / 第 N.M 节 (title after it
  or not), never a bare {ref}`label` (which renders the bare title) or a bare title; a link
  to an unnumbered page (appendix, live translator) has Chinese link text.
- ``illustrated``: "The Illustrated Transformer" is 《图解 Transformer》 in Chinese text.
- ``percent``: one percent style for the edition, as Chinese publishing writes it: no space
  between a number and %: "57%", never "57 %" (a glued number too: {glue:text}`x`%).
- ``link-space``: a link whose text ends (or starts) with a Latin letter or a digit is set off
  from Chinese by a space, as the edition's numbers are ("练习 12.6 说明了", never
  "练习 12.6说明了": a bare {ref} or {numref} of an exercise renders 练习 N.M); a link of
  Chinese text touches the Chinese around it ("也就是{term}`超参数 <hyperparameter>`").
- ``doubled-stop``: no 。 right after an English sentence's own stop, inside quotes,
  emphasis or code ("*Help me.*。"): put the English inside the sentence, not at its end.
- ``times``: a ratio as Chinese states it: "只有……的 1/3.9" for "3.9 times fewer", "是……的
  136 倍" for "136 times more", never "3.9 分之一" (a computed number before 分之一) nor
  "少 3.9 倍", "多花 136 倍" (an adjective before N 倍, which a reader may take as N + 1);
  and a division as "把分数除以 τ", never "用 τ 去除分数" (which readers misread as τ ÷ 分数).
- ``emphasis-role``: an emphasis that begins with a role (``*{term}`头 <head>`*``) is
  emphasis to markdown only after a space or punctuation (the ``*`` is not "flanking" between
  a CJK character and ``{``): write ``即 *{term}`头 <head>`*``; the Chinese edition removes
  the space on the page (``close_up`` in scripts/editions.py).
"""
from __future__ import annotations

import functools
import json
import os
import re
import sys
import unicodedata
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
CATALOGUES = ROOT / "locales" / "zh_CN" / "LC_MESSAGES"
# The source documents, to keep their punctuation in verbatim quotes (as tests/test_glossary.py
# finds them; without them every quote is held to the rules).
SEEDS = Path(os.environ.get("ILLUSTRATED_SEEDS", ROOT.parent / "shared" / "seeds"))
# The catalogues' quotations that are a source's own words, one per line, nothing else
# (--record-quotes writes it; a quotation may begin with "#").
QUOTES = ROOT / "locales" / "zh_CN" / "verbatim_quotes.txt"

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
FULL_PUNCT = "\u3000-\u303f\uff00-\uffef\u201c\u201d\u2018\u2019"
HAS_CJK = re.compile(f"[{CJK}]")
# A quotation: 「…」 (which may hold “…”), “…”, or "…".
QUOTATION = re.compile(r"「[^「」]*」|“[^“”]*”|\"[^\"]*\"")
CJK_OR_FULL = re.compile(f"[{CJK}{FULL_PUNCT}]")

# What is not prose: masked (by a Latin placeholder, so that "`x`, 然后" still shows the
# half-width comma before Chinese) before the punctuation, emphasis and number rules.
ROLE = re.compile(r"\{([\w:.-]+)\}`([^`]*)`")
MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.S)
CODE = re.compile(r"```.+?```|``.+?``|`[^`]+`", re.S)
URL = re.compile(r"\]\([^)\s]*\)|<https?://[^>]+>|https?://\S+")
HTML = re.compile(r"</?[a-zA-Z][^<>]*>")
PLACEHOLDER = "X"

EMPHASIS = re.compile(r"(?<![*\\])(\*\*|\*)(?=[^\s*])(.+?)(?<=[^\s*])\1(?!\*)")
HALF = ",;:?!"
HALF_AFTER_CJK = re.compile(f"[{CJK}{FULL_PUNCT}]([{HALF}()])")
HALF_BEFORE_CJK = re.compile(f"([{HALF}])\\s*[{CJK}]|([()])[{CJK}]")
PARENTHESES_AROUND_CJK = re.compile(f"\\(([^()]*[{CJK}][^()]*)\\)")
SPACE_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+(?![\d.,])")
COMMA_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,]|\.\d)")
LINK_ROLE = re.compile(r"\{(ref|doc)\}`([^`]*)`")
MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")
TEXT_AND_TARGET = re.compile(r"^(.*?)\s*<([^<>]+)>\s*$", re.S)
LABEL = re.compile(r"^\(([\w-]+)\)=\s*$")
HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")
ILLUSTRATED = re.compile(r"Illustrated Transformer", re.I)


# ------------------------------------------------------------------------ the book's pages
def _markdown_lines(source: Path) -> list[str]:
    """The markdown lines of a page (a notebook's markdown cells, or a .md file)."""
    if source.suffix == ".ipynb":
        cells = json.loads(source.read_text(encoding="utf-8"))["cells"]
        return [line.rstrip("\n") for cell in cells if cell["cell_type"] == "markdown"
                for line in "".join(cell["source"]).splitlines()]
    return source.read_text(encoding="utf-8").splitlines()


def page_targets(root: Path = ROOT) -> dict[str, dict]:
    """Every link target of the book: label or page path -> its number and English title.

    A chapter's page (chapters/NN_*.ipynb) is chapter NN, its ``##`` headings sections
    NN.1, NN.2 ..., its ``###`` NN.1.1 ... (as the numbered pages show them); every other
    page and its sections are unnumbered (``number`` None). Keys: ``(label)=`` labels, and page paths
    without suffix ("chapters/02_soft_lookup", as {doc} writes them)."""
    targets = {}
    pages = sorted(root.glob("chapters/*.ipynb")) + sorted(root.glob("chapters/*.md"))
    pages += sorted(root.glob("appendix/*.ipynb")) + sorted(root.glob("appendix/*.md"))
    for source in pages:
        numbered = re.match(r"(\d\d)_", source.name)
        chapter = int(numbered.group(1)) if numbered and source.parent.name == "chapters" else None
        page = source.relative_to(root).with_suffix("").as_posix()
        targets[page] = {"number": chapter and str(chapter), "kind": "章", "title": None}
        counters, label, fenced = [0] * 7, None, False
        for line in _markdown_lines(source):
            fenced ^= line.lstrip().startswith(("```", "~~~"))
            heading = None if fenced else HEADING.match(line)
            if LABEL.match(line):
                label = LABEL.match(line).group(1)
                continue
            if heading and len(heading.group(1)) == 1 and targets[page]["title"] is None:
                targets[page]["title"] = heading.group(2)
                if label:
                    targets[label] = targets[page]
            elif heading:
                depth = len(heading.group(1))
                counters[depth] += 1
                counters[depth + 1:] = [0] * (6 - depth)
                number = ".".join(str(n) for n in [chapter] + counters[2:depth + 1])
                if label:
                    targets[label] = {"number": number if chapter else None, "kind": "节",
                                      "title": heading.group(2)}
            if line.strip():
                label = None
    return targets


def _resolve(target: str, catalogue: Path, targets: dict) -> dict | None:
    """The page or section a {ref}/{doc}/markdown link target names (None: outside the book)."""
    target = target.split("#")[-1] if target.startswith("#") else target
    if target in targets:
        return targets[target]
    page = re.sub(r"\.(ipynb|md)$", "", target.lstrip("/"))
    if not page:
        return None
    folder = catalogue.parent.name if catalogue.parent.name in ("chapters", "appendix") else ""
    candidates = [page, f"{folder}/{page}", re.sub(r"^\.\./", "", page)]
    return next((targets[c] for c in candidates if c in targets), None)


# ---------------------------------------------------------------------------- the rules
def prose(text: str) -> str:
    """``text`` with everything that is not prose replaced by a Latin placeholder."""
    for pattern in (ROLE, CODE, MATH, URL, HTML):
        text = pattern.sub(PLACEHOLDER, text)
    return text


def _is_punctuation(char: str) -> bool:
    return unicodedata.category(char).startswith(("P", "S"))


def emphasis_problems(text: str) -> list[tuple[str, str]]:
    """Spaces between Chinese and a Chinese emphasis; punctuation at an emphasis's inner
    edge next to a CJK character (markdown then does not read it as emphasis)."""
    problems = []
    for match in EMPHASIS.finditer(text):
        inner, start, end = match.group(2), match.start(), match.end()
        before = text[max(0, start - 2):start]
        after = text[end:end + 2]
        shown = match.group(0)
        if (len(before) == 2 and before[1] == " " and CJK_OR_FULL.match(before[0])
                and HAS_CJK.match(inner[0])):
            problems.append(("emphasis-space", f"space before {shown}: write {before[0]}{shown}"))
        if (len(after) == 2 and after[0] == " " and CJK_OR_FULL.match(after[1])
                and HAS_CJK.match(inner[-1])):
            problems.append(("emphasis-space", f"space after {shown}: write {shown}{after[1]}"))
        outside_before = text[start - 1] if start else " "
        outside_after = text[end] if end < len(text) else " "
        if _is_punctuation(inner[0]) and HAS_CJK.match(outside_before):
            problems.append(("emphasis-punctuation",
                             f"{outside_before}{shown}: punctuation inside the emphasis next to "
                             f"Chinese is not parsed as emphasis: put {inner[0]} outside the *"))
        elif _is_punctuation(inner[-1]) and HAS_CJK.match(outside_after):
            problems.append(("emphasis-punctuation",
                             f"{shown}{outside_after}: punctuation inside the emphasis next to "
                             f"Chinese is not parsed as emphasis: put {inner[-1]} outside the *"))
    return problems


def _normalised(text: str) -> str:
    """Quotation marks as one character; no whitespace, $, backticks or markdown escapes: how
    a quote is compared with a source (which writes $[1, 0, 0]$ where a quote may drop the
    maths, or key_padding_mask where the quote escapes it)."""
    return re.sub(r"[\s$`\\]+", "", re.sub(r"[“”\"「」『』]", '"', text))


@functools.lru_cache(maxsize=1)
def source_text() -> str:
    """The five source documents, normalised (empty when they are not at hand)."""
    if not SEEDS.is_dir():
        return ""
    return "\n".join(_normalised(p.read_text(encoding="utf-8"))
                     for p in sorted(SEEDS.glob("0*.txt")))


def in_sources(quote: str) -> bool:
    """Whether a quotation (without its marks) is a source's own words: each piece of it
    between ellipses (…) is found as it is in one of the source documents."""
    pieces = [_normalised(piece) for piece in re.split(r"…+|\.\.\.", quote)]
    pieces = [piece for piece in pieces if piece]
    return bool(pieces) and all(len(HAS_CJK.findall(piece)) >= 2 and piece in source_text()
                                for piece in pieces)


@functools.lru_cache(maxsize=1)
def recorded_quotes() -> frozenset[str]:
    """The quotations ``QUOTES`` records as verbatim, normalised."""
    if not QUOTES.is_file():
        return frozenset()
    lines = QUOTES.read_text(encoding="utf-8").splitlines()
    return frozenset(_normalised(line) for line in lines if line.strip())


def is_verbatim(quote: str) -> bool:
    """Whether a quotation (without its marks) is recorded as a source's own words."""
    return _normalised(quote) in recorded_quotes()


def catalogue_quotes(paths) -> list[str]:
    """Every quotation (without its marks) in the Chinese of ``paths``, in order, once."""
    found: dict[str, None] = {}
    for path in paths:
        with path.open("rb") as handle:
            for message in read_po(handle):
                if message.id and isinstance(message.string, str):
                    for m in QUOTATION.finditer(message.string):
                        found[" ".join(m.group(0)[1:-1].split())] = None
    return list(found)


def record_quotes() -> int:
    """Write ``QUOTES``: the catalogues' quotations the source documents hold verbatim."""
    if not source_text():
        print(f"zh_typography: the source documents are not at {SEEDS} (set ILLUSTRATED_SEEDS)",
              file=sys.stderr)
        return 2
    quotes = [q for q in catalogue_quotes(sorted(CATALOGUES.rglob("*.po"))) if in_sources(q)]
    QUOTES.write_text("".join(q + "\n" for q in quotes), encoding="utf-8")
    print(f"wrote {QUOTES.relative_to(ROOT)}: {len(quotes)} verbatim quotation(s)")
    return 0


def without_verbatim_quotes(text: str) -> str:
    """``text`` with each verbatim quotation of a source (see :func:`is_verbatim`) emptied:
    it keeps the source's punctuation, so the punctuation rule does not read it."""
    return QUOTATION.sub(lambda m: m.group(0)[0] + PLACEHOLDER + m.group(0)[-1]
                         if is_verbatim(m.group(0)[1:-1]) else m.group(0), text)


def half_width_problems(text: str) -> list[tuple[str, str]]:
    """Half-width , ; : ? ! touching Chinese, ( ) touching or around Chinese."""
    found = []
    for pattern in (HALF_AFTER_CJK, HALF_BEFORE_CJK):
        for match in pattern.finditer(text):
            group = 1 if match.group(1) else 2
            found.append((match.start(group), match.group(group),
                          text[max(0, match.start() - 4):match.end() + 4]))
    for match in PARENTHESES_AROUND_CJK.finditer(text):
        found.append((match.start(), "(", match.group(0)[:30]))
    seen, problems = set(), []
    for position, char, context in sorted(found):
        if position not in seen:
            seen.add(position)
            full = "，；：？！（）"["," ";:?!()".index(char)]
            problems.append(("half-width", f"{char!r} in Chinese, write {full}: \"{context}\""))
    return problems


def number_problems(english: str, text: str) -> list[tuple[str, str]]:
    """Thousands grouped by spaces; an English "20,000" written "20000"."""
    problems = [("thousands", f"\"{m.group(0)}\": group thousands as the English does "
                              f"({re.sub(r'[^0-9]', ',', m.group(0))})")
                for m in SPACE_GROUPED.finditer(text)]
    for grouped in sorted(set(COMMA_GROUPED.findall(prose(english)))):
        plain = grouped.replace(",", "")
        if re.search(rf"(?<![\d.,]){plain}(?![\d.,])", text):
            problems.append(("thousands", f"\"{plain}\": the English writes {grouped}"))
    return problems


def _link_problem(text: str, page: dict | None, context: tuple[str, str],
                  shown: str) -> str | None:
    """What is wrong with a link of text ``text`` (None: bare) to ``page``, or None."""
    if page is None:
        return None
    number, kind = page["number"], page["kind"]
    if number is None:
        if text is not None and not HAS_CJK.search(text):
            return f"{shown}: link text of a page or section is its Chinese name"
        return None
    wanted = f"第 {number} {kind}"
    if text is None:
        return f"{shown} renders the bare title: write {wanted} as the link text"
    if re.sub(r"\s+", " ", text).startswith(wanted):
        return None
    before, after = context
    if text.strip() == number and before.rstrip().endswith("第") and after.lstrip().startswith(kind):
        return None
    return f"{shown}: the link text must read {wanted} (title after it, or not)"


def link_problems(text: str, catalogue: Path, targets: dict) -> list[tuple[str, str]]:
    """Links to chapters, sections and pages inside Chinese text (see the module's rules)."""
    problems = []
    for match in LINK_ROLE.finditer(text):
        content = match.group(2)
        explicit = TEXT_AND_TARGET.match(content)
        link_text, target = (explicit.group(1), explicit.group(2)) if explicit else (None, content)
        page = _resolve(target.strip(), catalogue, targets)
        problem = _link_problem(link_text, page, (text[:match.start()], text[match.end():]),
                                match.group(0))
        if problem:
            problems.append(("chapter-link", problem))
    for match in MARKDOWN_LINK.finditer(text):
        page = _resolve(match.group(2), catalogue, targets)
        problem = _link_problem(match.group(1), page, (text[:match.start()], text[match.end():]),
                                match.group(0))
        if problem:
            problems.append(("chapter-link", problem))
    return problems


def illustrated_problems(text: str) -> list[tuple[str, str]]:
    """Jay Alammar's blog is 《图解 Transformer》 in Chinese text."""
    if ILLUSTRATED.search(prose(text)) and "《图解 Transformer》" not in text:
        return [("illustrated", "\"The Illustrated Transformer\" in Chinese text: write "
                                "《图解 Transformer》")]
    return []


SPACED_PERCENT = re.compile(r"(?:\d|X)[ \u00a0\u2009\u202f]+%")


def percent_problems(text: str) -> list[tuple[str, str]]:
    """A space between a number (or a glued one, masked as X) and %."""
    return [("percent", f"\"{m.group(0)}\": no space before % in Chinese ("
                        f"{m.group(0)[0]}%)") for m in SPACED_PERCENT.finditer(text)]


ROLE_LINK = re.compile(r"\{(ref|numref|doc|term)\}`([^`]*)`")
LATIN_EDGE = re.compile(r"[A-Za-z0-9]")


def _shown(role: str, content: str, targets: dict) -> str | None:
    """The text a link role shows: its explicit text, the term itself for a bare {term}, or
    练习 N.M for a bare {ref}/{numref} of an exercise (a label no chapter or section has);
    None where it cannot be told."""
    explicit = TEXT_AND_TARGET.match(content)
    if explicit:
        return explicit.group(1)
    if role == "term":
        return content
    if role in ("ref", "numref") and content.strip() not in targets:
        return "练习 1.1"  # sphinx-exercise: "Exercise N.M"; a figure's "图 N.M" alike
    return None


def link_space_problems(text: str, targets: dict) -> list[tuple[str, str]]:
    """A Latin-edged link touching Chinese; a space between Chinese and a Chinese link."""
    problems = []
    for match in ROLE_LINK.finditer(text):
        shown = _shown(match.group(1), match.group(2), targets)
        if not shown:
            continue
        before, after = text[:match.start()], text[match.end():]
        if LATIN_EDGE.match(shown[-1]) and after[:1] and HAS_CJK.match(after[0]):
            problems.append(("link-space", f"{match.group(0)}{after[0]}: a space between the "
                                           f"link's \"{shown}\" and {after[0]}"))
        if LATIN_EDGE.match(shown[0]) and before[-1:] and HAS_CJK.match(before[-1]):
            problems.append(("link-space", f"{before[-1]}{match.group(0)}: a space between "
                                           f"{before[-1]} and the link's \"{shown}\""))
        if (HAS_CJK.match(shown[0]) and before.endswith(" ") and len(before) > 1
                and CJK_OR_FULL.match(before[-2])):
            problems.append(("link-space", f"{before[-2]} {match.group(0)}: no space between "
                                           f"Chinese and a link of Chinese text"))
    return problems


DOUBLED_STOP = re.compile(r"[.!?…][*`”’\"」』]+。|[.!?]。")


def doubled_stop_problems(text: str) -> list[tuple[str, str]]:
    """。 after an English sentence's own stop (text with roles and maths masked)."""
    return [("doubled-stop", f"\"{text[max(0, m.start() - 12):m.end()]}\": 。 after the "
                             f"English stop: end the Chinese sentence on Chinese")
            for m in DOUBLED_STOP.finditer(text)]


NUMBER_OR_GLUE = r"(?:X|\d[\d.,]*)"
TIMES = re.compile(f"{NUMBER_OR_GLUE} ?分之一|(?:多花|[少小短低多快慢大高长])了? ?{NUMBER_OR_GLUE} ?倍")


DIVIDE_BY = re.compile("用[^，。；：]{1,20}去除")


def times_problems(text: str) -> list[tuple[str, str]]:
    """"N 分之一" of a computed N, "少/多/短… N 倍", "用 X 去除" (roles masked as X)."""
    return ([("times", f"\"{m.group(0)}\": write 只有……的 1/N, or 是……的 N 倍")
             for m in TIMES.finditer(text)]
            + [("times", f"\"{m.group(0)}\": write 把……除以 X")
               for m in DIVIDE_BY.finditer(text)])


EMPHASIS_ROLE = re.compile(f"[{CJK}](\\*{{1,2}})\\{{[\\w:.-]+\\}}`|`(\\*{{1,2}})[{CJK}]")


def emphasis_role_problems(text: str) -> list[tuple[str, str]]:
    """An emphasis opening on a role right after a CJK character, or closing after a role's
    backtick right before one: markdown does not read it as emphasis."""
    return [("emphasis-role", f"\"{m.group(0)}\": markdown reads no emphasis here: put a "
                              f"space between the Chinese and the * (the edition removes it)")
            for m in EMPHASIS_ROLE.finditer(text)]


def message_problems(english: str, chinese: str, catalogue: Path,
                     targets: dict) -> list[tuple[str, str]]:
    """Every (rule, what) that the translation ``chinese`` of ``english`` breaks."""
    if not HAS_CJK.search(chinese):
        return []
    text = prose(chinese)
    unrolled = MATH.sub(PLACEHOLDER, ROLE.sub(PLACEHOLDER, chinese))
    return (emphasis_problems(text) + half_width_problems(prose(without_verbatim_quotes(chinese)))
            + number_problems(english, text) + link_problems(chinese, catalogue, targets)
            + illustrated_problems(chinese) + percent_problems(text)
            + link_space_problems(chinese, targets) + doubled_stop_problems(unrolled)
            + times_problems(text)
            + emphasis_role_problems(MATH.sub(PLACEHOLDER, chinese)))


# --------------------------------------------------------------------------- the command
def _name(path: Path) -> str:
    try:
        return path.resolve().relative_to(CATALOGUES).as_posix()
    except ValueError:
        return str(path)


def check(paths: list[Path], targets: dict | None = None) -> list[tuple[str, str, str, str]]:
    """(catalogue, English start, rule, what) for every broken rule in ``paths``."""
    targets = page_targets() if targets is None else targets
    problems = []
    for path in paths:
        with path.open("rb") as f:
            catalog = read_po(f)
        for message in catalog:
            if not message.id or not message.string or message.fuzzy:
                continue
            english = message.id if isinstance(message.id, str) else message.id[0]
            chinese = message.string if isinstance(message.string, str) else message.string[0]
            start = " ".join(english.split())[:50]
            for rule, what in message_problems(english, chinese, path, targets):
                problems.append((_name(path), start, rule, what))
    return problems


if __name__ == "__main__":
    if sys.argv[1:] != ["--record-quotes"]:
        sys.exit("usage: python -m tests.locales.zh_typography --record-quotes (the rules: "
                 "pytest tests/locales/test_zh_typography.py)")
    sys.exit(record_quotes())
