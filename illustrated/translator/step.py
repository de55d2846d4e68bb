"""One optimiser step of the real translator that never waits for the device: an epoch's
batches made tensors once, on the CPU, where their token ids are checked (:func:`tensorise`);
a step that copies its batch without blocking and runs the model, whose checks read shapes,
never values, so that nothing is read back (:func:`train_step`); and the
label-smoothed loss summed without building the target distribution
(:func:`smoothed_loss_sum`). Introduced in the chapter Real sentences;
:func:`illustrated.translator.training.train_real` takes its steps here.
"""
from __future__ import annotations

import dataclasses
import math

import torch

from ..checks import check_tokens
from ..data import make_batch
from ..schedule import rate
from .batching import shard


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


def train_step(net, opt, batch: StepBatch, cfg, step: int, rank: int = 0,
               world: int = 1, amp: bool = False) -> torch.Tensor:
    """Optimiser step ``step + 1`` of ``net`` (the model, or its DDP or compiled wrapper) on
    ``batch``, with the recipe ``cfg``
    (:class:`~illustrated.translator.training.RealConfig`). Nothing here reads a value back
    from the device, so the CPU queues the next step while the device computes this one.
    Returns: this process's loss summed over its target tokens, a 0-D tensor left on the
    device."""
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
