"""Tests for illustrated.exercises.attention (chapters 4 and 6): check_scores and
check_attention accept correct work in several styles and name the mistake in each
planted wrong version."""
import math
import re

import pytest
import torch

from illustrated.attention import scaled_dot_product_attention
from illustrated.exercises import check_attention, check_scores

from .helpers import HINT, assert_fails, assert_one_line, first_line, softmax_naive, unwrap

# ---------------------------------------------------------------- scores


def scores_matmul(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])


def scores_einsum(q, k):
    return torch.einsum("...ld,...sd->...ls", q, k) / q.size(-1) ** 0.5


@pytest.mark.parametrize("fn", [scores_matmul, scores_einsum])
def test_check_scores_accepts_correct(fn, capsys):
    assert check_scores(fn) is None
    assert_one_line(capsys, check_scores)


def scaled_by(size):
    """Wrong scores: Q Kᵀ divided by ``size(q, k)`` instead of √d_k."""
    return lambda q, k: q @ k.transpose(-2, -1) / size(q, k)


SCORES_MISTAKES = [  # (wrong scores, the start of the hint)
    (scaled_by(lambda q, k: 1.0), HINT + r"you forgot to divide by √d_k \(these are the raw "
                                         r"Q Kᵀ\)"),
    (scaled_by(lambda q, k: q.shape[-1]), HINT + r"you divided by d_k instead of √d_k"),
    (scaled_by(lambda q, k: 1 / math.sqrt(q.shape[-1])), HINT + r"you multiplied by √d_k"),
    (lambda q, k: k @ q.transpose(-2, -1) / math.sqrt(q.shape[-1]),
     HINT + r"you computed K Qᵀ instead of Q Kᵀ"),
    (scaled_by(lambda q, k: math.sqrt(q.shape[-2])),
     HINT + r"you took the square root of the wrong size: you divided by √3, but d_k = 6"),
    (scaled_by(lambda q, k: math.sqrt(k.shape[-2])),
     HINT + r"you took the square root of the wrong size: you divided by √5"),
    (scaled_by(lambda q, k: math.sqrt(q.shape[0 if q.dim() > 2 else -1])),  # batch B only
     HINT + r"you took the square root of the wrong size: you divided by √2"),
    (lambda q, k: scores_matmul(q, k) + 1e-3, r"\nHint: compute `q @ k\.transpose"),
    (lambda q, k: q.div_(math.sqrt(q.shape[-1])) @ k.transpose(-2, -1),
     r"\nHint: your function changed its input `q` in place"),
]
SCORES_MISTAKE_IDS = ["unscaled", "by_dk", "times_sqrt", "k_q_t", "sqrt_L", "sqrt_S", "sqrt_B",
                      "general", "in_place"]


@pytest.mark.parametrize("fn, hint", SCORES_MISTAKES, ids=SCORES_MISTAKE_IDS)
def test_check_scores_names_the_mistake(fn, hint):
    assert_fails(check_scores, fn, hint)


@pytest.mark.parametrize("fn, where", [
    (lambda q, k: q.transpose(-2, -1) @ k, "2-D, L ≠ S"),  # Qᵀ K
    (lambda q, k: q @ k, "2-D, L ≠ S"),  # K not transposed
    (lambda q, k: q @ k.permute(*reversed(range(k.dim()))) / 6 ** 0.5, "batch"),  # k.T
], ids=["q_t_k", "k_not_transposed", "k_T_on_batch"])
def test_check_scores_transposition_errors_get_the_matmul_hint(fn, where):
    with pytest.raises(AssertionError) as info:
        check_scores(fn)
    assert isinstance(info.value.__context__, RuntimeError)
    assert re.search(rf"^check_scores: on test '{where}' \(q .* raised RuntimeError.*\nHint: "
                     r"the scores are `q @ k\.transpose\(-2, -1\)`.*`k\.T` reverses",
                     unwrap(str(info.value)))


def test_check_scores_wrong_shape_says_expected_and_got():
    fn = lambda q, k: k @ q.transpose(-2, -1) / math.sqrt(q.shape[-1])  # noqa: E731
    assert first_line(check_scores, fn) == (
        "check_scores: on test '2-D, L ≠ S' (q (3, 6), k (5, 6), float64): wrong shape: "
        "expected result (3, 5), got (5, 3).")


# ---------------------------------------------------------------- attention


def attention_package(q, k, v, mask=None):
    return scaled_dot_product_attention(q, k, v, mask)


def attention_by_hand(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(mask == 0, 0.0)  # a fully blocked row reads nothing
    return weights @ v, weights


def attention_torch(q, k, v, mask=None):
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return out, scores.softmax(-1).nan_to_num(0.0)  # NaN on a fully blocked row: 0


def attention_torch_weights_with_nan(q, k, v, mask=None):
    out, weights = attention_torch(q, k, v, mask)
    if mask is not None:
        weights = (q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))).masked_fill(
            ~mask, float("-inf")).softmax(-1)
    return out, weights


@pytest.mark.parametrize("fn", [attention_package, attention_by_hand, attention_torch])
def test_check_attention_accepts_correct(fn, capsys):
    assert check_attention(fn) is None
    out = assert_one_line(capsys, check_attention)
    assert out == ("✓ check_attention: your attention matches the reference on 9 tests, "
                   "including a padding mask, a causal mask, large scores and a query with "
                   "every key blocked.\n")


FILLS = {"ok": None, "inverted": None, "renormalised": None, "zero": 0.0,
         "-inf only": -math.inf,
         "min only": None, "-1e9 only": -1e9}  # mask="... only": no zeroing after the softmax


def wrong_attention(scale="sqrt", dim=-1, kqt=False, mask="ok", naive=False, swap=False,
                    by_S=False):
    """A learner's attention with one planted mistake (the defaults are right)."""

    def fn(q, k, v, m=None):
        d_k, L, S = q.shape[-1], q.shape[-2], k.shape[-2]
        scores = k @ q.transpose(-2, -1) if kqt else q @ k.transpose(-2, -1)
        div = {"sqrt": math.sqrt(d_k), "none": 1, "dk": d_k, "times": 1 / math.sqrt(d_k),
               "sqrt_L": math.sqrt(L), "after_softmax": 1}[scale]
        scores = scores / div
        blocked = None if m is None else m if mask == "inverted" else ~m
        if m is not None and mask != "after":
            fill = FILLS[mask]
            scores = scores.masked_fill(blocked, torch.finfo(scores.dtype).min
                                        if fill is None else fill)
        weights = softmax_naive(scores) if naive else scores.softmax(dim)
        if scale == "after_softmax":
            weights = weights / math.sqrt(d_k)
        if m is not None and mask in ("ok", "inverted", "after", "renormalised"):
            weights = weights.masked_fill(blocked, 0.0)
        if m is not None and mask == "renormalised":  # 0/0 on a fully blocked row
            weights = weights / weights.sum(-1, keepdim=True)
        out = weights @ v / (S if by_S else 1)
        return (weights, out) if swap else (out, weights)

    return fn


BLOCKED = "a query with every key blocked"


def on(where: str, hint: str) -> str:
    """The failure on test ``where``, with a diagnosis starting ``hint``."""
    return rf"^check_attention: on test '{where}' \(q [^\n]*{HINT}{hint}"


def learner_general(q, k, v, mask=None):
    out, w = attention_package(q, k, v, mask)
    return out + 1e-3, w


MISTAKES = [  # (a wrong attention, the test it fails and the start of its hint)
    (wrong_attention(swap=True), on("2-D, L = S", r"you returned \(weights, output\)")),
    (wrong_attention(dim=-2), on("2-D, L = S", r"you took the softmax over the queries "
                                               r"\(dim=-2\)")),
    (wrong_attention(scale="none"), on("2-D, L = S", r"you forgot to divide the scores `q @ "
                                                     r"kᵀ` by √d_k before the softmax\.$")),
    (wrong_attention(scale="dk"), on("2-D, L = S", r"you divided by d_k instead of √d_k")),
    (wrong_attention(scale="times"), on("2-D, L = S", r"you multiplied by √d_k")),
    (wrong_attention(scale="sqrt_L"), on("2-D, L = S", r"you took the square root of the "
                                                       r"wrong size")),
    (wrong_attention(kqt=True), on("2-D, L = S", r"you computed K Qᵀ instead of Q Kᵀ")),
    (wrong_attention(mask="inverted"), on("padding mask", r"your mask convention is inverted: "
                                                          r"in this book True means 'may "
                                                          r"attend' and False means 'blocked'")),
    (wrong_attention(mask="after"), on("padding mask", r"you applied the mask after the "
                                                       r"softmax")),
    (wrong_attention(mask="zero"), on("padding mask", r"you filled blocked scores with 0")),
    (wrong_attention(naive=True), on("large scores", r"exp overflowed on large scores")),
    (wrong_attention(scale="after_softmax"), on("2-D, L = S", r"you divided by √d_k after "
                                                              r"the softmax")),
    (wrong_attention(by_S=True), on("2-D, L = S", r"you divided the output by the number of "
                                                  r"keys \(4\): the softmax weights already "
                                                  r"sum to 1")),
    (wrong_attention(mask="-inf only"), on(BLOCKED, r"you filled blocked scores with -inf: .* "
                                                    r"-inf - \(-inf\) = NaN\. Fill with "
                                                    r"`torch\.finfo\(scores\.dtype\)\.min")),
    (attention_torch_weights_with_nan, on(BLOCKED, r"you filled blocked scores with -inf")),
    (wrong_attention(mask="min only"), on(BLOCKED, r"you did not zero the blocked weights "
                                                   r"after the softmax.* `weights = "
                                                   r"weights\.masked_fill\(~mask, 0\.0\)`\.$")),
    (wrong_attention(mask="-1e9 only"), on(BLOCKED, r"you did not zero the blocked weights")),
    (wrong_attention(mask="renormalised"), on(BLOCKED, r"you zeroed the blocked weights and "
                                                       r"then divided each row by its sum: "
                                                       r"on a row whose keys are all blocked "
                                                       r"that is 0/0 = NaN")),
    (learner_general, r"wrong values in the output.*\nHint: compute the steps one at a time"),
    (lambda q, k, v, mask=None: attention_by_hand(q.div_(math.sqrt(q.shape[-1])), k, v, mask),
     r"\nHint: your function changed its input `q` in place"),
]
MISTAKE_IDS = ["swapped", "softmax_dim", "unscaled", "by_dk", "times_sqrt", "sqrt_L", "k_q_t",
               "mask_inverted", "mask_after_softmax", "mask_zero_fill", "overflow",
               "divided_after_softmax", "divided_by_S", "blocked_row_-inf",
               "blocked_row_-inf_torch", "blocked_row_not_zeroed_min",
               "blocked_row_not_zeroed_1e9", "blocked_row_renormalised", "general", "in_place"]


@pytest.mark.parametrize("fn, hint", MISTAKES, ids=MISTAKE_IDS)
def test_check_attention_names_the_mistake(fn, hint):
    assert_fails(check_attention, fn, hint)


def test_check_attention_first_line_names_every_input():
    assert re.fullmatch(
        r"check_attention: on test 'padding mask' \(q \(2, 3, 6\), k \(2, 5, 6\), "
        r"v \(2, 5, 7\), mask \(2, 1, 5\), float64\): wrong values in the output "
        r"\(largest difference 0\.\d+\)\.",
        first_line(check_attention, wrong_attention(mask="after")))


@pytest.mark.parametrize("result, message", [
    (lambda o, w: o, r"returned a Tensor; expected a tuple \(output, weights\) of two "
                     r"tensors\.\nHint: end with `return output, weights`"),
    (lambda o, w: (o, w, w), r"returned a tuple of 3 items; expected a tuple"),
    (lambda o, w: [o, w.tolist()], r"returned a list of 2 items; expected a tuple"),
    (lambda o, w: (o[..., :1], w), r"wrong shape: expected output \(4, 7\) and weights "
                                   r"\(4, 4\), got \(4, 1\) and \(4, 4\)"),
], ids=["tensor", "triple", "list_inside", "shape"])
def test_check_attention_wrong_return(result, message):
    assert_fails(check_attention,
                 lambda q, k, v, mask=None: result(*attention_package(q, k, v, mask)), message)
