"""Names the translator has never seen, copied rather than translated. Introduced in the
chapter Real sentences.

Tatoeba's sentences name few people and places: *Tom* stands in thousands of pairs, *Mary* in
a few hundred, *Boston* in about a hundred, and almost nothing else. A model trained on them
learns *Tom* as a word, not the rule that a name is copied, and mangles a name it never saw.
So the trainer shows it the rule: each training pair with a name on both sides
(:func:`shared_names`) also trains in copies where that name is replaced, on both sides, by
an invented one (:func:`invented_name`): *Tom a oublié.* / *Tom forgot.* becomes *Formaine a
oublié.* / *Formaine forgot.* An invented name is made of random subword tokens of the
model's own tokenizer, so the model learns to copy any token, not only those of a few
names.

:func:`copy_probe` measures the rule on held-out sentences, with real names that appear
nowhere in the corpus (:data:`PROBE_NAMES`) put in place of the names they had.
"""
from __future__ import annotations

import random
import re

# A capitalised word: Tom, Chloé, Jean-Luc.
_CAPITALISED = re.compile(r"\b[A-ZÀ-Ý][a-zà-ÿ]+(?:-[A-ZÀ-Ý][a-zà-ÿ]+)?\b")
#: Real first names, places and firms that occur nowhere in the shipped corpus (a test
#: keeps it so), each written the same in French and English.
PROBE_NAMES = ("Sophie", "Pierre", "Camille", "Nadia", "Hugo", "Chloé", "Mehdi", "Inès",
               "Lucas", "Manon", "Théo", "Yasmine", "Karim", "Élodie", "Baptiste",
               "Margaux", "Olga", "Fatou", "Aurélien", "Zoé", "Julien", "Amira", "Bastien",
               "Lina", "Jade", "Malik", "Lyon", "Toulouse", "Nantes", "Grenoble", "Dakar",
               "Nairobi", "Oslo", "Bordeaux", "Renault", "Peugeot", "Michelin", "Airbus")


def name_words(pairs) -> frozenset[str]:
    """The capitalised words that some French sentence of ``pairs`` has *inside* it (not
    as its first word): the names, as opposed to words capitalised only because they
    start a sentence (*Oh*, *Continue*)."""
    return frozenset(w for f, _ in pairs for w in _CAPITALISED.findall(f.split(" ", 1)[-1])
                     if " " in f)


def shared_names(french: str, english: str, names) -> list[str]:
    """The words of ``names`` that stand in both sentences, in the French order."""
    english_words = set(_CAPITALISED.findall(english))
    return [w for w in dict.fromkeys(_CAPITALISED.findall(french))
            if w in names and w in english_words]


def name_pieces(tokenizer) -> tuple[list[str], list[str]]:
    """``(first, inner)``: the tokens of ``tokenizer`` (a
    :class:`~illustrated.translator.tokenizer.SubwordTokenizer`) made of one to four lower-case
    letters, those that start a word and those inside one."""
    first, inner = [], []
    for i in range(len(tokenizer)):
        text = tokenizer.tok.decode([i])
        core = text[1:] if text.startswith(" ") else text
        if core.isalpha() and core.islower() and len(core) <= 4:
            (first if text.startswith(" ") else inner).append(core)
    return first, inner


def invented_name(rng: random.Random, pieces) -> str:
    """A capitalised word of a word-start token and one or two inner tokens of ``pieces``
    (from :func:`name_pieces`), drawn with ``rng``: ``Formaine``, ``Grider``."""
    first, inner = pieces
    parts = [rng.choice(first)] + [rng.choice(inner) for _ in range(rng.choice((1, 2)))]
    return "".join(parts).capitalize()


def substitute(french: str, english: str, old: str, new: str) -> tuple[str, str]:
    """``old`` replaced by ``new`` as a whole word on both sides."""
    word = re.compile(rf"\b{re.escape(old)}\b")
    return word.sub(new, french), word.sub(new, english)


def with_invented_names(pairs, copies: int, seed: int, pieces) -> list[tuple[str, str]]:
    """``pairs`` followed by ``copies`` copies of each pair that has a shared name, every
    shared name replaced by an invented one (:func:`invented_name` of ``pieces``, drawn with
    ``random.Random(seed)``)."""
    if isinstance(copies, bool) or not isinstance(copies, int) or copies < 0:
        raise ValueError(f"copies must be an int >= 0, got {copies!r}")
    rng, names, extra = random.Random(seed), name_words(pairs), []
    for french, english in pairs:
        found = shared_names(french, english, names)
        for _ in range(copies if found else 0):
            f, e = french, english
            for old in found:
                f, e = substitute(f, e, old, invented_name(rng, pieces))
            extra.append((f, e))
    return list(pairs) + extra


def copy_probe(pairs, train_pairs, probe_names=PROBE_NAMES):
    """The held-out ``pairs`` that have a shared name (names as :func:`name_words` finds
    them in ``train_pairs``), each with its names replaced by probe names in turn.
    Returns ``[(french, english, [names put in])]``."""
    names, out, turn = name_words(train_pairs), [], 0
    for french, english in pairs:
        found = shared_names(french, english, names)
        if not found:
            continue
        put = []
        for old in found:
            new = probe_names[turn % len(probe_names)]
            turn += 1
            french, english = substitute(french, english, old, new)
            put.append(new)
        out.append((french, english, put))
    return out


def copy_rate(outputs, probe) -> float:
    """The share of the probe's names that come out, as whole words, in ``outputs``."""
    copied = total = 0
    for text, (_, _, put) in zip(outputs, probe, strict=True):
        for name in put:
            total += 1
            copied += re.search(rf"\b{re.escape(name)}\b", text) is not None
    return copied / total if total else float("nan")
