"""The checker of the decoder-layer exercise: chapter 9, The decoder.

The learner wires the parts of a :class:`~illustrated.layers.DecoderLayer` by hand,
``fn(layer, x, memory, src_mask, tgt_mask)``: masked self-attention, then encoder-decoder
attention with queries from the decoder and keys and values from ``memory``, then the
feed-forward network, each through its ``layer.sublayerK`` (residual + layer norm).
"""
from __future__ import annotations

from typing import Callable

import torch

from ..layers import DecoderLayer
from ..masks import padding_mask, subsequent_mask
from ._frames import learner_frames_only
from ._runner import Case, equals, randn, run

_KV_DECODER = ("it looks like the keys and values of encoder-decoder attention came from "
               "the decoder: your output does not depend on `memory`. Pass it as key and "
               "value: `layer.src_attn(y, memory, memory, src_mask)`.")
_Q_MEMORY = ("it looks like the queries of encoder-decoder attention came from `memory`: "
             "the queries are the decoder positions, `layer.src_attn(y, memory, memory, "
             "src_mask)`.")
_NO_CAUSAL = ("it looks like the self-attention ignored `tgt_mask`, so each position sees "
              "later ones: `layer.self_attn(y, y, y, tgt_mask)`.")
_NO_SRC_MASK = ("it looks like encoder-decoder attention ignored `src_mask`, so padded "
                "source words are read: `layer.src_attn(y, memory, memory, src_mask)`.")
_SWAPPED_MASKS = ("it looks like the two masks were swapped: `tgt_mask` (causal) goes to "
                  "`layer.self_attn`, `src_mask` (source padding) to `layer.src_attn`.")
_ORDER = ("it looks like encoder-decoder attention ran before the masked self-attention; "
          "the order is self-attention (sublayer1), encoder-decoder attention (sublayer2), "
          "feed-forward (sublayer3).")
_NO_FFN = ("it looks like the feed-forward sub-layer is missing: finish with "
           "`layer.sublayer3(x, layer.feed_forward)`.")
_NO_ADD_NORM = ("it looks like the sub-layers were chained without their residual "
                "connection and layer norm: call each through its wrapper, "
                "`x = layer.sublayer1(x, lambda y: ...)`.")
_FULL_SWAP = ("it looks like encoder-decoder attention had its roles swapped: queries from "
              "`memory` and keys and values from the decoder. The decoder asks (queries) "
              "and the encoder's output answers (keys and values): "
              "`layer.src_attn(y, memory, memory, src_mask)`.")
_SKIPPED_FIRST = ("it looks like the second sub-layer read the layer's input `x` instead of "
                  "the first sub-layer's output, so the self-attention's result was lost. "
                  "Chain them: each line `x = layer.sublayerK(x, ...)` reads the `x` that "
                  "the line before wrote.")
_QUERY_FROM_INPUT = ("it looks like encoder-decoder attention took its queries from the "
                     "layer's input `x` instead of the sub-layer's argument: inside "
                     "`layer.sublayer2(x, lambda y: ...)` use `y`, "
                     "`layer.src_attn(y, memory, memory, src_mask)`.")
_NORM_NO_RESIDUAL = ("it looks like each sub-layer's output was normalised without the "
                     "residual connection, `norm(f(x))`: add the input back first, "
                     "`norm(x + f(x))`, which is what `layer.sublayerK(x, f)` does.")
_SHARED_WRAPPER = ("it looks like a sub-layer went through another sub-layer's wrapper "
                   "(`layer.sublayer1` for every step, or `layer.sublayer2` for the "
                   "feed-forward): each wrapper has a layer norm of its own, with its own "
                   "learned scale and shift, so step K goes through `layer.sublayerK`.")
_FFN_UNWRAPPED = ("it looks like the feed-forward ran outside its wrapper "
                  "(`layer.feed_forward(x)`, or `x + layer.feed_forward(x)` with no norm): "
                  "it is a sub-layer like the two attentions, with a residual connection "
                  "and a layer norm of its own: `layer.sublayer3(x, layer.feed_forward)`.")
_SELF_KV_MEMORY = ("it looks like the self-attention took its keys and values from "
                   "`memory`: it reads the decoder's own positions, "
                   "`layer.self_attn(y, y, y, tgt_mask)`; `memory` is read by "
                   "encoder-decoder attention only.")
_TGT_TO_SRC = ("it looks like `tgt_mask` went to encoder-decoder attention: its keys are "
               "the source words, so it takes the source's padding mask, "
               "`layer.src_attn(y, memory, memory, src_mask)`; the causal `tgt_mask` "
               "belongs to the self-attention alone.")
_PRE_NORM = ("it looks like you normalised *before* each sub-layer (pre-norm, "
             "`x + f(norm(x))`); this layer is post-norm, as in the paper: "
             "`norm(x + f(x))`, which is what `layer.sublayerK(x, f)` computes.")


class _Layer(DecoderLayer):
    """A DecoderLayer that names itself in one line in the checker's messages."""

    def __repr__(self) -> str:
        return "DecoderLayer"


def _layer() -> DecoderLayer:
    """The test layer. Its three layer norms get distinct random scales and shifts (fresh
    ones are all γ = 1, β = 0, so a sub-layer sent through the wrong wrapper would pass)."""
    with torch.random.fork_rng(devices=[]):  # the reader's global seed is untouched
        torch.manual_seed(90)
        layer = _Layer(8, 2, 16, dropout=0.0).double().eval()
        with torch.no_grad():
            for wrapper in (layer.sublayer1, layer.sublayer2, layer.sublayer3):
                wrapper.norm.weight.uniform_(0.5, 1.5)
                wrapper.norm.bias.normal_(0.0, 0.5)
        return layer


def _as_the_layer_does(module, *args):
    return module(*args)


def _through_wrapper(wrapper, x, f):
    return wrapper(x, f)  # residual + layer norm around f


def _without_wrapper(wrapper, x, f):
    return f(x)


def sub(s, x, f, flip=False, residual=True, norm=True):
    """One sub-layer connection as ``s`` computes it, or one of its usual mistakes:
    ``flip`` swaps post-norm and pre-norm, ``residual`` and ``norm`` leave a part out."""
    n = s.norm if norm else (lambda y: y)
    if s.norm_first != flip:  # pre-norm
        return x + f(n(x)) if residual else f(n(x))
    return n(x + f(x) if residual else f(x))


def wire(layer, x, memory, src_mask, tgt_mask, kv="memory", q="decoder", causal=True,
          src_masked=True, order=(1, 2, 3), add_norm=True, swap_masks=False, attend=None,
          connect=None, second_reads="stream", feed_forward=None, wrappers=(1, 2, 3),
          self_kv="decoder", cross_mask="src", ffn_connect=None):
    """The decoder layer, or one of its usual mistakes, depending on the switches.

    ``second_reads``: what the second sub-layer reads of the layer's input ``x`` instead
    of the stream: ``"input"`` as its input, ``"query"`` as its queries. ``wrappers[k - 1]``:
    the wrapper sub-layer ``k`` goes through (``(1, 1, 1)``: one for all). ``self_kv``:
    where the self-attention's keys and values come from; ``cross_mask``: the mask
    encoder-decoder attention gets (``"tgt"``: the causal one); ``ffn_connect``: how the
    feed-forward alone is connected (e.g. bare, outside its wrapper).

    ``attend(module, query, key, value, mask)`` runs an attention module and
    ``connect(wrapper, x, f)`` a sub-layer wrapper; by default they call them as the
    layer does, and ``feed_forward`` stands for ``layer.feed_forward`` (``check_transformer``
    passes versions with mistakes of their own)."""
    attend = attend or _as_the_layer_does
    connect = connect or (_through_wrapper if add_norm else _without_wrapper)
    if swap_masks:
        src_mask, tgt_mask = tgt_mask, src_mask

    x0 = x  # the layer's input

    def cross(y):
        kv_in = memory if kv == "memory" else y
        query = memory if q == "memory" else x0 if second_reads == "query" else y
        mask = tgt_mask if cross_mask == "tgt" else src_mask
        return attend(layer.src_attn, query, kv_in, kv_in,
                      mask if src_masked and kv == "memory" else None)

    def self_attention(y):
        kv_in = memory if self_kv == "memory" else y
        return attend(layer.self_attn, y, kv_in, kv_in, tgt_mask if causal else None)

    wrapper = [getattr(layer, f"sublayer{k}") for k in wrappers]
    subs = {1: (wrapper[0], self_attention), 2: (wrapper[1], cross),
            3: (wrapper[2], feed_forward or layer.feed_forward)}
    for k in order:
        wrapper, f = subs[k]
        how = ffn_connect if k == 3 and ffn_connect else connect
        x = how(wrapper, x0 if k == 2 and second_reads == "input" else x, f)  # (B, T, D)
    return x


def _reference(layer, x, memory, src_mask, tgt_mask):
    with torch.no_grad():
        return layer(x, memory, src_mask, tgt_mask)  # (B, T, D)


def _mistakes(case: Case) -> list:
    args = tuple(case.inputs.values())

    def wired(**kw):
        return equals(lambda: _no_grad(wire, *args, **kw))

    return [(_KV_DECODER, wired(kv="decoder")), (_Q_MEMORY, wired(q="memory")),
            (_NO_CAUSAL, wired(causal=False)), (_NO_SRC_MASK, wired(src_masked=False)),
            (_SWAPPED_MASKS, wired(swap_masks=True)),
            (_ORDER, wired(order=(2, 1, 3))), (_NO_FFN, wired(order=(1, 2))),
            (_NO_ADD_NORM, wired(add_norm=False)),
            (_FULL_SWAP, wired(q="memory", kv="decoder")),
            (_SKIPPED_FIRST, wired(second_reads="input")),
            (_QUERY_FROM_INPUT, wired(second_reads="query")),
            (_NORM_NO_RESIDUAL, wired(connect=lambda s, x, f: sub(s, x, f, residual=False))),
            (_PRE_NORM, wired(connect=lambda s, x, f: sub(s, x, f, flip=True))),
            *[(_SHARED_WRAPPER, wired(wrappers=w)) for w in ((1, 1, 1), (1, 2, 2), (1, 1, 3))],
            (_FFN_UNWRAPPED, wired(ffn_connect=_without_wrapper)),
            (_FFN_UNWRAPPED, wired(ffn_connect=lambda s, x, f: sub(s, x, f, norm=False))),
            (_SELF_KV_MEMORY, wired(self_kv="memory")),
            (_TGT_TO_SRC, wired(cross_mask="tgt"))]


def _no_grad(f, *args, **kwargs):
    with torch.no_grad():
        return f(*args, **kwargs)


def _inputs(seed: int, B: int, T: int, S: int, pads: int = 0) -> dict:
    src = torch.ones(B, S, dtype=torch.long)
    if pads:
        src[0, S - pads:] = 0  # the first sentence ends in padding
    return {"layer": _layer(), "x": randn(seed, B, T, 8), "memory": randn(seed + 1, B, S, 8),
            "src_mask": padding_mask(src),  # (B, 1, S)
            "tgt_mask": subsequent_mask(T)}  # (1, T, T)


@learner_frames_only
def check_decoder_layer(fn: Callable) -> None:
    """Check ``fn(layer, x, memory, src_mask, tgt_mask)``: one decoder layer's forward pass
    built from ``layer``'s parts, equal to ``layer(x, memory, src_mask, tgt_mask)``, for
    ``x`` ``(B, T, D)``, ``memory`` ``(B, S, D)``, ``src_mask`` ``(B, 1, S)`` and
    ``tgt_mask`` ``(1, T, T)``; returns ``(B, T, D)``."""
    cases = [  # the first has T = S, so that queries taken from memory still run
        Case("T = S", _inputs(90, 1, 4, 4)),
        Case("padded source", _inputs(93, 2, 3, 5, pads=2)),
    ]
    run("check_decoder_layer", fn, cases, _reference, _mistakes,
         error_hint="a shape error usually means `memory` went where the decoder stream "
                    "belongs (as the query, or into a residual sum), or that the two masks "
                    "were swapped: `tgt_mask` goes to `layer.self_attn`, `src_mask` to "
                    "`layer.src_attn`.",
         general_hint="write the three steps one per line, each `x = "
                      "layer.sublayerK(x, lambda y: ...)`, and compare each with the "
                      "package's `DecoderLayer.forward`.",
         success="your decoder layer matches `DecoderLayer` on {n} tests, including a "
                 "padded source.")
