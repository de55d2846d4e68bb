"""Tests for illustrated.exercises: every checker accepts correct work (in several styles),
prints one line, and names the mistake in each planted wrong version."""
import math
import re

import pytest
import torch

from illustrated.attention import scaled_dot_product_attention
from illustrated.exercises import (
    check_attention,
    check_scores,
    check_self_attention,
    check_soft_lookup,
    check_softmax,
)

CHECKERS = [check_softmax, check_scores, check_attention, check_soft_lookup,
            check_self_attention]
HINT = r"\nHint: it looks like "  # every diagnosed mistake starts its hint like this


def assert_one_line(capsys, checker) -> str:
    out = capsys.readouterr().out
    assert out.count("\n") == 1, out
    assert out.startswith(f"✓ {checker.__name__}: your "), out
    return out


def first_line(checker, fn) -> str:
    with pytest.raises(AssertionError) as info:
        checker(fn)
    return str(info.value).splitlines()[0]


# ---------------------------------------------------------------- softmax


def softmax_torch(x):
    return torch.softmax(x, dim=-1)


def softmax_stable(x):
    e = (x - x.max(dim=-1, keepdim=True).values).exp()
    return e / e.sum(dim=-1, keepdim=True)


def softmax_logsumexp(x):
    return (x - x.logsumexp(dim=-1, keepdim=True)).exp()


def softmax_naive(x):
    return x.exp() / x.exp().sum(dim=-1, keepdim=True)


@pytest.mark.parametrize("fn", [softmax_torch, softmax_stable, softmax_logsumexp])
def test_check_softmax_accepts_correct(fn, capsys):
    assert check_softmax(fn) is None
    out = assert_one_line(capsys, check_softmax)
    assert out == "✓ check_softmax: your softmax matches on 6 tests, including large scores.\n"


@pytest.mark.parametrize("fn, hint", [
    (lambda x: torch.softmax(x, dim=0), HINT + r"you took the softmax over dim 0 instead"),
    (lambda x: torch.softmax(x, dim=1), HINT + r"you took the softmax over dim 1 instead"),
    (lambda x: x.exp() / x.exp().sum(-1), HINT + r"you divided by e\.sum\(dim=-1\) without "
                                                 r"keepdim=True"),
    (lambda x: x.exp() / x.exp().sum(), HINT + r"you divided by the sum over the whole tensor"),
    (lambda x: x / x.sum(-1, keepdim=True), HINT + r"you forgot the exponential"),
    (lambda x: x.exp(), HINT + r"you forgot to divide by the sum"),
    (softmax_naive, HINT + r"exp overflowed on large scores"),
    (lambda x: softmax_naive(x - x.max()), HINT + r"you subtracted the maximum of the whole "
                                                  r"tensor"),
    (lambda x: softmax_torch(x) + 0.01, r"\nHint: compare your output with torch\.softmax"),
], ids=["dim0", "dim1_on_3d", "no_keepdim", "whole_sum", "no_exp", "no_norm", "overflow",
        "global_max", "general"])
def test_check_softmax_names_the_mistake(fn, hint):
    with pytest.raises(AssertionError, match=hint):
        check_softmax(fn)


def test_check_softmax_first_line_names_test_and_shape():
    assert re.fullmatch(
        r"check_softmax: on test 'random 4×4' \(x \(4, 4\), float64\): wrong values in the "
        r"result \(largest difference 0\.\d+\)\.",
        first_line(check_softmax, lambda x: torch.softmax(x, dim=0)))
    assert first_line(check_softmax, softmax_naive) == (
        "check_softmax: on test 'large scores (~1000)' (x (4, 4), float64): the result "
        "contains NaN or inf.")


@pytest.mark.parametrize("fn, message", [
    (lambda x: softmax_torch(x).tolist(), r"returned a list of 4 items; expected a "
                                          r"torch\.Tensor of shape \(4, 4\)"),
    (lambda x: softmax_torch(x).sum(-1), r"wrong shape: expected result \(4, 4\), got \(4,\)"),
    (lambda x: softmax_torch(x.float()), r"(?s)wrong dtype of the result: expected "
                                         r"torch\.float64.*Hint: keep the inputs' dtype"),
], ids=["list", "shape", "dtype"])
def test_check_softmax_wrong_type_shape_dtype(fn, message):
    with pytest.raises(AssertionError, match=message):
        check_softmax(fn)


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


@pytest.mark.parametrize("fn, hint", [
    (scaled_by(lambda q, k: 1.0), HINT + r"you forgot to divide by √d_k"),
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
    (lambda q, k: scores_matmul(q, k) + 1e-3, r"\nHint: compute q @ k\.transpose"),
], ids=["unscaled", "by_dk", "times_sqrt", "k_q_t", "sqrt_L", "sqrt_S", "sqrt_B", "general"])
def test_check_scores_names_the_mistake(fn, hint):
    with pytest.raises(AssertionError, match=hint):
        check_scores(fn)


@pytest.mark.parametrize("fn, where", [
    (lambda q, k: q.transpose(-2, -1) @ k, "2-D, L ≠ S"),  # Qᵀ K
    (lambda q, k: q @ k, "2-D, L ≠ S"),  # K not transposed
    (lambda q, k: q @ k.permute(*reversed(range(k.dim()))) / 6 ** 0.5, "batch"),  # k.T
], ids=["q_t_k", "k_not_transposed", "k_T_on_batch"])
def test_check_scores_transposition_errors_get_the_matmul_hint(fn, where):
    with pytest.raises(AssertionError, match=rf"(?s)^check_scores: on test '{where}' \(q .*"
                                             r"raised RuntimeError.*\nHint: the scores are "
                                             r"q @ k\.transpose\(-2, -1\).*k\.T reverses") as e:
        check_scores(fn)
    assert isinstance(e.value.__cause__, RuntimeError)


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
    return weights @ v, weights


def attention_torch(q, k, v, mask=None):
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return out, scores.softmax(-1)


@pytest.mark.parametrize("fn", [attention_package, attention_by_hand, attention_torch])
def test_check_attention_accepts_correct(fn, capsys):
    assert check_attention(fn) is None
    out = assert_one_line(capsys, check_attention)
    assert "8 tests, including a padding mask, a causal mask and large scores." in out


def wrong_attention(scale="sqrt", dim=-1, kqt=False, mask="ok", naive=False, swap=False):
    """A learner's attention with one planted mistake."""

    def fn(q, k, v, m=None):
        d_k, L = q.shape[-1], q.shape[-2]
        scores = k @ q.transpose(-2, -1) if kqt else q @ k.transpose(-2, -1)
        div = {"sqrt": math.sqrt(d_k), "none": 1, "dk": d_k, "times": 1 / math.sqrt(d_k),
               "sqrt_L": math.sqrt(L)}[scale]
        scores = scores / div
        if m is not None and mask != "after":
            blocked = m if mask == "inverted" else ~m
            scores = scores.masked_fill(blocked, 0.0 if mask == "zero" else -1e9)
        weights = softmax_naive(scores) if naive else scores.softmax(dim)
        if m is not None and mask == "after":
            weights = weights * m
        out = weights @ v
        return (weights, out) if swap else (out, weights)

    return fn


@pytest.mark.parametrize("kwargs, hint, where", [
    ({"swap": True}, r"you returned \(weights, output\)", "2-D, L = S"),
    ({"dim": -2}, r"you took the softmax over the queries \(dim=-2\)", "2-D, L = S"),
    ({"scale": "none"}, r"you forgot to divide by √d_k", "2-D, L = S"),
    ({"scale": "dk"}, r"you divided by d_k instead of √d_k", "2-D, L = S"),
    ({"scale": "times"}, r"you multiplied by √d_k", "2-D, L = S"),
    ({"scale": "sqrt_L"}, r"you took the square root of the wrong size", "2-D, L = S"),
    ({"kqt": True}, r"you computed K Qᵀ instead of Q Kᵀ", "2-D, L = S"),
    ({"mask": "inverted"}, r"your mask convention is inverted: in this book True means "
                           r"'may attend' and False means 'blocked'", "padding mask"),
    ({"mask": "after"}, r"you applied the mask after the softmax", "padding mask"),
    ({"mask": "zero"}, r"you filled blocked scores with 0", "padding mask"),
    ({"naive": True}, r"exp overflowed on large scores", "large scores"),
], ids=["swapped", "softmax_dim", "unscaled", "by_dk", "times_sqrt", "sqrt_L", "k_q_t",
        "mask_inverted", "mask_after_softmax", "mask_zero_fill", "overflow"])
def test_check_attention_names_the_mistake(kwargs, hint, where):
    with pytest.raises(AssertionError, match=rf"^check_attention: on test '{where}' \(q "
                                             rf"[^\n]*{HINT}{hint}"):
        check_attention(wrong_attention(**kwargs))


def test_check_attention_first_line_names_every_input():
    assert re.fullmatch(
        r"check_attention: on test 'padding mask' \(q \(2, 3, 6\), k \(2, 5, 6\), "
        r"v \(2, 5, 7\), mask \(2, 1, 5\), float64\): wrong values in the output "
        r"\(largest difference 0\.\d+\)\.",
        first_line(check_attention, wrong_attention(mask="after")))


def test_check_attention_general_hint():
    def learner(q, k, v, mask=None):
        out, w = attention_package(q, k, v, mask)
        return out + 1e-3, w

    with pytest.raises(AssertionError, match=r"(?s)wrong values in the output.*\nHint: "
                                             r"compute the steps one at a time"):
        check_attention(learner)


@pytest.mark.parametrize("result, message", [
    (lambda o, w: o, r"returned a Tensor; expected a tuple \(output, weights\) of two "
                     r"tensors\.\nHint: end with `return output, weights`"),
    (lambda o, w: (o, w, w), r"returned a tuple of 3 items; expected a tuple"),
    (lambda o, w: [o, w.tolist()], r"returned a list of 2 items; expected a tuple"),
    (lambda o, w: (o[..., :1], w), r"wrong shape: expected output \(4, 7\) and weights "
                                   r"\(4, 4\), got \(4, 1\) and \(4, 4\)"),
], ids=["tensor", "triple", "list_inside", "shape"])
def test_check_attention_wrong_return(result, message):
    with pytest.raises(AssertionError, match=message):
        check_attention(lambda q, k, v, mask=None: result(*attention_package(q, k, v, mask)))


# ---------------------------------------------------------------- soft lookup


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


# ---------------------------------------------------------------- self-attention


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


def attend(q, k, v, div=None, dim=-1, naive=False):
    scores = q @ k.transpose(-2, -1) / (math.sqrt(q.shape[-1]) if div is None else div)
    weights = softmax_naive(scores) if naive else scores.softmax(dim)
    return weights @ v


@pytest.mark.parametrize("fn, hint", [
    (lambda x, wq, wk, wv: attend(x, x, x), r"you used x itself as queries, keys and values"),
    (lambda x, wq, wk, wv: attend(x, x, x, div=1.0), r"you used x itself as queries, keys"),
    (lambda x, wq, wk, wv: attend(x @ wq, x @ wv, x @ wk), r"you swapped W_k and W_v"),
    (lambda x, wq, wk, wv: attend(x @ wk, x @ wq, x @ wv), r"you swapped W_q and W_k"),
    (lambda x, wq, wk, wv: attend(x @ wq, x @ wk, x @ wv, div=1.0),
     r"you forgot to divide by √d_k"),
    (lambda x, wq, wk, wv: attend(x @ wq, x @ wk, x @ wv, div=wq.shape[1]),
     r"you divided by d_k instead of √d_k"),
    (lambda x, wq, wk, wv: attend(x @ wq, x @ wk, x @ wv, div=math.sqrt(x.shape[-1])),
     r"you divided by √D \(d_model\) instead of √d_k"),
    (lambda x, wq, wk, wv: attend(x @ wq, x @ wk, x @ wv, div=math.sqrt(x.shape[-2])),
     r"you took the square root of the wrong size"),
    (lambda x, wq, wk, wv: attend(x @ wq, x @ wk, x @ wv, dim=-2),
     r"you took the softmax over the queries"),
    (lambda x, wq, wk, wv: scaled_dot_product_attention(x @ wq, x @ wk, x @ wv)[1],
     r"you returned the attention weights"),
    (lambda x, wq, wk, wv: attend(x @ wq, x @ wk, x @ wv, naive=True),
     r"exp overflowed on large scores"),
], ids=["no_projections", "no_projections_unscaled", "swap_kv", "swap_qk", "unscaled",
        "by_dk", "sqrt_D", "sqrt_L", "softmax_dim", "weights", "overflow"])
def test_check_self_attention_names_the_mistake(fn, hint):
    with pytest.raises(AssertionError, match=HINT + hint):
        check_self_attention(fn)


def test_check_self_attention_general_hint():
    with pytest.raises(AssertionError, match=r"\nHint: compute q, k, v, the scores"):
        check_self_attention(lambda x, wq, wk, wv: self_attention_package(x, wq, wk, wv) * 1.01)


def test_check_self_attention_tuple_return_gets_specific_message():
    def learner(x, w_q, w_k, w_v):
        return scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)  # (z, weights)

    with pytest.raises(AssertionError, match=r"returned a tuple of 2 items; expected a "
                                             r"torch\.Tensor of shape \(4, 3\)\.\nHint: return one "
                                             r"tensor; if you reuse a function"):
        check_self_attention(learner)


# ---------------------------------------------------------------- every checker

CORRECT = {check_softmax: softmax_torch, check_scores: scores_matmul,
           check_attention: attention_package, check_soft_lookup: lookup_softmax,
           check_self_attention: self_attention_package}


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_non_callable_is_a_type_error(checker):
    with pytest.raises(TypeError, match=rf"^{checker.__name__} expects your function itself, "
                                        rf"e\.g\. {checker.__name__}\(my_function\), got "
                                        rf"Tensor$"):
        checker(torch.ones(3))


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_exception_is_chained_and_names_the_input(checker):
    def learner(*args, **kwargs):
        raise ValueError("boom")

    with pytest.raises(AssertionError, match=rf"^{checker.__name__}: on test '[^']+' "
                                             r"\(\w+ \([\d, ]+\).*\): your function raised "
                                             r"ValueError: boom\nHint: \S") as info:
        checker(learner)
    assert isinstance(info.value.__cause__, ValueError)


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_none_result_is_reported(checker):
    with pytest.raises(AssertionError, match=r"returned None \(did you forget `return`\?\)"):
        checker(lambda *args, **kwargs: None)


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_a_function_that_writes_into_its_inputs_is_judged_fairly(checker, capsys):
    def learner(*args, **kwargs):
        result = CORRECT[checker](*args, **kwargs)
        for a in args:
            if a.is_floating_point():
                a.zero_()
        return result

    assert checker(learner) is None
    assert_one_line(capsys, checker)


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_every_diagnosis_is_reachable_from_the_hint_prefix(checker):
    """A failing check always ends with exactly one Hint line."""
    with pytest.raises(AssertionError) as info:
        checker(lambda *args, **kwargs: torch.zeros(()))
    message = str(info.value)
    assert len(re.findall(r"\nHint: ", message)) == 1
    assert message.startswith(f"{checker.__name__}: on test '")


def test_checkers_leave_the_global_seed_alone(capsys):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    for checker in CHECKERS:
        checker(CORRECT[checker])
    assert torch.equal(torch.rand(3), expected)
    assert capsys.readouterr().out.count("\n") == len(CHECKERS)
