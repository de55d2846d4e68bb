"""Tests for illustrated.exercises.transformer (the capstone): check_transformer passes the
package's Transformer, names each planted mistake, and refuses classes without the
interface with a clear TypeError or ValueError."""
import dataclasses
import math
import re

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from illustrated.attention import MultiHeadAttention
from illustrated.exercises import check_transformer
from illustrated.layers import DecoderLayer, Embeddings, EncoderLayer, SublayerConnection
from illustrated.model import Generator, ModelConfig, Transformer
from illustrated.positional import PositionalEncoding, sinusoidal_encoding

from .helpers import HINT, assert_fails, assert_layout, assert_one_line, unwrap


def test_check_transformer_accepts_the_package_model(capsys):
    assert check_transformer(Transformer) is None
    out = assert_one_line(capsys, check_transformer)
    assert out == ("✓ check_transformer: your Transformer matches torch.nn.Transformer on 3 "
                   "tests: without masks, with padding and causal masks, in eval and in "
                   "train mode.\n")


def test_check_transformer_accepts_pre_norm_against_norm_first(capsys):
    check_transformer(Transformer, ModelConfig.tiny(norm_first=True))
    assert "matches torch.nn.Transformer" in assert_one_line(capsys, check_transformer)


def test_check_transformer_leaves_the_global_seed_alone():
    torch.manual_seed(5)
    expected = torch.rand(3)
    torch.manual_seed(5)
    check_transformer(Transformer)
    torch.testing.assert_close(torch.rand(3), expected)


# ---------------------------------------------------------------- planted mistakes


def planted(patch):
    """A Transformer class with one mistake, planted by ``patch(model)``."""
    class Planted(Transformer):
        def __init__(self, config):
            super().__init__(config)
            patch(self)
    return Planted


def swap_class(kind, new):
    def patch(model):
        for m in model.modules():
            if type(m) is kind:
                m.__class__ = new
    return patch


class EmbNoScale(Embeddings):
    def forward(self, tokens):
        return self.embedding(tokens)


def no_positions(model):
    for embed in (model.src_embed, model.tgt_embed):
        embed[1].pe.zero_()  # the positional encoding adds nothing


def attention(m, query, key, value, mask, scale=True, blocked_is_true=False):
    B, L, _ = query.shape
    q, k, v = m.split_heads(m.w_q(query)), m.split_heads(m.w_k(key)), m.split_heads(m.w_v(value))
    scores = q @ k.transpose(-2, -1)
    if scale:
        scores = scores / math.sqrt(m.d_model if scale == "d_model" else m.d_k)
    if mask is not None:
        mask = mask.unsqueeze(1)
        scores = scores.masked_fill(mask if blocked_is_true else ~mask, -1e9)
    z = scores.softmax(-1) @ v
    return m.w_o(z.transpose(1, 2).reshape(B, L, m.d_model))


class AttnNoScale(MultiHeadAttention):
    def forward(self, query, key, value, mask=None, cache=None):
        return attention(self, query, key, value, mask, scale=False)


class AttnDModelScale(MultiHeadAttention):
    def forward(self, query, key, value, mask=None, cache=None):
        return attention(self, query, key, value, mask, scale="d_model")


class AttnTorchMask(MultiHeadAttention):
    def forward(self, query, key, value, mask=None, cache=None):
        return attention(self, query, key, value, mask, blocked_is_true=True)


class DecNoCausal(DecoderLayer):
    def forward(self, x, memory, src_mask=None, tgt_mask=None, cache=None):
        return super().forward(x, memory, src_mask, None)


class DecKVFromDecoder(DecoderLayer):
    def forward(self, x, memory, src_mask=None, tgt_mask=None, cache=None):
        x = self.sublayer1(x, lambda y: self.self_attn(y, y, y, tgt_mask))
        x = self.sublayer2(x, lambda y: self.src_attn(y, y, y))
        return self.sublayer3(x, self.feed_forward)


class EncNoMask(EncoderLayer):
    def forward(self, x, mask=None):
        return super().forward(x, None)


class NoResidual(SublayerConnection):
    def forward(self, x, sublayer):
        return self.norm(self.dropout(sublayer(x)))


def pre_norm(model):
    for m in model.modules():
        if isinstance(m, SublayerConnection):
            m.norm_first = True


class Logits(Generator):
    def forward(self, x):
        return self.proj(x)


def final_norm(model):
    model.encoder.norm = nn.LayerNorm(model.config.d_model, elementwise_affine=False)


class SrcMaskNotPassed(Transformer):
    def forward(self, src, tgt, src_mask=None, tgt_mask=None):
        memory = self.encode(src, None)
        return self.generator(self.decode(memory, None, tgt, tgt_mask))


def dropout_always(model):
    model.src_embed[1].dropout = nn.Dropout(0.5)


class AttnSplitNoTranspose(MultiHeadAttention):
    def split_heads(self, x):
        return x.reshape(x.shape[0], self.h, x.shape[1], self.d_k)  # no transpose


class AttnMergeNoTranspose(MultiHeadAttention):
    def forward(self, query, key, value, mask=None, cache=None):
        B, L, _ = query.shape
        q, k, v = (self.split_heads(w(x)) for w, x in
                   ((self.w_q, query), (self.w_k, key), (self.w_v, value)))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(~mask.unsqueeze(1), -1e9)
        z = scores.softmax(-1) @ v  # (B, H, L, Dk)
        return self.w_o(z.reshape(B, L, self.d_model))  # no transpose


class AttnSoftmaxOverQueries(MultiHeadAttention):
    def forward(self, query, key, value, mask=None, cache=None):
        B, L, _ = query.shape
        q, k, v = (self.split_heads(w(x)) for w, x in
                   ((self.w_q, query), (self.w_k, key), (self.w_v, value)))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(~mask.unsqueeze(1), -1e9)
        z = scores.softmax(-2) @ v
        return self.w_o(z.transpose(1, 2).reshape(B, L, self.d_model))


def ffn_without_relu(model):
    for m in model.modules():
        if hasattr(m, "feed_forward"):
            m.feed_forward = NoReluFeedForward(m.feed_forward)


class NoReluFeedForward(nn.Module):
    def __init__(self, ffn):
        super().__init__()
        self.linear1, self.linear2 = ffn.linear1, ffn.linear2

    def forward(self, x):
        return self.linear2(self.linear1(x))


def sin_then_cos(model):
    for embed in (model.src_embed, model.tgt_embed):
        pos = embed[1]
        assert isinstance(pos, PositionalEncoding)
        pos.pe = sinusoidal_encoding(pos.max_len, pos.d_model, interleave=False)[None]


MISTAKES = [
    (planted(swap_class(MultiHeadAttention, AttnSplitNoTranspose)),
     r"is encoder layer 0.*" + HINT + r"you split the heads with `view` or `reshape` "
                                      r"straight to \(B, H, L, Dk\)"),
    (planted(swap_class(MultiHeadAttention, AttnMergeNoTranspose)),
     r"is encoder layer 0.*" + HINT + r"you merged the heads with `reshape` straight from"),
    (planted(swap_class(MultiHeadAttention, AttnSoftmaxOverQueries)),
     r"is encoder layer 0.*" + HINT + r"you took the softmax over the queries \(dim=-2\)"),
    (planted(ffn_without_relu), r"is encoder layer 0.*" + HINT + r"the feed-forward network "
                                                                 r"has no ReLU"),
    (planted(sin_then_cos), r"is the source embedding \+ positions.*" + HINT
     + r"your positional table puts every sine first"),
    (planted(swap_class(Embeddings, EmbNoScale)),
     r"The first part that differs is the source embedding \+ positions.*" + HINT
     + r"the embeddings were not multiplied by √d_model"),
    (planted(no_positions), r"source embedding.*" + HINT
     + r"the positional encodings were not added"),
    (planted(swap_class(MultiHeadAttention, AttnNoScale)), r"is encoder layer 0.*" + HINT
     + r"the attention scores were not divided by √d_k"),
    (planted(swap_class(MultiHeadAttention, AttnDModelScale)), r"is encoder layer 0.*"
     + HINT + r"the attention scores were divided by √d_model instead of √d_k: .*"
     r"`scaled_dot_product_attention` of `illustrated/attention\.py`"),
    (planted(swap_class(MultiHeadAttention, AttnTorchMask)),
     r"test 'padded, masked, eval mode'.*encoder layer 0.*" + HINT
     + r"the mask was used the other way round"),
    (planted(swap_class(EncoderLayer, EncNoMask)), r"encoder layer 0.*" + HINT
     + r"the encoder's self-attention ignored `src_mask`"),
    (planted(swap_class(DecoderLayer, DecNoCausal)), r"is decoder layer 0.*" + HINT
     + r"the decoder's self-attention ignored `tgt_mask`"),
    (planted(swap_class(DecoderLayer, DecKVFromDecoder)), r"decoder layer 0.*" + HINT
     + r"the keys and values of encoder-decoder attention came from the decoder"),
    (planted(pre_norm), r"encoder layer 0.*" + HINT + r"the layer normalises \*before\*"),
    (planted(swap_class(SublayerConnection, NoResidual)), r"encoder layer 0.*" + HINT
     + r"the residual connection is missing"),
    (planted(final_norm), r"the encoder's output.*" + HINT
     + r"the stack ends with an extra LayerNorm"),
    (planted(swap_class(Generator, Logits)), r"the output layer.*" + HINT
     + r"the output layer returns the raw scores \(logits\)"),
    (SrcMaskNotPassed, r"every part matches.*" + HINT.replace("it looks like ", "")
     + r"every part matches, so the wiring differs: it looks like `src_mask` was not "
       r"passed on"),
    (planted(dropout_always), r"train mode, dropout 0.*\nHint: it matches in eval mode "
                              r"but not in train mode"),
]
IDS = ["split_no_transpose", "merge_no_transpose", "softmax_over_queries", "ffn_no_relu",
       "sin_then_cos", "no_sqrt_d_model", "no_positions", "no_sqrt_d_k", "sqrt_d_model_in_attention",
       "inverted_mask",
       "enc_no_mask",
       "no_causal", "kv_from_decoder", "pre_norm", "no_residual", "extra_final_norm",
       "no_log_softmax", "src_mask_not_passed", "train_only"]


@pytest.mark.parametrize("cls, hint", MISTAKES, ids=IDS)
def test_check_transformer_names_the_mistake(cls, hint):
    assert_fails(check_transformer, cls, hint)


def test_check_transformer_names_post_norm_in_a_pre_norm_model():
    def post_norm(model):
        for m in model.modules():
            if isinstance(m, SublayerConnection):
                m.norm_first = False
    with pytest.raises(AssertionError) as info:
        check_transformer(planted(post_norm), ModelConfig.tiny(norm_first=True))
    assert_layout(str(info.value), check_transformer)
    assert re.search(HINT + r"the layer normalises \*after\* the residual sum",
                     unwrap(str(info.value)))


class GeluFeedForward(nn.Module):
    def __init__(self, ffn):
        super().__init__()
        self.linear1, self.linear2 = ffn.linear1, ffn.linear2

    def forward(self, x):
        return self.linear2(F.gelu(self.linear1(x)))


def decoder_gelu(model):
    for layer in model.decoder.layers:
        layer.feed_forward = GeluFeedForward(layer.feed_forward)


def encoder_gelu(model):
    for layer in model.encoder.layers:
        layer.feed_forward = GeluFeedForward(layer.feed_forward)


def test_check_transformer_looks_inside_a_decoder_layer():
    """No whole-layer mistake fits: the checker compares the layer's three modules and
    names the one that differs."""
    assert_fails(check_transformer, planted(decoder_gelu),
                 r"The first part that differs is decoder layer 0's `feed_forward`.*"
                 r"\nHint: compare this part, line by line")


def test_check_transformer_looks_inside_an_encoder_layer():
    """As inside a decoder layer: the encoder layer's modules are compared one by one."""
    assert_fails(check_transformer, planted(encoder_gelu),
                 r"The first part that differs is encoder layer 0's `feed_forward`.*"
                 r"\nHint: compare this part, line by line")


def test_check_transformer_names_a_mistake_inside_a_layer():
    """A mistake in one attention module only fits no whole-layer variant; looking inside
    the layer, the checker finds the module and names its mistake."""
    def cross_only(model):
        for layer in model.decoder.layers:
            layer.src_attn.__class__ = AttnSoftmaxOverQueries
    assert_fails(check_transformer, planted(cross_only),
                 r"The first part that differs is decoder layer 0's `src_attn`.*" + HINT
                 + r"you took the softmax over the queries")


# ---------------------------------------------------------------- the interface


class raises:
    """Like pytest.raises(kind, match=pattern), on the message with its wrapping undone;
    and no line of it longer than the book's output boxes."""

    def __init__(self, kind, match, width=68):
        self.kind, self.match, self.width = kind, match, width

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        assert kind is not None and issubclass(kind, self.kind), f"no {self.kind.__name__}"
        message = str(value)
        assert all(len(line) <= self.width for line in message.splitlines()), message
        assert re.search(self.match, " ".join(message.split())), message
        return True


def test_check_transformer_refuses_what_is_not_a_class():
    with raises(TypeError, "expects your class itself"):
        check_transformer(Transformer(ModelConfig.tiny()))
    with raises(TypeError, "must be a subclass of torch.nn.Module"):
        check_transformer(int)


def test_check_transformer_names_a_missing_method():
    class NoEncode(nn.Module):
        def __init__(self, config):
            super().__init__()

        def forward(self, src, tgt, src_mask=None, tgt_mask=None):
            return src

    with raises(TypeError, "has no method `encode`"):
        check_transformer(NoEncode)


def test_check_transformer_names_a_constructor_that_fails():
    class TwoArgs(Transformer):
        def __init__(self, config, vocab):
            super().__init__(config)

    with raises(TypeError, r"TwoArgs\(config\) raised TypeError", width=200):  # a long name
        check_transformer(TwoArgs)


def test_check_transformer_names_a_missing_key_and_its_shape():
    class NoGenerator(Transformer):
        def __init__(self, config):
            super().__init__(config)
            del self.generator

    with raises(ValueError, r"no key 'generator.proj.weight' \(expected shape "
                                         r"\(13, 16\)"):
        check_transformer(NoGenerator)


def test_check_transformer_names_an_unexpected_key():
    class Extra(Transformer):
        def __init__(self, config):
            super().__init__(config)
            self.encoder.norm = nn.LayerNorm(config.d_model)

    with raises(ValueError, r"unexpected key 'encoder.norm.weight' of shape "
                                         r"\(16,\)"):
        check_transformer(Extra)


def test_check_transformer_names_a_key_of_the_wrong_shape():
    class Wide(Transformer):
        def __init__(self, config):
            super().__init__(dataclasses.replace(config, d_ff=2 * config.d_ff))

    with raises(ValueError, r"key 'encoder.layers.0.feed_forward.linear1.weight' "
                                         r"has shape \(64, 16\), expected \(32, 16\)"):
        check_transformer(Wide)


def test_check_transformer_refuses_a_bad_config():
    with raises(ValueError, "config.dropout must be 0.0"):
        check_transformer(Transformer, ModelConfig.tiny(dropout=0.1))
    with raises(TypeError, "config must be an illustrated.model.ModelConfig"):
        check_transformer(Transformer, {"d_model": 16})


def test_check_transformer_refuses_shared_embeddings():
    shared = ModelConfig.tiny(dropout=0.0, src_vocab=13, tgt_vocab=13, share_embeddings=True)
    with raises(ValueError, "config.share_embeddings must be False, got True"):
        check_transformer(Transformer, shared)


def test_check_transformer_explains_a_model_that_raises():
    class Raises(Transformer):
        def forward(self, src, tgt, src_mask=None, tgt_mask=None):
            raise RuntimeError("boom")

    assert_fails(check_transformer, Raises, r"your model raised RuntimeError: boom.*"
                 r"\nHint: see the interface")


def test_check_transformer_explains_a_float32_tensor_made_inside():
    class Float32Inside(Transformer):
        def forward(self, src, tgt, src_mask=None, tgt_mask=None):
            out = super().forward(src, tgt, src_mask, tgt_mask)
            return out @ torch.eye(out.shape[-1])  # float32 eye: a dtype clash

    assert_fails(check_transformer, Float32Inside,
                 r"your model raised RuntimeError.*\nHint: the checker runs your model in "
                 r"float64")


def test_check_transformer_explains_parts_it_cannot_reach():
    """Keys that fit, but `encoder.layers` cannot be iterated: the failure says the parts
    could not be compared one by one, and points to the interface."""
    class Holder(nn.Module):
        def __init__(self, layers):
            super().__init__()
            for i, layer in enumerate(layers):
                self.add_module(str(i), layer)

    class Hidden(Transformer):
        def __init__(self, config):
            super().__init__(config)
            self.encoder.layers = Holder(self.encoder.layers)
            swap_class(SublayerConnection, NoResidual)(self)

        def encode(self, src, src_mask=None):
            x = self.src_embed(src)
            for layer in self.encoder.layers.children():
                x = layer(x, src_mask)
            return x

    assert_fails(check_transformer, Hidden, r"its parts could not be compared one by one "
                 r"\(TypeError: .*not iterable\).*\nHint: see the interface")


def test_check_transformer_names_no_mistake_for_a_tiny_difference():
    """An output off by 3e-4 only (no mask in the first test, so ignoring a mask changes
    nothing there): no planted mistake is named, the general hint is given."""
    class Nudged(Transformer):
        def forward(self, src, tgt, src_mask=None, tgt_mask=None):
            return super().forward(src, tgt, src_mask, tgt_mask) + 3e-4

    assert_fails(check_transformer, Nudged, r"test 'no masks, eval mode'.*every part "
                 r"matches.*\nHint: every part matches on the reference's inputs, so the "
                 r"difference is in how")
