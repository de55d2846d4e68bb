"""The development curve of a real translator's training: the loss per target token on
held-out pairs (:func:`dev_loss`), the BLEU of their greedy translations and how varied
those are (:func:`dev_bleu`), and a warning when the model has collapsed to one sentence
for every input (:data:`COLLAPSED`). Introduced in the chapter Real sentences;
:func:`illustrated.translator.training.train_real` adds a point every ``eval_every`` steps
(:func:`development_point`).
"""
from __future__ import annotations

import warnings

import torch

from ..data import make_batch
from .batching import token_batches
from .inference import translate
from .step import smoothed_loss_sum


#: The warning of a collapsed training, filled in with ``distinct``, the development
#: translations' variety (:func:`dev_bleu`'s ``dev_distinct``).
COLLAPSED = ("training has collapsed: the development set's translations are {distinct:.0%} "
             "as varied as its references (the model writes much the same sentence whatever "
             "it reads); lower "
             "the schedule's peak (--factor), lengthen --warmup, or use pre-norm layers "
             "(--preset base)")


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

    was_training = model.training
    model.eval()
    hyps = translate(model, tokenizer, [f for f, _ in pairs])
    model.train(was_training)
    return {"dev_bleu": round(sacrebleu.corpus_bleu(hyps, [[e for _, e in pairs]]).score, 2),
            "dev_distinct": round(len(set(hyps)) / len({e for _, e in pairs}), 3)}


def development_point(model, tokenizer, cfg, step: int, held, held_pairs, bleu: bool,
                      amp: bool = False) -> dict:
    """A point of the development curve after ``step`` steps of a run with the recipe
    ``cfg`` (:class:`~illustrated.translator.training.RealConfig`): the development loss of
    ``held`` (encoded pairs) and, if ``bleu``, the BLEU of ``held_pairs`` (:func:`dev_bleu`),
    with a warning when the translations have collapsed (:data:`COLLAPSED`)."""
    point = {"step": step, "dev_loss": round(dev_loss(model, held, 4 * cfg.max_tokens,
                                                      cfg.smoothing, amp), 4)}
    if bleu:
        point.update(dev_bleu(model, tokenizer, held_pairs))
        if point["dev_distinct"] < 0.5:
            warnings.warn(COLLAPSED.format(distinct=point["dev_distinct"]))
    return point
