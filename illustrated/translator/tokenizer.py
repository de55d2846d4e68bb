"""Subword tokenisation: byte-level byte-pair encoding (BPE), one vocabulary shared by French
and English as in the paper, trained with the ``tokenizers`` library and kept as a JSON file
(``illustrated/shipped/tatoeba/tokenizer.json``) so that every program tokenises identically.
Introduced in the chapter Real sentences.

Byte-level: the text is first written as UTF-8 bytes, and the 256 bytes are the alphabet, so
*no input is ever unknown*: a word never seen in training falls apart into smaller known
pieces, down to single bytes if need be. Decoding gives back the text exactly.
"""
from __future__ import annotations

from pathlib import Path

from ..shipped import TOKENIZER

SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]  # ids 0, 1, 2, 3, as illustrated.data.Vocab


class SubwordTokenizer:
    """Text to ``[bos, ids..., eos]`` and back; ``pad_id`` = 0, ``bos_id`` = 1,
    ``eos_id`` = 2 (the ids of :class:`illustrated.data.Vocab`).

    Args:
        tokenizer: a ``tokenizers.Tokenizer`` whose first four tokens are ``SPECIALS``
            (``<pad>``, ``<bos>``, ``<eos>``, ``<unk>``).
    """

    pad_id, bos_id, eos_id, unk_id = 0, 1, 2, 3

    def __init__(self, tokenizer):
        for i, s in enumerate(SPECIALS):
            if tokenizer.token_to_id(s) != i:
                raise ValueError(f"the tokenizer must have {s!r} as token {i}, got "
                                 f"{tokenizer.token_to_id(s)}")
        self.tok = tokenizer

    @classmethod
    def train(cls, texts, vocab_size: int = 4000, min_frequency: int = 2) -> "SubwordTokenizer":
        """Learn ``vocab_size`` tokens (the 256 bytes, the specials, then merges) from an
        iterable of strings."""
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=SPECIALS,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
        tok.train_from_iterator(list(texts), trainer)
        return cls(tok)

    @classmethod
    def train_words(cls, texts, vocab_size: int = 8000) -> "SubwordTokenizer":
        """A word-level vocabulary instead, as source 001 (d2l) uses: the ``vocab_size`` most
        frequent words and punctuation marks; any other word becomes ``<unk>``. For comparing
        words with subwords (``python -m illustrated train --corpus tatoeba --tokens word``)."""
        from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

        tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
        # words (apostrophes and hyphens kept: c'est, n'est-ce) and punctuation marks, the
        # split of illustrated.data.tokenize
        tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\w'’-]+|[^\w\s]"), behavior="removed",
                                                 invert=True)
        tok.decoder = decoders.WordPiece(prefix="##", cleanup=True)  # joins words, tidies " ."
        trainer = trainers.WordLevelTrainer(vocab_size=vocab_size, special_tokens=SPECIALS,
                                            show_progress=False)
        tok.train_from_iterator(list(texts), trainer)
        return cls(tok)

    @classmethod
    def load(cls, path=TOKENIZER) -> "SubwordTokenizer":
        from tokenizers import Tokenizer

        return cls(Tokenizer.from_file(str(path)))

    def save(self, path=TOKENIZER) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.tok.save(str(path))
        return path

    def __len__(self) -> int:
        return self.tok.get_vocab_size()

    def pieces(self, text: str) -> list[str]:
        """The tokens of ``text`` as the tokenizer stores them (``Ġ`` marks a leading space,
        a non-ASCII letter shows as its UTF-8 bytes); the book displays tokens with
        :func:`illustrated.translator.inference.pieces`."""
        return self.tok.encode(text, add_special_tokens=False).tokens

    def encode(self, text: str) -> list[int]:
        """``[bos, ids..., eos]``; empty text raises ``ValueError``."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        if not text.strip():
            raise ValueError(f"empty sentence {text!r}")
        ids = self.tok.encode(text, add_special_tokens=False).ids
        return [self.bos_id] + ids + [self.eos_id]

    def decode(self, ids) -> str:
        """Text of the ids up to the first ``eos`` (``bos`` and padding skipped)."""
        out = []
        for i in (int(i) for i in ids):
            if i == self.eos_id:
                break
            if i > self.unk_id:
                out.append(i)
        return self.tok.decode(out).strip()
