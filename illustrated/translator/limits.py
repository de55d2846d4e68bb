"""What the real translator was trained on, and how a reader's sentence is checked against
it. Introduced in the chapter Real sentences; ``python -m illustrated translate`` and the live
translator page (``_static/live/``, which mirrors this module line by line) apply the same
rule and say the same words.

A text is cut into sentences (:func:`split_sentences`); each sentence is then

- **refused** when the model cannot read it at all: no word in it, letters outside the
  Latin alphabet (the model has only read French), or more subword pieces than
  :data:`~illustrated.translator.inference.MAX_LEN`;
- **translated with a warning** when it lies outside what the model was trained on: longer,
  in words, than every French training sentence, or made mostly of words that no French
  training sentence has (English, a name, a rare word).

A *word* is a run of letters (Unicode categories L*): ``"m'appelle"`` is two words, ``m`` and
``appelle``; digits and punctuation are not words. Words are compared in lower case.
"""
from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata

# One rule for the command and the page: a sentence ends at . ! ? or … followed by a space.
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")

# The exact words of the messages; the page's English messages (_static/live/messages.mjs)
# are these, a test compares them.
NO_WORDS = "nothing to translate: no words in it"
NOT_LATIN = ("not French: it has letters outside the Latin alphabet ({letters}); the model "
             "has only read French")
TOO_LONG = ("too long: {n} pieces, the model reads at most {max_len}; split it into shorter "
            "sentences")
LONGER_THAN_TRAINING = ("longer than any sentence the model was trained on ({n} words; the "
                        "longest French training sentence has {max_words}): expect a poor "
                        "translation")
MOSTLY_UNKNOWN = ("mostly unknown words ({unknown} of {n} words occur in no French training "
                  "sentence): is it French? The translation is a guess")


def words(text: str) -> list[str]:
    """The words of ``text`` in lower case: runs of letters (Unicode categories L*)."""
    out, run = [], []
    for c in text.lower():
        if unicodedata.category(c).startswith("L"):
            run.append(c)
        elif run:
            out.append("".join(run))
            run = []
    if run:
        out.append("".join(run))
    return out


def split_sentences(line: str) -> list[str]:
    """The sentences of one line of text: cut after ``.``, ``!``, ``?`` or ``…`` followed by
    white space, stripped; empty ones dropped. ``"J'ai faim. Allons manger."`` ->
    ``["J'ai faim.", "Allons manger."]``."""
    if not isinstance(line, str):
        raise TypeError(f"line must be a str, got {type(line).__name__}")
    return [s.strip() for s in _SENTENCE_END.split(line.strip()) if s.strip()]


def non_latin(text: str) -> list[str]:
    """The letters of ``text`` outside the Latin script (Cyrillic, Greek, Chinese ...), each
    once, in order of appearance. A letter is Latin when its Unicode name has the word LATIN,
    or it is ``ª`` or ``º`` (the ordinal indicators of ``nº``, ``1º``, whose names do not
    say so)."""
    found = [c for c in text if unicodedata.category(c).startswith("L") and c not in "ªº"
             and "LATIN" not in unicodedata.name(c, "").split()]
    return list(dict.fromkeys(found))


@dataclasses.dataclass(frozen=True)
class TrainingProfile:
    """What the model read in training: ``pairs`` sentence pairs whose French sentences have
    at most ``max_words`` words, all of them in ``words`` (lower case), and whose English
    sentences have at most ``max_english_words``."""

    pairs: int
    max_words: int
    max_english_words: int
    words: frozenset

    @classmethod
    def from_pairs(cls, pairs) -> "TrainingProfile":
        """The profile of ``(french, english)`` training pairs."""
        vocabulary, longest, longest_english = set(), 0, 0
        for french, english in pairs:
            w = words(french)
            vocabulary.update(w)
            longest = max(longest, len(w))
            longest_english = max(longest_english, len(words(english)))
        return cls(len(pairs), longest, longest_english, frozenset(vocabulary))

    def to_json(self) -> dict:
        """A JSON-ready dict (kept in the checkpoint; the live page's ``limits.json``);
        words sorted."""
        return {"pairs": self.pairs, "max_words": self.max_words,
                "max_english_words": self.max_english_words, "words": sorted(self.words)}

    @classmethod
    def from_json(cls, data: dict) -> "TrainingProfile":
        return cls(int(data["pairs"]), int(data["max_words"]), int(data["max_english_words"]),
                   frozenset(data["words"]))


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The check of one sentence: ``refusal`` (why it cannot be translated) or ``None``, and
    the ``warnings`` to show beside its translation."""

    refusal: str | None
    warnings: tuple[str, ...] = ()


def check_sentence(sentence: str, pieces: int, profile: TrainingProfile,
                   max_len: int) -> Verdict:
    """Check one sentence (as :func:`split_sentences` gives it) against what the model read.

    Args:
        sentence: the sentence as typed.
        pieces: its length in the model's subword tokens, ``<bos>`` and ``<eos>`` included
            (``len(tokenizer.encode(prepare(sentence)))``; ignored when it is refused
            before).
        profile: what the model was trained on.
        max_len: the most tokens the model reads.
    """
    found = words(sentence)
    if not found:
        return Verdict(NO_WORDS)
    foreign = non_latin(sentence)
    if foreign:
        return Verdict(NOT_LATIN.format(letters="".join(foreign[:5])))
    if pieces > max_len:
        return Verdict(TOO_LONG.format(n=pieces, max_len=max_len))
    warnings = []
    if len(found) > profile.max_words:
        warnings.append(LONGER_THAN_TRAINING.format(n=len(found), max_words=profile.max_words))
    unknown = sum(w not in profile.words for w in found)
    if 2 * unknown > len(found):
        warnings.append(MOSTLY_UNKNOWN.format(unknown=unknown, n=len(found)))
    return Verdict(None, tuple(warnings))


def training_profile(blob: dict) -> TrainingProfile:
    """The profile of the pairs a real translator was trained on, from its checkpoint's
    dictionary (:func:`~illustrated.translator.inference.load_translator`'s ``blob``): the one
    ``python -m illustrated train`` keeps in it, or, for a checkpoint without one, computed
    from the corpus split its ``train_config`` names (seconds)."""
    if "profile" in blob:
        return TrainingProfile.from_json(blob["profile"])
    cfg = blob.get("train_config") or {}
    return _profile(int(cfg.get("seed", 0)), int(cfg.get("limit", 0)))


@functools.lru_cache(maxsize=4)
def _profile(seed: int, limit: int) -> TrainingProfile:
    from .corpus import load_split

    train = load_split(seed=seed).train
    return TrainingProfile.from_pairs(train[:limit] if limit else train)
