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


def learner(keep, ranks=None, renorm=True):
    """A learner's top-p that keeps the ranked tokens while ``keep(cum,
    ranked)`` holds; ``ranks`` by default descending and stable."""
    def top_p(probs, p):
        order = ranks(probs) if ranks else None
        return _nucleus(probs, p, lambda c, r: keep(c, r, p), order, renorm)
    return top_p


def mass_above(c, r, p):  # the right rule, for versions that go wrong elsewhere
    return c - r < p


def ties_high_first(probs):
    flipped = probs.flip(0).sort(descending=True, stable=True).indices
    return len(probs) - 1 - flipped


CROSSING = HINT + r"you kept only the tokens whose running sum, their own probability included"


@pytest.mark.parametrize("fn, pattern", [
    pytest.param(learner(lambda c, r, p: c <= p), CROSSING, id="cum_le_p"),
    pytest.param(learner(lambda c, r, p: c < p), CROSSING, id="cum_lt_p"),
    pytest.param(learner(mass_above, renorm=False),
                 HINT + r"you forgot to renormalise", id="no_renorm"),
    pytest.param(learner(mass_above, lambda probs: probs.sort().indices),
                 HINT + r"you ranked the tokens from the least probable up",
                 id="ascending"),
    pytest.param(in_rank_order,
                 HINT + r"you returned the kept probabilities in rank order",
                 id="rank_order"),
    pytest.param(learner(mass_above, lambda probs: torch.arange(len(probs))),
                 HINT + r"you added up the probabilities in id order", id="id_order"),
    pytest.param(lambda probs, p: probs * (probs >= 1 - p)
                 / probs[probs >= 1 - p].sum(),
                 HINT + r"you kept each token whose own probability is at least `p`",
                 id="threshold"),
    pytest.param(learner(mass_above, ties_high_first),
                 HINT + r"equal probabilities were ranked the other way", id="ties"),
    pytest.param(lambda probs, p: top_p_sorted(probs, p).float(),
                 r"wrong dtype of the result: expected torch\.float64 \(the inputs'\), "
                 r"got torch\.float32", id="float32"),
    pytest.param(lambda probs, p: probs.topk(2),
                 r"returned a topk of 2 items; expected a torch\.Tensor", id="tuple"),
    pytest.param(lambda probs, p: probs.nucleus(p),
                 r"raised AttributeError: .*\nHint: rank with", id="raises"),
    pytest.param(writes_into_probs, r"your function wrote into its input probs",
                 id="in_place"),
])
def test_check_top_p_names_the_mistake(fn, pattern):
    assert_fails(check_top_p, fn, pattern)


def test_check_top_p_first_failure_names_the_case():
    assert first_line(check_top_p, lambda probs, p: probs) == (
        "check_top_p: on test 'five tokens' (probs (5,), p=0.6, float64): wrong values "
        "in the result (largest difference 0.15).")


def test_check_top_p_wants_a_function():
    with pytest.raises(TypeError, match=r"check_top_p expects your function itself"):
        check_top_p(torch.zeros(5))
