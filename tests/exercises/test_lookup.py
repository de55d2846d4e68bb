"""Tests for illustrated.exercises.lookup (chapter 2): check_soft_lookup accepts correct
work in several styles and names the mistake in each planted wrong version."""
import pytest
import torch

from illustrated.exercises import check_soft_lookup

from .helpers import HINT, assert_one_line, softmax_naive, softmax_stable


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


@pytest.mark.parametrize("fn, hint", [
    (lambda q, k, v, temperature=1.0: (k @ q) @ v, r"you forgot the softmax"),
    (lambda q, k, v, temperature=1.0: (k @ q / temperature) @ v, r"you forgot the softmax"),
    (lambda q, k, v, temperature=1.0: torch.softmax(k @ q * temperature, -1) @ v,
     r"you multiplied by the temperature instead of dividing"),
    (lambda q, k, v, temperature=1.0: torch.softmax(k @ q, -1) @ v,
     r"you ignored the temperature"),
    (lambda q, k, v, temperature=1.0: v.mean(0), r"you averaged the values uniformly"),
    (lambda q, k, v, temperature=1.0: torch.softmax(k @ q / temperature, -1),
     r"you returned the weights instead of the answer"),
    (lambda q, k, v, temperature=1.0: (k @ q) / (k @ q).sum() @ v,
     r"you divided the scores by their sum"),
    (lambda q, k, v, temperature=1.0: softmax_naive(k @ q / temperature) @ v,
     r"exp overflowed on large scores"),
], ids=["no_softmax", "no_softmax_with_t", "temperature_times", "temperature_ignored",
        "uniform", "weights", "sum_norm", "overflow"])
def test_check_soft_lookup_names_the_mistake(fn, hint):
    with pytest.raises(AssertionError, match=HINT + hint):
        check_soft_lookup(fn)


def test_check_soft_lookup_general_hint_and_ages_example_first():
    fn = lambda q, k, v, temperature=1.0: lookup_softmax(q, k, v, temperature) + 0.5  # noqa
    with pytest.raises(AssertionError, match=r"^check_soft_lookup: on test 'the ages example' "
                                             r"\(query \(3,\), keys \(4, 3\), values \(4,\), "
                                             r"float64\): wrong values.*\nHint: compute scores"):
        check_soft_lookup(fn)


def test_check_soft_lookup_without_temperature_parameter():
    with pytest.raises(AssertionError, match=r"on test 'temperature 0\.5' \(.*temperature=0\.5"
                                             r".*\): your function raised TypeError"):
        check_soft_lookup(lambda q, k, v: torch.softmax(k @ q, -1) @ v)
