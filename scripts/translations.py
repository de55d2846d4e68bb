"""The Chinese edition's catalogues: English messages out, translations checked.

    python scripts/translations.py update   # `make translations`: extract, merge, report
    python scripts/translations.py status   # what is left to translate, per page
    python scripts/translations.py check    # markup and terminology of the translations

The book has one source, the English pages and notebooks. Sphinx's gettext builder cuts
their prose into messages (paragraphs, titles, list items, captions, figures' alt text);
code, outputs and glued numbers are never messages, so they come through to the Chinese
edition as they are. Each page has a catalogue, ``locales/zh_CN/LC_MESSAGES/<page>.po``
(the ``locale_dirs`` and ``gettext_*`` settings of _config.yml), holding the English
(``msgid``) and the Chinese (``msgstr``) of each message.

``update`` extracts the messages from the current English (into ``_build/gettext/``, one
``.pot`` per page) and merges them into the catalogues with sphinx-intl: a new message
arrives untranslated, a changed one arrives "fuzzy" with the old Chinese as a draft, a
removed one is dropped. The Chinese edition's build warns (and the strict build of
``make test`` fails) while any message is missing, untranslated or fuzzy
(scripts/catalogue_check.py), so an English edit cannot silently leave stale Chinese.

The API page's docstrings stay English (the issue asks for the page's own prose): messages
that come only from the package's docstrings are left out of the catalogues.
"""
from __future__ import annotations

import argparse
import re
import shutil
import sys
from collections import Counter
from pathlib import Path

from babel.messages.pofile import read_po, write_po

from build_book import BUILD, ROOT, config_copy, jupyter_book
from catalogue_check import excerpt

LANGUAGE = "zh_CN"
CATALOGUES = ROOT / "locales" / LANGUAGE / "LC_MESSAGES"
POT = BUILD / "gettext"
LINE_WIDTH = 100
TERMINOLOGY = ROOT / "locales" / LANGUAGE / "terminology.yml"
# The glossary lists the sources' variants of every term (头部 among them), on purpose.
VARIANTS_PAGE = "appendix/glossary.po"


def from_docstrings_only(message) -> bool:
    """True for a message found only in the package's docstrings (autodoc), in no page.

    (Sphinx writes such a location as ``.../attention.py:docstring of illustrated.x:3``,
    which babel cuts at the spaces: what counts is that no location is a page's file.)"""
    files = [filename.split(":")[0] for filename, _ in message.locations]
    return bool(files) and not any(f.endswith((".md", ".ipynb")) for f in files)


def extract(pot_dir: Path = POT, work: Path = BUILD / "gettext-work") -> list[Path]:
    """Write one .pot per page into ``pot_dir`` from the current English; their paths.

    Runs Sphinx's gettext builder (about 15 s) from the committed notebook outputs, with
    locations on so that docstring messages can be recognised, then writes the .pot files
    without locations (they name this machine's paths, and move with every edit)."""
    # From scratch: Sphinx would reuse the doctrees of the last run, read before any
    # change to our extensions (scripts/editions.py decides what is a message).
    shutil.rmtree(work, ignore_errors=True)
    # MyST-NB shows the gettext builder only text outputs; the figures' alt text is a
    # message too, so let it pick the images.
    config = config_copy(work, {"gettext_location": True,
                                "nb_mime_priority_overrides": [["gettext", "image/png", 5]]})
    rc, problems = jupyter_book("--config", str(config), "--path-output", str(work),
                                "--builder", "custom", "--custom-builder", "gettext")
    if rc != 0:
        sys.exit(f"Extracting the messages failed ({problems} warning/error messages above).")
    written = []
    for source in sorted((work / "_build" / "gettext").rglob("*.pot")):
        relative = source.relative_to(work / "_build" / "gettext")
        with source.open("rb") as f:
            catalog = read_po(f)
        for message in list(catalog):
            if message.id and from_docstrings_only(message):
                catalog.delete(message.id, message.context)
        target = pot_dir / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("wb") as f:
            write_po(f, catalog, width=LINE_WIDTH, no_location=True, omit_header=False)
        written.append(target)
    # A page renamed or removed leaves its .pot of an earlier run: gone, or the merge
    # would give it a catalogue again.
    for stale in set(pot_dir.rglob("*.pot")) - set(written):
        stale.unlink()
    return written


# What a translation must carry over unchanged from the English: roles whose content is
# data (glued numbers, citations, equations), maths, inline code and link targets. A
# cross-reference may get Chinese text, but must keep its target: {ref}`中文 <label>`.
ROLE = re.compile(r"\{([\w:.-]+)\}`([^`]*)`")
TEXT_ROLES = {"ref", "doc", "numref", "term", "download", "any"}
MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.S)
CODE = re.compile(r"``.+?``|`[^`]+`", re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)")
BLOCK_START = re.compile(r"\d+[.)] |[-*+] ")  # a list item, when a message is read alone


# A glued word (not a number: "faster", "3 times the rate") has a Chinese twin glued
# under the same key plus this suffix; the translation pastes the twin.
TWIN = "_zh"


def markup(text: str) -> Counter:
    """The parts of a message that its translation must keep: each role with its data (or,
    for a cross-reference, its target), each maths span, inline code and link target. A
    glued key's Chinese twin (``key_zh``) counts as the key."""
    found = Counter()
    for role, content in ROLE.findall(text):
        if role in TEXT_ROLES:
            target = re.search(r"<([^<>]+)>\s*$", content)
            content = target.group(1) if target else content
        elif role.startswith("glue"):
            key, colon, spec = content.strip().partition(":")
            content = key.removesuffix(TWIN) + colon + spec
        found[f"{{{role}}}`{content.strip()}`"] += 1
    rest = ROLE.sub(" ", text)
    for pattern in (MATH, CODE):
        found.update(m.group(0) for m in pattern.finditer(rest))
        rest = pattern.sub(" ", rest)
    found.update(f"]({url})" for url in LINK.findall(rest))
    return found


def markup_problems(english: str, chinese: str) -> list[str]:
    """What the translation ``chinese`` lost or added of ``english``'s markup (see
    :func:`markup`), one phrase each; empty when it kept it all."""
    wanted, got = markup(english), markup(chinese)
    problems = [f"lost {part}" for part in sorted(wanted - got)]
    problems += [f"added {part}" for part in sorted(got - wanted)]
    # Sphinx parses a translation on its own: "1. 黑箱" is a list there, and a heading
    # translated so was dropped without a warning (the landing page's chapter list).
    start = BLOCK_START.match(chinese)
    if start:
        problems.append(f"starts with {start.group(0)!r}, which MyST reads as a list: "
                        f"escape it ({start.group(0).rstrip()[:-1]}\\{start.group(0).strip()[-1]} ...)")
    return problems


def read_catalogue(path: Path):
    with path.open("rb") as f:
        return read_po(f, locale=LANGUAGE)


def translated_messages(po_dir: Path = CATALOGUES):
    """(catalogue name, English, Chinese) of every translated message, in file order."""
    for po in sorted(po_dir.rglob("*.po")):
        name = po.relative_to(po_dir).as_posix()
        for message in read_catalogue(po):
            if message.id and message.string and not message.fuzzy:
                yield name, message.id, message.string


def all_markup_problems(po_dir: Path = CATALOGUES) -> list[str]:
    """Every translated message that lost or added markup (:func:`markup_problems`)."""
    return [f"{name}: markup: {'; '.join(found)}: \"{excerpt(english)}\""
            for name, english, chinese in translated_messages(po_dir)
            if (found := markup_problems(english, chinese))]


# A figure's alt text quotes the figure's own English: its title in curly quotes, its
# labels after "rows:", "y axis:" ... (illustrated.draw). Those stay English in Chinese.
FIGURE_WORDS = re.compile(r"“[^”]*”|\b(?:rows|columns|bars|curves|samples|[xy] axis): [^;]*")
# Not prose either: LaTeX's words (\text{warmup}, \operatorname{Attention}, in a formula
# that is a message of its own) and the paper's title, which Chinese texts keep in English.
NOT_PROSE = re.compile(r"\\[a-zA-Z]+\{[^{}]*\}|Attention Is All You Need", re.I)


def load_terminology(path: Path = TERMINOLOGY) -> dict:
    import yaml

    return yaml.safe_load(path.read_text(encoding="utf-8"))


def term_pattern(entry: dict) -> re.Pattern:
    """The English of a term: ``english`` if given, else the term and its plural."""
    english = entry.get("english") or re.escape(entry["term"]) + "s?"
    return re.compile(rf"(?<![\w-])(?:{english})(?![\w-])", re.I)


def terminology_problems(po_dir: Path = CATALOGUES, terminology: dict | None = None) -> list[str]:
    """Translated messages whose English uses a term but whose Chinese lacks the edition's
    word for it, and Chinese that uses a rendering the edition never uses. The glossary's
    catalogue is not checked: it lists the sources' variants on purpose."""
    terminology = terminology or load_terminology()
    entries = terminology["terms"] + (terminology.get("house") or [])
    terms = [(entry, term_pattern(entry)) for entry in entries]
    exceptions = terminology.get("exceptions") or []
    problems = []
    for name, english, chinese in translated_messages(po_dir):
        if name == VARIANTS_PAGE:
            continue
        # Code, maths and roles' data are not prose: a `key` in code is not the term.
        prose = MATH.sub(" ", CODE.sub(" ", ROLE.sub(lambda m: m.group(2), english)))
        prose = NOT_PROSE.sub(" ", FIGURE_WORDS.sub(" ", prose))
        for entry, pattern in terms:
            if not pattern.search(prose):
                continue
            words = [entry["zh"], *entry.get("also", [])]
            if any(w in chinese for w in words):
                continue
            if any(e["term"] == entry["term"] and e["english"] in english for e in exceptions):
                continue
            problems.append(f"{name}: term: \"{entry['term']}\" is {entry['zh']}, which the "
                            f"Chinese lacks: \"{excerpt(english)}\"")
        for bad, why in (terminology.get("never") or {}).items():
            if bad in chinese:
                problems.append(f"{name}: never: {bad} ({why}): \"{excerpt(chinese)}\"")
    return problems


def status(po_dir: Path = CATALOGUES) -> None:
    total = done = 0
    for po in sorted(po_dir.rglob("*.po")):
        messages = [m for m in read_catalogue(po) if m.id]
        translated = sum(bool(m.string) and not m.fuzzy for m in messages)
        fuzzy = sum(m.fuzzy for m in messages)
        total, done = total + len(messages), done + translated
        print(f"{po.relative_to(po_dir).as_posix():40} {translated:4}/{len(messages):<4} translated"
              + (f", {fuzzy} fuzzy" if fuzzy else ""))
    print(f"{done} of {total} messages translated.")


def update() -> None:
    from sphinx_intl import basic

    extract()
    basic.update(str(CATALOGUES.parent.parent), str(POT), (LANGUAGE,), line_width=LINE_WIDTH,
                 ignore_obsolete=True, jobs=1)
    status()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["update", "status", "check"])
    args = parser.parse_args()
    if args.command == "update":
        update()
    elif args.command == "status":
        status()
    else:
        problems = all_markup_problems() + terminology_problems()
        print("\n".join(problems))
        print(f"{len(problems)} problem(s) of markup and terminology in the translated messages.")
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
