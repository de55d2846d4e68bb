"""The checkers of chapter 5, Multi-head attention: splitting a ``(B, L, D)`` tensor into
heads ``(B, H, L, Dk)``, merging them back, and multi-head attention as a whole."""
from __future__ import annotations

import math
from typing import Callable

import torch

from ..attention import MultiHeadAttention
from ..masks import padding_mask, subsequent_mask
from ._attend import (
    OVER_QUERIES,
    UNSCALED_SCORES,
    attend,
    score_mistakes,
    scores_reference,
)
from ._frames import learner_frames_only
from ._runner import Case, equals, randn, run
from .attention import AFTER, NEG_INF, NOT_ZEROED, RENORMALISED, ZERO_FILL


def _split_reference(x: torch.Tensor, h: int) -> torch.Tensor:
    B, L, D = x.shape
    return x.view(B, L, h, D // h).transpose(1, 2)  # (B, H, L, Dk)


def _merge_reference(z: torch.Tensor) -> torch.Tensor:
    B, H, L, Dk = z.shape
    return z.transpose(1, 2).reshape(B, L, H * Dk)  # (B, L, D)


_NO_TRANSPOSE = ("it looks like you used `view` or `reshape` straight to the target shape, "
                 "without `transpose(1, 2)`: the shape is right but each head then holds "
                 "numbers of different tokens. View as (B, L, H, Dk) first, then swap L and H.")
_INTERLEAVED = ("it looks like your heads take every h-th column (the head axis last: "
                "(B, L, Dk, H)); head i owns the contiguous columns i*Dk to (i+1)*Dk.")
_KEPT_LAYOUT = ("it looks like you stopped at (B, L, H, Dk): move the head axis in front of "
                "the length with `.transpose(1, 2)`.")
_FLATTENED = ("it looks like you merged batch and heads into one axis (B*H, L, Dk), as "
              "d2l's transpose_qkv does; keep them separate: (B, H, L, Dk).")
_SUMMED = ("it looks like you added or averaged the heads; concatenate them side by side "
           "instead, so that the result has width D = H * Dk.")


def _split_mistakes(case: Case) -> list:
    x, h = case.inputs["x"], case.kwargs["h"]
    B, L, D = x.shape
    return [(_NO_TRANSPOSE, equals(lambda: x.reshape(B, h, L, D // h))),
            (_INTERLEAVED, equals(lambda: x.view(B, L, D // h, h).permute(0, 3, 1, 2))),
            (_KEPT_LAYOUT, equals(lambda: x.view(B, L, h, D // h))),
            (_FLATTENED, equals(lambda: _split_reference(x, h).reshape(B * h, L, D // h)))]


@learner_frames_only
def check_split_heads(fn: Callable) -> None:
    """Check ``fn(x, h=...)``: ``x`` ``(B, L, D)`` -> ``(B, H, L, Dk)``, head ``i`` holding
    columns ``i*Dk`` to ``(i+1)*Dk`` of every token."""
    cases = [Case("2 heads", {"x": randn(50, 2, 3, 8)}, {"h": 2}),
             Case("4 heads, L = 5", {"x": randn(51, 3, 5, 12)}, {"h": 4}),
             Case("float32", {"x": randn(52, 2, 3, 12, dtype=torch.float32)}, {"h": 3})]
    run("check_split_heads", fn, cases, _split_reference, _split_mistakes,
         error_hint="`x.view(B, L, h, D // h).transpose(1, 2)`: view first, then swap axes.",
         general_hint="compare your result with `x.view(B, L, h, D // h).transpose(1, 2)`.",
         success="your split matches on {n} tests.")


def _merge_mistakes(case: Case) -> list:
    z = case.inputs["z"]
    B, H, L, Dk = z.shape
    return [(_NO_TRANSPOSE, equals(lambda: z.reshape(B, L, H * Dk))),
            (_INTERLEAVED, equals(lambda: z.permute(0, 2, 3, 1).reshape(B, L, H * Dk))),
            (_SUMMED, equals(lambda: z.sum(1))),
            (_SUMMED, equals(lambda: z.mean(1)))]


@learner_frames_only
def check_merge_heads(fn: Callable) -> None:
    """Check ``fn(z)``: ``z`` ``(B, H, L, Dk)`` -> ``(B, L, H*Dk)``, the heads side by
    side in order (the inverse of splitting)."""
    cases = [Case("2 heads", {"z": randn(60, 2, 2, 3, 4)}),
             Case("4 heads, L = 5", {"z": randn(61, 3, 4, 5, 3)}),
             Case("float32", {"z": randn(62, 2, 3, 3, 4, dtype=torch.float32)})]
    run("check_merge_heads", fn, cases, _merge_reference, _merge_mistakes,
         error_hint="after `transpose(1, 2)` the tensor is not contiguous, so `view` fails: "
                    "use `.reshape(B, L, H * Dk)` (or `.contiguous().view(...)`).",
         general_hint="compare your result with `z.transpose(1, 2).reshape(B, L, -1)`.",
         success="your merge matches on {n} tests.")


# ---------------------------------------------------------------- the whole of it

SPLIT_NO_T = ("it looks like you split the heads with `view` or `reshape` straight to "
               "(B, H, L, Dk), without `transpose(1, 2)`: each head then mixes numbers of "
               "different tokens. View as (B, L, H, Dk), then swap L and H.")
MERGE_NO_T = ("it looks like you merged the heads with `reshape` straight from "
               "(B, H, L, Dk) to (B, L, D), without `transpose(1, 2)` first: each token's "
               "row then holds numbers of other tokens.")
_MERGE_ORDER = ("it looks like your heads are merged in the wrong order: head i must fill "
                "columns i*Dk to (i+1)*Dk, head 0 first: `z.transpose(1, 2).reshape(B, L, D)`.")
_MHA_INTERLEAVED = ("it looks like your heads take every h-th column (the head axis last: "
                    "(B, L, Dk, H)); head i owns the contiguous columns i*Dk to (i+1)*Dk.")
_BY_D_MODEL = ("it looks like you divided the scores by √d_model; each head's scores are "
               "dot products of width d_k = d_model / h, so divide by √d_k, "
               "`math.sqrt(q.shape[-1])` after the split.")
_NO_W_O = ("it looks like you forgot the output projection W^O: after merging the heads "
           "(B, L, D), multiply by `w_o.T`.")
_PAPER_LAYOUT = ("it looks like you multiplied by the weights as they come, `query @ w_q`, "
                 "the paper's Q W^Q; here they are in nn.Linear's (out, in) layout, like "
                 "the chapter's `w_q.weight`: project with `query @ w_q.T`, and finish with "
                 "`concat @ w_o.T`.")
_HEAD_COLUMNS = ("it looks like each head took columns of the weights, `w_q[:, sl]`: in "
                 "nn.Linear's (out, in) layout head i owns the rows `w_q[sl]` "
                 "(sl = i*Dk to (i+1)*Dk), so its queries are `query @ w_q[sl].T`, and the "
                 "same for `w_k` and `w_v`.")
_W_O_PLAIN = ("it looks like you multiplied by `w_o` as it comes: the output projection "
              "is used as the others, `concat @ w_o.T`, what `nn.Linear` computes.")
_OVER_HEADS = ("it looks like you took the softmax over the heads (dim=1 of the scores "
               "(B, H, L, S)): each query's weights over the keys must sum to 1, in every "
               "head: `softmax(dim=-1)`.")
MASK_IGNORED = ("it looks like you ignored the mask: blocked keys still get weight. Fill "
                "their scores with `torch.finfo(scores.dtype).min` before the softmax.")
MASK_INVERTED = ("it looks like your mask convention is inverted: True means 'may attend', "
                 "so fill the scores where the mask is False: "
                 "`scores.masked_fill(~mask, torch.finfo(scores.dtype).min)`.")
_NO_HEAD_AXIS = ("it looks like you gave the mask no head axis: a (B, L, S) mask against "
                 "(B, H, L, S) scores lines up its batch with the heads. Use "
                 "`mask.unsqueeze(-3)`, (B, 1, L, S), the same mask for every head.")
_HEAD_AXIS_AT_1 = ("it looks like you gave a 2-D (L, S) mask its head axis with "
                   "`mask.unsqueeze(1)`: that makes it (L, 1, S), which lines its query axis "
                   "up with the heads. `mask.unsqueeze(-3)` puts the head axis just before "
                   "(L, S), for a 2-D mask and a 3-D one alike.")


def _mha_reference(query, key, value, w_q, w_k, w_v, w_o, mask=None, *, h):
    """The package's MultiHeadAttention holding the four matrices as its weights."""
    m = MultiHeadAttention(query.shape[-1], h, bias=False).to(query.dtype)
    with torch.no_grad():
        for lin, w in zip((m.w_q, m.w_k, m.w_v, m.w_o), (w_q, w_k, w_v, w_o)):
            lin.weight.copy_(w)
        return m(query, key, value, mask)  # (B, L, D)


def _planted(inputs: dict, h: int, *, split=_split_reference, merge=_merge_reference,
             scores=None, finish=None, mask_of=None, w_o=True, plain=""):
    """Multi-head attention with one step done wrong; every step is the reference's unless
    replaced: ``scores(q, k)`` per head, ``finish(scores, v, mask)`` -> (B, H, L, Dk);
    the weights named in ``plain`` ("q", "k", "v", "o") are used as ``x @ w``, not
    ``x @ w.T``."""
    query, key, value, wq, wk, wv, wo = (inputs[n] for n in
                                         ("query", "key", "value", "w_q", "w_k", "w_v", "w_o"))
    mask = inputs.get("mask")
    def proj(x, w, name):  # (B, n, D)
        return x @ w if name in plain else x @ w.T

    q, k, v = (split(proj(x, w, n), h)
               for x, w, n in ((query, wq, "q"), (key, wk, "k"), (value, wv, "v")))
    s = (scores or scores_reference)(q, k)  # (B, H, L, S)
    if mask is not None:
        mask = mask_of(mask) if mask_of else mask.unsqueeze(-3)  # (B, 1, L, S)
    z = finish(s, v, mask) if finish else attend(s, v, mask)[0]  # (B, H, L, Dk)
    z = merge(z)  # (B, L, D)
    return proj(z, wo, "o") if w_o else z  # (B, L, D)


def _mha_mistakes(case: Case) -> list:
    x, h = case.inputs, case.kwargs["h"]
    D = x["query"].shape[-1]
    B, L = x["query"].shape[:2]

    def plant(**kw):
        return equals(lambda: _planted(x, h, **kw))

    def merge_plain(z):
        return z.reshape(B, L, D)

    def split_plain(t, h):
        return t.reshape(t.shape[0], h, t.shape[1], t.shape[2] // h)

    def split_last(t, h):
        return t.view(*t.shape[:2], t.shape[2] // h, h).permute(0, 3, 1, 2)

    def merge_last(z):
        return z.permute(0, 2, 3, 1).reshape(B, L, D)

    found = [(SPLIT_NO_T, plant(split=split_plain)),
             (SPLIT_NO_T, plant(split=split_plain, merge=merge_plain)),
             (MERGE_NO_T, plant(merge=merge_plain)),
             (_MERGE_ORDER, plant(merge=lambda z: _merge_reference(z.flip(1)))),
             (_MHA_INTERLEAVED, plant(split=split_last)),
             (_MHA_INTERLEAVED, plant(split=split_last, merge=merge_last)),
             (_MHA_INTERLEAVED, plant(merge=merge_last)),
             (_NO_W_O, plant(w_o=False)),
             (_PAPER_LAYOUT, plant(plain="qkvo")),
             (_HEAD_COLUMNS, plant(plain="qkv")),
             (_W_O_PLAIN, plant(plain="o")),
             (_BY_D_MODEL, plant(scores=lambda q, k: q @ k.transpose(-2, -1) / math.sqrt(D))),
             (OVER_QUERIES, plant(finish=lambda s, v, m: attend(s, v, m, dim=-2)[0])),
             (_OVER_HEADS, plant(finish=lambda s, v, m: attend(s, v, m, dim=1)[0]))]
    q = _split_reference(x["query"] @ x["w_q"].T, h)  # (B, H, L, Dk)
    k = _split_reference(x["key"] @ x["w_k"].T, h)  # (B, H, S, Dk)
    found += [(hint, plant(scores=lambda q_, k_, s=s: s()))
              for hint, s in score_mistakes(q, k, unscaled=UNSCALED_SCORES)]
    if "mask" in x:
        found += [(MASK_IGNORED, plant(mask_of=lambda m: None)),
                  (MASK_INVERTED, plant(mask_of=lambda m: ~m.unsqueeze(-3))),
                  (AFTER, plant(finish=lambda s, v, m: attend(s, v, m, before=False)[0])),
                  (ZERO_FILL, plant(finish=lambda s, v, m: attend(s, v, m, fill=0.0,
                                                                   after=False)[0])),
                  # these two differ from the reference only on a fully blocked row
                  (NEG_INF, plant(finish=lambda s, v, m: attend(s, v, m, fill=-math.inf,
                                                                  after=False)[0])),
                  (NOT_ZEROED, plant(finish=lambda s, v, m: attend(s, v, m,
                                                                     after=False)[0]))]
        if B == h:  # otherwise a mask without a head axis cannot broadcast, and raises
            found += [(_NO_HEAD_AXIS, plant(mask_of=lambda m: m))]
        if x["mask"].dim() == 2 and L == h:  # otherwise unsqueeze(1) raises
            found += [(_HEAD_AXIS_AT_1, plant(mask_of=lambda m: m.unsqueeze(1)))]
    return found


def _mha_case(name: str, seed: int, B: int, L: int, S: int, D: int, h: int,
              mask=None, dtype=torch.float64) -> Case:
    scale = D ** -0.5  # weights of the usual size, so the scores are neither tiny nor huge
    inputs = {"query": randn(seed, B, L, D, dtype=dtype),
              "key": randn(seed + 1, B, S, D, dtype=dtype),
              "value": randn(seed + 2, B, S, D, dtype=dtype)}
    inputs.update({n: randn(seed + 3 + i, D, D, dtype=dtype, scale=scale)
                   for i, n in enumerate(("w_q", "w_k", "w_v", "w_o"))})
    if mask is not None:
        inputs["mask"] = mask
    return Case(name, inputs, {"h": h})


@learner_frames_only
def check_multi_head_attention(fn: Callable) -> None:
    """Check ``fn(query, key, value, w_q, w_k, w_v, w_o, h, mask=None)`` -> ``(B, L, D)``
    against :class:`illustrated.attention.MultiHeadAttention` (without biases).

    ``query`` is ``(B, L, D)``, ``key`` and ``value`` ``(B, S, D)``; the four weights are
    ``(D, D)`` matrices in ``nn.Linear``'s ``(out, in)`` layout, as the chapter's
    ``w_q.weight``: ``Q = query @ w_q.T`` (head ``i`` owns rows ``i*Dk`` to
    ``(i+1)*Dk`` of ``w_q``) and the output is ``concat @ w_o.T``; ``h`` divides
    ``D``; ``mask`` is bool, broadcasting to ``(B, L, S)`` (True = may attend), the same
    for every head. Attend as :func:`illustrated.attention.scaled_dot_product_attention`
    does (you may call it)."""
    tokens = torch.tensor([[5, 2, 1, 0, 0], [1, 3, 1, 4, 0]])  # source 002's batch
    nothing = padding_mask(tokens).expand(2, 5, 5).clone()  # (B, L, S)
    nothing[1, 2] = False  # query 2 of sentence 1 may attend to no key at all
    cases = [_mha_case("2 heads", 70, B=2, L=3, S=3, D=8, h=2),
             _mha_case("3 heads, L ≠ S", 71, B=2, L=3, S=5, D=12, h=3),
             _mha_case("4 heads, batch 3", 72, B=3, L=5, S=5, D=8, h=4),
             _mha_case("float32", 73, B=2, L=3, S=5, D=12, h=3, dtype=torch.float32),
             _mha_case("padding mask", 74, B=2, L=5, S=5, D=12, h=2,
                       mask=padding_mask(tokens)),
             _mha_case("causal mask, 4 heads", 75, B=2, L=5, S=5, D=12, h=4,
                       mask=subsequent_mask(5)),
             _mha_case("a 2-D (L, S) causal mask, L = h", 77, B=2, L=4, S=4, D=8, h=4,
                       mask=subsequent_mask(4)[0]),
             _mha_case("a query with every key blocked", 76, B=2, L=5, S=5, D=12, h=3,
                       mask=nothing)]

    def call(*args, h):  # h positionally, as the signature above names it
        *tensors, mask = args if len(args) == 8 else (*args, None)
        return fn(*tensors, h) if mask is None else fn(*tensors, h, mask=mask)

    if not callable(fn):
        raise TypeError("check_multi_head_attention expects your function itself, e.g. "
                        f"check_multi_head_attention(my_mha), got {type(fn).__name__}")
    run("check_multi_head_attention", call, cases, _mha_reference, _mha_mistakes,
         error_hint="follow the shapes: project (B, L, D), split (B, H, L, Dk), attend "
                    "(B, H, L, Dk), merge (B, L, D), `@ w_o.T`; give the mask a head axis "
                    "just before (L, S) with `mask.unsqueeze(-3)`.",
         general_hint="compare each step with `illustrated.attention.MultiHeadAttention` "
                      "(its `w_q.weight` is your `w_q`): the projections, the split, "
                      "the attention per head, the merge, `@ w_o.T`.",
         success="your multi-head attention matches the package's on {n} tests, "
                 "including L ≠ S, a padding mask, a causal mask (3-D and 2-D) and a query "
                 "with every key blocked.",
         zero_by_zero=RENORMALISED)
