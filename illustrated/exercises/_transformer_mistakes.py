"""The planted mistakes of :func:`~illustrated.exercises.check_transformer`: one hint per
mistake, and the functions that compute each wrong version of a part from the weights of
the package's reference copy, so that the checker can name the one the reader's output
equals.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ._attend import OVER_QUERIES, attend
from .decoder import sub, wire
from .multi_head import MERGE_NO_T, SPLIT_NO_T

INTERFACE = ("see the interface in `help(check_transformer)`: `MyTransformer(config)`, "
              "the same `state_dict` keys and shapes as `illustrated.model.Transformer`, "
              "`forward(src, tgt, src_mask, tgt_mask)`, `encode(src, src_mask)`, "
              "`decode(memory, src_mask, tgt, tgt_mask)`.")

_NO_SCALE_EMB = ("it looks like the embeddings were not multiplied by √d_model before "
                 "the positions were added: `embedding(tokens) * math.sqrt(d_model)`.")
_NO_POSITIONS = ("it looks like the positional encodings were not added: the output is "
                 "the scaled embeddings alone. Add `pe[:L]` to them.")
_SCALE_AFTER = ("it looks like √d_model multiplied the sum of embeddings and positions; "
                "scale the embeddings first, then add the positions.")
_DIVIDED_EMB = ("it looks like the embeddings were divided by √d_model; the paper "
                "multiplies them: `embedding(tokens) * math.sqrt(d_model)`.")
_SIN_THEN_COS = ("it looks like your positional table puts every sine first and every cosine "
                 "after them (`torch.cat([sin, cos], dim=-1)`, as source 000 builds it); "
                 "the paper interleaves them: sines in the even columns `pe[:, 0::2]`, "
                 "cosines in the odd ones `pe[:, 1::2]`.")
_NO_RELU = ("it looks like the feed-forward network has no ReLU between its two linear "
            "layers; without it they collapse into one linear map: "
            "`linear2(relu(linear1(x)))`.")
_NO_DK = ("it looks like the attention scores were not divided by √d_k: "
          "`scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)`, with d_k = d_model / h.")
_D_MODEL_SCALE = ("it looks like the attention scores were divided by √d_model "
                  "instead of √d_k: each head's queries and keys have d_k = "
                  "d_model / h entries, and the scale is the square root of that. "
                  "The package does it in `scaled_dot_product_attention` of "
                  "`illustrated/attention.py`, which gets the queries split into "
                  "heads, (B, H, L, d_k): `d_k = query.shape[-1]`, then "
                  "`math.sqrt(d_k)`.")
_INVERTED = ("it looks like the mask was used the other way round: in this package "
             "`True` means *may attend*, so fill the scores where the mask is False: "
             "`scores.masked_fill(~mask, float('-inf'))` (PyTorch's own modules use the "
             "opposite convention).")
_ENC_NO_MASK = ("it looks like the encoder's self-attention ignored `src_mask`, so "
                "padded source words are attended to: `self_attn(y, y, y, mask)`.")
_PRE_NORM = ("it looks like the layer normalises *before* each sub-layer (pre-norm, "
             "`x + sublayer(norm(x))`); the paper, and `norm_first=False`, normalise "
             "after the residual sum: `norm(x + sublayer(x))`.")
_POST_NORM = ("it looks like the layer normalises *after* the residual sum (post-norm); "
              "with `norm_first=True` each sub-layer reads a normalised copy and the "
              "residual stays raw: `x + sublayer(norm(x))`.")
_NO_RESIDUAL = ("it looks like the residual connection is missing: each sub-layer's "
                "output must be added to its input before the norm, "
                "`norm(x + sublayer(x))`.")
_NO_NORM = ("it looks like the layer norm is missing: after the residual sum comes "
            "`norm(x + sublayer(x))`.")
_NO_FFN = ("it looks like the feed-forward sub-layer is missing: each layer ends with "
           "`norm(x + feed_forward(x))`.")
_NO_CAUSAL = ("it looks like the decoder's self-attention ignored `tgt_mask`, so each "
              "position sees later ones: `self_attn(y, y, y, tgt_mask)`.")
_KV_DECODER = ("it looks like the keys and values of encoder-decoder attention came from "
               "the decoder: your output does not depend on `memory`. Use "
               "`src_attn(y, memory, memory, src_mask)`.")
_Q_MEMORY = ("it looks like the queries of encoder-decoder attention came from `memory`: "
             "the queries are the decoder positions, `src_attn(y, memory, memory, "
             "src_mask)`.")
_DEC_NO_SRC_MASK = ("it looks like encoder-decoder attention ignored `src_mask`, so "
                    "padded source words are read: `src_attn(y, memory, memory, "
                    "src_mask)`.")
_SWAPPED_MASKS = ("it looks like the two masks were swapped in the decoder: `tgt_mask` "
                  "(causal) goes to the self-attention, `src_mask` to the "
                  "encoder-decoder attention.")
_DEC_ORDER = ("it looks like encoder-decoder attention ran before the masked "
              "self-attention; the order is self-attention, encoder-decoder attention, "
              "feed-forward.")
_FINAL_NORM = ("it looks like the stack ends with an extra LayerNorm (as "
               "`nn.Transformer` sets `encoder.norm` and `decoder.norm`). A post-norm "
               "stack needs none: "
               "each layer already ends with one. Use `nn.Identity()` there.")
_NO_FINAL_NORM = ("it looks like the final LayerNorm of the pre-norm stack is missing: "
                  "a pre-norm layer's output is the raw residual sum, so the stack ends "
                  "with `self.norm = nn.LayerNorm(d_model)`.")
NO_LOG_SOFTMAX = ("it looks like the output layer returns the raw scores (logits); "
                   "return log-probabilities: `self.proj(x).log_softmax(dim=-1)`.")
SOFTMAX = ("it looks like the output layer returns probabilities (softmax); return "
            "their logarithm: `self.proj(x).log_softmax(dim=-1)`.")
_SRC_MASK_NOT_PASSED = ("every part matches, so the wiring differs: it looks like "
                        "`src_mask` was not passed on (to the encoder, the decoder or "
                        "both) in `forward`, `encode` or `decode`.")
_TGT_MASK_NOT_PASSED = ("every part matches, so the wiring differs: it looks like "
                        "`tgt_mask` was not passed on to the decoder in `forward` or "
                        "`decode`.")
_DEC_READS_EMB = ("every part matches, so the wiring differs: it looks like the decoder "
                  "read the source embeddings instead of the encoder's output `memory`.")
WIRING = ("every part matches on the reference's inputs, so the difference is in how "
           "`forward`, `encode` or `decode` wire them: embed, encode, decode reading "
           "`memory`, then the output layer, each given the right mask.")
TRAIN_ONLY = ("it matches in eval mode but not in train mode: something depends on "
               "`self.training`, e.g. a dropout whose probability does not come from "
               "`config.dropout`, or a mask applied only in one mode.")
DTYPE = ("the checker runs your model in float64 (`model.double()`): a tensor created "
          "inside it (`torch.zeros(...)`, `torch.tensor(...)`) must take the input's dtype, "
          "`dtype=x.dtype`, or be registered with `self.register_buffer` so that "
          "`.double()` converts it.")
GENERAL = ("compare this part, line by line, with the package's version: "
            "attention in `illustrated/attention.py`, the layers in "
            "`illustrated/layers.py`, the whole model in `illustrated/model.py`.")


def _attn(m, q, k, v, mask, *, scale=True, invert=False, split_t=True, merge_t=True,
          dim=-1):
    """Multi-head attention with ``m``'s weights, or one of its usual mistakes: no 1/√d_k,
    the mask the other way round (blocked entries filled with -1e9, as code written for
    PyTorch's convention does), heads split or merged without ``transpose(1, 2)``, the
    softmax over ``dim=-2``."""
    B, L, D = q.shape
    if split_t:
        split = m.split_heads  # (B, n, D) -> (B, H, n, Dk)
    else:
        def split(t):
            return t.reshape(B, m.h, t.shape[1], m.d_k)  # (B, H, n, Dk), tokens mixed
    Q, K, V = split(m.w_q(q)), split(m.w_k(k)), split(m.w_v(v))  # (B, H, *, Dk)
    s = Q @ K.transpose(-2, -1)  # (B, H, L, S)
    if scale:  # True: √d_k; "d_model": the whole width's root, a mistake
        s = s / math.sqrt(D if scale == "d_model" else m.d_k)
    if mask is not None:
        mask = mask.unsqueeze(-3)  # (B, 1, L, S)
        mask = ~mask if invert else mask
    z, _ = attend(s, V, mask, fill=-1e9, after=False, dim=dim)  # (B, H, L, Dk)
    z = z.transpose(1, 2) if merge_t else z  # (B, L, H, Dk)
    return m.w_o(z.reshape(B, L, D))  # (B, L, D)


_ATTN = [  # (hint, _attn's switches): a mistake inside multi-head attention
    (_NO_DK, {"scale": False}), (_D_MODEL_SCALE, {"scale": "d_model"}),
    (_INVERTED, {"invert": True}),
    (SPLIT_NO_T, {"split_t": False}), (SPLIT_NO_T, {"split_t": False, "merge_t": False}),
    (MERGE_NO_T, {"merge_t": False}), (OVER_QUERIES, {"dim": -2})]


def _no_relu(ff):
    return lambda y: ff.linear2(ff.linear1(y))  # (B, L, D), the ReLU left out


def _enc_layer(pl, x, mask, attn=None, use_mask=True, flip=False, residual=True,
               norm=True, ffn=True, relu=True):
    mask = mask if use_mask else None
    kw = dict(flip=flip, residual=residual, norm=norm)
    x = sub(pl.sublayer1, x, lambda y: _attn(pl.self_attn, y, y, y, mask, **(attn or {})),
             **kw)  # (B, S, D)
    ff = pl.feed_forward if relu else _no_relu(pl.feed_forward)
    return sub(pl.sublayer2, x, ff, **kw) if ffn else x  # (B, S, D)


def _dec_layer(pl, x, memory, src_mask, tgt_mask, attn=None, flip=False, residual=True,
               norm=True, relu=True, **wiring):
    """Decoder layer ``pl`` wired as check_decoder_layer's ``wire`` does (``wiring``: its
    switches), with this module's attention, sub-layer and feed-forward mistakes."""
    return wire(pl, x, memory, src_mask, tgt_mask,
                 attend=lambda m, *args: _attn(m, *args, **(attn or {})),
                 connect=lambda s, y, f: sub(s, y, f, flip=flip, residual=residual,
                                              norm=norm),
                 feed_forward=None if relu else _no_relu(pl.feed_forward), **wiring)


def embed_mistakes(embed, ids):
    emb, pos = embed[0], embed[1]
    e = emb.embedding(ids)  # (B, L, D)
    pe = pos.pe[:, :ids.shape[1]].to(e.dtype)  # (1, L, D)
    r = math.sqrt(emb.d_model)
    sin_then_cos = torch.cat([pe[..., 0::2], pe[..., 1::2]], dim=-1)  # (1, L, D)
    return [(_NO_SCALE_EMB, lambda: e + pe), (_NO_POSITIONS, lambda: e * r),
            (_SCALE_AFTER, lambda: (e + pe) * r), (_DIVIDED_EMB, lambda: e / r + pe),
            (_SIN_THEN_COS, lambda: e * r + sin_then_cos)]


def _flip_hint(pre_model: bool) -> str:
    return _POST_NORM if pre_model else _PRE_NORM


def enc_mistakes(pl, x, mask, pre_model):
    def v(**kw):
        return lambda: _enc_layer(pl, x, mask, **kw)
    return [(h, v(attn=a)) for h, a in _ATTN] + [
        (_ENC_NO_MASK, v(use_mask=False)), (_flip_hint(pre_model), v(flip=True)),
        (_NO_RESIDUAL, v(residual=False)), (_NO_NORM, v(norm=False)),
        (_NO_FFN, v(ffn=False)), (_NO_RELU, v(relu=False))]


def dec_mistakes(pl, x, memory, src_mask, tgt_mask, pre_model):
    def v(**kw):
        return lambda: _dec_layer(pl, x, memory, src_mask, tgt_mask, **kw)
    return [(h, v(attn=a)) for h, a in _ATTN] + [
        (_NO_CAUSAL, v(causal=False)), (_KV_DECODER, v(kv="decoder")),
        (_Q_MEMORY, v(q="memory")), (_DEC_NO_SRC_MASK, v(src_masked=False)),
        (_SWAPPED_MASKS, v(swap_masks=True)), (_DEC_ORDER, v(order=(2, 1, 3))),
        (_flip_hint(pre_model), v(flip=True)),
        (_NO_RESIDUAL, v(residual=False)), (_NO_NORM, v(norm=False)),
        (_NO_FFN, v(order=(1, 2))), (_NO_RELU, v(relu=False))]


def part_mistakes(module, name, args):
    """The planted mistakes of one module inside a layer: its attention, or its
    feed-forward network, run on ``args``."""
    if name == "feed_forward":
        return [(_NO_RELU, lambda: _no_relu(module)(*args))]
    return [(h, lambda a=a: _attn(module, *args, **a)) for h, a in _ATTN]


def stack_mistakes(out, pre_model):
    if pre_model:
        return [(_NO_FINAL_NORM, lambda: out["raw"])]
    return [(_FINAL_NORM, lambda: F.layer_norm(out["raw"], out["raw"].shape[-1:]))]


def model_mistakes(pkg, src, tgt, src_mask, tgt_mask):
    def f(*args):
        return lambda: pkg(*args)

    def reads_embeddings():
        return pkg.generator(pkg.decode(pkg.src_embed(src), src_mask, tgt, tgt_mask))
    return [(_SRC_MASK_NOT_PASSED, f(src, tgt, None, tgt_mask)),
            (_TGT_MASK_NOT_PASSED, f(src, tgt, src_mask, None)),
            (_DEC_READS_EMB, reads_embeddings)]
