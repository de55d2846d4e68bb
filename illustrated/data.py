"""A toy French -> English corpus made by a grammar (no download), a vocabulary, a
tab-separated pair reader and batching with the masks of :mod:`illustrated.masks`.

The grammar: subject-verb agreement (je suis -> i am), articles (un/une -> a/an),
adjectives after the noun in French and before it in English (un chat noir -> a black cat),
negation (ne ... pas -> not), and the sources' sentences (je suis étudiant -> i am a student).
"""
from __future__ import annotations

import random
import re
import warnings
from dataclasses import dataclass

import torch

from .masks import padding_mask, subsequent_mask

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SUBJECTS = [("je", "i", 0), ("tu", "you", 1), ("il", "he", 2), ("elle", "she", 2),
            ("nous", "we", 3), ("vous", "you", 4), ("ils", "they", 5)]
ETRE = (["suis", "es", "est", "sommes", "êtes", "sont"],  # être, by person
        ["am", "are", "is", "are", "are", "are"])
VERBS = {  # French forms by person; English (base, third person)
    "voir": (["vois", "vois", "voit", "voyons", "voyez", "voient"], ("see", "sees")),
    "aimer": (["aime", "aimes", "aime", "aimons", "aimez", "aiment"], ("like", "likes")),
}
NOUNS = [("chat", "cat", "m"), ("chien", "dog", "m"), ("livre", "book", "m"),
         ("voiture", "car", "f"), ("maison", "house", "f"), ("pomme", "apple", "f")]
ADJS = [("noir", "noire", "black"), ("blanc", "blanche", "white"),
        ("rouge", "rouge", "red"), ("vert", "verte", "green"), ("orange", "orange", "orange")]
JOBS = [("étudiant", "student"), ("médecin", "doctor"), ("professeur", "teacher"),
        ("ingénieur", "engineer")]
FIXED = [("je suis étudiant", "i am a student"), ("merci", "thanks"),
         ("bonjour", "hello")]


def _a(word):
    return "an" if word[0] in "aeiou" else "a"


def _elide(words):
    out = " ".join(words)
    return re.sub(r"\b(je|ne) ([aeiouéê])", lambda m: m.group(1)[0] + "'" + m.group(2), out)


def all_pairs():
    """Every (french, english) pair of the grammar, in a fixed order."""
    pairs = list(FIXED)
    for fs, es, p in SUBJECTS:  # p: the person, 0 (je) to 5 (ils); il and elle share 2
        third = p == 2
        for fj, ej in JOBS:
            # nous/vous/ils take the plural: nous sommes étudiants -> we are students
            fj, ej = (fj + "s", ej + "s") if p >= 3 else (fj, f"{_a(ej)} {ej}")
            pairs.append((f"{fs} {ETRE[0][p]} {fj}", f"{es} {ETRE[1][p]} {ej}"))
            pairs.append((_elide([fs, "ne", ETRE[0][p], "pas", fj]),
                          f"{es} {ETRE[1][p]} not {ej}"))
        for forms, (base, s3) in VERBS.values():
            for fn, en, g in NOUNS:
                for adj in [None] + ADJS:
                    fa = "" if adj is None else " " + adj[0 if g == "m" else 1]
                    ea = en if adj is None else f"{adj[2]} {en}"
                    art = "un" if g == "m" else "une"
                    pairs.append((_elide([fs, forms[p], art]) + f" {fn}{fa}",
                                  f"{es} {s3 if third else base} {_a(ea)} {ea}"))
                    dart = "le" if g == "m" else "la"
                    does = "does" if third else "do"
                    pairs.append((_elide([fs, "ne", forms[p], "pas", dart]) + f" {fn}{fa}",
                                  f"{es} {does} not {base} the {ea}"))
    return pairs


def split_pairs(seed=0, held_out=0.1):
    """``(train, held_out)``: disjoint lists of distinct pairs, deterministic given ``seed``;
    the fixed sentences of the sources are always in training."""
    pairs = sorted(set(all_pairs()) - set(FIXED))
    random.Random(seed).shuffle(pairs)
    n = int(len(pairs) * held_out)
    return list(FIXED) + pairs[n:], pairs[:n]


def tokenize(text):
    """Lower-case words (apostrophes kept: ``j'ai``) and punctuation marks."""
    return re.findall(r"[\w'’-]+|[^\w\s]", text.lower())


class Vocab:
    """Words to ids and back, with ``<pad>`` = 0, ``<bos>`` = 1, ``<eos>`` = 2, ``<unk>`` = 3."""

    def __init__(self, words):
        self.itos = [PAD, BOS, EOS, UNK] + sorted(set(words) - {PAD, BOS, EOS, UNK})
        self.stoi = {w: i for i, w in enumerate(self.itos)}
        self.pad_id, self.bos_id, self.eos_id, self.unk_id = 0, 1, 2, 3

    @classmethod
    def build(cls, sentences):
        return cls(w for s in sentences for w in tokenize(s))

    def __len__(self):
        return len(self.itos)

    def encode(self, sentence, max_len=64):
        """``[bos, ids..., eos]``; unknown words become ``<unk>`` and are named in a warning."""
        words = tokenize(sentence)
        if not words:
            raise ValueError(f"empty sentence {sentence!r}")
        if len(words) + 2 > max_len:
            raise ValueError(f"sentence has {len(words)} words; the limit is {max_len - 2}")
        unknown = [w for w in words if w not in self.stoi]
        if unknown:
            warnings.warn(f"unknown words mapped to <unk>: {unknown}", stacklevel=2)
        return [self.bos_id] + [self.stoi.get(w, self.unk_id) for w in words] + [self.eos_id]

    def decode(self, ids):
        out = []
        for i in [int(i) for i in ids]:
            if i == self.eos_id:
                break
            if i not in (self.pad_id, self.bos_id):
                out.append(self.itos[i])
        return " ".join(out)


def read_tsv(path, src_col=0, tgt_col=1):
    """Pairs from a tab-separated file, one pair per line (extra columns ignored)."""
    pairs = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            cols = line.rstrip("\n").split("\t")
            if not line.strip():
                continue
            if len(cols) <= max(src_col, tgt_col):
                raise ValueError(f"{path}:{n}: expected at least {max(src_col, tgt_col) + 1} "
                                 f"tab-separated columns, got {len(cols)}")
            pairs.append((cols[src_col], cols[tgt_col]))
    return pairs


@dataclass
class Batch:
    src: torch.Tensor  # (B, S)
    tgt_in: torch.Tensor  # (B, T): <bos> w1 ... wn
    tgt_out: torch.Tensor  # (B, T): w1 ... wn <eos>
    src_mask: torch.Tensor  # (B, 1, S)
    tgt_mask: torch.Tensor  # (B, T, T)


def _pad(seqs, pad_id):
    width = max(len(s) for s in seqs)
    return torch.tensor([s + [pad_id] * (width - len(s)) for s in seqs])  # (B, width)


def make_batch(src_ids, tgt_ids, pad_id=0):
    """A :class:`Batch` from lists of encoded sentences (each
    ``[bos, ..., eos]``): the target is cut into what the decoder reads,
    ``tgt_in``, and what it must predict, ``tgt_out``, one word later."""
    src = _pad(src_ids, pad_id)  # (B, S)
    tgt = _pad(tgt_ids, pad_id)  # (B, T + 1)
    tgt_in, tgt_out = tgt[:, :-1], tgt[:, 1:]  # (B, T), (B, T)
    tgt_mask = (padding_mask(tgt_in, pad_id)
                & subsequent_mask(tgt_in.shape[1]))  # (B, T, T)
    return Batch(src, tgt_in, tgt_out, padding_mask(src, pad_id), tgt_mask)
