"""The checker of the RoPE exercise: the decoders chapter after chapter 13.

Rotary position embeddings rotate each pair of dimensions ``(2i, 2i+1)`` of a query or key
at position ``p`` by the angle ``p * theta_i``, ``theta_i = base^(-2i/d_k)``:
``(x1, x2) -> (x1 cos - x2 sin, x1 sin + x2 cos)``. With a key/value cache the new rows sit
at positions ``start .. start + T - 1``.
"""
from __future__ import annotations

from typing import Callable

import torch

from ..attention import scaled_dot_product_attention
from ..decoder_only.rope import apply_rope
from ..masks import subsequent_mask
from ._attend import UNSCALED_SCORES, score_mistakes
from ._frames import learner_frames_only
from ._runner import Case, equals, randn, run

_BASE = 10000.0  # RoFormer's and Llama's

_HALF = ("it looks like you paired dimension i with i + d_k/2 (\"rotate half\", the "
         "layout of Llama's Hugging Face code); this exercise asks for the paper's "
         "interleaved pairs (2i, 2i+1): `x1, x2 = x[..., 0::2], x[..., 1::2]`.")
_SIDE_BY_SIDE = ("it looks like you rotated the pairs (2i, 2i+1) but put them back side "
                 "by side, `torch.cat([y1, y2], -1)`: put each rotated pair back where it "
                 "came from, `torch.stack([y1, y2], dim=-1).flatten(-2)`.")
_SIGN = ("it looks like the sine has the wrong sign: a rotation by the angle a takes "
         "(x1, x2) to (x1 cos a - x2 sin a, x1 sin a + x2 cos a).")
_SWAPPED = ("it looks like you swapped sin and cos: the rotation is (x1 cos a - x2 sin a, "
            "x1 sin a + x2 cos a), so position 0 (angle 0) leaves x unchanged.")
_I_OVER_D = ("it looks like you used theta_i = base^(-i/d_k) instead of base^(-2i/d_k): i "
             "counts the pairs, i = 0 .. d_k/2 - 1, so the exponent is `-2 * i / d_k`, the "
             "frequencies of the sinusoidal table.")
_TIMES = ("it looks like you used theta_i = base^(+2i/d_k): the frequencies fall with i, "
          "`base ** (-2 * i / d_k)`.")
_START_IGNORED = ("it looks like you counted the positions from 0 and ignored `start`: in a "
                  "cache the new rows sit at positions start .. start + T - 1, so a new key "
                  "rotated at position 0 no longer tells how far it is from the cached ones. "
                  "Use `torch.arange(start, start + T)`.")
_FROM_ONE = ("it looks like your positions start one too far (at start + 1): the first row "
             "is at position `start`, `torch.arange(start, start + T)`.")
_ONE_POSITION = ("it looks like you rotated every row by the same position `start`: row t "
                 "sits at position start + t.")
_HEAD_AXIS = ("it looks like you counted the positions along the heads (dim 1): the "
              "positions are the rows of each head, dim -2 of (B, H, T, Dk).")


def _reference(x, start=0):
    return apply_rope(x, start, _BASE, layout="interleaved")  # (B, H, T, Dk)


def _rotated(x, start, *, take="interleaved", put="interleaved", sines=(1, 1),
             exponent=2, swap=False, positions=None, axis=-2):
    """RoPE with one planted mistake (the defaults give the right rotation): pairs taken
    and put back in a layout, the sines' signs, the exponent of theta_i (``2``: 2i/d_k,
    ``1``: i/d_k, ``-2``: +2i/d_k), sin and cos swapped, other positions, another axis."""
    n, d_k = x.shape[axis], x.shape[-1]
    pos = torch.arange(start, start + n, dtype=torch.float64) if positions is None else \
        torch.as_tensor(positions, dtype=torch.float64).expand(n)  # (n,)
    i = torch.arange(d_k // 2, dtype=torch.float64)  # (Dk/2,) the pair index
    angle = pos[:, None] * _BASE ** (-exponent * i / d_k)  # (n, Dk/2)
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    if swap:
        cos, sin = sin, cos
    if axis == 1:  # one angle per head instead of per row
        cos, sin = cos[:, None], sin[:, None]  # (H, 1, Dk/2)
    halves = (x[..., 0::2], x[..., 1::2]) if take == "interleaved" else x.chunk(2, dim=-1)
    x1, x2 = halves  # (B, H, T, Dk/2) each
    y1 = x1 * cos - sines[0] * x2 * sin
    y2 = sines[1] * x1 * sin + x2 * cos
    if put == "interleaved":
        return torch.stack([y1, y2], dim=-1).flatten(-2)  # (B, H, T, Dk)
    return torch.cat([y1, y2], dim=-1)  # (B, H, T, Dk)


def _rope_mistakes(case: Case) -> list:
    x, start = case.inputs["x"], case.kwargs["start"]
    T = x.shape[-2]

    def plant(**kw):
        return equals(lambda: _rotated(x, start, **kw))

    return [(_START_IGNORED, plant(positions=range(T))),
            (_HALF, plant(take="half", put="half")),
            (_SIDE_BY_SIDE, plant(put="half")),
            (_SIGN, plant(sines=(-1, -1))),
            (_SIGN, plant(sines=(-1, 1))),
            (_SIGN, plant(sines=(1, -1))),
            (_SWAPPED, plant(swap=True)),
            (_I_OVER_D, plant(exponent=1)),
            (_TIMES, plant(exponent=-2)),
            (_FROM_ONE, plant(positions=range(start + 1, start + 1 + T))),
            (_ONE_POSITION, plant(positions=start)),
            (_HEAD_AXIS, plant(axis=1))]


@learner_frames_only
def check_rope(fn: Callable) -> None:
    """Check ``fn(x, start=0)``: rotary position embeddings of queries or keys ``x``
    ``(B, H, T, Dk)``, in the paper's interleaved layout (pairs ``(2i, 2i+1)``),
    ``theta_i = 10000^(-2i/d_k)``, the rows at positions ``start .. start + T - 1``; equal
    to ``illustrated.decoder_only.rope.apply_rope``."""
    if not callable(fn):
        raise TypeError("check_rope expects your function itself, e.g. "
                        f"check_rope(my_rope), got {type(fn).__name__}")

    def called(x, start):  # start positionally, whatever the learner named it
        return fn(x, start)

    cases = [
        Case("one pair", {"x": randn(80, 1, 2, 4, 2)}, {"start": 0}),
        Case("heads (B, H, T, Dk)", {"x": randn(81, 2, 3, 5, 8)}, {"start": 0}),
        Case("the new rows of a cache", {"x": randn(82, 2, 2, 3, 8)}, {"start": 4}),
        Case("one new token", {"x": randn(83, 1, 2, 1, 8)}, {"start": 9}),
        Case("wider heads", {"x": randn(84, 1, 2, 6, 16)}, {"start": 0}),
        Case("float32", {"x": randn(85, 2, 2, 4, 8, dtype=torch.float32)}, {"start": 2}),
    ]
    run("check_rope", called, cases, _reference, _rope_mistakes,
         error_hint="your function must take the position of the first row as its second "
                    "argument, `def rope(x, start=0)`; the angles are a (T, 1) column of "
                    "positions times a (Dk/2,) row of theta_i, which broadcasts against "
                    "`x[..., 0::2]`, (B, H, T, Dk/2).",
         general_hint="compare your rows with the formula by hand: at position 0 nothing "
                      "turns; at position 1 the pair (x0, x1) turns by 1 radian, the pair "
                      "(x2, x3) by 10000^(-2/d_k).",
         success="your RoPE matches apply_rope on {n} tests, including the new rows of a "
                 "cache and one new token.")


# ---------------------------------------------------------------- in attention

_V_ROTATED = ("it looks like you rotated the values too: RoPE rotates the queries and the "
              "keys, whose dot products are the scores; the values carry content, not "
              "position, and are averaged as they are.")
_ONE_SIDE = ("it looks like you rotated the {done} but not the {left}: the score depends "
             "on the offset between query and key only when both are rotated, each at its "
             "own position.")
_NONE_ROTATED = ("it looks like you rotated nothing: apply your `rope` to the queries and "
                 "the keys before the scores.")
_CAUSAL = ("it looks like you applied a causal mask: this attention has no mask, every "
           "query reads every key of the L positions (`scaled_dot_product_attention(q, k, "
           "v)` without `is_causal`); your rotation is where it belongs.")
_HALF_IN_ATTENTION = ("it looks like you rotated with the \"rotate half\" pairs (i, "
                      "i + d_k/2); this exercise asks for the interleaved pairs (2i, 2i+1).")


def _attention_reference(q, k, v):
    return scaled_dot_product_attention(apply_rope(q), apply_rope(k), v)[0]  # (B, H, L, Dk)


def _rope_attention_mistakes(case: Case) -> list:
    q, k, v = case.inputs.values()
    rq, rk = apply_rope(q), apply_rope(k)  # (B, H, L, Dk) each

    causal = subsequent_mask(q.shape[-2])  # (1, L, L), True: may attend

    def plant(q_, k_, v_, mask=None):
        return equals(lambda: scaled_dot_product_attention(q_, k_, v_, mask)[0])

    half = (apply_rope(t, layout="half") for t in (q, k))
    return [(_V_ROTATED, plant(rq, rk, apply_rope(v))),
            (_ONE_SIDE.format(done="queries", left="keys"), plant(rq, k, v)),
            (_ONE_SIDE.format(done="keys", left="queries"), plant(q, rk, v)),
            (_NONE_ROTATED, plant(q, k, v)),
            (_HALF_IN_ATTENTION, plant(*half, v)),
            (_CAUSAL, plant(rq, rk, v, causal)),
            *[(hint, equals(lambda s=s: s().softmax(-1) @ v))
              for hint, s in score_mistakes(rq, rk, unscaled=UNSCALED_SCORES)]]


@learner_frames_only
def check_rope_attention(fn: Callable) -> None:
    """Check ``fn(q, k, v)`` -> ``(B, H, L, Dk)``: self-attention of the heads ``q``, ``k``,
    ``v`` ``(B, H, L, Dk)`` at positions ``0 .. L-1``, with RoPE (interleaved, as
    :func:`check_rope` asks) applied where it belongs; no mask. Equal to
    ``scaled_dot_product_attention(apply_rope(q), apply_rope(k), v)``."""
    cases = [Case("2 heads, L = 4", {n: randn(110 + i, 1, 2, 4, 4) for i, n in
                                     enumerate("qkv")}),
             Case("3 heads, L = 5", {n: randn(113 + i, 2, 3, 5, 8) for i, n in
                                     enumerate("qkv")}),
             Case("float32", {n: randn(116 + i, 2, 2, 4, 8, dtype=torch.float32)
                              for i, n in enumerate("qkv")})]
    run("check_rope_attention", fn, cases, _attention_reference, _rope_attention_mistakes,
         error_hint="rotate with your `rope` (positions from 0), then attend in every head "
                    "at once: `attention(rope(q), rope(k), v)`.",
         general_hint="compare with `scaled_dot_product_attention(apply_rope(q), "
                      "apply_rope(k), v)` from the package: which of q, k, v did you "
                      "rotate?",
         success="your attention with RoPE matches the package's on {n} tests.")
