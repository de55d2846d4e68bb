"""Tests for illustrated.exercises.multi_head (chapter 5): check_split_heads,
check_merge_heads and check_multi_head_attention accept correct work and name the mistake
in each planted wrong version."""
import math

import pytest
import torch
from torch import nn

from illustrated.attention import MultiHeadAttention
from illustrated.exercises import (
    check_merge_heads,
    check_multi_head_attention,
    check_split_heads,
)

from .helpers import HINT, assert_fails, assert_one_line


def split_view(x, h):
    B, L, D = x.shape
    return x.view(B, L, h, D // h).transpose(1, 2)


def split_einops_like(x, h):
    return torch.stack(x.chunk(h, dim=-1), dim=1)


def split_package(x, h):
    m = MultiHeadAttention(x.shape[-1], h)
    return m.split_heads(x)


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


# ---------------------------------------------------------------- multi-head attention


def mha(query, key, value, w_q, w_k, w_v, w_o, h, mask=None, *, split=split_view,
        merge=merge_reshape, scale=None, dim=-1, mask_of=None, fill=None, before=True,
        use_w_o=True, proj=lambda x, w: x @ w.T, zero=True):
    """A learner's multi-head attention written out step by step; each keyword replaces
    one step with a wrong one."""
    q, k, v = (split(proj(x, w), h) for x, w in ((query, w_q), (key, w_k), (value, w_v)))
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / (math.sqrt(d_k) if scale is None else scale(d_k, h))
    if mask is not None:
        mask = mask_of(mask) if mask_of else mask.unsqueeze(-3)  # (..., 1, L, S)
    if mask is not None and before:
        fill_value = torch.finfo(scores.dtype).min if fill is None else fill
        scores = scores.masked_fill(~mask, fill_value)
    weights = scores.softmax(dim)
    if mask is not None and fill is None and zero:
        weights = weights.masked_fill(~mask, 0.0)
    z = merge(weights @ v)  # (B, L, D)
    return proj(z, w_o) if use_w_o else z


def mha_loop(query, key, value, w_q, w_k, w_v, w_o, h, mask=None,
             head_weight=lambda w, rows: w[rows].T):
    """Multi-head attention one head at a time; ``head_weight(w, rows)`` is head i's
    (D, Dk) projection: nn.Linear's layout gives head i the rows i*Dk.. of ``w``."""
    d_k = query.shape[-1] // h
    heads = []
    for i in range(h):
        rows = slice(i * d_k, (i + 1) * d_k)
        q, k, v = (x @ head_weight(w, rows)
                   for x, w in ((query, w_q), (key, w_k), (value, w_v)))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
        if mask is not None:
            scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        w = scores.softmax(-1)
        if mask is not None:
            w = w.masked_fill(~mask, 0.0)
        heads.append(w @ v)
    return torch.cat(heads, dim=-1) @ w_o.T


def mha_linear(query, key, value, w_q, w_k, w_v, w_o, h, mask=None):
    """The four matrices as nn.functional.linear's weights, as nn.Linear uses them."""
    lin = nn.functional.linear
    return mha(query, key, value, w_q, w_k, w_v, w_o, h, mask, proj=lin)


def mha_torch(query, key, value, w_q, w_k, w_v, w_o, h, mask=None):
    """torch's own module, holding the same matrices (True = blocked)."""
    D = query.shape[-1]
    m = nn.MultiheadAttention(D, h, bias=False, batch_first=True).to(query.dtype)
    with torch.no_grad():
        m.in_proj_weight.copy_(torch.cat([w_q, w_k, w_v]))
        m.out_proj.weight.copy_(w_o)
    blocked = None if mask is None else ~mask.expand(
        query.shape[0], query.shape[1], key.shape[1]).repeat_interleave(h, dim=0)
    out, _ = m(query, key, value, attn_mask=blocked, need_weights=False)
    return out


@pytest.mark.parametrize("fn", [mha, mha_loop, mha_linear, mha_torch])
def test_check_multi_head_attention_accepts_correct(fn, capsys):
    assert check_multi_head_attention(fn) is None
    assert_one_line(capsys, check_multi_head_attention)


def merge_no_transpose(z):
    return z.reshape(z.shape[0], z.shape[2], -1)


def split_no_transpose(x, h):
    return x.reshape(x.shape[0], h, x.shape[1], -1)


def split_last(x, h):
    return x.view(*x.shape[:2], -1, h).permute(0, 3, 1, 2)


def merge_last(z):
    return z.permute(0, 2, 3, 1).reshape(z.shape[0], z.shape[2], -1)


def mha_head_columns(query, key, value, w_q, w_k, w_v, w_o, h, mask=None):
    """Wrong: head i projects with the columns of each weight, `w[:, sl]`, not its
    rows (nn.Linear's layout)."""
    return mha_loop(query, key, value, w_q, w_k, w_v, w_o, h, mask,
                    head_weight=lambda w, cols: w[:, cols])


def mha_w_o_plain(query, key, value, w_q, w_k, w_v, w_o, h, mask=None):
    """Wrong: the output projection as it comes, `concat @ w_o`."""
    return mha(query, key, value, w_q, w_k, w_v, w_o, h, mask, use_w_o=False) @ w_o


def wrong(**kw):
    return lambda *args, **kwargs: mha(*args, **kwargs, **kw)


MHA_MISTAKES = {
    "split_no_transpose": (wrong(split=split_no_transpose), "you split the heads with `view`"),
    "view_everywhere": (wrong(split=split_no_transpose, merge=merge_no_transpose),
                        "you split the heads with `view`"),
    "merge_no_transpose": (wrong(merge=merge_no_transpose), "you merged the heads with"),
    "merge_reversed": (wrong(merge=lambda z: merge_reshape(z.flip(1))),
                       "your heads are merged in the wrong order"),
    "split_interleaved": (wrong(split=split_last), "your heads take every h-th column"),
    "both_interleaved": (wrong(split=split_last, merge=merge_last), "your heads take every h-th column"),
    "merge_interleaved": (wrong(merge=merge_last), "your heads take every h-th column"),
    "no_w_o": (wrong(use_w_o=False), "you forgot the output projection W\\^O"),
    "paper_layout": (wrong(proj=lambda x, w: x @ w),
                     r"you multiplied by the weights as they come, `query @ w_q`"),
    "by_sqrt_d_model": (wrong(scale=lambda d_k, h: math.sqrt(d_k * h)), "you divided the scores by √d_model"),
    "unscaled": (wrong(scale=lambda d_k, h: 1.0), "you forgot to divide the scores"),
    "by_d_k": (wrong(scale=lambda d_k, h: d_k), "you divided by d_k instead of √d_k"),
    "by_sqrt_h": (wrong(scale=lambda d_k, h: math.sqrt(h)),
                  "you took the square root of the wrong size"),
    "softmax_over_queries": (wrong(dim=-2), "you took the softmax over the queries"),
    "softmax_over_heads": (wrong(dim=1), r"you took the softmax over the heads \(dim=1"),
    "head_columns": (mha_head_columns,
                     r"each head took columns of the weights, `w_q\[:, sl\]`"),
    "w_o_plain": (mha_w_o_plain, r"you multiplied by `w_o` as it comes"),
    "mask_ignored": (wrong(mask_of=lambda m: m.unsqueeze(-3) | True), "you ignored the mask"),
    "mask_inverted": (wrong(mask_of=lambda m: ~m.unsqueeze(-3)),
                      "your mask convention is inverted"),
    "mask_no_head_axis": (wrong(mask_of=lambda m: m), "you gave the mask no head axis"),
    # right for the 3-D masks, wrong for a 2-D (L, S) one: (L, 1, S) puts L on the heads
    "mask_head_axis_at_1": (wrong(mask_of=lambda m: m.unsqueeze(1)),
                            r"you gave a 2-D \(L, S\) mask its head axis"),
    "mask_after_softmax": (wrong(before=False), "you applied the mask after the softmax"),
    "mask_zero_fill": (wrong(fill=0.0), "you filled blocked scores with 0"),
    "blocked_row_-inf": (wrong(fill=-math.inf), "you filled blocked scores with -inf"),
    "blocked_row_not_zeroed": (wrong(zero=False), "you did not zero the blocked weights"),
    "general": (lambda *a, **k: mha(*a, **k) + 1e-3, None),
}


@pytest.mark.parametrize("name", MHA_MISTAKES)
def test_check_multi_head_attention_names_the_mistake(name):
    fn, hint = MHA_MISTAKES[name]
    pattern = r"\nHint: compare each step" if hint is None else HINT + hint
    assert_fails(check_multi_head_attention, fn, pattern)


def test_check_multi_head_attention_tuple_and_error_hints():
    def returns_pair(*args, **kwargs):
        return mha(*args, **kwargs), None

    assert_fails(check_multi_head_attention, lambda *a, **k: (mha(*a, **k), mha(*a, **k)),
                 "expected a torch.Tensor")
    assert_fails(check_multi_head_attention, returns_pair, "expected a torch.Tensor")
    # `view` on the non-contiguous merged heads raises: the hint walks through the shapes.
    merge_view = wrong(merge=lambda z: z.transpose(1, 2).view(z.shape[0], z.shape[2], -1))
    assert_fails(check_multi_head_attention, merge_view,
                 r"raised RuntimeError.*\nHint: follow the shapes")


def test_check_multi_head_attention_refuses_a_non_function():
    with pytest.raises(TypeError, match="expects your function itself"):
        check_multi_head_attention(mha(*[torch.eye(4)[None]] * 3, *[torch.eye(4)] * 4, 2))
