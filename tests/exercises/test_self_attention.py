"""Tests for illustrated.exercises.self_attention (chapter 3): check_self_attention accepts
correct work in several styles and names the mistake in each planted wrong version."""
import math

import pytest
import torch

from illustrated.attention import scaled_dot_product_attention
from illustrated.exercises import check_self_attention

from .helpers import HINT, assert_fails, assert_one_line, softmax_naive


def self_attention_package(x, w_q, w_k, w_v):
    return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)[0]


def self_attention_by_hand(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(k.shape[-1]), dim=-1)
    return weights @ v


@pytest.mark.parametrize("fn", [self_attention_package, self_attention_by_hand])
def test_check_self_attention_accepts_correct(fn, capsys):
    assert check_self_attention(fn) is None
    assert_one_line(capsys, check_self_attention)


def softmax_without_keepdim(scores, shift=True):
    """A learner's softmax whose row sums lost their axis."""
    if shift:
        scores = scores - scores.max(dim=-1, keepdim=True).values
    e = scores.exp()
    return e / e.sum(dim=-1)


def attend(q, k, v, div=None, dim=-1, naive=False, after_softmax=False, by_L=False,
           no_keepdim=None):
    """Attention in one of the learner's ways: the defaults are right."""
    sqrt_dk = math.sqrt(q.shape[-1])
    scale = 1.0 if after_softmax else sqrt_dk if div is None else div
    scores = q @ k.transpose(-2, -1) / scale
    weights = softmax_naive(scores) if naive else scores.softmax(dim)
    if no_keepdim is not None:
        weights = softmax_without_keepdim(scores, shift=no_keepdim == "shifted")
    if after_softmax:
        weights = weights / sqrt_dk
    return weights @ v / (k.shape[-2] if by_L else 1)


def projected(wrong=attend, **kwargs):
    """A learner's self-attention that projects correctly, then attends with ``wrong``."""
    return lambda x, wq, wk, wv: wrong(x @ wq, x @ wk, x @ wv, **kwargs)


MISTAKES = [  # (a wrong self-attention, the start of its hint)
    (lambda x, wq, wk, wv: attend(x, x, x),
     HINT + r"you used x itself as queries, keys and values"),
    (lambda x, wq, wk, wv: attend(x, x, x, div=1.0), HINT + r"you used x itself as queries"),
    (lambda x, wq, wk, wv: attend(x @ wq, x @ wv, x @ wk), HINT + r"you swapped W_k and W_v"),
    (lambda x, wq, wk, wv: attend(x @ wk, x @ wq, x @ wv), HINT + r"you swapped W_q and W_k"),
    (projected(div=1.0), HINT + r"you forgot to divide the scores `q @ kᵀ` by √d_k before the "
                                r"softmax\.$"),
    (lambda x, wq, wk, wv: attend(x @ wq, x @ wk, x @ wv, div=wq.shape[1]),
     HINT + r"you divided by d_k instead of √d_k"),
    (lambda x, wq, wk, wv: attend(x @ wq, x @ wk, x @ wv, div=math.sqrt(x.shape[-1])),
     HINT + r"you divided by √D \(d_model\) instead of √d_k"),
    (lambda x, wq, wk, wv: attend(x @ wq, x @ wk, x @ wv, div=math.sqrt(x.shape[-2])),
     HINT + r"you took the square root of the wrong size"),
    (projected(dim=-2), HINT + r"you took the softmax over the queries"),
    (projected(no_keepdim="shifted"),
     r"on test 'one sentence' .*" + HINT + r"your softmax divided by `e\.sum\(dim=-1\)` "
     r"without `keepdim=True`"),
    (projected(no_keepdim="plain"), HINT + r"your softmax divided by `e\.sum\(dim=-1\)` "
                                           r"without `keepdim=True`"),
    (lambda x, wq, wk, wv: attend(x @ wq, x @ wk, x @ wk),
     HINT + r"you computed the values with W_k, `v = x @ w_k`: the values have their own "
            r"projection, `v = x @ w_v`\.$"),
    (projected(after_softmax=True), HINT + r"you divided by √d_k after the softmax"),
    (projected(by_L=True), HINT + r"you divided the output by the number of keys \(4\): the "
                                  r"softmax weights already sum to 1"),
    (projected(lambda q, k, v: scaled_dot_product_attention(q, k, v)[1]),
     HINT + r"you returned the attention weights"),
    (projected(naive=True), HINT + r"exp overflowed on large scores"),
    (lambda x, wq, wk, wv: self_attention_package(x, wq, wk, wv) * 1.01,
     r"\nHint: compute q, k, v, the scores"),
    (lambda x, wq, wk, wv: attend(x @ wq.div_(math.sqrt(wq.shape[1])), x @ wk, x @ wv, div=1.0),
     r"\nHint: your function changed its input `w_q` in place"),
]
MISTAKE_IDS = ["no_projections", "no_projections_unscaled", "swap_kv", "swap_qk", "unscaled",
               "by_dk", "sqrt_D", "sqrt_L", "softmax_dim",
               "sum_no_keepdim_shifted", "sum_no_keepdim", "v_with_wk", "divided_after_softmax",
               "divided_by_L", "weights", "overflow", "general",
               "in_place"]


@pytest.mark.parametrize("fn, hint", MISTAKES, ids=MISTAKE_IDS)
def test_check_self_attention_names_the_mistake(fn, hint):
    assert_fails(check_self_attention, fn, hint)


def test_check_self_attention_tuple_return_gets_specific_message():
    def learner(x, w_q, w_k, w_v):
        return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)  # (z, weights)

    assert_fails(check_self_attention, learner,
                 r"returned a tuple of 2 items; expected a torch\.Tensor of shape \(4, 3\)\.\n"
                 r"Hint: return one tensor; if you reuse a function")
