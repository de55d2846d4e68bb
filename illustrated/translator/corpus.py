"""The real corpus: French-English sentence pairs from the Tatoeba Project (CC BY 2.0 FR,
via manythings.org/anki), shipped in ``illustrated/shipped/tatoeba/``, and their split *by English
sentence* into training, development and test sets. Introduced in the chapter Real
sentences.

The text is kept as the corpus writes it, with one light cleaning (:func:`clean`): Unicode
NFC, every kind of space (French puts a narrow no-break space before ``!`` and ``?``) as one
plain space, one apostrophe ``'``. Case is kept on both sides, so a name stays a name, and
English keeps its contractions (``I'm``, ``don't``): the references a translation is scored
against are the sentences as Tatoeba writes them.

Tatoeba sometimes holds two wordings of one English sentence as two pairs ("I'm sad." and
"I am sad." for "Je suis triste."). The split groups them by :func:`english_key`, the sentence
with its contractions written out (all but ``'s`` and ``'d``), its final marks dropped and in
lower case, so the wordings it joins land on the same side.
"""
from __future__ import annotations

import functools
import random
import re
import unicodedata
from dataclasses import dataclass

from ..shipped import PAIRS

_SPACES = re.compile(r"[\s\u00a0\u2000-\u200b\u202f\u205f\u3000]+")
_APOSTROPHES = re.compile(r"[\u2019\u2018\u02bc`´]")
_CONTRACTIONS = [(re.compile(pattern), repl) for pattern, repl in [  # in this order
    (r"\b([Cc])an't\b", r"\1annot"), (r"\b([Ww])on't\b", r"\1ill not"),
    (r"\b([Ss])han't\b", r"\1hall not"), (r"\b(\w+)n't\b", r"\1 not"),
    (r"\bI'm\b", "I am"), (r"\b(\w+)'re\b", r"\1 are"), (r"\b(\w+)'ll\b", r"\1 will"),
    (r"\b(I|you|we|they|You|We|They)'ve\b", r"\1 have"),
]]
_FINAL_MARKS = re.compile(r"\s*[.!?…]+$")


def clean(text: str) -> str:
    """NFC, plain spaces, one apostrophe, stripped; case and words kept:
    ``"C’est\u202f!"`` -> ``"C'est !"``."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    text = unicodedata.normalize("NFC", text)
    text = _APOSTROPHES.sub("'", text)
    return _SPACES.sub(" ", text).strip()


def english_key(text: str) -> str:
    """The English sentence with its contractions written out, without its final marks, in
    lower case (``"I'm here!"`` -> ``"i am here"``): the wordings of one sentence ("I'm
    here.", "I am here!") get one key, and the split keeps them together. ``'s`` and ``'d``
    are ambiguous (is/has, would/had) and stay."""
    text = clean(text)
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    return _FINAL_MARKS.sub("", text).lower()


def load_pairs(path=PAIRS) -> list[tuple[str, str]]:
    """``(french, english)`` pairs, :func:`clean`-ed, each distinct pair once, in the file's
    order (``English<TAB>French`` lines). Read once per file and process."""
    return list(_load(str(path)))


@functools.lru_cache(maxsize=4)
def _load(path: str) -> tuple:
    pairs, seen = [], set()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 2:
                raise ValueError(f"{path}:{n}: expected English<TAB>French, got {line!r:.80}")
            pair = (clean(cols[1]), clean(cols[0]))
            if pair[0] and pair[1] and pair not in seen:
                seen.add(pair)
                pairs.append(pair)
    return tuple(pairs)


@dataclass(frozen=True)
class Split:
    """Three disjoint lists of ``(french, english)`` pairs: no English sentence (no
    :func:`english_key`) is in two."""

    train: list
    dev: list
    test: list


def split_by_english(pairs, n_dev: int = 1000, n_test: int = 1000, seed: int = 0) -> Split:
    """Deterministic split by English sentence: the distinct :func:`english_key` of the
    English sides, sorted, are shuffled with ``random.Random(seed)``; the first ``n_test``
    go to the test set with every pair they have (every French wording, every English
    wording), the next ``n_dev`` to the development set, the rest to training. So no
    held-out reference, in any wording its key joins, was ever a training target (wordings
    that differ by ``'s`` or ``'d`` get two keys: :func:`english_key`)."""
    keys = {e: english_key(e) for e in {e for _, e in pairs}}
    english = sorted(set(keys.values()))
    if n_dev + n_test >= len(english):
        raise ValueError(f"n_dev + n_test = {n_dev + n_test} leaves no training sentence "
                         f"among {len(english)} distinct English sentences")
    random.Random(seed).shuffle(english)
    side = {e: 2 for e in english[:n_test]}
    side.update({e: 1 for e in english[n_test:n_test + n_dev]})
    parts = ([], [], [])
    for pair in pairs:
        parts[side.get(keys[pair[1]], 0)].append(pair)
    return Split(*parts)


def load_split(path=PAIRS, **kwargs) -> Split:
    """:func:`split_by_english` of :func:`load_pairs` (the corpus the shipped model uses)."""
    return split_by_english(load_pairs(path), **kwargs)
