"""Training the toy translator of chapters 10-11: the paper's optimiser and learning-rate
schedule (:func:`illustrated.schedule.rate`), a teacher-forced training step, the loop with
a tqdm progress bar, and the toy translator's checkpoint file. Introduced in chapter 11,
Training; ``python -m illustrated train`` (:mod:`illustrated.commands.train`) runs it.
"""
from __future__ import annotations

import dataclasses
import random
import time
from typing import Callable

import torch
import tqdm
from torch import nn

from .checkpoint import read_checked, write_atomically
from .data import FIXED, Vocab, make_batch, split_pairs
from .decoding import greedy_decode
from .loss import LabelSmoothingLoss
from .model import ModelConfig, Transformer
from .schedule import rate

FORMAT = "illustrated-translator-1"


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    seed: int = 0  # data split, initial weights and batch order
    steps: int = 1200  # optimiser steps
    batch_size: int = 64  # sentence pairs per step
    warmup: int = 200  # warm-up steps of the schedule
    factor: float = 1.0  # scale of the schedule
    smoothing: float = 0.1  # label smoothing eps
    d_model: int = 64
    N: int = 2
    h: int = 4
    d_ff: int = 128
    dropout: float = 0.1


def train(cfg: TrainConfig = TrainConfig(), progress: bool | None = True,
          model_factory: Callable[[ModelConfig, torch.Generator], nn.Module] | None = None):
    """Train on the toy corpus. Returns ``(model, src_vocab, tgt_vocab, history, held_out)``.

    Args:
        cfg: the sizes and the schedule.
        progress: show a tqdm progress bar (``None``: only when stderr is a terminal).
        model_factory: builds the model to train, ``model_factory(config, generator)``
            with a :class:`~illustrated.model.ModelConfig` and the ``torch.Generator``
            seeded with ``cfg.seed`` for the initial weights. The model must take
            ``model(src, tgt_in, src_mask, tgt_mask)`` and return log-probabilities
            ``(B, T, tgt_vocab)``. Default: the package's
            :class:`~illustrated.model.Transformer` (the capstone trains the reader's
            own class this way).
    """
    if model_factory is None:
        model_factory = Transformer
    elif not callable(model_factory):
        raise TypeError(f"model_factory must be a callable (config, generator) -> "
                        f"nn.Module, e.g. a class, got {type(model_factory).__name__}")
    train_pairs, held = split_pairs(cfg.seed)
    # The vocabularies come from the training pairs only: a held-out word the
    # training pairs lack is <unk>, as it would be for a sentence never seen.
    sv = Vocab.build(s for s, _ in train_pairs)
    tv = Vocab.build(t for _, t in train_pairs)
    mc = ModelConfig(src_vocab=len(sv), tgt_vocab=len(tv), N=cfg.N, d_model=cfg.d_model,
                     d_ff=cfg.d_ff, h=cfg.h, dropout=cfg.dropout, max_len=64)
    gen = torch.Generator().manual_seed(cfg.seed)
    model = model_factory(mc, gen)
    if not isinstance(model, nn.Module):
        raise TypeError(f"model_factory(config, generator) must return an nn.Module, got "
                        f"{type(model).__name__}")
    # The sources' own sentences are single pairs among hundreds: repeat them so they stick.
    data = [(sv.encode(s), tv.encode(t)) for s, t in train_pairs + list(FIXED) * 20]
    crit = LabelSmoothingLoss(len(tv), 0, cfg.smoothing)
    opt, sched = paper_optimiser(model, cfg)
    rng = random.Random(cfg.seed)
    history = []
    state = torch.get_rng_state()
    torch.manual_seed(cfg.seed)  # dropout; restored below
    bar = tqdm.tqdm(range(cfg.steps), disable=None if progress is None else not progress,
                    desc="training")
    start = time.perf_counter()
    tokens = 0
    model.train()
    for _ in bar:
        chunk = rng.sample(data, min(cfg.batch_size, len(data)))
        b = make_batch([s for s, _ in chunk], [t for _, t in chunk])
        loss = train_step(model, b, crit, opt, sched)
        history.append(loss)
        tokens += int((b.tgt_out != 0).sum())
        bar.set_postfix(loss=f"{loss:.3f}",
                        tok_s=f"{tokens / (time.perf_counter() - start):.0f}")
    torch.set_rng_state(state)
    return model.eval(), sv, tv, history, held


def paper_optimiser(model, cfg):
    """Adam with the paper's betas and epsilon, and the paper's schedule.

    The optimiser's own rate is 1, and ``LambdaLR`` multiplies it by
    ``rate(step)`` at every step, so the rate in use is the schedule's.
    """
    opt = torch.optim.Adam(model.parameters(), lr=1.0,
                           betas=(0.9, 0.98), eps=1e-9)
    sched = torch.optim.lr_scheduler.LambdaLR(  # steps count from 1
        opt, lambda s: rate(s + 1, cfg.d_model, cfg.warmup, cfg.factor))
    return opt, sched


def train_step(model, batch, criterion, opt, sched):
    """One teacher-forced step on one batch; returns the loss (a float).

    The decoder reads ``batch.tgt_in`` (``<bos>`` w1 ... wn) and is scored
    on ``batch.tgt_out`` (w1 ... wn ``<eos>``), every position at once.
    """
    logp = model(batch.src, batch.tgt_in, batch.src_mask,
                 batch.tgt_mask)  # (B, T, V) log-probabilities
    loss = criterion(logp, batch.tgt_out)  # mean over non-pad targets
    opt.zero_grad()  # gradients add up: clear the last step's
    loss.backward()  # the gradient of the loss for every weight
    opt.step()  # Adam moves the weights
    sched.step()  # the next step's learning rate
    return loss.item()


def translate_ids(model, sv, tv, sentences, max_len=32):
    """Greedy translations (strings) of a list of source sentences."""
    src = make_batch([sv.encode(s) for s in sentences], [[1, 2]] * len(sentences)).src
    out = greedy_decode(model, src, max_len, tv.bos_id, tv.eos_id)
    return [tv.decode(row) for row in out]


def save_checkpoint(path, model, sv, tv, history=()):
    """Write atomically (:func:`illustrated.checkpoint.write_atomically`)."""
    blob = {"format": FORMAT, "config": dataclasses.asdict(model.config),
            "src_vocab": sv.itos, "tgt_vocab": tv.itos, "history": list(history),
            "state_dict": model.state_dict()}
    return write_atomically(blob, path)


def load_checkpoint(path):
    """Returns ``(model, src_vocab, tgt_vocab)``; a damaged file or one of another shape
    raises ``ValueError`` naming the file."""
    blob = read_checked(path, FORMAT, "translator checkpoint")
    model = Transformer(ModelConfig(**blob["config"]))
    try:
        model.load_state_dict(blob["state_dict"])
    except RuntimeError as e:
        raise ValueError(f"{path}: weights do not fit the config {blob['config']}: {e}") from None
    sv, tv = Vocab([]), Vocab([])
    sv.itos, tv.itos = blob["src_vocab"], blob["tgt_vocab"]
    sv.stoi = {w: i for i, w in enumerate(sv.itos)}
    tv.stoi = {w: i for i, w in enumerate(tv.itos)}
    return model.eval(), sv, tv
