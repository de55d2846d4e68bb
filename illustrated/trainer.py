"""Training the real translator at the scale of a laptop, and beyond it: length-bucketed
batches of a token budget (:mod:`illustrated.batching`), the paper's learning-rate schedule,
label smoothing, the paper's checkpoint averaging, resumable atomic checkpoints, any device
(mixed precision on a GPU), and several processes with PyTorch's own
``DistributedDataParallel`` when started by ``torchrun``. Introduced in the chapter Real
sentences; ``python -m illustrated.train --corpus tatoeba`` runs it.

Every step is a function of ``(seed, step)`` alone: the batch order comes from
:func:`~illustrated.batching.token_batches` of ``(seed, epoch)``, and the dropout generator is
re-seeded from ``(seed, step, rank)`` at each step. So a run resumed from its last checkpoint
takes exactly the steps an uninterrupted run takes.
"""
from __future__ import annotations

import dataclasses
import math
import os
import time
from pathlib import Path

import torch
import tqdm
from torch import distributed as dist

from .batching import shard, token_batches
from .checkpoint import write_atomically
from .data import make_batch
from .model import ModelConfig, Transformer
from .train import rate

STATE_FORMAT = "illustrated-real-training-state-1"


@dataclasses.dataclass(frozen=True)
class RealConfig:
    seed: int = 0  # weights, batch order, dropout
    steps: int = 2400  # optimiser steps: 11-13 minutes on a quiet 2-core CPU, 2 threads
    max_tokens: int = 1500  # global token budget per step: sentences x longest side, padded
    warmup: int = 400  # warm-up steps of the schedule
    factor: float = 0.6  # scale of the schedule: peak lr 0.6 * 256^-0.5 * 400^-0.5 = 1.9e-3
    smoothing: float = 0.1  # label smoothing eps (the paper's 0.1)
    d_model: int = 256
    N: int = 2
    h: int = 4
    d_ff: int = 1024
    dropout: float = 0.1
    average: int = 5  # checkpoints averaged at the end (the paper: the last 5)
    average_every: int = 100  # steps between those checkpoints
    save_every: int = 200  # steps between resumable checkpoints
    limit: int = 0  # train on the first `limit` training pairs only (tests); 0: all


def smoothed_loss_sum(logp: torch.Tensor, target: torch.Tensor, pad_id: int, eps: float):
    """``LabelSmoothingLoss(V, pad_id, eps)(logp, target)`` times the number of non-padding
    targets, without building the ``(N, V)`` target distribution (same value, tested).
    Args: logp ``(..., V)``; target ``(...)``. Returns: a 0-D tensor."""
    V = logp.shape[-1]
    logp, target = logp.reshape(-1, V).float(), target.reshape(-1)  # (N, V), (N,)
    keep = target != pad_id
    logp, target = logp[keep], target[keep]  # (n, V), (n,)
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
                       share_embeddings=True)


def _averaged_at(cfg: RealConfig, step: int) -> bool:
    """Is the model after ``step`` steps one of the ``cfg.average`` averaged at the end?"""
    back = cfg.steps - step
    return 0 <= back < cfg.average * cfg.average_every and back % cfg.average_every == 0


def _save_state(path, blob) -> None:
    write_atomically(blob, path)  # a killed process leaves the previous state whole


def train_real(cfg: RealConfig, pairs, tokenizer, state_path=None, resume: bool = False,
               device: str | None = None, amp: bool | None = None, progress: bool | None = True,
               stop_after: int | None = None):
    """Train on ``pairs`` (``(french, english)``, normalised) with ``tokenizer``.

    Args:
        state_path: the resumable checkpoint, rewritten every ``cfg.save_every`` steps and
            at the end (``None``: none).
        resume: continue from ``state_path`` if it exists.
        device: ``"cpu"``, ``"cuda"``, ``"mps"``; default :func:`best_device`.
        amp: mixed precision (bfloat16 autocast); default: on for CUDA only.
        progress: a tqdm progress bar (``None``: only when stderr is a terminal).
        stop_after: stop (as if interrupted) once this many steps are done.

    Returns: ``(model, history)``: the averaged model (on the CPU, eval mode) and the loss of
    every step (mean over the global batch's target tokens).
    """
    rank, world, dev = _distributed(device or best_device())
    amp = dev.type == "cuda" if amp is None else amp
    if cfg.limit:
        pairs = pairs[:cfg.limit]
    data = [(tokenizer.encode(f), tokenizer.encode(e)) for f, e in pairs]
    lengths = [max(len(s), len(t)) for s, t in data]
    model = Transformer(model_config(cfg, len(tokenizer)),
                        torch.Generator().manual_seed(cfg.seed)).to(dev)
    for m in model.modules():  # the fused attention kernel: no weights kept while training
        if hasattr(m, "need_weights"):
            m.need_weights = False
    opt = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    step, epoch, index, history, snapshots = 0, 0, 0, [], []
    if resume and state_path is not None and Path(state_path).exists():
        blob = torch.load(state_path, weights_only=True, map_location=dev)
        if blob.get("format") != STATE_FORMAT or blob["config"] != dataclasses.asdict(cfg):
            raise ValueError(f"{state_path} was written by another configuration; remove it "
                             f"or train without --resume")
        model.load_state_dict(blob["model"])
        opt.load_state_dict(blob["optimizer"])
        step, epoch, index = blob["step"], blob["epoch"], blob["index"]
        history, snapshots = blob["history"], blob["snapshots"]
    net = model if world == 1 else torch.nn.parallel.DistributedDataParallel(model)

    def save():
        if rank == 0 and state_path is not None:
            _save_state(state_path, {
                "format": STATE_FORMAT, "config": dataclasses.asdict(cfg), "step": step,
                "epoch": epoch, "index": index, "history": history, "snapshots": snapshots,
                "model": model.state_dict(), "optimizer": opt.state_dict()})

    rng_state = torch.get_rng_state()
    batches = token_batches(lengths, cfg.max_tokens, cfg.seed, epoch, min_size=world)
    # progress None: a bar on a terminal only (tqdm's disable=None), none in a redirected log.
    bar = tqdm.tqdm(total=cfg.steps, initial=step,
                    disable=True if rank != 0 else (None if progress is None else not progress),
                    desc="training", unit="step")
    tokens, start = 0, time.perf_counter()
    model.train()
    while step < cfg.steps and (stop_after is None or step < stop_after):
        if index >= len(batches):
            epoch, index = epoch + 1, 0
            batches = token_batches(lengths, cfg.max_tokens, cfg.seed, epoch, min_size=world)
        batch = batches[index]
        n_tok = sum(len(data[i][1]) - 1 for i in batch)  # target tokens of the global batch
        mine = shard(batch, rank, world)
        b = make_batch([data[i][0] for i in mine], [data[i][1] for i in mine])
        torch.manual_seed(cfg.seed * 1_000_003 + step * 1024 + rank)  # dropout
        with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=amp):
            logp = net(b.src.to(dev), b.tgt_in.to(dev), b.src_mask.to(dev), b.tgt_mask.to(dev))
        loss_sum = smoothed_loss_sum(logp, b.tgt_out.to(dev), 0, cfg.smoothing)
        # DDP averages the gradients of the `world` processes: scale so that the result is
        # the gradient of the mean over the *global* batch's target tokens.
        opt.zero_grad(set_to_none=True)
        (loss_sum * world / n_tok).backward()
        for group in opt.param_groups:  # the paper's schedule, a function of the step
            group["lr"] = rate(step + 1, cfg.d_model, cfg.warmup, cfg.factor)
        opt.step()
        total = loss_sum.detach()
        if world > 1:
            dist.all_reduce(total)
        history.append(round(total.item() / n_tok, 6))
        step, index = step + 1, index + 1
        if _averaged_at(cfg, step):
            snapshots.append({k: v.detach().clone() for k, v in model.state_dict().items()})
        tokens += n_tok
        bar.update(1)
        bar.set_postfix(loss=f"{history[-1]:.3f}",
                        tok_s=f"{tokens / (time.perf_counter() - start):.0f}")
        if step % cfg.save_every == 0 or step == cfg.steps:
            save()
    bar.close()
    torch.set_rng_state(rng_state)
    if snapshots and step == cfg.steps:
        model.load_state_dict(average_state_dicts(snapshots[-cfg.average:]))
    return model.cpu().eval(), history
