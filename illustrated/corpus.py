"""The real corpus: 73,731 French-English sentence pairs from the Tatoeba Project (CC BY 2.0
FR, via manythings.org/anki), shipped in ``chapters/data/tatoeba/``; their normalisation and
a split *by English sentence* into training, development and test sets. Introduced in the
chapter Real sentences.

Normalisation makes the text fit one tokenizer and one model: Unicode NFC, every kind of
space (French puts a narrow no-break space before ``!`` and ``?``) as one plain space, one
apostrophe ``'``; French lower-cased (the model learns the English capitals); English
contractions written out (``I'm`` -> ``I am``, ``don't`` -> ``do not``), because Tatoeba
often holds both wordings of one sentence as two pairs: written out, they become one English
sentence, and the split by English sentence keeps them on the same side.
"""
from __future__ import annotations

import functools
import random
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[1] / "chapters" / "data" / "tatoeba"
TSV = DATA_DIR / "eng-fra.tsv"

_SPACES = re.compile(r"[\s\u00a0\u2000-\u200b\u202f\u205f\u3000]+")
_APOSTROPHES = re.compile(r"[\u2019\u2018\u02bc`´]")
_CONTRACTIONS = [  # (pattern, replacement), applied in this order
    (r"\b([Cc])an't\b", r"\1annot"), (r"\b([Ww])on't\b", r"\1ill not"),
    (r"\b([Ss])han't\b", r"\1hall not"), (r"\b(\w+)n't\b", r"\1 not"),
    (r"\bI'm\b", "I am"), (r"\b(\w+)'re\b", r"\1 are"), (r"\b(\w+)'ll\b", r"\1 will"),
    (r"\b(I|you|we|they|You|We|They)'ve\b", r"\1 have"),
]


def _clean(text: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    text = unicodedata.normalize("NFC", text)
    text = _APOSTROPHES.sub("'", text)
    return _SPACES.sub(" ", text).strip()


def normalize_french(text: str) -> str:
    """NFC, plain spaces, one apostrophe, lower case: ``"Je suis\u202f!"`` -> ``"je suis !"``."""
    return _clean(text).lower()


def normalize_english(text: str) -> str:
    """NFC, plain spaces, one apostrophe, contractions written out (``"I'm here."`` ->
    ``"I am here."``); case kept."""
    text = _clean(text)
    for pattern, repl in _CONTRACTIONS:
        text = re.sub(pattern, repl, text)
    return text


def load_pairs(path=TSV) -> list[tuple[str, str]]:
    """``(french, english)`` pairs, normalised, each distinct pair once, in the file's order
    (``English<TAB>French`` lines). Read once per file and process."""
    return list(_load(str(path)))


@functools.lru_cache(maxsize=4)
def _load(path: str) -> tuple:
    pairs, seen = [], set()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 2:
                raise ValueError(f"{path}:{n}: expected English<TAB>French, got {line!r:.80}")
            pair = (normalize_french(cols[1]), normalize_english(cols[0]))
            if pair[0] and pair[1] and pair not in seen:
                seen.add(pair)
                pairs.append(pair)
    return tuple(pairs)


@dataclass(frozen=True)
class Split:
    """Three disjoint lists of ``(french, english)`` pairs: no English sentence is in two."""

    train: list
    dev: list
    test: list


def split_by_english(pairs, n_dev: int = 1000, n_test: int = 1000, seed: int = 0) -> Split:
    """Deterministic split by English sentence: the distinct English sentences, sorted, are
    shuffled with ``random.Random(seed)``; the first ``n_test`` go to the test set with every
    French wording they have, the next ``n_dev`` to the development set, the rest to
    training. So no held-out reference was ever a training target."""
    english = sorted({e for _, e in pairs})
    if n_dev + n_test >= len(english):
        raise ValueError(f"n_dev + n_test = {n_dev + n_test} leaves no training sentence "
                         f"among {len(english)} distinct English sentences")
    random.Random(seed).shuffle(english)
    side = {e: 2 for e in english[:n_test]}
    side.update({e: 1 for e in english[n_test:n_test + n_dev]})
    parts = ([], [], [])
    for pair in pairs:
        parts[side.get(pair[1], 0)].append(pair)
    return Split(*parts)


def load_split(path=TSV, **kwargs) -> Split:
    """:func:`split_by_english` of :func:`load_pairs` (the corpus the shipped model uses)."""
    return split_by_english(load_pairs(path), **kwargs)
