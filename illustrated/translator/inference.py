"""The real translator: a :class:`~illustrated.model.Transformer` with its subword tokenizer,
saved as one small file (float16 weights, the tokenizer's JSON inside), and the functions
that translate with it: greedy or beam search, in batches of similar lengths, and the
cross-attention of one translation (as weights, or as the text table ``python -m
illustrated translate --attention`` prints). Introduced in the chapter Real sentences.
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import torch

from ..checkpoint import half_state, read_checked, write_atomically
from ..decoding import beam_search_batch, greedy_decode
from ..model import ModelConfig, Transformer
from ..shipped import TRANSLATOR
from .corpus import clean
from .tokenizer import SubwordTokenizer

FORMAT = "illustrated-real-translator-1"
#: The longest source or target the model reads or writes, in subword tokens with
#: ``<bos>`` and ``<eos>``.
MAX_LEN = 64
_END = re.compile(r"[.!?…]$")


def save_translator(path, model, tokenizer, **extra) -> Path:
    """Write ``model`` (weights as float16) and ``tokenizer`` to ``path`` atomically; any
    ``extra`` entries (history, scores) are stored alongside."""
    blob = {"format": FORMAT, "config": dataclasses.asdict(model.config),
            "tokenizer": tokenizer.tok.to_str(), "state_dict": half_state(model), **extra}
    return write_atomically(blob, path)


def load_translator(path=TRANSLATOR):
    """Returns ``(model, tokenizer, blob)``: the model in float32 and eval mode, the
    :class:`~illustrated.translator.tokenizer.SubwordTokenizer`, and the whole saved dictionary (its
    ``history``, ``scores`` ...). A damaged or foreign file raises ``ValueError``."""
    from tokenizers import Tokenizer

    blob = read_checked(path, FORMAT, "real-translator checkpoint")
    model = Transformer(ModelConfig(**blob["config"]))
    model.load_state_dict({k: v.float() if v.is_floating_point() else v
                           for k, v in blob["state_dict"].items()})
    return model.eval(), SubwordTokenizer(Tokenizer.from_str(blob["tokenizer"])), blob


def prepare(text: str) -> str:
    """A French input as the corpus writes its sentences:
    :func:`~illustrated.translator.corpus.clean`-ed, starting with a capital and ending with
    a punctuation mark (every sentence of the corpus does; ``.`` is added if none):
    ``"je suis étudiant"`` -> ``"Je suis étudiant."``."""
    text = clean(text)
    text = text[:1].upper() + text[1:]
    if text and not _END.search(text):
        text += "."
    return text


def translate(model, tokenizer, sentences, beam: int = 0, length_penalty: float = 0.6,
              batch_size: int = 64, max_len: int = MAX_LEN) -> list[str]:
    """English translations of French ``sentences`` (already :func:`prepare`-d), in batches
    of similar lengths: greedy, or beam search of size ``beam`` with the length penalty
    ``((5 + n) / 6) ** length_penalty`` (:func:`~illustrated.decoding.beam_search_batch`,
    which finds for each sentence what :func:`~illustrated.decoding.beam_search` finds
    alone)."""
    ids = [tokenizer.encode(s) for s in sentences]
    out = [None] * len(ids)
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    for start in range(0, len(order), batch_size):
        chunk = order[start:start + batch_size]
        width = max(len(ids[i]) for i in chunk)
        src = torch.tensor([ids[i] + [0] * (width - len(ids[i])) for i in chunk])  # (B, S)
        if beam > 0:
            found = beam_search_batch(model, src, max_len, tokenizer.bos_id, tokenizer.eos_id,
                                      beam, length_penalty=length_penalty)
            rows = [tokens for ((tokens, _),) in found]
        else:
            rows = greedy_decode(model, src, max_len, tokenizer.bos_id, tokenizer.eos_id)  # (B, T)
        for i, row in zip(chunk, rows):
            out[i] = tokenizer.decode(row)
    return out


def cross_attention(model, tokenizer, sentence: str, translation: str | None = None):
    """``(weights, source_tokens, target_tokens)``: the last decoder layer's
    cross-attention, averaged over heads, ``(T, S)``, when the model reads ``sentence`` and
    writes ``translation`` (default: its own greedy translation). Row ``i`` is the step that
    *writes* ``target_tokens[i]`` (the English tokens, then ``<eos>``)."""
    from ..model import make_std_masks

    if translation is None:
        translation, = translate(model, tokenizer, [sentence])
    src_ids, tgt_ids = tokenizer.encode(sentence), tokenizer.encode(translation)
    src = torch.tensor([src_ids])  # (1, S)
    tgt = torch.tensor([tgt_ids[:-1]])  # (1, T): <bos> w1 ... wn, the decoder's input
    src_mask, tgt_mask = make_std_masks(src, tgt)
    with torch.no_grad():
        model(src, tgt, src_mask, tgt_mask)
    w = model.decoder.layers[-1].src_attn.attention_weights[0].mean(0)  # (T, S)
    return w, pieces(tokenizer, src_ids), pieces(tokenizer, tgt_ids[1:])


def attention_table(model, tok, french: str, english: str) -> str:
    """A text table: one row per English token, one column per French token, the
    cross-attention weight in hundredths (last decoder layer, mean over heads)."""
    w, src, tgt = cross_attention(model, tok, french, english)
    width = max(4, *(len(p) for p in src))
    left = max(len(p) for p in tgt)
    lines = [" " * left + " " + " ".join(p.rjust(width) for p in src)]
    for piece, row in zip(tgt, w):
        lines.append(piece.rjust(left) + " " + " ".join(
            f"{round(100 * float(x)):{width}d}" for x in row))
    return "\n".join(lines)


def _byte_of() -> dict[str, int]:
    """GPT-2's bytes_to_unicode, inverted: the printable character that stands for each of the
    256 bytes in a byte-level token (! to ~, ¡ to ¬ and ® to ÿ for themselves, the others, in
    order, as U+0100, U+0101, ...; space is ``Ġ``) back to its byte."""
    keep = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    rest = [b for b in range(256) if b not in keep]
    return {**{chr(b): b for b in keep}, **{chr(256 + n): b for n, b in enumerate(rest)}}


_BYTE_OF = _byte_of()


def _shown(tokenizer, i: int) -> str:
    """One token as the book shows it: its text with ``▁`` for a space; a token whose bytes are
    not whole UTF-8 (a piece of a character the tokenizer never learned, such as an emoji) by
    its bytes, ``<F0>`` for the byte F0."""
    token = tokenizer.tok.id_to_token(i)
    if token is None or any(c not in _BYTE_OF for c in token):
        return tokenizer.tok.decode([i]).replace(" ", "▁")
    raw = bytes(_BYTE_OF[c] for c in token)
    try:
        return raw.decode("utf-8").replace(" ", "▁")
    except UnicodeDecodeError:
        return "".join("▁" if b == 0x20 else f"<{b:02X}>" for b in raw)


def pieces(tokenizer, ids) -> list[str]:
    """The tokens of ``ids`` as the book displays them: the text of each token, ``▁`` for a
    leading space (the tokenizer stores it as GPT-2's byte-level ``Ġ``), special tokens by
    name, and a token that is only part of a character by its bytes (``<F0>``)."""
    names = ["<pad>", "<bos>", "<eos>", "<unk>"]
    return [names[i] if i < 4 else _shown(tokenizer, i) for i in ids]
