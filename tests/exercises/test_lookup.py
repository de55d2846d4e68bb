"""Tests for illustrated.exercises.lookup (chapter 2): check_soft_lookup accepts correct
work in several styles and names the mistake in each planted wrong version."""
import pytest
import torch

from illustrated.exercises import check_soft_lookup

from .helpers import HINT, assert_fails, assert_one_line, softmax_naive, softmax_stable


def lookup_softmax(query, keys, values, temperature=1.0):
    return torch.softmax(keys @ query / temperature, dim=-1) @ values


def lookup_loop(query, keys, values, temperature=1.0):
    scores = torch.stack([key.dot(query) for key in keys]) / temperature
    weights = softmax_stable(scores)
    return sum(w * v for w, v in zip(weights, values))


def lookup_item(query, keys, values, temperature=1.0):
    answer = lookup_softmax(query, keys, values, temperature)
    return answer.item() if answer.dim() == 0 else answer  # a Python float is fine


@pytest.mark.parametrize("fn", [lookup_softmax, lookup_loop, lookup_item])
def test_check_soft_lookup_accepts_correct(fn, capsys):
    assert check_soft_lookup(fn) is None
    assert_one_line(capsys, check_soft_lookup)


MISTAKES = [  # (a wrong soft lookup, the start of its hint)
    (lambda q, k, v, temperature=1.0: (k @ q) @ v, HINT + r"you forgot the softmax"),
    (lambda q, k, v, temperature=1.0: (k @ q / temperature) @ v,
     HINT + r"you forgot the softmax"),
    (lambda q, k, v, temperature=1.0: torch.softmax(k @ q * temperature, -1) @ v,
     HINT + r"you multiplied by the temperature instead of dividing"),
    (lambda q, k, v, temperature=1.0: torch.softmax(k @ q, -1) @ v,
     HINT + r"you ignored the temperature"),
    (lambda q, k, v, temperature=1.0: torch.softmax(k @ q, -1) / temperature @ v,
     r"on test 'temperature 0\.5' .*" + HINT + r"you divided by the temperature after the "
     r"softmax: it belongs to the scores, `softmax\(scores / temperature\)`"),
    (lambda q, k, v, temperature=1.0: torch.softmax(k @ q, -1) @ v / temperature,
     HINT + r"you divided by the temperature after the softmax"),
    (lambda q, k, v, temperature=1.0: v.mean(0), HINT + r"you averaged the values uniformly"),
    (lambda q, k, v, temperature=1.0: torch.softmax(k @ q / temperature, -1),
     HINT + r"you returned the weights instead of the answer"),
    (lambda q, k, v, temperature=1.0: lookup_softmax(q, k, v, temperature) / len(k),
     r"^check_soft_lookup: on test 'the ages example' .*" + HINT + r"you divided by the number "
     r"of keys \(n = 4\): the softmax weights already sum to 1, so `weights @ values` is "
     r"already a weighted average"),
    (lambda q, k, v, temperature=1.0: (k @ q) / (k @ q).sum() @ v,
     HINT + r"you divided the scores by their sum"),
    (lambda q, k, v, temperature=1.0: softmax_naive(k @ q / temperature) @ v,
     HINT + r"exp overflowed on large scores"),
    (lambda q, k, v, temperature=1.0: lookup_softmax(q, k, v, temperature) + 0.5,
     r"^check_soft_lookup: on test 'the ages example' \(query \(3,\), keys \(4, 3\), "
     r"values \(4,\), float64\): wrong values.*\nHint: compute `scores = keys @ query`"),
    (lambda q, k, v, temperature=1.0: lookup_softmax(q.div_(temperature), k, v),
     r"^check_soft_lookup: on test 'temperature 0\.5' .*\nHint: your function changed its "
     r"input `query` in place"),
]
MISTAKE_IDS = ["no_softmax", "no_softmax_with_t", "temperature_times", "temperature_ignored",
               "temperature_after_softmax", "answer_by_temperature", "uniform", "weights", "by_n", "sum_norm", "overflow", "general", "in_place"]


@pytest.mark.parametrize("fn, hint", MISTAKES, ids=MISTAKE_IDS)
def test_check_soft_lookup_names_the_mistake(fn, hint):
    assert_fails(check_soft_lookup, fn, hint)


def lookup_no_temperature(q, k, v):  # a learner's function named as a learner names it
    return torch.softmax(k @ q, -1) @ v


def test_check_soft_lookup_without_temperature_parameter():
    assert_fails(check_soft_lookup, lookup_no_temperature,
                 r"on test 'temperature 0\.5' \(.*temperature=0\.5.*\): your function raised "
                 r"TypeError")
