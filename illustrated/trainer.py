"""Training the real translator at the scale of a laptop, and beyond it: two presets
(:data:`PRESETS`), length-bucketed batches of a token budget (:mod:`illustrated.batching`),
invented names to copy (:mod:`illustrated.names`), the paper's learning-rate schedule, label
smoothing, the paper's checkpoint averaging, a development curve with a warning when the
model collapses, resumable atomic checkpoints, any device (bfloat16 where it is native), and
several processes with PyTorch's own ``DistributedDataParallel`` when started by
``torchrun``. Introduced in the chapter Real sentences; ``python -m illustrated.train
--corpus tatoeba`` runs it.

Every step is a function of ``(seed, step)`` alone: an epoch's invented names and batch
order come from ``(seed, epoch)`` (:func:`~illustrated.names.with_invented_names`,
:func:`~illustrated.batching.token_batches`), and the dropout generator is re-seeded from
``(seed, step, rank)`` at each step. So a run resumed from its last checkpoint takes exactly
the steps an uninterrupted run takes.

A step never waits for the device: an epoch's batches are made tensors once, on the CPU,
where their token ids are checked (:func:`tensorise`); each step copies its batch without
blocking and runs the model, whose checks read shapes, never values, so nothing is read
back (:func:`train_step`); the losses stay on the device and are read every ``READ_EVERY``
steps, and wherever the state is saved.
"""
from __future__ import annotations

import dataclasses
import math
import os
import time
import warnings
from pathlib import Path

import torch
import tqdm
from torch import distributed as dist

from .batching import shard, token_batches
from .checkpoint import write_atomically
from .checks import check_tokens
from .data import make_batch
from .model import ModelConfig, Transformer
from .names import name_pieces, with_invented_names
from .schedule import rate

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
    names: int = 3  # copies of each pair with a name, the name replaced (illustrated.names)
    average: int = 5  # checkpoints averaged at the end (the paper: the last 5)
    average_every: int = 100  # steps between those checkpoints
    save_every: int = 200  # steps between resumable checkpoints
    eval_every: int = 200  # steps between two development losses (0: none)
    bleu_every: int = 800  # steps between two development BLEUs, greedy (0: none)
    limit: int = 0  # train on the first `limit` training pairs only (tests); 0: all

    def peak_rate(self) -> float:
        """The schedule's largest learning rate, reached at step ``warmup``."""
        return rate(self.warmup, self.d_model, self.warmup, self.factor)


def smoothed_loss_sum(logp: torch.Tensor, target: torch.Tensor, pad_id: int, eps: float,
                      keep: torch.Tensor | None = None):
    """``LabelSmoothingLoss(V, pad_id, eps)(logp, target)`` times the number of non-padding
    targets, without building the ``(N, V)`` target distribution (same value, tested).
    Args: logp ``(..., V)``; target ``(...)``; keep: the flattened positions of the
    non-padding targets, ``(n,)`` (:func:`tensorise` finds them on the CPU: found here, on
    a GPU, their number would have to be read back before the step could go on).
    Returns: a 0-D tensor."""
    V = logp.shape[-1]
    logp, target = logp.reshape(-1, V).float(), target.reshape(-1)  # (N, V), (N,)
    if keep is None:
        keep = (target != pad_id).nonzero()[:, 0]  # (n,)
    logp, target = logp.index_select(0, keep), target.index_select(0, keep)  # (n, V), (n,)
    lp_y = logp.gather(1, target[:, None])[:, 0]  # (n,)
    rest = logp.sum(1) - logp[:, pad_id] - lp_y  # (n,): the V - 2 other classes
    u = eps / (V - 2)
    entropy = (1 - eps) * math.log(1 - eps) + (eps * math.log(u) if eps > 0 else 0.0)
    return (entropy - (1 - eps) * lp_y - u * rest).sum()


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


def best_device() -> str:
    """``"cuda"`` when a GPU is present, else ``"mps"`` (Apple), else ``"cpu"``."""
    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def native_bf16(device: torch.device) -> bool:
    """Does ``device`` compute in bfloat16 natively: a CUDA GPU, or a CPU with AVX-512 BF16
    or AMX (elsewhere bfloat16 is emulated, slower than float32)?"""
    if device.type == "cuda":
        return True
    if device.type != "cpu":
        return False
    try:  # private helpers of torch.cpu, guarded: an older or newer torch may lack them
        return bool(torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported())
    except AttributeError:
        return False


def _distributed(device: str):
    """``(rank, world, device)``; joins the process group when ``torchrun`` started us."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world == 1:
        return 0, 1, torch.device(device)
    if not dist.is_initialized():
        dist.init_process_group("nccl" if device == "cuda" else "gloo")
    if device == "cuda":
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)
        return dist.get_rank(), world, torch.device("cuda", local)
    return dist.get_rank(), world, torch.device(device)


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


def dev_loss(model, data, max_tokens: int, smoothing: float, amp: bool = False) -> float:
    """The label-smoothed loss per target token of ``model`` on ``data`` (a list of
    ``(source ids, target ids)``), in eval mode, without gradients."""
    device = next(model.parameters()).device
    was_training, total, count = model.training, 0.0, 0
    model.eval()
    with torch.no_grad():
        for batch in token_batches([max(len(s), len(t)) for s, t in data], max_tokens):
            b = make_batch([data[i][0] for i in batch], [data[i][1] for i in batch])
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
                logp = model(b.src.to(device), b.tgt_in.to(device), b.src_mask.to(device),
                             b.tgt_mask.to(device))
            total += float(smoothed_loss_sum(logp, b.tgt_out.to(device), 0, smoothing))
            count += int((b.tgt_out != 0).sum())
    model.train(was_training)
    return total / count


def dev_bleu(model, tokenizer, pairs) -> dict:
    """``{"dev_bleu", "dev_distinct"}``: corpus BLEU (sacreBLEU's defaults) of ``model``'s
    greedy translations of ``pairs`` (``(french, english)``) against their English as
    written, and the number of distinct translations over the number of distinct
    references (about 1 for a model that reads its input; a model that writes the same
    sentence whatever it reads has collapsed towards 0)."""
    import sacrebleu

    from .translator import translate

    was_training = model.training
    model.eval()
    hyps = translate(model, tokenizer, [f for f, _ in pairs])
    model.train(was_training)
    return {"dev_bleu": round(sacrebleu.corpus_bleu(hyps, [[e for _, e in pairs]]).score, 2),
            "dev_distinct": round(len(set(hyps)) / len({e for _, e in pairs}), 3)}


@dataclasses.dataclass(frozen=True)
class StepBatch:
    """One step's batch, made by :func:`tensorise` on the CPU; ``tensors``: ``src (B, S)``,
    ``tgt_in (B, T)``, ``tgt_out (B, T)``, ``src_mask (B, 1, S)``, ``tgt_mask (B, T, T)``
    (as :class:`~illustrated.data.Batch`) and ``keep (n,)`` (:func:`smoothed_loss_sum`);
    ``n_tok``: the target tokens of the global batch, every process's share."""

    tensors: tuple
    n_tok: int


def tensorise(data, batches, vocab: int, rank: int = 0, world: int = 1,
              pin: bool = False) -> list[StepBatch]:
    """An epoch's batches as tensors, made once, on the CPU: this process's share of each
    global batch (a list of indices into ``data``, ``(source ids, target ids)`` pairs).
    The token ids are checked here, against ``[0, vocab)``, so that the step need not read
    them back from the device. ``pin``: page-locked memory, which a CUDA device copies
    from without blocking."""
    out = []
    for batch in batches:
        mine = shard(batch, rank, world)
        b = make_batch([data[i][0] for i in mine], [data[i][1] for i in mine])
        for name in ("src", "tgt_in", "tgt_out"):  # the model's own check, on the CPU
            check_tokens(getattr(b, name), vocab, name)
        keep = (b.tgt_out.flatten() != 0).nonzero()[:, 0]  # (n,): the non-padding targets
        tensors = (b.src, b.tgt_in, b.tgt_out, b.src_mask, b.tgt_mask, keep)
        out.append(StepBatch(tuple(t.pin_memory() for t in tensors) if pin else tensors,
                             sum(len(data[i][1]) - 1 for i in batch)))
    return out


def train_step(net, opt, batch: StepBatch, cfg: RealConfig, step: int, rank: int = 0,
               world: int = 1, amp: bool = False) -> torch.Tensor:
    """Optimiser step ``step + 1`` of ``net`` (the model, or its DDP or compiled wrapper) on
    ``batch``. Nothing here reads a value back from the device, so the CPU queues the next
    step while the device computes this one. Returns: this process's loss summed over its
    target tokens, a 0-D tensor left on the device."""
    dev = next(net.parameters()).device
    src, tgt_in, tgt_out, src_mask, tgt_mask, keep = (
        t.to(dev, non_blocking=True) for t in batch.tensors)
    torch.manual_seed(cfg.seed * 1_000_003 + step * 1024 + rank)  # dropout
    with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=amp):
        logp = net(src, tgt_in, src_mask, tgt_mask)  # (B, T, V); ids checked by tensorise
    loss_sum = smoothed_loss_sum(logp, tgt_out, 0, cfg.smoothing, keep)
    # DDP averages the gradients of the `world` processes: scale so that the result is
    # the gradient of the mean over the *global* batch's target tokens.
    opt.zero_grad(set_to_none=True)
    (loss_sum * world / batch.n_tok).backward()
    if cfg.clip:
        torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.clip)
    for group in opt.param_groups:  # the paper's schedule, a function of the step
        group["lr"] = rate(step + 1, cfg.d_model, cfg.warmup, cfg.factor)
    opt.step()
    return loss_sum.detach()


COLLAPSED = ("training has collapsed: the development set's translations are {distinct:.0%} "
             "as varied as its references (the model writes much the same sentence whatever "
             "it reads); lower "
             "the schedule's peak (--factor), lengthen --warmup, or use pre-norm layers "
             "(--preset base)")


def train_real(cfg: RealConfig, pairs, tokenizer, state_path=None, resume: bool = False,
               device: str | None = None, amp: bool | None = None, progress: bool | None = True,
               stop_after: int | None = None, dev_pairs=(), compile: bool = False):
    """Train on ``pairs`` (``(french, english)`` as :mod:`illustrated.corpus` loads them)
    with ``tokenizer``.

    Args:
        state_path: the resumable checkpoint, rewritten every ``cfg.save_every`` steps, at
            the end, and where ``stop_after`` stops (``None``: none).
        resume: continue from ``state_path``, which must exist.
        device: ``"cpu"``, ``"cuda"``, ``"mps"``; default :func:`best_device`.
        amp: mixed precision (bfloat16 autocast); default: where bfloat16 is native
            (:func:`native_bf16`: a CUDA GPU, a recent x86 CPU).
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
    rank, world, dev = _distributed(device or best_device())
    amp = native_bf16(dev) if amp is None else amp
    if cfg.limit:
        pairs = pairs[:cfg.limit]
    real = [(tokenizer.encode(f), tokenizer.encode(e)) for f, e in pairs]
    held = [(tokenizer.encode(f), tokenizer.encode(e)) for f, e in dev_pairs]
    pieces = name_pieces(tokenizer)

    def epoch_batches(epoch):
        """The pairs, then ``cfg.names`` copies of those with a name, the names invented
        anew for each epoch; the epoch's batches of them, as tensors."""
        named = with_invented_names(pairs, cfg.names, cfg.seed * 1_000_003 + epoch, pieces)
        data = real + [(tokenizer.encode(f), tokenizer.encode(e))
                       for f, e in named[len(pairs):]]
        lengths = [max(len(s), len(t)) for s, t in data]
        batches = token_batches(lengths, cfg.max_tokens, cfg.seed, epoch, min_size=world)
        return tensorise(data, batches, len(tokenizer), rank, world, pin=dev.type == "cuda")

    model = Transformer(model_config(cfg, len(tokenizer)),
                        torch.Generator().manual_seed(cfg.seed)).to(dev)
    model.keep_attention_weights(False)  # the fused attention kernel while training
    opt = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    step, epoch, index, log, snapshots = 0, 0, 0, TrainingLog([], []), []
    if resume:
        if state_path is None or not Path(state_path).exists():
            raise FileNotFoundError(f"no training state to resume from: {state_path} does "
                                    f"not exist (train without --resume to start anew)")
        blob = torch.load(state_path, weights_only=True, map_location=dev)
        if blob.get("format") != STATE_FORMAT or blob["config"] != dataclasses.asdict(cfg):
            raise ValueError(f"{state_path} was written by another configuration; remove it "
                             f"or train without --resume")
        model.load_state_dict(blob["model"])
        opt.load_state_dict(blob["optimizer"])
        step, epoch, index = blob["step"], blob["epoch"], blob["index"]
        log, snapshots = TrainingLog(blob["history"], blob["curve"]), blob["snapshots"]
    net = model if world == 1 else torch.nn.parallel.DistributedDataParallel(model)
    net = torch.compile(net) if compile else net
    pending = []  # (loss sum on the device, n_tok) of the steps whose loss is not read yet

    def read_losses():
        """Append the pending steps' losses to the log: one read from the device."""
        if pending:
            sums = torch.stack([total for total, _ in pending]).tolist()
            log.loss.extend(round(total / n_tok, 6) for total, (_, n_tok) in zip(sums, pending))
            pending.clear()

    def save():
        read_losses()
        if rank == 0 and state_path is not None:
            write_atomically({
                "format": STATE_FORMAT, "config": dataclasses.asdict(cfg), "step": step,
                "epoch": epoch, "index": index, "history": log.loss, "curve": log.curve,
                "snapshots": snapshots, "model": model.state_dict(),
                "optimizer": opt.state_dict()}, state_path)

    def evaluate():
        point = {"step": step, "dev_loss": round(dev_loss(model, held, 4 * cfg.max_tokens,
                                                          cfg.smoothing, amp), 4)}
        if cfg.bleu_every and (step % cfg.bleu_every == 0 or step == cfg.steps):
            point.update(dev_bleu(model, tokenizer, dev_pairs))
            if point["dev_distinct"] < 0.5:
                warnings.warn(COLLAPSED.format(distinct=point["dev_distinct"]))
        log.curve.append(point)

    rng_state = torch.get_rng_state()
    batches = epoch_batches(epoch)
    # progress None: a bar on a terminal only (tqdm's disable=None), none in a redirected log.
    bar = tqdm.tqdm(total=cfg.steps, initial=step,
                    disable=True if rank != 0 else (None if progress is None else not progress),
                    desc="training", unit="step")
    tokens, start = 0, time.perf_counter()
    model.train()
    while step < cfg.steps and (stop_after is None or step < stop_after):
        if index >= len(batches):
            epoch, index = epoch + 1, 0
            batches = epoch_batches(epoch)
        total = train_step(net, opt, batches[index], cfg, step, rank, world, amp)
        if world > 1:
            dist.all_reduce(total)  # queued on the device, as the step
        pending.append((total, batches[index].n_tok))
        tokens += batches[index].n_tok
        step, index = step + 1, index + 1
        if _averaged_at(cfg, step):
            snapshots.append({k: v.detach().clone() for k, v in model.state_dict().items()})
        if held and rank == 0 and cfg.eval_every and (step % cfg.eval_every == 0
                                                      or step == cfg.steps):
            evaluate()
        bar.update(1)
        if step % READ_EVERY == 0:
            read_losses()
            bar.set_postfix(loss=f"{log.loss[-1]:.3f}",
                            tok_s=f"{tokens / (time.perf_counter() - start):.0f}")
        if step % cfg.save_every == 0 or step == cfg.steps or step == stop_after:
            save()
    read_losses()
    bar.close()
    torch.set_rng_state(rng_state)
    if snapshots and step == cfg.steps:
        log.last = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
        model.load_state_dict(average_state_dicts(snapshots[-cfg.average:]))
    return model.cpu().eval(), log


#: The two recipes of ``python -m illustrated.train --corpus tatoeba --preset ...``:
#: ``laptop`` (the default) and ``base`` (the paper's base sizes, for a GPU).
PRESETS = {
    "laptop": RealConfig(),
    "base": RealConfig(d_model=512, N=6, h=8, d_ff=2048, max_tokens=6000, steps=3000,
                       warmup=800, factor=1.0, norm_first=True, clip=1.0),
}
