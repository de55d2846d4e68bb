"""The words of the book's figures, in the edition being drawn (English or Chinese).

Every word a figure shows (titles, axis labels, legends, alt texts) passes through
:func:`tr`. In the English edition (the default) it comes back unchanged; inside
``with in_edition("zh_CN"):`` it comes back in Chinese, from the catalogues
``illustrated/draw/locale/zh_CN/*.po`` (``draw.po`` for the figures, ``explorers.po`` for the
explorers). A text the catalogue does not know comes back unchanged.

A message may be a template: code writes ``tr("head {i}").format(i=3)``. A finished text
whose fields are numbers, such as ``"position 3"`` (a label a notebook built itself), is
matched against the templates too, so ``tr("position 3")`` gives ``"位置 3"`` when the
catalogue holds ``"position {i}"``. Only numbers: a template such as ``"{a} and {b}"`` must
not turn a sentence of the data into half-Chinese.

The catalogues are read with ``babel.messages.pofile`` (Babel comes with Sphinx): it reads
the ``.po`` files themselves, so no compiled ``.mo`` files have to be built and kept in step,
as the standard library's ``gettext`` would need.

A figure shown in a notebook carries the renderings of the editions
:func:`carried_editions` names (its output's metadata): English only for a reader's run,
Chinese too when the book executes its chapters (``$ILLUSTRATED_EDITIONS``).
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import re
from pathlib import Path

#: The languages :func:`in_edition` accepts (the book's editions, English first).
EDITIONS = ("en", "zh_CN")
LOCALE = Path(__file__).parent / "locale"  # LOCALE / language / "*.po": the catalogues
_edition = contextvars.ContextVar("edition", default="en")
_missed = contextvars.ContextVar("missed", default=None)
_FIELD = re.compile(r"\{(\w*)\}")
_NUMBER = r"-?\d[\d,]*(?:\.\d+)?"  # fills a field in a finished text: 3, -1.5, 4,000


#: The environment variable that names the editions a figure's output carries.
CARRIED = "ILLUSTRATED_EDITIONS"


def carried_editions() -> tuple[str, ...]:
    """The editions each figure and explorer output carries, English first: ``("en",)`` for
    a reader running a chapter (no second drawing to wait for), or as ``$ILLUSTRATED_EDITIONS``
    says: the book's executions (scripts/execute_notebooks.py) set ``en,zh_CN``, so that the
    committed outputs hold the Chinese renderings the Chinese pages show."""
    named = [e.strip() for e in os.environ.get(CARRIED, "en").split(",") if e.strip()]
    unknown = [e for e in named if e not in EDITIONS]
    if unknown:
        raise ValueError(f"${CARRIED} names {', '.join(map(repr, unknown))}; the editions are: "
                         + ", ".join(repr(e) for e in EDITIONS))
    return ("en",) + tuple(e for e in EDITIONS[1:] if e in named)


def edition() -> str:
    """The edition :func:`tr` answers in now: ``"en"`` unless inside :func:`in_edition`."""
    return _edition.get()


@contextlib.contextmanager
def in_edition(language: str):
    """Make :func:`tr` answer in ``language`` (one of :data:`EDITIONS`) inside the block.

    Yields a list that collects the texts :func:`tr` was asked for and could not translate
    (always empty in the English edition): the tests read it to find figure words missing
    from the catalogue.
    """
    if language not in EDITIONS:
        raise ValueError(f"unknown edition {language!r}; the editions are: "
                         + ", ".join(repr(e) for e in EDITIONS))
    missed: list[str] = []
    token, missed_token = _edition.set(language), _missed.set(missed)
    try:
        yield missed
    finally:
        _edition.reset(token)
        _missed.reset(missed_token)


class BookWord(str):
    """A label that is one of the book's own words ("position 3", "others"), made by
    :func:`book_words`. A figure translates such a label in the Chinese edition; any other
    label is data (a token, a number, a name) and is drawn as it is, so that the token "."
    stays "." even though the catalogue turns the full stop of a sentence into "。"."""

    __slots__ = ()


def book_words(labels) -> list[BookWord]:
    """``labels`` (strings) marked as the book's words, to be translated where a figure
    draws them: ``row_labels=draw.book_words([f"position {i}" for i in range(3)])``, or
    ``col_labels=tokens + draw.book_words(["others"])`` beside data.

    Returns:
        the labels as :class:`~illustrated.draw.words.BookWord` strings, in their order.
    """
    if isinstance(labels, str):
        raise TypeError(f"book_words() takes a list of labels, got the single string "
                        f"{labels!r}: write book_words([{labels!r}])")
    labels = list(labels)
    wrong = [label for label in labels if not isinstance(label, str)]
    if wrong:
        raise TypeError(f"book_words() takes strings, got {wrong[0]!r} "
                        f"({type(wrong[0]).__name__})")
    return [BookWord(label) for label in labels]


def tr(text: str) -> str:
    """``text`` in the current edition: itself in English or when the catalogue lacks it."""
    if not isinstance(text, str):
        raise TypeError(f"tr() translates a string, got {type(text).__name__} {text!r}")
    language = _edition.get()
    if language == "en" or not text.strip():
        return text
    found = lookup(text, language)
    if found is None:
        missed = _missed.get()
        if missed is not None and text not in missed:
            missed.append(text)
        return text
    return found


def lookup(text: str, language: str = "zh_CN") -> str | None:
    """The translation of ``text`` into ``language``, or None: the message itself, else the
    first template it fills with numbers (``"position 3"`` by ``"position {i}"``)."""
    messages, templates = _catalogue(language)
    if text in messages:
        return messages[text]
    for pattern, translation in templates:
        match = pattern.fullmatch(text)
        if match:
            return _FIELD.sub(lambda m: match.group(m.group(1)), translation)
    return None


@functools.lru_cache(maxsize=None)
def _catalogue(language: str):
    """``({msgid: msgstr}, [(template regex, msgstr)])`` of every ``.po`` of ``language``;
    untranslated and fuzzy messages are left out (they would show English as Chinese)."""
    from babel.messages.pofile import read_po

    messages: dict[str, str] = {}
    for path in sorted((LOCALE / language).glob("*.po")):
        with path.open("rb") as handle:
            for message in read_po(handle):
                if message.id and isinstance(message.id, str) and message.string \
                        and not message.fuzzy:
                    messages[message.id] = message.string
    return messages, [(_template(msgid), msgstr) for msgid, msgstr in messages.items()
                      if _FIELD.search(msgid)]


def _template(msgid: str) -> re.Pattern:
    """A regex matching the texts ``msgid`` makes when its ``{fields}`` are numbers."""
    parts, seen = _FIELD.split(msgid), set()  # text, field, text, field, ..., text
    regex = ""
    for i, part in enumerate(parts):
        if i % 2 == 0:
            regex += re.escape(part)
        elif not part:
            raise ValueError(f"template {msgid!r} has an empty field {{}}: name each field, "
                             f"e.g. {{i}}, so the translation can place it")
        else:
            regex += f"(?P={part})" if part in seen else rf"(?P<{part}>{_NUMBER})"
            seen.add(part)
    return re.compile(regex)
