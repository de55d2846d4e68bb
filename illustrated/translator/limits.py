"""What the real translator was trained on, and how a reader's sentence is checked against
it. Introduced in the chapter Real sentences; ``python -m illustrated translate`` and the live
translator page (``_static/live/``, which mirrors this module line by line) apply the same
rule and say the same words.

A text is cut into sentences (:func:`split_sentences`); each sentence is then

- **refused** when the model cannot read it at all: no word in it, letters outside the
  Latin alphabet (the model has only read French; every such letter is named), or more
  subword tokens than :data:`~illustrated.translator.inference.MAX_LEN`;
- **translated with a warning** when it lies outside what the model was trained on: longer,
  in words, than every French training sentence; made mostly of words that no French
  training sentence has (English?), or holding some (a name, a rare word); holding numbers
  (few training sentences have a digit, and the model miscopies them); or holding symbols
  no training sentence has (an emoji).

The decoder-only writer of ``python -m illustrated generate`` and the live writer page was
trained on the English sentences of the same training pairs, and a prompt is checked by the
same rule (:func:`check_prompt`): refused with letters outside the Latin alphabet, warned
about when most of its words are French, or when it holds symbols no English training
sentence has (an emoji: the tokenizer reads it as bytes, ``<F0>``).

A *word* is a run of letters (Unicode categories L*): ``"m'appelle"`` is two words, ``m`` and
``appelle``; digits and punctuation are not words. Words are compared in lower case.
"""
from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata

# One rule for the command and the page. The lists are explicit (the Unicode property
# Sentence_Terminal has some 150 marks, most of scripts the model refuses anyway).
#: A sentence ends at one of these marks followed by white space.
SENTENCE_ENDS = ".!?…‼⁇⁈⁉"
# ... or at one of these, the marks of Chinese and Japanese, which put no space after a
# sentence (a comment, not an API-page entry: the page would set them in italics).
FULL_WIDTH_ENDS = "。！？｡"
_SENTENCE_END = re.compile(rf"(?<=[{SENTENCE_ENDS}])\s+|(?<=[{FULL_WIDTH_ENDS}])\s*")
#: ... but not at the "." of one of these abbreviations, the titles French writes before a
#: name (``M. Dupont``, ``Mme. Martin``): a whole run of letters, case as written. The
#: training French writes none of them (it writes ``Monsieur``).
ABBREVIATIONS = ("M", "MM", "Mme", "Mmes", "Mlle", "Mlles", "Dr", "Pr", "Me", "St", "Ste")
#: At most this many letters, words or symbols are named in one message; "and N more".
NAMED = 20

# The exact words of the messages; the page's English messages (_static/live/messages.mjs)
# are these, a test compares them.
NO_WORDS = "nothing to translate: no words in it"
NOT_LATIN = ("not French: it has letters outside the Latin alphabet ({letters}); the model "
             "has only read French")
#: What follows the first :data:`NAMED` letters, words or symbols when there are more.
MORE = " and {more} more"
TOO_LONG = ("too long: {n} tokens, the model reads at most {max_len}; split it into shorter "
            "sentences")
LONGER_THAN_TRAINING = ("longer than any sentence the model was trained on ({n} words; the "
                        "longest French training sentence has {max_words}): expect a poor "
                        "translation")
MOSTLY_UNKNOWN = ("mostly unknown words ({unknown} of {n} words occur in no French training "
                  "sentence): is it French? The translation is a guess")
UNKNOWN_WORDS = ("words that occur in no French training sentence ({words}): a name or a "
                 "rare word the model never read may come out wrong")
DIGITS = ("numbers ({numbers}): only {n} of the {pairs} French training sentences have a "
          "digit, and the model often writes other digits: check them in the translation")
UNSEEN_SYMBOLS = ("symbols that occur in no French training sentence ({symbols}): the model "
                  "never read them and may write anything in their place")
# The writer's prompt (check_prompt).
NOT_ENGLISH = ("not English: it has letters outside the Latin alphabet ({letters}); the "
               "writer has only read English")
FRENCH_PROMPT = ("French? {k} of its {n} words occur in French training sentences and in no "
                 "English one ({words}); the writer was trained on English sentences only")
UNSEEN_PROMPT_SYMBOLS = ("symbols that occur in no English training sentence ({symbols}): the "
                         "writer never read them and may write anything after them")


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
    """The sentences of one line of text: cut after a mark of :data:`SENTENCE_ENDS`
    (``. ! ? …``) followed by white space, unless the mark is the ``.`` of one of
    :data:`ABBREVIATIONS`, or after one of ``FULL_WIDTH_ENDS`` (``。！？``); stripped,
    empty ones dropped. ``"J'ai vu M. Dupont. Allons manger."`` ->
    ``["J'ai vu M. Dupont.", "Allons manger."]``."""
    if not isinstance(line, str):
        raise TypeError(f"line must be a str, got {type(line).__name__}")
    line = line.strip()
    sentences, start = [], 0
    for cut in _SENTENCE_END.finditer(line):
        if not _ends_with_abbreviation(line[:cut.start()]):
            sentences.append(line[start:cut.start()])
            start = cut.end()
    sentences.append(line[start:])
    return [s.strip() for s in sentences if s.strip()]


def _ends_with_abbreviation(text: str) -> bool:
    """Whether ``text`` ends with one of :data:`ABBREVIATIONS` and its ``.``, the
    abbreviation a whole run of letters: ``"Voici M."`` yes; ``"Voici Tom."``, ``"FM."``
    no."""
    if not text.endswith("."):
        return False
    head = text[:-1]
    letters = len(head)  # where the run of letters that ends head begins
    while letters and unicodedata.category(head[letters - 1]).startswith("L"):
        letters -= 1
    return head[letters:] in ABBREVIATIONS


def non_latin(text: str) -> list[str]:
    """The letters of ``text`` outside the Latin script (Cyrillic, Greek, Chinese ...), each
    once, in order of appearance. A letter is Latin when its Unicode name has the word LATIN,
    or it is ``ª`` or ``º`` (the ordinal indicators of ``nº``, ``1º``, whose names do not
    say so)."""
    found = [c for c in text if unicodedata.category(c).startswith("L") and c not in "ªº"
             and "LATIN" not in unicodedata.name(c, "").split()]
    return list(dict.fromkeys(found))


def numbers(text: str) -> list[str]:
    """The runs of decimal digits (Unicode category Nd) of ``text``, each once, in order:
    ``"J'ai 25 ans et 3 chats, 25 !"`` -> ``["25", "3"]``."""
    # every character that is not a decimal digit becomes a space: the runs left are numbers
    runs = "".join(c if unicodedata.category(c) == "Nd" else " " for c in text).split()
    return list(dict.fromkeys(runs))


def symbols(text: str) -> list[str]:
    """The symbols and punctuation of ``text`` (Unicode categories P*, S*, No, Nl), each
    once, in order, as :func:`~illustrated.translator.corpus.clean` leaves them (so ``’`` is
    ``'``): ``"J'aime les chats 🐱 !"`` -> ``["'", "🐱", "!"]``."""
    from .corpus import clean

    found = [c for c in clean(text) if unicodedata.category(c)[0] in "PS"
             or unicodedata.category(c) in ("No", "Nl")]
    return list(dict.fromkeys(found))


def listed(items, sep: str = ", ") -> str:
    """The first :data:`NAMED` items joined by ``sep``, then how many more
    (:data:`MORE`)."""
    more = MORE.format(more=len(items) - NAMED) if len(items) > NAMED else ""
    return sep.join(items[:NAMED]) + more


@dataclasses.dataclass(frozen=True)
class TrainingProfile:
    """What the model read in training: ``pairs`` sentence pairs whose French sentences have
    at most ``max_words`` words, all of them in ``words`` (lower case), ``digits`` of them
    with a digit, their symbols all in ``symbols`` (as :func:`symbols` finds them); and
    whose English sentences have at most ``max_english_words`` words, all in
    ``english_words``, their symbols all in ``english_symbols``."""

    pairs: int
    max_words: int
    max_english_words: int
    words: frozenset
    digits: int = 0
    symbols: frozenset = frozenset()
    english_words: frozenset = frozenset()
    english_symbols: frozenset = frozenset()

    @classmethod
    def from_pairs(cls, pairs) -> "TrainingProfile":
        """The profile of ``(french, english)`` training pairs."""
        vocabulary, english_vocabulary, marks, english_marks = set(), set(), set(), set()
        longest, longest_english, digits = 0, 0, 0
        for french, english in pairs:
            w, e = words(french), words(english)
            vocabulary.update(w)
            english_vocabulary.update(e)
            marks.update(symbols(french))
            english_marks.update(symbols(english))
            digits += bool(numbers(french))
            longest = max(longest, len(w))
            longest_english = max(longest_english, len(e))
        return cls(len(pairs), longest, longest_english, frozenset(vocabulary), digits,
                   frozenset(marks), frozenset(english_vocabulary), frozenset(english_marks))

    def to_json(self) -> dict:
        """A JSON-ready dict (kept in the checkpoint; the live page's ``limits.json``);
        words and symbols sorted."""
        return {"pairs": self.pairs, "max_words": self.max_words,
                "max_english_words": self.max_english_words, "words": sorted(self.words),
                "digits": self.digits, "symbols": sorted(self.symbols),
                "english_words": sorted(self.english_words),
                "english_symbols": sorted(self.english_symbols)}

    @classmethod
    def from_json(cls, data: dict) -> "TrainingProfile":
        return cls(int(data["pairs"]), int(data["max_words"]), int(data["max_english_words"]),
                   frozenset(data["words"]), int(data["digits"]), frozenset(data["symbols"]),
                   frozenset(data["english_words"]), frozenset(data["english_symbols"]))


#: The keys of a whole profile's JSON (a checkpoint older than some keeps fewer).
PROFILE_KEYS = frozenset(TrainingProfile(0, 0, 0, frozenset()).to_json())


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The check of one sentence: ``refusal`` (why it cannot be translated) or ``None``, and
    the ``warnings`` to show beside its translation."""

    refusal: str | None
    warnings: tuple[str, ...] = ()


def check_sentence(sentence: str, tokens: int, profile: TrainingProfile,
                   max_len: int) -> Verdict:
    """Check one sentence (as :func:`split_sentences` gives it) against what the model read.

    Args:
        sentence: the sentence as typed.
        tokens: its length in the model's subword tokens, ``<bos>`` and ``<eos>`` included
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
        return Verdict(NOT_LATIN.format(letters=listed(foreign, " ")))
    if tokens > max_len:
        return Verdict(TOO_LONG.format(n=tokens, max_len=max_len))
    warnings = []
    if len(found) > profile.max_words:
        warnings.append(LONGER_THAN_TRAINING.format(n=len(found), max_words=profile.max_words))
    unknown = [w for w in found if w not in profile.words]
    if 2 * len(unknown) > len(found):
        warnings.append(MOSTLY_UNKNOWN.format(unknown=len(unknown), n=len(found)))
    elif unknown:
        warnings.append(UNKNOWN_WORDS.format(words=listed(list(dict.fromkeys(unknown)))))
    if numbers(sentence):
        warnings.append(DIGITS.format(numbers=listed(numbers(sentence)), n=profile.digits,
                                      pairs=f"{profile.pairs:,}"))
    unseen = [c for c in symbols(sentence) if c not in profile.symbols]
    if unseen:
        warnings.append(UNSEEN_SYMBOLS.format(symbols=listed(unseen, " ")))
    return Verdict(None, tuple(warnings))


def check_prompt(prompt: str, profile: TrainingProfile) -> Verdict:
    """Check a prompt of the writer (``python -m illustrated generate``, the live writer
    page), which was trained on the English sentences of ``profile``'s pairs: refused when it
    has letters outside the Latin alphabet (all named), warned about when more than half of
    its words occur in French training sentences and in no English one (``"Je suis"``:
    both; ``"Tom"``, ``"I would like"``: none), and when it holds symbols that no English
    training sentence has (``"I like 🐱"``; all named)."""
    if not isinstance(prompt, str):
        raise TypeError(f"prompt must be a str, got {type(prompt).__name__}")
    foreign = non_latin(prompt)
    if foreign:
        return Verdict(NOT_ENGLISH.format(letters=listed(foreign, " ")))
    warnings = []
    found = words(prompt)
    french = [w for w in found if w in profile.words and w not in profile.english_words]
    if 2 * len(french) > len(found):
        warnings.append(FRENCH_PROMPT.format(
            k=len(french), n=len(found), words=listed(list(dict.fromkeys(french)))))
    unseen = [c for c in symbols(prompt) if c not in profile.english_symbols]
    if unseen:
        warnings.append(UNSEEN_PROMPT_SYMBOLS.format(symbols=listed(unseen, " ")))
    return Verdict(None, tuple(warnings))


def training_profile(blob: dict) -> TrainingProfile:
    """The profile of the pairs a real translator was trained on, from its checkpoint's
    dictionary (:func:`~illustrated.translator.inference.load_translator`'s ``blob``): the one
    ``python -m illustrated train`` keeps in it, or, for a checkpoint without one (or with
    one that lacks some of :data:`PROFILE_KEYS`), computed from the corpus split its
    ``train_config`` names (seconds). ``training_profile({})`` is the profile of the whole
    training split of seed 0, whose English sentences the shipped writer was trained on."""
    if PROFILE_KEYS <= set(blob.get("profile", ())):
        return TrainingProfile.from_json(blob["profile"])
    cfg = blob.get("train_config") or {}
    return _profile(int(cfg.get("seed", 0)), int(cfg.get("limit", 0)))


@functools.lru_cache(maxsize=4)
def _profile(seed: int, limit: int) -> TrainingProfile:
    from .corpus import load_split

    train = load_split(seed=seed).train
    return TrainingProfile.from_pairs(train[:limit] if limit else train)
