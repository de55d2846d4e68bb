"""Tests for illustrated.exercises.batching (the chapter Real sentences): check_token_batches
accepts correct packings written in two ways and names each planted mistake."""
import pytest
import torch

from illustrated.exercises import check_token_batches

from .helpers import HINT, assert_fails, assert_one_line


def pack_loop(lengths, max_tokens):
    ids, batch, n, longest = [], 0, 0, 0
    for L in lengths.tolist():
        if n and (n + 1) * max(longest, L) > max_tokens:
            batch, n, longest = batch + 1, 0, 0
        n, longest = n + 1, max(longest, L)
        ids.append(batch)
    return torch.tensor(ids)


def pack_lists(lengths, max_tokens):  # build the batches as lists, then number them
    batches = [[]]
    for L in lengths.tolist():
        if batches[-1] and (len(batches[-1]) + 1) * L > max_tokens:  # sorted: L is the max
            batches.append([])
        batches[-1].append(L)
    return torch.cat([torch.full((len(b),), i) for i, b in enumerate(batches)])


@pytest.mark.parametrize("fn", [pack_loop, pack_lists])
def test_accepts_correct(fn, capsys):
    assert check_token_batches(fn) is None
    assert_one_line(capsys, check_token_batches)


def pack_sum(lengths, max_tokens):
    ids, batch, n, total = [], 0, 0, 0
    for L in lengths.tolist():
        if n and total + L > max_tokens:
            batch, n, total = batch + 1, 0, 0
        n, total = n + 1, total + L
        ids.append(batch)
    return torch.tensor(ids)


def pack_strict(lengths, max_tokens):
    ids, batch, n, longest = [], 0, 0, 0
    for L in lengths.tolist():
        if n and (n + 1) * max(longest, L) >= max_tokens:
            batch, n, longest = batch + 1, 0, 0
        n, longest = n + 1, max(longest, L)
        ids.append(batch)
    return torch.tensor(ids)


def pack_old_max(lengths, max_tokens):
    ids, batch, n, longest = [], 0, 0, 0
    for L in lengths.tolist():
        if n and (n + 1) * longest > max_tokens:
            batch, n, longest = batch + 1, 0, 0
        n, longest = n + 1, max(longest, L)
        ids.append(batch)
    return torch.tensor(ids)


@pytest.mark.parametrize("fn, pattern", [
    (pack_sum, "you counted the sentences' own tokens"),
    (pack_strict, "a batch that fills the budget exactly was cut"),
    (pack_old_max, "you priced the batch with its longest sentence"),
])
def test_names_the_mistake(fn, pattern):
    assert_fails(check_token_batches, fn, HINT + pattern)


def test_a_function_that_raises():
    def broken(lengths, max_tokens):
        raise RuntimeError("oops")
    assert_fails(check_token_batches, broken, "raised RuntimeError")
