"""Tests for illustrated.exercises.layer_norm (chapter 8): check_layer_norm accepts correct
work in several styles and names the mistake in each planted wrong version."""
import re

import pytest
import torch
import torch.nn.functional as F

from illustrated.exercises import check_layer_norm

from .helpers import HINT, assert_fails, assert_one_line, first_line


def ln_torch(x, gamma, beta, eps=1e-5):
    return F.layer_norm(x, (x.shape[-1],), gamma, beta, eps)


def ln_module(x, gamma, beta, eps=1e-5):
    norm = torch.nn.LayerNorm(x.shape[-1], eps=eps).to(x.dtype)
    with torch.no_grad():
        norm.weight.copy_(gamma)
        norm.bias.copy_(beta)
    return norm(x)


def ln_by_hand(x, gamma, beta, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return gamma * (x - mean) / torch.sqrt(var + eps) + beta


def ln_rsqrt(x, gamma, beta, eps=1e-5):
    var, mean = torch.var_mean(x, dim=-1, unbiased=False, keepdim=True)
    return (x - mean) * torch.rsqrt(var + eps) * gamma + beta


@pytest.mark.parametrize("fn", [ln_torch, ln_module, ln_by_hand, ln_rsqrt])
def test_check_layer_norm_accepts_correct(fn, capsys):
    assert check_layer_norm(fn) is None
    out = assert_one_line(capsys, check_layer_norm)
    assert out == ("✓ check_layer_norm: your layer norm matches torch's on 6 tests, "
                   "including equal features, a small spread and another eps.\n")


def over(dims, unbiased=False):
    """Normalise over ``dims`` (batch norm's axes, or too many)."""
    def fn(x, gamma, beta, eps=1e-5):
        d = tuple(a % x.dim() for a in dims)
        mean = x.mean(dim=d, keepdim=True)
        var = x.var(dim=d, keepdim=True, unbiased=unbiased)
        return gamma * (x - mean) / torch.sqrt(var + eps) + beta
    return fn


def ln_unbiased(x, gamma, beta, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    return gamma * (x - mean) / torch.sqrt(x.var(dim=-1, keepdim=True) + eps) + beta


def ln_no_eps(x, gamma, beta, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    return gamma * (x - mean) / x.std(dim=-1, unbiased=False, keepdim=True) + beta


def ln_eps_outside(x, gamma, beta, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    return gamma * (x - mean) / (x.std(dim=-1, unbiased=False, keepdim=True) + eps) + beta


def ln_eps_ignored(x, gamma, beta, eps=1e-5):
    return ln_by_hand(x, gamma, beta)  # always 1e-5


def ln_variance(x, gamma, beta, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    return gamma * (x - mean) / (x.var(dim=-1, unbiased=False, keepdim=True) + eps) + beta


def ln_variance_unbiased(x, gamma, beta, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    return gamma * (x - mean) / x.var(dim=-1, keepdim=True) + beta  # x.var for x.std


def ln_root_of_std(x, gamma, beta, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    var = x.std(dim=-1, unbiased=False, keepdim=True)  # x.std where x.var belongs
    return gamma * (x - mean) / torch.sqrt(var + eps) + beta


def ln_beta_below(x, gamma, beta, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    std = x.std(dim=-1, unbiased=False, keepdim=True)
    return gamma * (x - mean) / (std + beta)  # (x - mu) / (sigma + beta)


def ln_beta_divided(x, gamma, beta, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, unbiased=False, keepdim=True)
    return (gamma * (x - mean) + beta) / torch.sqrt(var + eps)  # beta divided too


def ln_no_mean(x, gamma, beta, eps=1e-5):
    var = x.var(dim=-1, unbiased=False, keepdim=True)
    return gamma * x / torch.sqrt(var + eps) + beta


def ln_in_place(x, gamma, beta, eps=1e-5):
    x -= x.mean(dim=-1, keepdim=True)  # changes the caller's x
    return ln_by_hand(x, gamma, beta, eps)


MISTAKES = [  # (a wrong layer norm, the start of its hint)
    (over((0,)), HINT + r"you normalised each feature across positions L: that is batch "
                        r"norm's axis"),
    (lambda x, g, b, eps=1e-5: (ln_by_hand if x.dim() == 2 else over((0, 1)))(x, g, b, eps),
     HINT + r"you normalised each feature across the batch B and positions L: "
                          r"that is batch norm's axis"),
    (over((-2, -1)), HINT + r"you normalised over positions L and features D together"),
    (ln_unbiased, HINT + r"you used the unbiased variance \(dividing by D - 1\)"),
    (lambda x, g, b, eps=1e-5: ln_by_hand(x, b, g, eps), HINT + r"gamma and beta are swapped"),
    (lambda x, g, b, eps=1e-5: ln_by_hand(x, torch.ones_like(g), torch.zeros_like(b), eps),
     HINT + r"you returned the normalised values without the learned scale"),
    (ln_variance, HINT + r"you divided by the variance, `x\.var\(\.\.\.\)`, where the "
                         r"standard deviation belongs"),
    (ln_variance_unbiased, HINT + r"you divided by the variance, `x\.var"),
    (ln_root_of_std, HINT + r"you took the square root of the standard deviation: `x\.std` "
                            r"is already the square root of `x\.var`"),
    (ln_beta_below, HINT + r"beta ended up in the denominator"),
    (lambda x, g, b, eps=1e-5: g * (x - x.mean(-1, keepdim=True)) / torch.sqrt(
        x.var(-1, unbiased=False, keepdim=True) + b),  # beta where eps belongs
     HINT + r"beta ended up in the denominator"),
    (ln_beta_divided, HINT + r"beta was divided by the standard deviation too"),
    (ln_no_mean, HINT + r"you did not subtract the mean"),
    (ln_no_eps, HINT + r"you left out epsilon"),
    (ln_eps_outside, HINT + r"you added epsilon outside the square root"),
    (ln_eps_ignored, HINT + r"you ignored the `eps` argument"),
    (lambda x, g, b, eps=1e-5: ln_torch(x, g, b, eps) + 0.01,
     r"\nHint: compute the steps one at a time"),
    (ln_in_place, r"wrote into its input x: 15 of the 15 values of x differ after the "
                  r"call\.\nHint: your function changed its input `x` in place"),
]
MISTAKE_IDS = ["positions", "batch_and_positions", "whole_sentence", "unbiased", "swapped",
               "no_affine", "variance", "variance_unbiased", "root_of_std", "beta_below",
               "beta_for_eps", "beta_divided", "no_mean", "no_eps", "eps_outside",
               "eps_ignored", "general", "in_place"]


@pytest.mark.parametrize("fn, hint", MISTAKES, ids=MISTAKE_IDS)
def test_check_layer_norm_names_the_mistake(fn, hint):
    assert_fails(check_layer_norm, fn, hint)


def test_check_layer_norm_first_line_names_test_and_shape():
    assert re.fullmatch(
        r"check_layer_norm: on test '2-D \(L, D\)' \(x \(3, 5\), gamma \(5,\), beta \(5,\), "
        r"float64\): wrong values in the result \(largest difference \d\.\d+\)\.",
        first_line(check_layer_norm, ln_unbiased))
    assert first_line(check_layer_norm, ln_no_eps).startswith(
        "check_layer_norm: on test '2-D (L, D)'")


@pytest.mark.parametrize("fn, message", [
    (lambda x, g, b, eps=1e-5: ln_torch(x, g, b, eps).tolist(),
     r"returned a list of 3 items; expected a torch\.Tensor of shape \(3, 5\)"),
    (lambda x, g, b, eps=1e-5: ln_torch(x, g, b, eps).mean(-1),
     r"wrong shape: expected result \(3, 5\), got \(3,\)"),
    (lambda x, g, b, eps=1e-5: ln_torch(x.float(), g.float(), b.float(), eps),
     r"(?s)wrong dtype of the result: expected torch\.float64.*Hint: keep the inputs' dtype"),
    (lambda x, g, b: ln_torch(x, g, b), r"(?s)raised TypeError.*Hint: your function must take `eps`"),
], ids=["list", "shape", "dtype", "no_eps_argument"])
def test_check_layer_norm_wrong_type_shape_dtype(fn, message):
    assert_fails(check_layer_norm, fn, message)
