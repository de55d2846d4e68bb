"""The words of the package's figures and explorers in each edition of the book.

STAND-IN (branch zh-explorers): the "figs" work writes the real module with this interface;
keep that one at merge. ``tr(text)`` gives the current edition's words for an English
message, read from every ``*.po`` in ``illustrated/locale/<language>/``; a message the
catalogue lacks comes back unchanged. Messages may be templates, ``tr("Head {i}").format(i=3)``.
"""
from __future__ import annotations

import contextvars
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

EDITIONS = ("en", "zh_CN")
LOCALE = Path(__file__).parent / "locale"
_edition = contextvars.ContextVar("edition", default=EDITIONS[0])


@contextmanager
def in_edition(language: str):
    """Within the block, ``tr`` gives ``language``'s words."""
    if language not in EDITIONS:
        raise ValueError(f"language must be one of {EDITIONS}, got {language!r}")
    token = _edition.set(language)
    try:
        yield
    finally:
        _edition.reset(token)


@lru_cache(maxsize=None)
def _catalogue(language: str) -> dict[str, str]:
    from babel.messages.pofile import read_po

    words = {}
    for path in sorted((LOCALE / language).glob("*.po")):
        with path.open("rb") as file:
            for message in read_po(file):
                if message.id and message.string and not message.fuzzy:
                    words[message.id] = message.string
    return words


def tr(text: str) -> str:
    """``text`` in the current edition's words (unchanged in English or if not translated)."""
    language = _edition.get()
    if language == EDITIONS[0]:
        return text
    return _catalogue(language).get(text, text)
