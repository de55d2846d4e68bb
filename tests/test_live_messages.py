"""The live pages' words say *token* (Chinese 词元), the book's one term for an entry of the
subword vocabulary, never *piece* (片段): every string of _static/live/messages.mjs, in both
editions, the reader-facing text of the two pages (their HTML attributes that name
elements, ids, classes and message keys, left aside) and their Chinese catalogues."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["live_translator", "live_writer"]
OLD = re.compile(r"piece|片段", re.IGNORECASE)
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|`[^`]*`')  # a JavaScript string or template
NAMING = re.compile(r'\s(?:id|class|for|data-msg(?:-aria)?)="[^"]*"')  # not read by anyone


def old_words(texts) -> list[str]:
    return [t for t in texts if OLD.search(t)]


def test_the_messages_say_token():
    source = (ROOT / "_static" / "live" / "messages.mjs").read_text(encoding="utf-8")
    code = "\n".join(line.split("//")[0] for line in source.splitlines())  # not comments
    strings = STRING.findall(code)
    assert len(strings) > 100  # the parse found the messages
    assert not old_words(strings)


@pytest.mark.parametrize("page", PAGES)
def test_the_page_says_token(page):
    text = (ROOT / "chapters" / f"{page}.md").read_text(encoding="utf-8")
    text = NAMING.sub("", re.sub(r"<style>.*?</style>", "", text, flags=re.DOTALL))
    assert "token" in text and not old_words(text.splitlines())


@pytest.mark.parametrize("page", PAGES)
def test_the_chinese_page_says_token(page):
    path = ROOT / "locales" / "zh_CN" / "LC_MESSAGES" / "chapters" / f"{page}.po"
    with path.open("rb") as f:
        said = [m.string for m in read_po(f) if m.id and m.string]
    assert any("词元" in s for s in said) and not old_words(said)
