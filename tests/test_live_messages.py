"""The live pages' words say *token* (Chinese 词元), the book's one term for an entry of the
subword vocabulary, never *piece* (片段): every string of _static/live/messages.mjs, in both
editions, the reader-facing text of the two pages (their HTML attributes that name
elements, ids, classes and message keys, left aside) and their Chinese catalogues."""
from __future__ import annotations

import json
import re
import subprocess
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


def test_the_translator_page_states_the_exported_alpha():
    """The page cannot glue: the length penalty's alpha it states is the manifest's."""
    page = (ROOT / "chapters" / "live_translator.md").read_text(encoding="utf-8")
    manifest = json.loads((ROOT / "_static" / "live" / "manifest.json").read_text())
    stated = re.findall(r"\\alpha = ([0-9.]+)", page)
    assert stated == [str(manifest["length_penalty"])]


def test_counts_of_one_are_singular_and_the_lab_prints_tiny_probabilities(node):
    """English counts agree with their noun ("1 token", "2 tokens"); the decoding lab prints
    a probability with the writer's percent (generate.percent), "<0.1 %" rather than 0.0 %."""
    script = """
    import { editions } from "./_static/live/messages.mjs";
    import { percent } from "./_static/live/steps.mjs";
    const en = editions.en;
    console.log(JSON.stringify([en.labLive(1), en.labLive(2), en.labGreedyTop(1),
      en.writer.writing(1), en.writer.written(1, 2, true), en.writer.written(3, 2, false),
      percent(0.0003)]));"""
    proc = subprocess.run([node, "--input-type=module", "-e", script], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    live1, live2, top1, writing1, wrote1, wrote3, tiny = json.loads(proc.stdout)
    assert live1.startswith("The 1 live hypothesis this step extends, with its score")
    assert live2.startswith("The 2 live hypotheses this step extends, with their scores")
    assert top1.startswith("The 1 most likely next token,")
    assert writing1 == "Writing: 1 token so far …" and wrote1.startswith("Wrote 1 token in")
    assert wrote3.startswith("Wrote 3 tokens in") and tiny == "<0.1 %"
    lab = (ROOT / "_static" / "live" / "lab.mjs").read_text(encoding="utf-8")
    assert "import { percent } from \"./steps.mjs\";" in lab and "const percent" not in lab


def test_the_writer_page_states_the_exported_max_len():
    """The page cannot glue: the positions it states are the exported writer's max_len."""
    page = (ROOT / "chapters" / "live_writer.md").read_text(encoding="utf-8")
    max_len = json.loads((ROOT / "_static" / "live" / "writer.json").read_text())["max_len"]
    stated = re.findall(r"`max_len`, (\d+) positions, one of\s+them `<bos>`, so at most (\d+) ",
                        page)
    assert stated == [(str(max_len), str(max_len - 1))]
