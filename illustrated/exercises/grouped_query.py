"""The checkers of the grouped-query attention exercise: the decoders chapter after
chapter 13.

``h`` query heads share ``n_kv_heads`` key/value heads, each serving a group of
``h / n_kv_heads`` query heads: query head ``j`` reads key/value head
``j // (h / n_kv_heads)``. ``repeat_interleave`` on the head axis makes that copy
(``repeat`` would give head ``j`` the key/value head ``j % n_kv_heads``).
"""
from __future__ import annotations

from typing import Callable

import torch
import torch.nn.functional as F

from ..masks import subsequent_mask
from ._attend import OVER_QUERIES, UNSCALED_SCORES, attend, score_mistakes, scores_reference
from ._frames import learner_frames_only
from ._runner import Case, equals, randn, run
from .attention import AFTER, ZERO_FILL
from .multi_head import MASK_IGNORED, MASK_INVERTED

_REPEAT = ("it looks like you used `repeat` where `repeat_interleave` is meant: `repeat` "
           "copies the whole stack of key/value heads (0, 1, 0, 1, ... for two), so query "
           "head j reads head `j % n_kv_heads`. Each key/value head serves a *group* of "
           "neighbouring query heads: head j reads `j // (h / n_kv_heads)`, "
           "`k.repeat_interleave(h // n_kv_heads, dim=1)`.")
_BY_H = ("it looks like you copied each key/value head h times: each serves a group of "
         "h / n_kv_heads query heads, so repeat it `h // k.shape[1]` times, giving h heads "
         "in all.")
_AXIS = ("it looks like you expanded {axis} (dim={dim}): the heads are dim 1 of "
         "(B, n_kv_heads, S, Dk), `repeat_interleave(h // n_kv_heads, dim=1)`.")
_NOT_EXPANDED = ("it looks like you returned the key/value heads as they came: expand "
                 "the n_kv_heads heads to h, each repeated h / n_kv_heads times.")
_AXES = {0: "the batch", 2: "the positions", 3: "the features"}


def _expand_reference(k, h):
    return k.repeat_interleave(h // k.shape[1], dim=1)  # (B, h, S, Dk)


def _expand_mistakes(case: Case) -> list:
    k, h = case.inputs["k"], case.kwargs["h"]
    group = h // k.shape[1]
    found = [(_REPEAT, equals(lambda: k.repeat(1, group, 1, 1))),
             (_BY_H, equals(lambda: k.repeat_interleave(h, dim=1))),
             (_BY_H, equals(lambda: k.repeat(1, h, 1, 1))),
             (_NOT_EXPANDED, equals(lambda: k))]
    return found + [(_AXIS.format(axis=name, dim=d),
                     equals(lambda d=d: k.repeat_interleave(group, dim=d)))
                    for d, name in _AXES.items()]


@learner_frames_only
def check_expand_kv(fn: Callable) -> None:
    """Check ``fn(k, h)``: the ``n_kv_heads`` key (or value) heads ``k``
    ``(B, n_kv_heads, S, Dk)`` expanded for ``h`` query heads, ``(B, h, S, Dk)``, query
    head ``j`` reading head ``j // (h / n_kv_heads)``; ``n_kv_heads`` divides ``h``."""
    if not callable(fn):
        raise TypeError("check_expand_kv expects your function itself, e.g. "
                        f"check_expand_kv(expand_kv), got {type(fn).__name__}")

    def called(k, h):  # h positionally, whatever the learner named it
        return fn(k, h)

    cases = [Case("2 key/value heads for 4 query heads", {"k": randn(90, 2, 2, 3, 5)},
                  {"h": 4}),
             Case("groups of 3", {"k": randn(91, 1, 2, 4, 5)}, {"h": 6}),
             Case("multi-query: one key/value head", {"k": randn(92, 2, 1, 3, 5)},
                  {"h": 4}),
             Case("as many key/value heads as query heads", {"k": randn(93, 2, 3, 3, 5)},
                  {"h": 3}),
             Case("float32", {"k": randn(94, 2, 2, 3, 5, dtype=torch.float32)}, {"h": 6})]
    run("check_expand_kv", called, cases, _expand_reference, _expand_mistakes,
         error_hint="your function takes the key/value heads and the number of query heads, "
                    "`def expand_kv(k, h)`; the group size is `h // k.shape[1]`.",
         general_hint="compare your result with `k.repeat_interleave(h // k.shape[1], "
                      "dim=1)`: head j of the result must equal head j // (h / n_kv_heads) "
                      "of k.",
         success="your expansion matches on {n} tests, including groups of 3 and a "
                 "single key/value head.")


# ---------------------------------------------------------------- the whole of it


def _gqa_reference(q, k, v, mask=None):
    """PyTorch's attention with its grouped-query option."""
    m = None if mask is None else mask.unsqueeze(-3)  # (B, 1, L, S): every head alike
    return F.scaled_dot_product_attention(q, k, v, attn_mask=m, enable_gqa=True)


def _planted(q, k, v, mask, *, expand=_expand_reference, scores=scores_reference,
             mask_of=lambda m: m.unsqueeze(-3), **finish):
    """Grouped-query attention with one step done wrong (the defaults give the right one):
    the expansion of the key/value heads, the scores, the mask's head axis, or the
    softmax's options of :func:`~illustrated.exercises._attend.attend` in ``finish``."""
    h = q.shape[1]
    k, v = expand(k, h), expand(v, h)  # (B, h, S, Dk) each
    m = None if mask is None else mask_of(mask)  # (B, 1, L, S)
    return attend(scores(q, k), v, m, **finish)[0]  # (B, h, L, Dk)


def _gqa_mistakes(case: Case) -> list:
    q, k, v, *rest = case.inputs.values()
    mask = rest[0] if rest else None

    def plant(**kw):
        return equals(lambda: _planted(q, k, v, mask, **kw))

    group = q.shape[1] // k.shape[1]
    found = [(_REPEAT, plant(expand=lambda t, h: t.repeat(1, group, 1, 1))),
             (OVER_QUERIES, plant(dim=-2))]
    k_h = _expand_reference(k, q.shape[1])  # (B, h, S, Dk)
    found += [(hint, plant(scores=lambda q_, k_, s=s: s()))
              for hint, s in score_mistakes(q, k_h, unscaled=UNSCALED_SCORES)]
    if mask is not None:
        found += [(MASK_IGNORED, plant(mask_of=lambda m: None)),
                  (MASK_INVERTED, plant(mask_of=lambda m: ~m.unsqueeze(-3))),
                  # the last query of a causal mask, inverted, may attend to nothing
                  (MASK_INVERTED, plant(mask_of=lambda m: ~m.unsqueeze(-3), after=False)),
                  (AFTER, plant(before=False)),
                  (ZERO_FILL, plant(fill=0.0, after=False))]
    return found


def _gqa_case(name: str, seed: int, B: int, h: int, n_kv: int, L: int, S: int, d_k: int,
              mask=None, dtype=torch.float64) -> Case:
    inputs = {"q": randn(seed, B, h, L, d_k, dtype=dtype),
              "k": randn(seed + 1, B, n_kv, S, d_k, dtype=dtype),
              "v": randn(seed + 2, B, n_kv, S, d_k, dtype=dtype)}
    if mask is not None:
        inputs["mask"] = mask
    return Case(name, inputs)


@learner_frames_only
def check_grouped_query_attention(fn: Callable) -> None:
    """Check ``fn(q, k, v, mask=None)`` -> ``(B, h, L, Dk)``: attention of ``h`` query
    heads ``q`` ``(B, h, L, Dk)`` over ``n_kv_heads`` key and value heads ``k``, ``v``
    ``(B, n_kv_heads, S, Dk)``, query head ``j`` reading key/value head
    ``j // (h / n_kv_heads)``; ``mask`` is bool, broadcasting to ``(B, L, S)``
    (True = may attend), the same for every head. Equal to
    ``F.scaled_dot_product_attention(q, k, v, attn_mask=mask.unsqueeze(-3),
    enable_gqa=True)``."""
    if not callable(fn):
        raise TypeError("check_grouped_query_attention expects your function itself, e.g. "
                        f"check_grouped_query_attention(gqa), got {type(fn).__name__}")

    def called(q, k, v, mask=None):  # no mask argument when there is none
        return fn(q, k, v) if mask is None else fn(q, k, v, mask)

    cases = [_gqa_case("2 key/value heads for 4 query heads", 100, B=2, h=4, n_kv=2, L=3,
                       S=3, d_k=4),
             _gqa_case("groups of 3, L ≠ S", 101, B=1, h=6, n_kv=2, L=3, S=5, d_k=4),
             _gqa_case("multi-query: one key/value head", 102, B=2, h=4, n_kv=1, L=3, S=3,
                       d_k=8),
             _gqa_case("causal mask", 103, B=2, h=4, n_kv=2, L=5, S=5, d_k=4,
                       mask=subsequent_mask(5)),
             _gqa_case("float32", 104, B=2, h=4, n_kv=2, L=3, S=3, d_k=4,
                       dtype=torch.float32)]
    run("check_grouped_query_attention", called, cases, _gqa_reference, _gqa_mistakes,
         error_hint="expand the key and value heads to h first (each repeated "
                    "h / n_kv_heads times on dim 1), then attend in every head at once; give "
                    "the mask a head axis with `mask.unsqueeze(-3)`.",
         general_hint="compare each step with PyTorch's "
                      "`F.scaled_dot_product_attention(..., enable_gqa=True)`: the "
                      "expansion, the scores, the softmax, the average of the values.",
         success="your grouped-query attention matches PyTorch's on {n} tests, including "
                 "groups of 3, a single key/value head and a causal mask.")
