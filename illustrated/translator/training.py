"""Training the real translator at the scale of a laptop, and beyond it: two presets
(:data:`PRESETS`), length-bucketed batches of a token budget
(:mod:`illustrated.translator.batching`), invented names to copy
(:mod:`illustrated.translator.names`), the paper's learning-rate schedule, label smoothing,
the paper's checkpoint averaging, a development curve with a warning when the model
collapses, resumable atomic checkpoints, any device (bfloat16 where it is native) and
several processes with PyTorch's own ``DistributedDataParallel`` when started by
``torchrun`` (:mod:`illustrated.translator.devices`). Introduced in the chapter Real
sentences; ``python -m illustrated train --corpus tatoeba`` runs it.

:func:`train_real` reads as its steps: the data of each epoch (:class:`TrainingData`), the
model and its optimiser, where the run stands (:class:`TrainingState`, resumed by
:func:`load_state`, saved by :func:`save_state`), then one optimiser step after another
(:func:`~illustrated.translator.step.train_step`), a point of the development curve
(:func:`~illustrated.translator.dev_curve.development_point`) every ``eval_every`` steps,
and the average of the last checkpoints at the end.

Every step is a function of ``(seed, step)`` alone: an epoch's invented names and batch
order come from ``(seed, epoch)`` (:func:`~illustrated.translator.names.with_invented_names`,
:func:`~illustrated.translator.batching.token_batches`), and the dropout generator is
re-seeded from ``(seed, step, rank)`` at each step. So a run resumed from its last
checkpoint takes exactly the steps an uninterrupted run takes.

A step never waits for the device (:mod:`illustrated.translator.step`): the losses stay on
the device and are read every ``READ_EVERY`` steps, and wherever the state is saved.
"""
from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import torch
import tqdm
from torch import distributed as dist

from ..checkpoint import write_atomically
from ..model import ModelConfig, Transformer
from ..schedule import rate
from .batching import token_batches
from .dev_curve import development_point
from .devices import best_device, join_processes, native_bf16
from .names import name_pieces, with_invented_names
from .step import StepBatch, tensorise, train_step

STATE_FORMAT = "illustrated-real-training-state-1"
READ_EVERY = 50  # steps between two reads of the losses from the device (the progress bar)


@dataclasses.dataclass(frozen=True)
class RealConfig:
    """A real translator's sizes and training recipe; the defaults are the ``laptop``
    preset (``PRESETS``)."""

    seed: int = 0  # weights, batch order, dropout, invented names
    steps: int = 3000  # optimiser steps
    max_tokens: int = 1500  # global token budget per step: sentences x longest side, padded
    warmup: int = 400  # warm-up steps of the schedule
    factor: float = 0.6  # scale of the schedule: peak lr 0.6 * 256^-0.5 * 400^-0.5 = 1.9e-3
    smoothing: float = 0.1  # label smoothing eps (the paper's 0.1)
    d_model: int = 256
    N: int = 2
    h: int = 4
    d_ff: int = 1024
    dropout: float = 0.1
    norm_first: bool = False  # False: post-norm, as the paper; True: pre-norm
    clip: float = 0.0  # clip the gradient's norm to this (0: no clipping, as the paper)
    names: int = 3  # copies of each pair with a name, the name replaced (translator.names)
    average: int = 5  # checkpoints averaged at the end (the paper: the last 5)
    average_every: int = 100  # steps between those checkpoints
    save_every: int = 200  # steps between resumable checkpoints
    eval_every: int = 200  # steps between two development losses (0: none)
    bleu_every: int = 800  # steps between two development BLEUs, greedy (0: none)
    limit: int = 0  # train on the first `limit` training pairs only (tests); 0: all

    def peak_rate(self) -> float:
        """The schedule's largest learning rate, reached at step ``warmup``."""
        return rate(self.warmup, self.d_model, self.warmup, self.factor)


def average_state_dicts(states: list[dict]) -> dict:
    """The element-wise mean of several state dicts of one model (the paper's checkpoint
    averaging); integer entries are taken from the last."""
    if not states:
        raise ValueError("average_state_dicts needs at least one state_dict")
    keys = states[0].keys()
    if any(s.keys() != keys for s in states):
        raise ValueError("the state_dicts have different keys: not the same model")
    return {k: (torch.stack([s[k].float() for s in states]).mean(0).to(states[-1][k].dtype)
                if states[-1][k].is_floating_point() else states[-1][k]) for k in keys}


def model_config(cfg: RealConfig, vocab: int) -> ModelConfig:
    """The :class:`~illustrated.model.ModelConfig` of a real translator: ``cfg``'s sizes, one
    shared subword vocabulary of ``vocab`` tokens for both languages."""
    return ModelConfig(src_vocab=vocab, tgt_vocab=vocab, N=cfg.N, d_model=cfg.d_model,
                       d_ff=cfg.d_ff, h=cfg.h, dropout=cfg.dropout, max_len=128,
                       norm_first=cfg.norm_first, share_embeddings=True)


def _averaged_at(cfg: RealConfig, step: int) -> bool:
    """Is the model after ``step`` steps one of the ``cfg.average`` averaged at the end?"""
    back = cfg.steps - step
    return 0 <= back < cfg.average * cfg.average_every and back % cfg.average_every == 0


@dataclasses.dataclass
class TrainingLog:
    """What :func:`train_real` records besides the model.

    ``loss``: the training loss of every step (label-smoothed, mean over the global batch's
    target tokens); ``curve``: one ``{"step", "dev_loss"}`` (and ``"dev_bleu"``) dict per
    evaluation on the development set; ``last``: the weights after the last step, before
    the checkpoint averaging (``None`` if no averaging took place)."""

    loss: list
    curve: list
    last: dict | None = None


class TrainingData:
    """The training pairs (``(french, english)``) of a run, encoded once by ``tokenizer``,
    and each epoch's batches of them."""

    def __init__(self, cfg: RealConfig, pairs, tokenizer):
        self.cfg, self.pairs, self.tokenizer = cfg, pairs, tokenizer
        self.encoded = self.encode(pairs)
        self.pieces = name_pieces(tokenizer)  # what invented names are made of

    def encode(self, pairs) -> list[tuple[list[int], list[int]]]:
        """``(source ids, target ids)`` of each ``(french, english)`` pair."""
        return [(self.tokenizer.encode(f), self.tokenizer.encode(e)) for f, e in pairs]

    def epoch_batches(self, epoch: int, rank: int = 0, world: int = 1,
                      pin: bool = False) -> list[StepBatch]:
        """The pairs, then ``cfg.names`` copies of those with a name, the names invented
        anew for each epoch; the epoch's batches of them, as tensors (this process's share;
        :func:`~illustrated.translator.step.tensorise`)."""
        cfg = self.cfg
        named = with_invented_names(self.pairs, cfg.names, cfg.seed * 1_000_003 + epoch,
                                    self.pieces)
        data = self.encoded + self.encode(named[len(self.pairs):])
        lengths = [max(len(s), len(t)) for s, t in data]
        batches = token_batches(lengths, cfg.max_tokens, cfg.seed, epoch, min_size=world)
        return tensorise(data, batches, len(self.tokenizer), rank, world, pin=pin)


@dataclasses.dataclass
class TrainingState:
    """Where a run stands: what its resumable checkpoint holds besides the weights and the
    optimiser's state. ``index`` is the epoch's next batch; ``snapshots`` the weights to
    average at the end; ``pending`` the steps whose loss is still on the device, as
    ``(loss sum, target tokens)``."""

    step: int = 0
    epoch: int = 0
    index: int = 0
    log: TrainingLog = dataclasses.field(default_factory=lambda: TrainingLog([], []))
    snapshots: list = dataclasses.field(default_factory=list)
    pending: list = dataclasses.field(default_factory=list)

    def read_losses(self) -> None:
        """Append the pending steps' losses to the log: one read from the device."""
        if self.pending:
            sums = torch.stack([total for total, _ in self.pending]).tolist()
            self.log.loss.extend(round(total / n_tok, 6)
                                 for total, (_, n_tok) in zip(sums, self.pending))
            self.pending.clear()


def save_state(path, cfg: RealConfig, state: TrainingState, model, opt, rank: int = 0):
    """Read the pending losses, then (process 0, when ``path`` is given) write the resumable
    checkpoint atomically."""
    state.read_losses()
    if rank == 0 and path is not None:
        write_atomically({
            "format": STATE_FORMAT, "config": dataclasses.asdict(cfg), "step": state.step,
            "epoch": state.epoch, "index": state.index, "history": state.log.loss,
            "curve": state.log.curve, "snapshots": state.snapshots,
            "model": model.state_dict(), "optimizer": opt.state_dict()}, path)


def load_state(path, cfg: RealConfig, model, opt, device) -> TrainingState:
    """Load the checkpoint :func:`save_state` wrote into ``model`` and ``opt``; returns where
    the run stood. A missing file raises ``FileNotFoundError``, one written by another
    configuration ``ValueError``."""
    if path is None or not Path(path).exists():
        raise FileNotFoundError(f"no training state to resume from: {path} does "
                                f"not exist (train without --resume to start anew)")
    blob = torch.load(path, weights_only=True, map_location=device)
    if blob.get("format") != STATE_FORMAT or blob["config"] != dataclasses.asdict(cfg):
        raise ValueError(f"{path} was written by another configuration; remove it "
                         f"or train without --resume")
    model.load_state_dict(blob["model"])
    opt.load_state_dict(blob["optimizer"])
    return TrainingState(blob["step"], blob["epoch"], blob["index"],
                         TrainingLog(blob["history"], blob["curve"]), blob["snapshots"])


def _model_and_optimiser(cfg: RealConfig, vocab: int, device):
    """A new translator of ``cfg``'s sizes on ``device``, its weights drawn from
    ``cfg.seed``, and Adam with the paper's betas and epsilon (the schedule sets the
    rate at each step)."""
    model = Transformer(model_config(cfg, vocab),
                        torch.Generator().manual_seed(cfg.seed)).to(device)
    model.keep_attention_weights(False)  # the fused attention kernel while training
    return model, torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)


def _progress_bar(steps: int, done: int, rank: int, progress: bool | None):
    """tqdm's bar of the run, on process 0 only; ``progress`` None: on a terminal only
    (tqdm's ``disable=None``), none in a redirected log."""
    return tqdm.tqdm(total=steps, initial=done, desc="training", unit="step",
                     disable=True if rank != 0 else (None if progress is None else not progress))


def _due(every: int, step: int, last: int) -> bool:
    """Is ``step`` one of every ``every`` steps (0: none), or the ``last``?"""
    return bool(every) and (step % every == 0 or step == last)


def train_real(cfg: RealConfig, pairs, tokenizer, state_path=None, resume: bool = False,
               device: str | None = None, amp: bool | None = None, progress: bool | None = True,
               stop_after: int | None = None, dev_pairs=(), compile: bool = False):
    """Train on ``pairs`` (``(french, english)`` as :mod:`illustrated.translator.corpus`
    loads them) with ``tokenizer``.

    Args:
        state_path: the resumable checkpoint, rewritten every ``cfg.save_every`` steps, at
            the end, and where ``stop_after`` stops (``None``: none).
        resume: continue from ``state_path``, which must exist.
        device: ``"cpu"``, ``"cuda"``, ``"mps"``; default
            :func:`~illustrated.translator.devices.best_device`.
        amp: mixed precision (bfloat16 autocast); default: where bfloat16 is native
            (:func:`~illustrated.translator.devices.native_bf16`: a CUDA GPU, a recent x86
            CPU).
        progress: a tqdm progress bar (``None``: only when stderr is a terminal).
        stop_after: stop (as if interrupted) once this many steps are done.
        dev_pairs: held-out pairs for the curve: the development loss every
            ``cfg.eval_every`` steps, BLEU every ``cfg.bleu_every`` steps (none if empty).
        compile: train through ``torch.compile(model)``, a GPU's option: it compiles for
            minutes first (once per new batch shape until it makes them dynamic), and its
            dropout draws other numbers than the eager model's, so the losses differ.

    Returns: ``(model, log)``: the averaged model (on the CPU, eval mode) and a
    :class:`TrainingLog`.
    """
    rank, world, dev = join_processes(device or best_device())
    amp = native_bf16(dev) if amp is None else amp
    pin = dev.type == "cuda"  # page-locked batches, copied without blocking
    data = TrainingData(cfg, pairs[:cfg.limit] if cfg.limit else pairs, tokenizer)
    held = data.encode(dev_pairs)
    model, opt = _model_and_optimiser(cfg, len(tokenizer), dev)
    run = load_state(state_path, cfg, model, opt, dev) if resume else TrainingState()
    net = model if world == 1 else torch.nn.parallel.DistributedDataParallel(model)
    net = torch.compile(net) if compile else net
    rng_state = torch.get_rng_state()
    batches = data.epoch_batches(run.epoch, rank, world, pin)
    bar = _progress_bar(cfg.steps, run.step, rank, progress)
    tokens, start = 0, time.perf_counter()
    model.train()
    while run.step < cfg.steps and (stop_after is None or run.step < stop_after):
        if run.index >= len(batches):
            run.epoch, run.index = run.epoch + 1, 0
            batches = data.epoch_batches(run.epoch, rank, world, pin)
        batch = batches[run.index]
        total = train_step(net, opt, batch, cfg, run.step, rank, world, amp)
        if world > 1:
            dist.all_reduce(total)  # queued on the device, as the step
        run.pending.append((total, batch.n_tok))
        tokens += batch.n_tok
        run.step, run.index = run.step + 1, run.index + 1
        if _averaged_at(cfg, run.step):
            run.snapshots.append({k: v.detach().clone() for k, v in model.state_dict().items()})
        if held and rank == 0 and _due(cfg.eval_every, run.step, cfg.steps):
            bleu = _due(cfg.bleu_every, run.step, cfg.steps)
            run.log.curve.append(development_point(model, tokenizer, cfg, run.step, held,
                                                   dev_pairs, bleu, amp))
        bar.update(1)
        if run.step % READ_EVERY == 0:
            run.read_losses()
            bar.set_postfix(loss=f"{run.log.loss[-1]:.3f}",
                            tok_s=f"{tokens / (time.perf_counter() - start):.0f}")
        if run.step % cfg.save_every == 0 or run.step in (cfg.steps, stop_after):
            save_state(state_path, cfg, run, model, opt, rank)
    run.read_losses()
    bar.close()
    torch.set_rng_state(rng_state)
    if run.snapshots and run.step == cfg.steps:
        run.log.last = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
        model.load_state_dict(average_state_dicts(run.snapshots[-cfg.average:]))
    return model.cpu().eval(), run.log


#: The two recipes of ``python -m illustrated train --corpus tatoeba --preset ...``:
#: ``laptop`` (the default) and ``base`` (the paper's base sizes, for a GPU).
PRESETS = {
    "laptop": RealConfig(),
    "base": RealConfig(d_model=512, N=6, h=8, d_ff=2048, max_tokens=6000, steps=3000,
                       warmup=800, factor=1.0, norm_first=True, clip=1.0),
}
