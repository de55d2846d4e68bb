"""Tests for illustrated.exercises.sampling (chapter 13, exercise ex-13-top-p): check_top_p
accepts top-p filtering written several ways, and names the mistake in each planted wrong
version."""
import pytest
import torch

from illustrated.exercises import check_top_p
from illustrated.exercises.sampling import _CASES, top_p_reference

from .helpers import HINT, assert_fails, assert_one_line, first_line


def test_the_reference_is_the_smallest_nucleus_by_brute_force():
    """Over every subset of the few-token cases: the reference keeps the fewest most
    probable tokens reaching p (ties: the lower ids), renormalised."""
    for case in _CASES:
        probs, p = case.inputs["probs"], case.inputs["p"]
        ranked = sorted(range(len(probs)), key=lambda i: (-probs[i].item(), i))
        n = next(k for k in range(1, len(probs) + 1)
                 if probs[ranked[:k]].sum() >= p - 1e-12)
        want = torch.zeros_like(probs)
        want[ranked[:n]] = probs[ranked[:n]] / probs[ranked[:n]].sum()
        torch.testing.assert_close(top_p_reference(probs, p), want)


def top_p_sorted(probs, p):
    ranked, order = probs.sort(descending=True, stable=True)
    n = int((ranked.cumsum(0) - ranked < p).sum())
    out = torch.zeros_like(probs)
    out[order[:n]] = ranked[:n]
    return out / out.sum()


def top_p_loop(probs, p):
    total, out = 0.0, torch.zeros_like(probs)
    for i in sorted(range(len(probs)), key=lambda i: (-probs[i].item(), i)):
        if total >= p:
            break
        out[i], total = probs[i], total + probs[i].item()
    return out / out.sum()


@pytest.mark.parametrize("fn", [top_p_reference, top_p_sorted, top_p_loop])
def test_check_top_p_accepts_correct(fn, capsys):
    assert check_top_p(fn) is None
    assert_one_line(capsys, check_top_p)


def _nucleus(probs, p, keep, ranks=None, renorm=True):
    """A learner's version: rank (stable, descending unless ``ranks``), keep while
    ``keep(cum, ranked)``."""
    if ranks is None:
        ranks = probs.sort(descending=True, stable=True).indices
    ranked = probs[ranks]
    n = int(keep(ranked.cumsum(0), ranked).sum())
    out = torch.zeros_like(probs)
    out[ranks[:n]] = ranked[:n]
    return out / out.sum() if renorm else out


def in_rank_order(probs, p):
    ranked = probs.sort(descending=True, stable=True).values
    keep = ranked.cumsum(0) - ranked < p
    return ranked * keep / ranked[keep].sum()


def writes_into_probs(probs, p):
    ranked, order = probs.sort(descending=True, stable=True)
    probs[order[(ranked.cumsum(0) - ranked >= p)]] = 0.0
    return probs / probs.sum()


TOP_P_MISTAKES = [  # (wrong top-p, what the message must say)
    (lambda probs, p: _nucleus(probs, p, lambda c, r: c <= p),
     HINT + r"you kept only the tokens whose running sum stays below `p`"),
    (lambda probs, p: _nucleus(probs, p, lambda c, r: c < p),
     HINT + r"you kept only the tokens whose running sum stays below `p`"),
    (lambda probs, p: _nucleus(probs, p, lambda c, r: c - r < p, renorm=False),
     HINT + r"you forgot to renormalise"),
    (lambda probs, p: _nucleus(probs, p, lambda c, r: c - r < p,
                               probs.sort().indices),
     HINT + r"you ranked the tokens from the least probable up"),
    (in_rank_order, HINT + r"you returned the kept probabilities in rank order"),
    (lambda probs, p: _nucleus(probs, p, lambda c, r: c - r < p,
                               torch.arange(len(probs))),
     HINT + r"you added up the probabilities in id order"),
    (lambda probs, p: probs * (probs >= 1 - p) / probs[probs >= 1 - p].sum(),
     HINT + r"you kept each token whose own probability is at least `p`"),
    (lambda probs, p: _nucleus(probs, p, lambda c, r: c - r < p,
                               len(probs) - 1 - probs.flip(0).sort(
                                   descending=True, stable=True).indices),
     HINT + r"equal probabilities were ranked the other way"),
    (lambda probs, p: top_p_sorted(probs, p).float(),
     r"wrong dtype of the result: expected torch\.float64 \(the inputs'\), got "
     r"torch\.float32"),
    (lambda probs, p: probs.topk(2), r"returned a topk of 2 items; expected a torch\.Tensor of shape \(5,\)"),
    (lambda probs, p: probs.nucleus(p), r"raised AttributeError: .*\nHint: rank with"),
    (writes_into_probs, r"your function wrote into its input probs"),
]
TOP_P_IDS = ["cum_le_p", "cum_lt_p", "no_renorm", "ascending", "rank_order", "id_order",
             "threshold", "ties", "float32", "tuple", "raises", "in_place"]


@pytest.mark.parametrize("fn, pattern", TOP_P_MISTAKES, ids=TOP_P_IDS)
def test_check_top_p_names_the_mistake(fn, pattern):
    assert_fails(check_top_p, fn, pattern)


def test_check_top_p_first_failure_names_the_case():
    assert first_line(check_top_p, lambda probs, p: probs) == (
        "check_top_p: on test 'five tokens' (probs (5,), p=0.6, float64): wrong values "
        "in the result (largest difference 0.15).")


def test_check_top_p_wants_a_function():
    with pytest.raises(TypeError, match=r"check_top_p expects your function itself"):
        check_top_p(torch.zeros(5))
