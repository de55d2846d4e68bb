"""The checker of the label-smoothed loss exercise: chapter 11, Loss and training a
translator.

For a target ``y`` (not padding) the smoothed distribution ``q`` puts ``1 - eps`` on ``y``,
``eps / (V - 2)`` on each of the other ``V - 2`` words (all but ``y`` and padding) and 0 on
padding. The loss is ``KL(q || p) = sum_c q_c (log q_c - log p_c)`` where ``q_c > 0``,
averaged over the positions whose target is not padding; padding targets are skipped.
"""
from __future__ import annotations

from typing import Callable

import torch
import torch.nn.functional as F

from ..loss import LabelSmoothingLoss
from ._frames import learner_frames_only
from ._runner import Case, equals, nan_in, nonfinite, randn, run

_PAD_MASS = ("it looks like you gave some smoothing mass to the padding word: `q` must be "
             "0 on `pad_id` (padding is never a right answer), and the `eps` is shared by "
             "the V - 2 other words: `eps / (V - 2)`.")
_PAD_POSITIONS = ("it looks like positions whose target is padding were not ignored: keep "
                  "only `target != pad_id` and average over those positions alone. (These "
                  "are the padding of the *shifted* target `tgt_out`, not of `tgt_in`.)")
_NORMALISATION = ("it looks like you divided eps by V - 1 while keeping padding at 0: then "
                  "`q` sums to less than 1. The smoothing is shared by V - 2 words (all but "
                  "the target and padding): `eps / (V - 2)`.")
_TORCH_SMOOTHING = ("it looks like you spread eps / V over all V words, as "
                    "`F.cross_entropy(label_smoothing=eps)` does; this exercise follows the "
                    "paper's code: 0 on padding, `eps / (V - 2)` elsewhere, `1 - eps` on "
                    "the target.")
_F_CROSS_ENTROPY = ("it looks like you used `F.cross_entropy(..., label_smoothing=eps, "
                    "ignore_index=pad_id)`: it spreads eps / V over all V words (padding "
                    "too) and returns the cross-entropy, not the KL divergence. Build the "
                    "paper's `q` yourself (0 on padding, `eps / (V - 2)` elsewhere, `1 - eps` "
                    "on the target) and sum `q * (log q - logp)`.")
_BATCHMEAN = ("it looks like you used `F.kl_div(..., reduction='batchmean')`: it divides "
              "the sum by the size of the first axis ({n} here: {what}), not by the number "
              "of non-padding targets. Use `reduction='sum'` and divide by "
              "`(target != pad_id).sum()`.")
_ALL_POSITIONS = ("it looks like you divided the sum by every position, padding "
                  "included ({n} here), as `target.numel()` counts them; the mean "
                  "is over the non-padding targets only ({kept} here): divide by "
                  "`(target != pad_id).sum()`. (`F.kl_div(..., "
                  "reduction='batchmean')` on flattened rows makes the same "
                  "mistake.)")
_FIXED_PAD = ("it looks like you used the pad id 0 instead of the `pad_id` argument: this "
              "test pads with {pad}. Take padding from `pad_id`, both for the targets you "
              "skip and for the word whose `q` is 0.")
_CROSS_ENTROPY = ("it looks like you returned the cross-entropy `-sum q log p` rather than "
                  "the KL divergence: subtract the entropy of `q`, i.e. compute "
                  "`sum q (log q - log p)`.")
_SUM = ("it looks like you summed over the positions instead of averaging: divide by the "
        "number of non-padding targets.")
_KL_DIV_MEAN = ("it looks like you used `F.kl_div(..., reduction='mean')`: it divides the "
                "sum by every element, positions times V ({n} here), not by the number of "
                "non-padding targets. Use `reduction='sum'` and divide by "
                "`(target != pad_id).sum()`.")
_PAD_NOT_ZEROED = ("it looks like you shared eps / (V - 2) but left it on the padding word "
                   "as well, so `q` sums to more than 1: set `q[..., pad_id] = 0` (padding "
                   "is never a right answer), which leaves the V - 2 words that share eps.")
_KL_SWAPPED = ("it looks like you swapped the arguments of `F.kl_div`: it takes the "
               "model's log-probabilities first and the target distribution second, "
               "`F.kl_div(logp, q, reduction='sum')`, and then computes `KL(q || p)`.")
_NAN = ("it looks like `0 * log 0` gave NaN: where `q` is 0 (padding, and every word but "
        "the target when eps = 0) the term must be 0. Compute the terms only where `q > 0`, "
        "e.g. with `torch.where(q > 0, ..., 0)`.")
_NO_SHIFT = ("it looks like the targets were compared with the prediction one position "
             "earlier or later: the prediction at position t is scored against `tgt_out[t]`, "
             "the word that follows the input `tgt_in[t]`.")


def _reference(logp, target, pad_id, eps):
    return LabelSmoothingLoss(logp.shape[-1], pad_id, eps)(logp, target)


def _variant(logp, target, pad_id, eps, *, spread="paper", keep_pad=False, kl=True,
             mean=True):
    """The loss, or one of its usual mistakes, depending on the switches."""
    V = logp.shape[-1]
    lp, t = logp.reshape(-1, V), target.reshape(-1)  # (N, V), (N,)
    keep = torch.ones_like(t, dtype=torch.bool) if keep_pad else t != pad_id  # (N,)
    lp, t = lp[keep], t[keep]
    share = {"paper": eps / (V - 2), "pad_mass": eps / (V - 1), "v_minus_1": eps / (V - 1),
             "torch": eps / V, "pad_not_zeroed": eps / (V - 2)}[spread]
    q = torch.full_like(lp, share)  # (n, V)
    if spread in ("paper", "v_minus_1"):
        q[:, pad_id] = 0.0
    if spread == "torch":
        q.scatter_(1, t[:, None], 1.0 - eps + share)
    else:
        q.scatter_(1, t[:, None], 1.0 - eps)
    terms = -q * lp
    if kl:
        terms = terms + torch.where(q > 0, q * q.clamp_min(1e-300).log(), torch.zeros_like(q))
    total = terms.sum()
    return total / max(int(keep.sum()), 1) if mean else total


def _shifted(logp, target, pad_id, eps, by):
    """The loss with the targets moved ``by`` positions along the sequence."""
    t = target.roll(by, dims=-1)
    return _reference(logp, t, pad_id, eps)


def _torch_cross_entropy(logp, target, pad_id, eps):
    V = logp.shape[-1]
    return F.cross_entropy(logp.reshape(-1, V), target.reshape(-1), ignore_index=pad_id,
                           label_smoothing=eps)


def _kl_swapped(logp, target, pad_id, eps, log_target):
    """`F.kl_div` with its arguments swapped, in the two forms that do not give NaN:
    ``(q, logp, log_target=True)`` and ``(q.log(), logp.exp())`` (KL(p || q), inf where
    q is 0)."""
    V = logp.shape[-1]
    lp, t = logp.reshape(-1, V), target.reshape(-1)  # (N, V), (N,)
    keep = t != pad_id
    q = torch.full_like(lp[keep], eps / (V - 2))  # (n, V)
    q[:, pad_id] = 0.0
    q.scatter_(1, t[keep][:, None], 1.0 - eps)
    if log_target:
        total = F.kl_div(q, lp[keep], reduction="sum", log_target=True)
    else:
        total = F.kl_div(q.log(), lp[keep].exp(), reduction="sum")
    return total / max(int(keep.sum()), 1)


def _loss_mistakes(case: Case) -> list:
    logp, target, pad_id, eps = case.inputs.values()
    args = (logp, target, pad_id, eps)
    rows, batch = target.numel(), logp.shape[0]  # batchmean's divisor, flattened or not
    kept, V = int((target != pad_id).sum()), logp.shape[-1]  # 'mean' divides by kept * V
    return [
        (_KL_SWAPPED, nan_in("kl_div")),  # F.kl_div(q, logp): the log of logp < 0
        (_KL_SWAPPED, equals(lambda: _kl_swapped(*args, log_target=True))),
        (_KL_SWAPPED, equals(lambda: _kl_swapped(*args, log_target=False))),
        (_NAN, nonfinite),
        (_PAD_MASS, equals(lambda: _variant(*args, spread="pad_mass"))),
        (_NORMALISATION, equals(lambda: _variant(*args, spread="v_minus_1"))),
        (_TORCH_SMOOTHING, equals(lambda: _variant(*args, spread="torch"))),
        (_PAD_NOT_ZEROED, equals(lambda: _variant(*args, spread="pad_not_zeroed"))),
        (_KL_DIV_MEAN.format(n=kept * V),
         equals(lambda: _variant(*args, mean=False) / (kept * V))),
        (_KL_DIV_MEAN.format(n=rows * V),
         equals(lambda: _variant(*args, mean=False) / (rows * V))),
        (_F_CROSS_ENTROPY, equals(lambda: _torch_cross_entropy(*args))),
        (_ALL_POSITIONS.format(n=rows, kept=kept),
         equals(lambda: _variant(*args, mean=False) / rows)),
        (_BATCHMEAN.format(n=batch, what="the batch size"),
         equals(lambda: _variant(*args, mean=False) / batch)),
        (_FIXED_PAD.format(pad=pad_id), equals(lambda: _reference(logp, target, 0, eps))),
        (_PAD_POSITIONS, equals(lambda: _variant(*args, keep_pad=True))),
        (_CROSS_ENTROPY, equals(lambda: _variant(*args, kl=False))),
        (_SUM, equals(lambda: _variant(*args, mean=False))),
        (_NO_SHIFT, equals(lambda: _shifted(*args, 1))),
        (_NO_SHIFT, equals(lambda: _shifted(*args, -1))),
    ]


def _inputs(seed: int, target, V: int, pad_id: int = 0, eps: float = 0.1,
            dtype=torch.float64) -> dict:
    target = torch.tensor(target)
    logits = randn(seed, *target.shape, V, dtype=dtype, scale=2.0)
    return {"logp": logits.log_softmax(-1), "target": target, "pad_id": pad_id, "eps": eps}


@learner_frames_only
def check_label_smoothing_loss(fn: Callable) -> None:
    """Check ``fn(logp, target, pad_id, eps)``: the label-smoothed KL loss of
    log-probabilities ``logp`` ``(..., V)`` against target ids ``(...)``, averaged over the
    non-padding targets, equal to ``LabelSmoothingLoss(V, pad_id, eps)(logp, target)``."""
    cases = [
        Case("one word, no padding", _inputs(70, [3], 6)),
        Case("a batch with padding", _inputs(71, [[4, 5, 2, 0], [3, 2, 0, 0]], 7)),
        Case("pad_id=6, eps=0.3", _inputs(72, [[1, 2, 6], [5, 4, 3]], 7, pad_id=6,
                                           eps=0.3)),
        Case("eps=0 (plain cross-entropy)", _inputs(73, [[4, 5, 2, 0]], 7, eps=0.0)),
        Case("float32", _inputs(74, [[4, 5, 2, 0], [3, 2, 0, 0]], 7,
                                 dtype=torch.float32)),
    ]
    run("check_label_smoothing_loss", fn, cases, _reference, _loss_mistakes,
         error_hint="your function must take `(logp, target, pad_id, eps)` and return one "
                    "number: the loss averaged over the non-padding targets.",
         general_hint="build `q` first (check that each row sums to 1 and is 0 on "
                      "`pad_id`), then sum `q * (log q - logp)` where `q > 0` and divide "
                      "by the number of non-padding targets.",
         success="your label-smoothed loss matches the package's on {n} tests, "
                 "including padding, another pad id, eps = 0 and float32.")



