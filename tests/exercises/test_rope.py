"""Tests for illustrated.exercises.rope (the decoders chapter after chapter 13): check_rope
accepts correct rotations written in several styles and names every planted mistake."""
import math

import pytest
import torch

from illustrated.attention import scaled_dot_product_attention
from illustrated.decoder_only.rope import apply_rope
from illustrated.exercises import check_rope, check_rope_attention

from .helpers import HINT, assert_fails, assert_one_line, first_line


def rope_complex(x, start=0):
    """RoFormer's complex form: pair (x1, x2) is x1 + i x2, multiplied by e^(i p theta)."""
    T, d_k = x.shape[-2:]
    theta = 10000.0 ** (-torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)
    angle = torch.arange(start, start + T, dtype=torch.float64)[:, None] * theta
    z = torch.view_as_complex(x.double().reshape(*x.shape[:-1], d_k // 2, 2).contiguous())
    turned = z * torch.polar(torch.ones_like(angle), angle)  # (B, H, T, Dk/2), complex
    return torch.view_as_real(turned).flatten(-2).to(x.dtype)


def rope_loop(x, start=0):
    """Pair by pair, in plain Python floats for the angles."""
    y = x.clone()
    T, d_k = x.shape[-2:]
    for t in range(T):
        for i in range(d_k // 2):
            a = (start + t) / 10000.0 ** (2 * i / d_k)
            x1, x2 = x[..., t, 2 * i], x[..., t, 2 * i + 1]
            y[..., t, 2 * i] = x1 * math.cos(a) - x2 * math.sin(a)
            y[..., t, 2 * i + 1] = x1 * math.sin(a) + x2 * math.cos(a)
    return y


@pytest.mark.parametrize("fn", [rope_complex, rope_loop, lambda x, s: apply_rope(x, s)],
                         ids=["complex", "loop", "package"])
def test_check_rope_accepts_correct(fn, capsys):
    assert check_rope(fn) is None
    out = assert_one_line(capsys, check_rope)
    assert out == ("✓ check_rope: your RoPE matches apply_rope on 6 tests, including the "
                   "new rows of a cache and one new token.\n")


def wrong(*, layout="interleaved", put=None, sign_1=-1, sign_2=1, swap=False, power=2.0,
          positions="start", by_heads=False):
    """A learner's RoPE with one planted mistake, written independently of the checker."""
    def fn(x, start=0):
        T, d_k = x.shape[-2:]
        n = x.shape[1] if by_heads else T
        first = {"start": start, "zero": 0, "one": start + 1}.get(positions, start)
        pos = torch.arange(first, first + n, dtype=x.dtype)
        if positions == "same":
            pos = torch.full((n,), float(start), dtype=x.dtype)
        theta = 10000.0 ** (-power * torch.arange(d_k // 2, dtype=x.dtype) / d_k)
        angle = pos[:, None] * theta  # (n, Dk/2)
        if by_heads:
            angle = angle[:, None]  # (H, 1, Dk/2)
        c, s = (angle.sin(), angle.cos()) if swap else (angle.cos(), angle.sin())
        if layout == "interleaved":
            x1, x2 = x[..., 0::2], x[..., 1::2]
        else:
            x1, x2 = x[..., :d_k // 2], x[..., d_k // 2:]
        y1, y2 = x1 * c + sign_1 * x2 * s, sign_2 * x1 * s + x2 * c
        if (put or layout) == "interleaved":
            return torch.stack([y1, y2], dim=-1).flatten(-2)
        return torch.cat([y1, y2], dim=-1)
    return fn


MISTAKES = [  # (a wrong RoPE, the start of its hint)
    (wrong(positions="zero"), HINT + r"you counted the positions from 0 and ignored `start`"),
    (lambda x, start=0: apply_rope(x), HINT + r"you counted the positions from 0"),
    (wrong(layout="half"), HINT + r"you paired dimension i with i \+ d_k/2"),
    (lambda x, start=0: apply_rope(x, start, layout="half"),
     HINT + r"you paired dimension i with i \+ d_k/2"),
    (wrong(put="half"), HINT + r"you rotated the pairs \(2i, 2i\+1\) but put them back side "
                               r"by side"),
    (wrong(sign_1=1, sign_2=-1), HINT + r"the sine has the wrong sign"),
    (wrong(sign_1=1), HINT + r"the sine has the wrong sign"),
    (wrong(swap=True), HINT + r"you swapped sin and cos"),
    (wrong(power=1.0), HINT + r"you used theta_i = base\^\(-i/d_k\) instead of "
                              r"base\^\(-2i/d_k\)"),
    (wrong(power=-2.0), HINT + r"you used theta_i = base\^\(\+2i/d_k\)"),
    (wrong(positions="one"), HINT + r"your positions start one too far"),
    (wrong(positions="same"), HINT + r"you rotated every row by the same position `start`"),
    (wrong(by_heads=True), HINT + r"you counted the positions along the heads"),
    (lambda x, start=0: apply_rope(x, start) + 0.01, r"\nHint: compare your rows with the "
                                                     r"formula by hand"),
]
MISTAKE_IDS = ["start_ignored", "package_start_ignored", "rotate_half", "package_half",
               "side_by_side", "rotation_backwards", "one_sign", "swapped", "i_over_d",
               "times", "from_one", "one_position", "heads_axis", "general"]


@pytest.mark.parametrize("fn, hint", MISTAKES, ids=MISTAKE_IDS)
def test_check_rope_names_the_mistake(fn, hint):
    assert_fails(check_rope, fn, hint)


def test_check_rope_first_line_names_test_start_and_shape():
    assert first_line(check_rope, wrong(positions="zero")).startswith(
        "check_rope: on test 'the new rows of a cache' (x (2, 2, 3, 8), start=4, float64): "
        "wrong values in the result")
    assert first_line(check_rope, wrong(layout="half")).startswith(
        "check_rope: on test 'heads (B, H, T, Dk)'")  # one pair: the layouts agree


@pytest.mark.parametrize("fn, message", [
    (lambda x: apply_rope(x), r"(?s)raised TypeError.*Hint: your function must take the "
                              r"position of the first row as its second argument"),
    (lambda x, start=0: apply_rope(x, start)[..., 0::2],
     r"wrong shape: expected result \(1, 2, 4, 2\), got \(1, 2, 4, 1\)"),
    (lambda x, start=0: apply_rope(x.float(), start),
     r"(?s)wrong dtype of the result: expected torch\.float64.*Hint: keep the inputs' dtype"),
    (lambda x, start=0: x.copy_(apply_rope(x, start)),
     r"Hint: your function changed its input `x` in place"),
], ids=["no_start", "shape", "dtype", "in_place"])
def test_check_rope_wrong_signature_shape_dtype(fn, message):
    assert_fails(check_rope, fn, message)


def test_check_rope_refuses_what_is_not_a_function():
    with pytest.raises(TypeError, match=r"check_rope expects your function itself"):
        check_rope(apply_rope(torch.ones(1, 1, 2, 2)))


# ---------------------------------------------------------------- in attention


def attend(q, k, v):
    return scaled_dot_product_attention(q, k, v)[0]


def rope_attention_by_hand(q, k, v):
    q, k = rope_complex(q), rope_complex(k)
    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1) @ v


@pytest.mark.parametrize("fn", [rope_attention_by_hand,
                                lambda q, k, v: attend(apply_rope(q), apply_rope(k), v)],
                         ids=["by_hand", "package"])
def test_check_rope_attention_accepts_correct(fn, capsys):
    assert check_rope_attention(fn) is None
    out = assert_one_line(capsys, check_rope_attention)
    assert out == ("✓ check_rope_attention: your attention with RoPE matches the package's "
                   "on 3 tests.\n")


ATTENTION_MISTAKES = [  # (a wrong attention with RoPE, the start of its hint)
    (lambda q, k, v: attend(rope_complex(q), rope_complex(k), rope_complex(v)),
     HINT + r"you rotated the values too"),
    (lambda q, k, v: attend(apply_rope(q), k, v),
     HINT + r"you rotated the queries but not the keys"),
    (lambda q, k, v: attend(q, apply_rope(k), v),
     HINT + r"you rotated the keys but not the queries"),
    (attend, HINT + r"you rotated nothing"),
    (lambda q, k, v: attend(apply_rope(q, layout="half"), apply_rope(k, layout="half"), v),
     HINT + r"you rotated with the \"rotate half\" pairs"),
    (lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(
        apply_rope(q), apply_rope(k), v, is_causal=True),
     HINT + r"you applied a causal mask: this attention has no mask"),
    (lambda q, k, v: torch.softmax(apply_rope(q) @ apply_rope(k).transpose(-2, -1), -1) @ v,
     HINT + r"you forgot to divide the scores `q @ kᵀ` by √d_k"),
    (lambda q, k, v: attend(apply_rope(q), apply_rope(k), v) * 1.01,
     r"\nHint: compare with `scaled_dot_product_attention\(apply_rope\(q\)"),
    (lambda q, k, v: attend(apply_rope(q), apply_rope(k), v.mul_(1.5)),
     r"Hint: your function changed its input `v` in place"),
]
ATTENTION_IDS = ["values_rotated", "queries_only", "keys_only", "nothing", "rotate_half",
                 "causal", "unscaled", "general", "in_place"]


@pytest.mark.parametrize("fn, hint", ATTENTION_MISTAKES, ids=ATTENTION_IDS)
def test_check_rope_attention_names_the_mistake(fn, hint):
    assert_fails(check_rope_attention, fn, hint)


def test_check_rope_attention_bad_input():
    assert first_line(check_rope_attention, attend).startswith(
        "check_rope_attention: on test '2 heads, L = 4' (q (1, 2, 4, 4), k (1, 2, 4, 4), "
        "v (1, 2, 4, 4), float64): wrong values in the result")
    assert_fails(check_rope_attention, lambda q, k: q,
                 r"(?s)raised TypeError.*Hint: rotate with your `rope`")
    with pytest.raises(TypeError, match=r"check_rope_attention expects your function itself"):
        check_rope_attention(None)
