"""Training the decoder-only model on English sentences, and the shipped model's file.
Introduced in chapter 13, The decoder alone.

The text is the English side of the Tatoeba pairs' training split
(:func:`~illustrated.translator.corpus.load_split`), each distinct sentence once, tokenised by the
translator's subword tokenizer as ``<bos> w1 ... wn <eos>``. The task is the one the
translator's decoder already had, without a source sentence: at every position, predict
the next token (causal language modelling). Held-out sentences are the English sides of
the split's development and test pairs, which no training sentence equals.
``python -m illustrated train-writer`` (:mod:`illustrated.commands.train_writer`) trains
the shipped model with :class:`LMTrainConfig`.
"""
from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

from ..checkpoint import half_state, read_checked, write_atomically
from ..shipped import WRITER
from ..training import paper_optimiser
from ..translator.batching import token_batches
from ..translator.tokenizer import SubwordTokenizer
from .model import DecoderOnly, DecoderOnlyConfig

FORMAT = "illustrated-decoder-only-1"


@dataclass(frozen=True)
class LMTrainConfig:
    """The recipe of the shipped model (``python -m illustrated train-writer``)."""

    steps: int = 2400  # optimiser steps
    max_tokens: int = 2000  # tokens per batch, padding included
    warmup: int = 200  # steps of the paper's linear warm-up
    factor: float = 1.0  # the paper's schedule, times this
    seed: int = 0  # initial weights and batch order
    d_model: int = 128  # the model's sizes: DecoderOnlyConfig's fields
    N: int = 2
    h: int = 4
    d_ff: int = 512
    dropout: float = 0.1


def english_sentences(pairs) -> list[str]:
    """The distinct English sides of ``(french, english)`` pairs, sorted."""
    return sorted({english for _, english in pairs})


def encode_sentences(tokenizer, sentences, max_len: int) -> list[list[int]]:
    """``[bos, ..., eos]`` ids of each sentence that fits in ``max_len`` tokens."""
    ids = (tokenizer.encode(s) for s in sentences)
    return [x for x in ids if len(x) <= max_len]


def shift(batch: torch.Tensor):
    """Inputs and targets of causal language modelling from padded ids
    ``(B, T)``: the model reads ``<bos> w1 ... wn`` and is scored on
    ``w1 ... wn <eos>``, each position on the token after it.
    Returns ``(inputs, targets)``, ``(B, T-1)`` each."""
    return batch[:, :-1], batch[:, 1:]  # (B, T-1), (B, T-1)


def padded(seqs, pad_id: int = 0) -> torch.Tensor:
    """Sequences of ids as one right-padded ``(B, T)`` tensor."""
    rows = [torch.tensor(s) for s in seqs]
    return pad_sequence(rows, batch_first=True, padding_value=pad_id)  # (B, T)


def nll_sum(model, batch: torch.Tensor, pad_id: int = 0):
    """Summed negative log-likelihood of every real target token of a
    padded batch ``(B, T)``, and how many there were."""
    inputs, targets = shift(batch)
    logp = model(inputs)  # (B, T-1, V)
    nll = F.nll_loss(logp.flatten(0, 1), targets.flatten(),
                     ignore_index=pad_id, reduction="sum")
    return nll, int((targets != pad_id).sum())


@torch.no_grad()
def mean_nll(model, seqs, max_tokens: int = 4000) -> float:
    """The mean negative log-likelihood per predicted token (every token
    after ``<bos>``, ``<eos>`` included) over ``seqs``, in nats: the
    cross-entropy the training minimises, measured in eval mode."""
    was_training, total, count = model.training, 0.0, 0
    model.eval()
    for idx in token_batches([len(s) for s in seqs], max_tokens, pool=len(seqs)):
        nll, n = nll_sum(model, padded([seqs[i] for i in idx]))
        total, count = total + nll.item(), count + n
    model.train(was_training)
    return total / count


def perplexity(model, seqs, max_tokens: int = 4000) -> float:
    """``exp`` of :func:`mean_nll`: the number of equally likely tokens
    that would leave the model as unsure as it is, on average."""
    return math.exp(mean_nll(model, seqs, max_tokens))


def load_sentences(max_len: int = 64, held_out: str = "dev"):
    """Chapter 13's data: the distinct English sentences of the Tatoeba training split and
    of its ``held_out`` split (``"dev"`` or ``"test"``), tokenised, those that fit in
    ``max_len`` tokens. Returns ``(train, held, tokenizer)``."""
    from ..translator.corpus import load_split

    if held_out not in ("dev", "test"):
        raise ValueError(f"held_out must be 'dev' or 'test', got {held_out!r}")
    split, tok = load_split(), SubwordTokenizer.load()
    train = encode_sentences(tok, english_sentences(split.train), max_len)
    held = encode_sentences(tok, english_sentences(getattr(split, held_out)), max_len)
    return train, held, tok


def train_lm(cfg: LMTrainConfig, seqs, vocab: int, max_len: int = 64,
             log=print, held=None, every: int = 200, model=None):
    """Train a :class:`~illustrated.decoder_only.model.DecoderOnly` on id
    sequences. With ``held`` (id sequences never trained on), the held-out
    loss :func:`mean_nll` is measured before the first step and every
    ``every`` steps (in eval mode: it draws no random number, so the
    training is the same with or without it). ``model``: another model to
    train with the same recipe (a
    :class:`~illustrated.decoder_only.variants.VariantDecoder`, whose
    ``config.d_model`` must be ``cfg.d_model``, the schedule's); ``None``
    builds a ``DecoderOnly`` of ``cfg``'s sizes, its weights from ``cfg.seed``.
    Returns: the model (eval mode), the training loss (nats per token) of
    every step, and the held-out losses as ``[step, loss]`` pairs."""
    torch.manual_seed(cfg.seed)  # dropout
    if model is None:
        config = DecoderOnlyConfig(vocab=vocab, N=cfg.N, d_model=cfg.d_model,
                                   d_ff=cfg.d_ff, h=cfg.h, dropout=cfg.dropout,
                                   max_len=max_len)
        model = DecoderOnly(config, torch.Generator().manual_seed(cfg.seed))
    elif model.config.d_model != cfg.d_model:
        raise ValueError(f"the model has d_model={model.config.d_model} but the recipe's "
                         f"learning-rate schedule is for d_model={cfg.d_model}")
    model.train()
    opt, sched = paper_optimiser(model, cfg)
    lengths, losses, dev, epoch, start = [len(s) for s in seqs], [], [], 0, time.time()
    if held:
        dev.append([0, mean_nll(model, held)])
    while len(losses) < cfg.steps:
        for idx in token_batches(lengths, cfg.max_tokens, cfg.seed, epoch):
            nll, n = nll_sum(model, padded([seqs[i] for i in idx]))
            opt.zero_grad()
            (nll / n).backward()  # the mean over the batch's real targets
            opt.step()
            sched.step()
            losses.append(nll.item() / n)
            step = len(losses)
            if held and (step % every == 0 or step == cfg.steps):
                dev.append([step, mean_nll(model, held)])
            if step % 100 == 0:
                held_now = f", held-out {dev[-1][1]:.3f}" if dev and dev[-1][0] == step else ""
                log(f"step {step}: loss {losses[-1]:.3f}{held_now} "
                    f"({time.time() - start:.0f} s)")
            if step == cfg.steps:
                break
        epoch += 1
    return model.eval(), losses, dev


def save_lm(path, model: DecoderOnly, tokenizer, **extra):
    """Write the model (float16 weights) and its tokenizer to ``path``."""
    blob = {"format": FORMAT, "config": dataclasses.asdict(model.config),
            "tokenizer": tokenizer.tok.to_str(), "state_dict": half_state(model),
            **extra}
    return write_atomically(blob, path)


def load_lm(path=WRITER):
    """Returns ``(model, tokenizer, blob)``: the model in float32 and eval
    mode, its tokenizer, and the saved dictionary (``losses``, ``dev_losses``, ``recipe``,
    ``perplexity``, ...). A damaged or foreign file raises ``ValueError``."""
    from tokenizers import Tokenizer

    blob = read_checked(path, FORMAT, "decoder-only model")
    model = DecoderOnly(DecoderOnlyConfig(**blob["config"]))
    model.load_state_dict({k: v.float() for k, v in blob["state_dict"].items()})
    tok = SubwordTokenizer(Tokenizer.from_str(blob["tokenizer"]))
    return model.eval(), tok, blob
