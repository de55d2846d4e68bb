"""Tests for illustrated.exercises.grouped_query (the decoders chapter after chapter 13):
check_expand_kv and check_grouped_query_attention accept correct work and name the mistake
in each planted wrong version."""
import math
import re

import pytest
import torch
import torch.nn.functional as F

from illustrated.attention import scaled_dot_product_attention
from illustrated.exercises import check_expand_kv, check_grouped_query_attention

from .helpers import HINT, assert_fails, assert_one_line, first_line


def expand_interleave(k, h):
    return k.repeat_interleave(h // k.shape[1], dim=1)


def expand_view(k, h):
    B, n_kv, S, d_k = k.shape
    return k[:, :, None].expand(B, n_kv, h // n_kv, S, d_k).reshape(B, h, S, d_k)


def expand_index(k, h):
    group = h // k.shape[1]
    return k[:, [j // group for j in range(h)]]


@pytest.mark.parametrize("fn", [expand_interleave, expand_view, expand_index])
def test_check_expand_kv_accepts_correct(fn, capsys):
    assert check_expand_kv(fn) is None
    out = assert_one_line(capsys, check_expand_kv)
    assert out == ("✓ check_expand_kv: your expansion matches on 5 tests, including groups "
                   "of 3 and a single key/value head.\n")


def expand_tiled(k, h):  # heads 0, 1, 0, 1: the layout of repeat, by hand
    B, n_kv, S, d_k = k.shape
    return k[:, None].expand(B, h // n_kv, n_kv, S, d_k).reshape(B, h, S, d_k)


EXPAND_MISTAKES = [  # (a wrong expansion, the start of its hint)
    (lambda k, h: k.repeat(1, h // k.shape[1], 1, 1),
     HINT + r"you used `repeat` where `repeat_interleave` is meant"),
    (expand_tiled, HINT + r"you used `repeat` where `repeat_interleave` is meant"),
    (lambda k, h: k.repeat_interleave(h, dim=1), HINT + r"you copied each key/value head h "
                                                        r"times"),
    (lambda k, h: k.repeat_interleave(h // k.shape[1], dim=2),
     HINT + r"you expanded the positions \(dim=2\)"),
    (lambda k, h: k.repeat_interleave(h // k.shape[1], dim=0),
     HINT + r"you expanded the batch \(dim=0\)"),
    (lambda k, h: k.repeat_interleave(h // k.shape[1], dim=-1),
     HINT + r"you expanded the features \(dim=3\)"),
    (lambda k, h: k, HINT + r"you returned the key/value heads as they came"),
    (lambda k, h: expand_interleave(k, h) * 1.01, r"\nHint: compare your result with "
                                                  r"`k\.repeat_interleave"),
    (lambda k, h: k.unsqueeze_(0).squeeze_(0).mul_(2).repeat_interleave(h // k.shape[1], 1),
     r"Hint: your function changed its input `k` in place"),
]
EXPAND_IDS = ["repeat", "tiled_by_hand", "by_h", "positions", "batch", "features",
              "not_expanded", "general", "in_place"]


@pytest.mark.parametrize("fn, hint", EXPAND_MISTAKES, ids=EXPAND_IDS)
def test_check_expand_kv_names_the_mistake(fn, hint):
    assert_fails(check_expand_kv, fn, hint)


def test_check_expand_kv_first_line_and_bad_input():
    assert re.fullmatch(
        r"check_expand_kv: on test '2 key/value heads for 4 query heads' \(k \(2, 2, 3, 5\), "
        r"h=4, float64\): wrong values in the result \(largest difference \d\.\d+\)\.",
        first_line(check_expand_kv, lambda k, h: k.repeat(1, h // k.shape[1], 1, 1)))
    assert_fails(check_expand_kv, lambda k: k, r"(?s)raised TypeError.*Hint: your function "
                                               r"takes the key/value heads and the number")
    assert_fails(check_expand_kv, lambda k, h: expand_interleave(k, h).float(),
                 r"(?s)wrong dtype of the result.*Hint: keep the inputs' dtype")
    with pytest.raises(TypeError, match=r"check_expand_kv expects your function itself"):
        check_expand_kv(torch.ones(2))


# ---------------------------------------------------------------- the whole of it


def gqa_torch(q, k, v, mask=None):
    m = None if mask is None else mask.unsqueeze(-3)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=m, enable_gqa=True)


def gqa_package(q, k, v, mask=None):
    group = q.shape[1] // k.shape[1]
    k, v = (t.repeat_interleave(group, dim=1) for t in (k, v))
    m = None if mask is None else mask.unsqueeze(-3)
    return scaled_dot_product_attention(q, k, v, m)[0]


def gqa_grouped(q, k, v, mask=None):
    """Without copying the keys: the query heads of a group side by side, (B, n_kv, g, L, Dk)."""
    B, h, L, d_k = q.shape
    n_kv = k.shape[1]
    qg = q.view(B, n_kv, h // n_kv, L, d_k)
    s = qg @ k.unsqueeze(2).transpose(-2, -1) / math.sqrt(d_k)  # (B, n_kv, g, L, S)
    if mask is not None:
        s = s.masked_fill(~mask[:, None, None], torch.finfo(s.dtype).min)
    return (s.softmax(-1) @ v.unsqueeze(2)).reshape(B, h, L, d_k)


@pytest.mark.parametrize("fn", [gqa_torch, gqa_package, gqa_grouped])
def test_check_grouped_query_attention_accepts_correct(fn, capsys):
    assert check_grouped_query_attention(fn) is None
    out = assert_one_line(capsys, check_grouped_query_attention)
    assert out == ("✓ check_grouped_query_attention: your grouped-query attention matches "
                   "PyTorch's on 5 tests, including groups of 3, a single key/value head and a "
                   "causal mask.\n")


def gqa_wrong(*, tile=False, scale=True, dim=-1, mask_mode="right"):
    """A learner's grouped-query attention with one planted mistake."""
    def fn(q, k, v, mask=None):
        group = q.shape[1] // k.shape[1]
        if tile:
            k, v = k.repeat(1, group, 1, 1), v.repeat(1, group, 1, 1)
        else:
            k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
        s = q @ k.transpose(-2, -1)
        if scale:
            s = s / math.sqrt(q.shape[-1])
        if mask is not None and mask_mode != "ignored":
            m = mask.unsqueeze(-3)
            s = s.masked_fill(m if mask_mode == "inverted" else ~m, -1e9)
        return s.softmax(dim) @ v
    return fn


GQA_MISTAKES = [
    (gqa_wrong(tile=True), HINT + r"you used `repeat` where `repeat_interleave` is meant"),
    (gqa_wrong(scale=False), HINT + r"you forgot to divide the scores `q @ kᵀ` by √d_k"),
    (gqa_wrong(dim=-2), HINT + r"you took the softmax over the queries"),
    (gqa_wrong(mask_mode="ignored"), HINT + r"you ignored the mask"),
    (gqa_wrong(mask_mode="inverted"), HINT + r"your mask convention is inverted"),
    (lambda q, k, v, mask=None: gqa_torch(q, k, v, mask) * 1.01,
     r"\nHint: compare each step with PyTorch's `F\.scaled_dot_product_attention"),
]
GQA_IDS = ["repeat", "unscaled", "over_queries", "mask_ignored", "mask_inverted", "general"]


@pytest.mark.parametrize("fn, hint", GQA_MISTAKES, ids=GQA_IDS)
def test_check_grouped_query_attention_names_the_mistake(fn, hint):
    assert_fails(check_grouped_query_attention, fn, hint)


def test_check_grouped_query_attention_bad_input():
    assert first_line(check_grouped_query_attention, gqa_wrong(mask_mode="ignored")).startswith(
        "check_grouped_query_attention: on test 'causal mask' (q (2, 4, 5, 4), k (2, 2, 5, 4), "
        "v (2, 2, 5, 4), mask (1, 5, 5), float64)")
    assert_fails(check_grouped_query_attention,
                 lambda q, k, v, mask=None: scaled_dot_product_attention(q, k, v)[0],
                 r"(?s)raised ValueError.*Hint: expand the key and value heads to h first")
    with pytest.raises(TypeError, match=r"check_grouped_query_attention expects your "
                                        r"function itself"):
        check_grouped_query_attention("gqa")
