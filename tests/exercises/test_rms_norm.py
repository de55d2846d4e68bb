"""Tests for illustrated.exercises.rms_norm (the decoders chapter after chapter 13):
check_rms_norm accepts correct work in several styles and names the mistake in each planted
wrong version."""
import re

import pytest
import torch
import torch.nn.functional as F

from illustrated.decoder_only.rmsnorm import RMSNorm
from illustrated.exercises import check_rms_norm

from .helpers import HINT, assert_fails, assert_one_line, first_line


def rms_torch(x, g, eps=1e-5):
    return F.rms_norm(x, (x.shape[-1],), g, eps)


def rms_package(x, g, eps=1e-5):
    norm = RMSNorm(x.shape[-1], eps=eps).to(x.dtype)
    with torch.no_grad():
        norm.weight.copy_(g)
    return norm(x)


def rms_by_hand(x, g, eps=1e-5):
    return g * x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + eps)


def rms_rsqrt(x, g, eps=1e-5):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * g


@pytest.mark.parametrize("fn", [rms_torch, rms_package, rms_by_hand, rms_rsqrt])
def test_check_rms_norm_accepts_correct(fn, capsys):
    assert check_rms_norm(fn) is None
    out = assert_one_line(capsys, check_rms_norm)
    assert out == ("✓ check_rms_norm: your RMSNorm matches the package's on 6 tests, "
                   "including a zero vector, small values and another eps.\n")


def over(dims):
    """The mean square over ``dims`` instead of the last axis alone."""
    def fn(x, g, eps=1e-5):
        d = tuple(a % x.dim() for a in dims)
        return g * x / torch.sqrt((x * x).mean(dim=d, keepdim=True) + eps)
    return fn


def rms_centred(x, g, eps=1e-5):  # layer norm without its shift
    c = x - x.mean(dim=-1, keepdim=True)
    return g * c / torch.sqrt(c.pow(2).mean(dim=-1, keepdim=True) + eps)


def rms_std(x, g, eps=1e-5):
    return g * x / x.std(dim=-1, keepdim=True)  # unbiased, no eps


def rms_eps_outside(x, g, eps=1e-5):
    return g * x / (x.pow(2).mean(dim=-1, keepdim=True).sqrt() + eps)


def rms_no_eps(x, g, eps=1e-5):
    return g * x / x.pow(2).mean(dim=-1, keepdim=True).sqrt()


def rms_sum(x, g, eps=1e-5):
    return g * x / torch.sqrt(x.pow(2).sum(dim=-1, keepdim=True) + eps)


def rms_norm_of_x(x, g, eps=1e-5):
    return g * x / x.norm(dim=-1, keepdim=True)


def rms_no_root(x, g, eps=1e-5):
    return g * x / (x.pow(2).mean(dim=-1, keepdim=True) + eps)


def rms_in_place(x, g, eps=1e-5):
    x /= torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)  # changes the caller's x
    return g * x


MISTAKES = [  # (a wrong RMSNorm, the start of its hint)
    (rms_centred, HINT + r"you subtracted the mean: that is layer norm"),
    (lambda x, g, eps=1e-5: F.layer_norm(x, (x.shape[-1],), g, None, eps),
     HINT + r"you subtracted the mean: that is layer norm"),
    (rms_std, HINT + r"you divided by the standard deviation"),
    (rms_eps_outside, HINT + r"you added epsilon outside the square root, `sqrt\(mean\(x\^2\)\) "
                             r"\+ eps`; this exercise, like torch\.nn\.RMSNorm and Llama's code, "
                             r"puts it inside"),
    (rms_no_eps, HINT + r"you left out epsilon"),
    (lambda x, g, eps=1e-5: rms_by_hand(x, g), HINT + r"you ignored the `eps` argument"),
    (over((0,)), HINT + r"you took the mean square over positions L; RMSNorm takes it over "
                        r"each position's own D features only"),
    (over((-2, -1)), HINT + r"you took the mean square over positions L and features D;"),
    (lambda x, g, eps=1e-5: g * x / torch.sqrt(x.pow(2).mean() + eps),
     HINT + r"you took the mean square over positions L and features D;"),  # 2-D case first
    (lambda x, g, eps=1e-5: x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps),
     HINT + r"you forgot the gain"),
    (lambda x, g, eps=1e-5: x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) + g,
     HINT + r"you added the gain"),
    (rms_sum, HINT + r"you took the root of the \*sum\* of squares"),
    (rms_norm_of_x, HINT + r"you took the root of the \*sum\* of squares"),
    (rms_no_root, HINT + r"you divided by the mean square itself"),
    (lambda x, g, eps=1e-5: rms_torch(x, g, eps) + 0.01,
     r"\nHint: compute the steps one at a time"),
    (rms_in_place, r"wrote into its input x: 15 of the 15 values of x differ after the "
                   r"call\.\nHint: your function changed its input `x` in place"),
]
MISTAKE_IDS = ["centred", "layer_norm", "std", "eps_outside", "no_eps", "eps_ignored",
               "positions", "positions_and_features", "everything", "no_gain", "gain_added",
               "sum", "norm", "no_root", "general", "in_place"]


@pytest.mark.parametrize("fn, hint", MISTAKES, ids=MISTAKE_IDS)
def test_check_rms_norm_names_the_mistake(fn, hint):
    assert_fails(check_rms_norm, fn, hint)


def test_check_rms_norm_first_line_names_test_and_shape():
    assert re.fullmatch(
        r"check_rms_norm: on test '2-D \(L, D\)' \(x \(3, 5\), g \(5,\), float64\): wrong "
        r"values in the result \(largest difference \d\.\d+\)\.",
        first_line(check_rms_norm, rms_centred))
    assert first_line(check_rms_norm, rms_no_eps).startswith(
        "check_rms_norm: on test '2-D (L, D)'")  # eps, at the checker's own tolerance


@pytest.mark.parametrize("fn, message", [
    (lambda x, g, eps=1e-5: rms_torch(x, g, eps).tolist(),
     r"returned a list of 3 items; expected a torch\.Tensor of shape \(3, 5\)"),
    (lambda x, g, eps=1e-5: rms_torch(x, g, eps).mean(-1),
     r"wrong shape: expected result \(3, 5\), got \(3,\)"),
    (lambda x, g, eps=1e-5: rms_torch(x.float(), g.float(), eps),
     r"(?s)wrong dtype of the result: expected torch\.float64.*Hint: keep the inputs' dtype"),
    (lambda x, g: rms_torch(x, g), r"(?s)raised TypeError.*Hint: your function must take `eps`"),
], ids=["list", "shape", "dtype", "no_eps_argument"])
def test_check_rms_norm_wrong_type_shape_dtype(fn, message):
    assert_fails(check_rms_norm, fn, message)


def test_check_rms_norm_refuses_what_is_not_a_function():
    with pytest.raises(TypeError, match=r"check_rms_norm expects your function itself"):
        check_rms_norm(torch.ones(3))
