"""Tests for illustrated.exercises.loss (chapter 11): check_label_smoothing_loss accepts
correct work in several styles and names the mistake in each planted wrong version."""
import warnings

import pytest
import torch
import torch.nn.functional as F

from illustrated.exercises import check_label_smoothing_loss
from illustrated.loss import LabelSmoothingLoss

from .helpers import HINT, assert_fails, assert_one_line


def loss_package(logp, target, pad_id, eps):
    return LabelSmoothingLoss(logp.shape[-1], pad_id, eps)(logp, target)


def smoothed_q(logp, target, pad_id, eps, share=None, pad_gets=0.0):
    V = logp.shape[-1]
    q = torch.full_like(logp, eps / (V - 2) if share is None else share)  # (..., V)
    q[..., pad_id] = pad_gets if share is None else share
    q.scatter_(-1, target[..., None], 1.0 - eps)
    return q


def loss_by_hand(logp, target, pad_id, eps):
    q = smoothed_q(logp, target, pad_id, eps)
    terms = torch.where(q > 0, q * (q.clamp_min(1e-30).log() - logp), torch.zeros_like(q))
    keep = target != pad_id
    return terms.sum(-1)[keep].mean()


def loss_kl_div(logp, target, pad_id, eps):
    keep = target != pad_id
    q = smoothed_q(logp[keep], target[keep], pad_id, eps)
    return F.kl_div(logp[keep], q, reduction="sum") / keep.sum()


def loss_ce_minus_entropy(logp, target, pad_id, eps):
    keep = target != pad_id
    q = smoothed_q(logp[keep], target[keep], pad_id, eps)
    entropy = -(q * q.clamp_min(1e-30).log()).sum()
    return (-(q * logp[keep]).sum() - entropy) / keep.sum()


@pytest.mark.parametrize("fn", [loss_package, loss_by_hand, loss_kl_div,
                                loss_ce_minus_entropy])
def test_check_label_smoothing_loss_accepts_correct(fn, capsys):
    assert check_label_smoothing_loss(fn) is None
    out = assert_one_line(capsys, check_label_smoothing_loss)
    assert "matches the package's on 5 tests" in out


def pad_mass(logp, target, pad_id, eps):
    V = logp.shape[-1]
    keep = target != pad_id
    q = smoothed_q(logp[keep], target[keep], pad_id, eps, share=eps / (V - 1))
    return (q * (q.log() - logp[keep])).sum() / keep.sum()


def v_minus_1(logp, target, pad_id, eps):
    V = logp.shape[-1]
    keep = target != pad_id
    q = smoothed_q(logp[keep], target[keep], pad_id, eps, share=eps / (V - 1))
    q[:, pad_id] = 0.0
    q.scatter_(-1, target[keep][:, None], 1.0 - eps)
    terms = torch.where(q > 0, q * (q.clamp_min(1e-30).log() - logp[keep]), 0.0)
    return terms.sum() / keep.sum()


def pad_positions_kept(logp, target, pad_id, eps):
    q = smoothed_q(logp, target, pad_id, eps)
    terms = torch.where(q > 0, q * (q.clamp_min(1e-30).log() - logp), torch.zeros_like(q))
    return terms.sum(-1).mean()


def nan_log(logp, target, pad_id, eps):
    keep = target != pad_id
    q = smoothed_q(logp[keep], target[keep], pad_id, eps)
    return (q * (q.log() - logp[keep])).sum() / keep.sum()  # 0 * log 0 = NaN


def torch_smoothing(logp, target, pad_id, eps):
    return F.cross_entropy(logp.reshape(-1, logp.shape[-1]), target.reshape(-1),
                           ignore_index=pad_id, label_smoothing=eps) - _entropy_torch(
        logp.shape[-1], eps)


def _entropy_torch(V, eps):
    q = torch.full((V,), eps / V, dtype=torch.float64)
    q[0] += 1 - eps
    return -(q * q.log()).sum()


def cross_entropy_only(logp, target, pad_id, eps):
    keep = target != pad_id
    q = smoothed_q(logp[keep], target[keep], pad_id, eps)
    return -(q * logp[keep]).sum() / keep.sum()


def summed(logp, target, pad_id, eps):
    return loss_by_hand(logp, target, pad_id, eps) * (target != pad_id).sum()


def not_shifted(logp, target, pad_id, eps):
    return loss_by_hand(logp, target.roll(1, dims=-1), pad_id, eps)


def f_cross_entropy(logp, target, pad_id, eps):
    return F.cross_entropy(logp.reshape(-1, logp.shape[-1]), target.reshape(-1),
                           label_smoothing=eps, ignore_index=pad_id)


def kl_div_batchmean(flatten):
    """F.kl_div's 'batchmean': the sum divided by the first axis (all positions when
    flattened, else the batch size)."""

    def fn(logp, target, pad_id, eps):
        q = smoothed_q(logp, target, pad_id, eps) * (target != pad_id)[..., None]
        if flatten:
            logp, q = logp.reshape(-1, logp.shape[-1]), q.reshape(-1, q.shape[-1])
        return F.kl_div(logp, q, reduction="batchmean")

    return fn


def divided_by_all_positions(logp, target, pad_id, eps):
    """The sum over the non-padding targets, divided by every position."""
    q = smoothed_q(logp, target, pad_id, eps)
    terms = torch.where(q > 0, q * (q.clamp_min(1e-30).log() - logp), 0.0)
    return terms.sum(-1)[target != pad_id].sum() / target.numel()


def kl_div_mean(logp, target, pad_id, eps):
    """F.kl_div's 'mean': the sum divided by every element, positions times V."""
    keep = target != pad_id
    q = smoothed_q(logp[keep], target[keep], pad_id, eps)
    with warnings.catch_warnings():  # torch says 'mean' is not the KL's mean: the point
        warnings.simplefilter("ignore", UserWarning)
        return F.kl_div(logp[keep], q, reduction="mean")


def pad_not_zeroed(logp, target, pad_id, eps):
    """eps / (V - 2) on every other word, padding included (never set to 0)."""
    V = logp.shape[-1]
    keep = target != pad_id
    q = torch.full_like(logp[keep], eps / (V - 2))
    q.scatter_(-1, target[keep][:, None], 1.0 - eps)
    terms = torch.where(q > 0, q * (q.clamp_min(1e-30).log() - logp[keep]), 0.0)
    return terms.sum() / keep.sum()


def kl_div_swapped(logp, target, pad_id, eps):
    """Wrong: `F.kl_div(q, logp)`, read as KL(q || p); torch takes the log of logp < 0."""
    keep = target != pad_id
    q = smoothed_q(logp[keep], target[keep], pad_id, eps)
    return F.kl_div(q, logp[keep], reduction="sum") / keep.sum()


def kl_div_swapped_log_target(logp, target, pad_id, eps):
    """Wrong: swapped, and told the target is a log (so no NaN, a wrong number)."""
    keep = target != pad_id
    q = smoothed_q(logp[keep], target[keep], pad_id, eps)
    return F.kl_div(q, logp[keep], reduction="sum", log_target=True) / keep.sum()


def kl_div_swapped_exp(logp, target, pad_id, eps):
    """Wrong: swapped with the right kinds, log q as input and p as target: KL(p || q),
    infinite where q is 0 (padding)."""
    keep = target != pad_id
    q = smoothed_q(logp[keep], target[keep], pad_id, eps)
    return F.kl_div(q.log(), logp[keep].exp(), reduction="sum") / keep.sum()


def pad_is_zero(logp, target, pad_id, eps):
    return loss_by_hand(logp, target, 0, eps)


MISTAKES = [
    (f_cross_entropy, HINT + r"you used `F\.cross_entropy\(\.\.\., label_smoothing=eps, "
                             r"ignore_index=pad_id\)`"),
    (kl_div_batchmean(True), r"test 'a batch with padding'.*" + HINT + r"you divided "
                             r"the sum by every position, padding included \(8 here\)"),
    (divided_by_all_positions, r"test 'a batch with padding'.*" + HINT + r"you divided "
                               r"the sum by every position, padding included \(8 here\), "
                               r"as `target\.numel\(\)` counts them; the mean is over the "
                               r"non-padding targets only \(5 here\): divide by "
                               r"`\(target != pad_id\)\.sum\(\)`"),
    (kl_div_batchmean(False), r"test 'a batch with padding'.*" + HINT + r"you used "
                              r"`F\.kl_div\(\.\.\., reduction='batchmean'\)`: .*\(2 here: "
                              r"the batch size\)"),
    (pad_is_zero, r"test 'pad_id=6, eps=0\.3'.*" + HINT + r"you used the pad id 0 instead "
                                                           r"of the `pad_id` argument: this "
                                                           r"test pads with 6\."),
    (pad_mass, HINT + r"you gave some smoothing mass to the padding word"),
    (v_minus_1, HINT + r"you divided eps by V - 1 while keeping padding at 0"),
    (pad_positions_kept, HINT + r"positions whose target is padding were not ignored"),
    (nan_log, r"NaN or inf.*\nHint: it looks like `0 \* log 0` gave NaN"),
    (torch_smoothing, HINT + r"you spread eps / V over all V words"),
    (cross_entropy_only, HINT + r"you returned the cross-entropy"),
    (summed, HINT + r"you summed over the positions instead of averaging"),
    (not_shifted, HINT + r"the targets were compared with the prediction one position"),
    (kl_div_mean, HINT + r"you used `F\.kl_div\(\.\.\., reduction='mean'\)`"),
    (pad_not_zeroed, HINT + r"you shared eps / \(V - 2\) but left it on the padding word"),
    (kl_div_swapped, r"NaN or inf.*" + HINT + r"you swapped the arguments of `F\.kl_div`"),
    (kl_div_swapped_log_target, HINT + r"you swapped the arguments of `F\.kl_div`"),
    (kl_div_swapped_exp, HINT + r"you swapped the arguments of `F\.kl_div`"),
    (lambda lp, t, p, e: loss_by_hand(lp, t, p, e) + 0.01, r"\nHint: build `q` first"),
    (lambda lp, t: loss_by_hand(lp, t, 0, 0.1), r"raised TypeError.*\nHint: your function "
                                                 r"must take `\(logp, target, pad_id, eps\)`"),
]
IDS = ["f_cross_entropy", "batchmean_flat", "all_positions", "batchmean", "pad_is_zero", "pad_mass",
       "v_minus_1", "pad_positions", "nan", "torch_smoothing", "cross_entropy", "sum",
       "not_shifted", "kl_div_mean", "pad_not_zeroed", "kl_div_swapped",
       "kl_div_swapped_log_target", "kl_div_swapped_exp", "general", "signature"]


@pytest.mark.parametrize("fn, hint", MISTAKES, ids=IDS)
def test_check_label_smoothing_loss_names_the_mistake(fn, hint):
    assert_fails(check_label_smoothing_loss, fn, hint)


def test_check_label_smoothing_loss_refuses_in_place():
    def in_place(logp, target, pad_id, eps):
        logp.mul_(1.0)
        target[..., 0] = target[..., 0]
        logp -= 0.0
        logp[..., 0] = 0.0  # changes the caller's tensor
        return loss_by_hand(logp, target, pad_id, eps)
    assert_fails(check_label_smoothing_loss, in_place, r"wrote into its input logp")
