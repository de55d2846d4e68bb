"""The checker of the top-p exercise: chapter 13, The decoder alone.

Top-p (nucleus) sampling draws the next token from the fewest most probable tokens whose
probabilities add up to ``p`` or more, renormalised; every other token gets 0. The
learner's ``top_p(probs, p)`` takes one distribution ``(V,)`` and returns that one. The
reference is :func:`illustrated.decoder_only.sampling.next_token_probs` with ``top_p=p``
(ties ranked by the lower id first); the checker names the usual wrong versions (the token that
crosses ``p`` dropped, no renormalising, the least probable kept, the result left in rank
order, ``p`` read as a threshold on each probability, ties broken the other way).
"""
from __future__ import annotations

from typing import Callable

import torch

from ..decoder_only.sampling import next_token_probs
from ._frames import learner_frames_only
from ._runner import Case, equals, randn, run, tensor64

_CROSSING = ("it looks like you kept only the tokens whose running sum, their own "
             "probability included, stays below `p` or at it (`cum < p` or `cum <= p`): "
             "the token whose probability brings the sum to `p` or past it must stay too. "
             "Keep a token when the sum *before* it is below `p`: `cum - ranked < p`.")
_NO_RENORM = ("it looks like you forgot to renormalise: the kept probabilities sum to "
              "less than 1. Divide them by their sum.")
_ASCENDING = ("it looks like you ranked the tokens from the least probable up: sort with "
              "`descending=True`, so that the nucleus holds the most probable tokens.")
_RANK_ORDER = ("it looks like you returned the kept probabilities in rank order: entry i "
               "of the result must belong to token i. Put them back at their ids, e.g. "
               "`out[order[:n]] = ranked[:n]`.")
_THRESHOLD = ("it looks like you kept each token whose own probability is at least "
              "`p` (or `1 - p`): top-p is about the running sum of the ranked "
              "probabilities, not a threshold on each one.")
_TIES = ("it looks like equal probabilities were ranked the other way: rank ties by the "
         "lower id first, as `probs.sort(descending=True, stable=True)` does.")
_ID_ORDER = ("it looks like you added up the probabilities in id order: rank them first "
             "(`probs.sort(descending=True, stable=True)`), then take the running sum.")


def top_p_reference(probs: torch.Tensor, p: float) -> torch.Tensor:
    """The distribution top-p sampling draws from, as the package computes it."""
    return next_token_probs(probs.log(), top_p=p)


def _keep(probs: torch.Tensor, ranks: torch.Tensor, n: int) -> torch.Tensor:
    """``probs`` with only the tokens ``ranks[:n]`` kept, renormalised."""
    out = torch.zeros_like(probs)
    out[ranks[:n]] = probs[ranks[:n]]
    return out / out.sum()


def _cut(probs: torch.Tensor, p: float, rule: Callable, ranks=None) -> torch.Tensor:
    """A learner's nucleus: the first tokens of ``ranks`` while ``rule(cum)`` holds."""
    if ranks is None:
        ranks = probs.sort(descending=True, stable=True).indices
    cum = probs[ranks].cumsum(0)  # (V,)
    return _keep(probs, ranks, int(rule(cum, probs[ranks]).sum()))


def _mistakes(case: Case) -> list:
    probs, p = case.inputs["probs"], case.inputs["p"]
    right = top_p_reference(probs, p)
    order = probs.sort(descending=True, stable=True).indices
    flipped = probs.flip(0).sort(descending=True, stable=True).indices
    high_first = len(probs) - 1 - flipped  # ties: the higher id first
    return [
        (_CROSSING, equals(lambda: _cut(probs, p, lambda c, r: c <= p))),
        (_CROSSING, equals(lambda: _cut(probs, p, lambda c, r: c < p))),
        (_NO_RENORM, equals(lambda: right * probs[right > 0].sum())),
        (_RANK_ORDER, equals(lambda: right[order])),
        (_ASCENDING, equals(lambda: _cut(probs, p, lambda c, r: c - r < p,
                                          probs.sort(stable=True).indices))),
        (_ID_ORDER, equals(lambda: _cut(probs, p, lambda c, r: c - r < p,
                                         torch.arange(len(probs))))),
        (_TIES, equals(lambda: _cut(probs, p, lambda c, r: c - r < p, high_first))),
        (_THRESHOLD, equals(lambda: probs * (probs >= p) / probs[probs >= p].sum())),
        (_THRESHOLD, equals(lambda: probs * (probs >= 1 - p)
                             / probs[probs >= 1 - p].sum())),
    ]


def _softmax(seed: int, n: int, scale: float) -> torch.Tensor:
    return randn(seed, n, scale=scale).softmax(0)


_CASES = [
    Case("five tokens", {"probs": tensor64([0.15, 0.3, 0.1, 0.25, 0.2]), "p": 0.6}),
    Case("the sum reaches p exactly", {"probs": tensor64([0.125, 0.5, 0.25, 0.125]),
                                        "p": 0.75}),
    Case("a tie at the cut", {"probs": tensor64([0.3, 0.2, 0.3, 0.2]), "p": 0.7}),
    Case("p = 1 keeps all", {"probs": _softmax(0, 8, 1.0), "p": 1.0}),
    Case("a small p keeps one token", {"probs": _softmax(1, 10, 1.0), "p": 0.05}),
    Case("tokens of probability 0", {"probs": tensor64([0.0, 0.6, 0.0, 0.4]), "p": 0.5}),
    Case("50 tokens", {"probs": _softmax(2, 50, 2.0), "p": 0.9}),
]


@learner_frames_only
def check_top_p(fn: Callable) -> None:
    """Check ``fn(probs, p)``: the distribution top-p sampling draws from, for one
    distribution ``probs`` ``(V,)`` (float64, summing to 1) and ``p`` in ``(0, 1]``."""
    run("check_top_p", fn, _CASES, top_p_reference, _mistakes,
         error_hint="rank with `ranked, order = probs.sort(descending=True, "
                    "stable=True)`, take `cum = ranked.cumsum(0)`, and keep the ranks "
                    "whose sum before them is below `p`.",
         general_hint="print your result and `probs` for this test: the kept tokens "
                      "must be the most probable ones, as few as reach `p`, and they "
                      "must sum to 1.",
         success="your top-p matches next_token_probs on {n} tests, ties and exact "
                 "sums included.")
