"""_static/live/tokenizer.js, the live translator page's tokenizer, run under Node: its
``prepare``, ``encode``, ``decode`` and ``pieces`` give what Python gives
(``illustrated.translator.inference.prepare`` and ``pieces``, ``SubwordTokenizer.encode`` and
``decode``) on every held-out sentence, on tricky inputs and on random ids. One Node process
answers them all (tests/js/live_tokenizer.mjs). The same comparison runs in Chromium in
tests/site/browser/test_tokenizer.py, which takes its inputs from here
(tests/js/tokenizer_answers.mjs asks the module, under Node and in Chromium alike)."""
from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from illustrated.shipped import TOKENIZER
from illustrated.translator.corpus import load_split
from illustrated.translator.inference import pieces, prepare
from illustrated.translator.tokenizer import SubwordTokenizer

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "tests" / "js" / "live_tokenizer.mjs"

# What a reader may type: each line tries one thing the GPT-2 split, the byte table, the
# merges, the normalisation or Python's idea of a space could get wrong.
TRICKY = [
    "Je suis étudiant.", "JE SUIS ÉTUDIANT !", "Élève, À, Ça, Œuvre, Ÿ",  # capitals
    "é è ê ë ç à â î ï ô û ù ü œ æ", "cœur, sœur, œil, Noël, naïf, garçon",  # accents
    "e\u0301te\u0301 (é as e + accent)", "l’homme", "l'homme", "aujourd‘hui`s ´x ʼy",
    "c'est l'arbre d'Ève qu'il m'a dit", "'s 't 're 've 'm 'll 'd", "it's we're I've",
    "« Bonjour », dit-il.", "«\u00a0Oui\u00a0»", "Vraiment\u202f?", "Quoi\u202f!\u202f?",
    "tab\there", "deux  espaces", "trois   espaces\t\tet tabs", "ligne\nligne\r\nfin",
    "  devant", "derrière  ", "\t\n au milieu \n\t", "\u3000ideographic\u2003em\u2009thin",
    "zero\u200bwidth", "bom\ufeffhere", "bom\ufeff!", "\ufeffBOM first", "nel\x85next", "nel\x85!", "fs\x1cgs\x1drs\x1eus\x1f",
    "1 2 3", "J'ai 42 ans et 3,14 euros.", "12345678901234567890", "1er 2e 3ème ½ ² Ⅻ",
    "?!", "Quoi ?!", "...", "…", "Non!!!??", "a-t-il", "(parenthèses) [crochets] {accolades}",
    "@#$%^&*_+=|\\/<>~", "prix : 5 € ou 4 £", "😀", "Je t'aime ❤️ 👍🏽", "👨‍👩‍👧",
    "人工智能", "我爱你。", "日本語のテキスト", "Привет, мир", "Καλημέρα ΟΔΟΣ",
    "مرحبا", "İstanbul", "straße STRASSE", "ǅ ǈ ǋ", "ﬁ ligature",
    "anticonstitutionnellement", "x" * 300, "a" * 3000,
    "l'eee", "n°000 et x00000", "....", "!!!!!",  # equal ranks: the leftmost pair first "é" * 200, "人" * 100, "ab" * 150 + ".",
    "<eos>", "a<eos>b", "x <pad> y <bos><unk>", "< eos >", "<EOS>",
    " ", "", "\t\n", "\u202f", "\u200b",  # blank: encode raises
    "sans point", "avec point.", "question?", "exclamation!", "points…", "fin.\n",
    # prepare's capital: one code point (U+10428 is two UTF-16 units), full case mapping
    "ßa", "ǆa", "ŉa", "ǰa", "ﬁn", "𐐨 deseret", "𝒶 math", "1er", "« oui »", "éé",
]


def held_out_french() -> list[str]:
    """Every French sentence of the held-out test split (already normalised)."""
    return [fr for fr, _ in load_split().test]


def held_out_english() -> list[str]:
    """Every English sentence of the held-out test split: what the page decodes."""
    return sorted({en for _, en in load_split().test})


def random_ids(n: int = 300, seed: int = 0) -> list[list[int]]:
    """Random id sequences for decode and pieces: any id of the vocabulary and a few past
    it, with eos, bos and padding among them, and runs of single bytes that are not UTF-8."""
    rng = random.Random(seed)
    seqs = []
    for k in range(n):
        if k % 3 == 0:  # byte tokens (ids 4 to 259): mostly broken UTF-8
            seqs.append([rng.randrange(4, 260) for _ in range(rng.randrange(1, 12))])
        else:
            seqs.append([rng.randrange(0, 4010) for _ in range(rng.randrange(0, 30))])
    return seqs


def python_answers(tok: SubwordTokenizer, job: dict) -> dict:
    """What Python gives for each input of ``job``, ``{"error": ...}`` where it raises."""
    def each(inputs, f):
        out = []
        for x in inputs:
            try:
                out.append(f(x))
            except (ValueError, TypeError) as err:
                out.append({"error": f"{type(err).__name__}: {err}"})
        return out

    return {"prepare": each(job["prepare"], prepare),
            "encode": each(job["encode"], tok.encode),
            "decode": each(job["decode"], tok.decode),
            "pieces": each(job["pieces"], lambda ids: pieces(tok, ids)),
            "words": [[w for w, _ in tok.tok.pre_tokenizer.pre_tokenize_str(t)]
                      for t in job["words"]]}


def make_job(tok: SubwordTokenizer, sentences: list[str], extra=()) -> dict:
    """Every comparison: ``prepare`` of the sentences and TRICKY; ``encode`` of those,
    raw and prepared, and of ``extra``; ``pieces`` and ``decode`` of their encodings;
    ``decode`` and ``pieces`` of random ids; the pre-tokenizer's ``words`` (the GPT-2
    split, in byte characters) of TRICKY, raw and prepared."""
    inputs = sentences + TRICKY
    texts = inputs + [p for p in map(prepare, TRICKY) if p not in inputs] + list(extra)
    encoded = [tok.encode(t) for t in texts if t.strip()]
    ids = random_ids()
    bom = tok.encode("a\ufeffb")  # text that starts with a byte order mark: kept
    ids.append([bom[0]] + bom[2:])
    return {"tokenizer": str(TOKENIZER), "prepare": inputs, "encode": texts,
            "decode": encoded + ids,
            "pieces": encoded + [[i for i in seq if i < 4000] for seq in ids],
            "words": TRICKY + [prepare(t) for t in TRICKY]}


def mismatches(job: dict, expected: dict, got: dict, limit: int = 10) -> list[str]:
    """``function(input): python X, javascript Y`` for each difference. An error counts as
    equal when both raised (Python's ValueError is a JavaScript Error)."""
    kinds = {"ValueError": "Error", "TypeError": "TypeError"}
    out = []
    for name in ("prepare", "encode", "decode", "pieces", "words"):
        for x, want, have in zip(job[name], expected[name], got[name]):
            if isinstance(want, dict) and isinstance(have, dict):
                if have["error"].split(":")[0] == kinds[want["error"].split(":")[0]]:
                    continue
            elif want == have:
                continue
            out.append(f"{name}({x!r:.80}): python {want!r:.120}, javascript {have!r:.120}")
    return out[:limit] + ([f"... {len(out) - limit} more"] if len(out) > limit else [])


@pytest.fixture(scope="module")
def tok():
    return SubwordTokenizer.load()


@pytest.fixture(scope="module")
def compared(answers_of, tok):
    sentences = held_out_french()
    job = make_job(tok, sentences, extra=held_out_english())
    return sentences, job, python_answers(tok, job), answers_of(RUNNER, job)


def test_the_page_tokenises_every_held_out_sentence_as_python(compared):
    sentences, job, expected, got = compared
    assert len(sentences) > 1000
    assert len(got["encode"]) == len(job["encode"]) and len(got["decode"]) == len(job["decode"])
    assert mismatches(job, expected, got) == []


def test_blank_text_raises_in_both(compared):
    _, job, expected, got = compared
    blank = [i for i, t in enumerate(job["encode"]) if not t.strip()]
    assert len(blank) == 4  # " ", "", "\t\n", "\u202f" (U+200B is no space to Python)
    for i in blank:
        assert expected["encode"][i]["error"].startswith("ValueError: empty sentence")
        assert got["encode"][i]["error"].startswith("Error: empty sentence")


def test_the_tricky_inputs_are_tricky(tok):
    """The list tries what it says: bytes beyond the merges, the specials, runs of spaces."""
    ids = [i for t in TRICKY if t.strip() for i in tok.encode(t)]
    assert {0, 1, 2, 3} <= set(ids)            # <eos>, <pad>... typed in the text
    assert any(4 <= i < 260 for i in ids)      # single bytes (emoji, CJK)
    assert prepare("Vraiment\u202f?") == "Vraiment ?" and prepare("sans point") == "Sans point."


def test_the_comparison_sees_a_difference(compared):
    """mismatches() reports a changed id, a changed piece and an error on one side only."""
    _, job, expected, got = compared
    bad = json.loads(json.dumps(got))
    bad["encode"][0] = bad["encode"][0][:-1] + [99]
    bad["pieces"][1] = ["x"]
    i = next(i for i, t in enumerate(job["encode"]) if not t.strip())
    bad["encode"][i] = [1, 2]
    found = mismatches(job, expected, bad)
    assert len(found) == 3 and found[0].startswith("encode(") and found[2].startswith("pieces(")


def test_node_errors_are_clear(node, tmp_path):
    script = tmp_path / "bad.mjs"
    script.write_text(
        f'import {{Tokenizer, prepare}} from "{(ROOT / "_static/live/tokenizer.js").as_uri()}";\n'
        'const out = [];\n'
        'for (const f of [() => Tokenizer.fromJSON({model: {type: "WordPiece"}}),\n'
        '                 () => prepare(3), () => Tokenizer.fromJSON(null)]) {\n'
        '  try { f(); out.push("no error"); } catch (e) { out.push(e.message); }\n'
        '}\n'
        'console.log(JSON.stringify(out));\n', encoding="utf-8")
    proc = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=60)
    messages = json.loads(proc.stdout)
    assert "model.type WordPiece" in messages[0]
    assert messages[1] == "text must be a string, got number"
    assert "parsed JSON" in messages[2]
