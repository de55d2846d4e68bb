"""Tests for illustrated.exercises.multi_head (chapter 5): check_split_heads and
check_merge_heads accept correct work and name the mistake in each planted wrong version."""
import pytest
import torch

from illustrated.attention import MultiHeadAttention
from illustrated.exercises import check_merge_heads, check_split_heads

from .helpers import HINT, assert_fails, assert_one_line


def split_view(x, h):
    B, L, D = x.shape
    return x.view(B, L, h, D // h).transpose(1, 2)


def split_einops_like(x, h):
    return torch.stack(x.chunk(h, dim=-1), dim=1)


def split_package(x, h):
    m = MultiHeadAttention(x.shape[-1], h)
    return m._split(x)


@pytest.mark.parametrize("fn", [split_view, split_einops_like, split_package])
def test_check_split_heads_accepts_correct(fn, capsys):
    assert check_split_heads(fn) is None
    assert_one_line(capsys, check_split_heads)


def merge_reshape(z):
    return z.transpose(1, 2).reshape(z.shape[0], z.shape[2], -1)


def merge_cat(z):
    return torch.cat(z.unbind(1), dim=-1)


@pytest.mark.parametrize("fn", [merge_reshape, merge_cat])
def test_check_merge_heads_accepts_correct(fn, capsys):
    assert check_merge_heads(fn) is None
    assert_one_line(capsys, check_merge_heads)


def test_merge_inverts_split():
    x = torch.randn(2, 3, 12, dtype=torch.float64)
    torch.testing.assert_close(merge_reshape(split_view(x, 4)), x)


SPLIT_MISTAKES = [
    (lambda x, h: x.reshape(x.shape[0], h, x.shape[1], -1), HINT + "you used `view`"),
    (lambda x, h: x.view(*x.shape[:2], -1, h).permute(0, 3, 1, 2),
     HINT + "your heads take every h-th column"),
    (lambda x, h: x.view(*x.shape[:2], h, -1), HINT + "you stopped at"),
    (lambda x, h: split_view(x, h).reshape(-1, x.shape[1], x.shape[2] // h),
     HINT + "you merged batch and heads"),
    (lambda x, h: split_view(x, h) + 1e-3, r"\nHint: compare your result"),
]


@pytest.mark.parametrize("fn, hint", SPLIT_MISTAKES,
                         ids=["no_transpose", "interleaved", "kept_layout", "flattened",
                              "general"])
def test_check_split_heads_names_the_mistake(fn, hint):
    assert_fails(check_split_heads, fn, hint)


MERGE_MISTAKES = [
    (lambda z: z.reshape(z.shape[0], z.shape[2], -1), HINT + "you used `view`"),
    (lambda z: z.permute(0, 2, 3, 1).reshape(z.shape[0], z.shape[2], -1),
     HINT + "your heads take every h-th column"),
    (lambda z: z.sum(1), HINT + "you added or averaged the heads"),
    (lambda z: z.mean(1), HINT + "you added or averaged the heads"),
    (lambda z: z.transpose(1, 2).view(z.shape[0], z.shape[2], -1),
     r"raised RuntimeError.*\nHint: after `transpose\(1, 2\)` the tensor is not contiguous"),
    (lambda z: merge_reshape(z) + 1e-3, r"\nHint: compare your result"),
]


@pytest.mark.parametrize("fn, hint", MERGE_MISTAKES,
                         ids=["no_transpose", "interleaved", "summed", "averaged",
                              "view_not_contiguous", "general"])
def test_check_merge_heads_names_the_mistake(fn, hint):
    assert_fails(check_merge_heads, fn, hint)
