"""Tests for illustrated.exercises.decoder (chapter 9): check_decoder_layer accepts a
correct wiring and names the mistake in each planted wrong one."""
import pytest
import torch

from illustrated.exercises import check_decoder_layer

from .helpers import HINT, assert_fails, assert_one_line


def wired(layer, x, memory, src_mask, tgt_mask):
    x = layer.sublayer1(x, lambda y: layer.self_attn(y, y, y, tgt_mask))
    x = layer.sublayer2(x, lambda y: layer.src_attn(y, memory, memory, src_mask))
    return layer.sublayer3(x, layer.feed_forward)


def called(layer, x, memory, src_mask, tgt_mask):
    return layer(x, memory, src_mask, tgt_mask)


@pytest.mark.parametrize("fn", [wired, called])
def test_check_decoder_layer_accepts_correct(fn, capsys):
    assert check_decoder_layer(fn) is None
    out = assert_one_line(capsys, check_decoder_layer)
    assert out == ("✓ check_decoder_layer: your decoder layer matches `DecoderLayer` on 2 "
                   "tests, including a padded source.\n")


def test_check_decoder_layer_leaves_the_global_seed_alone():
    torch.manual_seed(5)
    expected = torch.rand(3)
    torch.manual_seed(5)
    check_decoder_layer(wired)
    torch.testing.assert_close(torch.rand(3), expected)


def variant(q="y", kv="memory", self_mask=True, src_mask_used=True, order=(1, 2, 3),
            add_norm=True):
    def fn(layer, x, memory, src_mask, tgt_mask):
        def cross(y):
            k = memory if kv == "memory" else y
            return layer.src_attn(memory if q == "memory" else y, k, k,
                                  src_mask if src_mask_used and kv == "memory" else None)
        subs = {1: (layer.sublayer1,
                    lambda y: layer.self_attn(y, y, y, tgt_mask if self_mask else None)),
                2: (layer.sublayer2, cross), 3: (layer.sublayer3, layer.feed_forward)}
        for k in order:
            wrapper, f = subs[k]
            x = wrapper(x, f) if add_norm else f(x)
        return x
    return fn


def swapped_masks(layer, x, memory, src_mask, tgt_mask):
    x = layer.sublayer1(x, lambda y: layer.self_attn(y, y, y, src_mask))
    x = layer.sublayer2(x, lambda y: layer.src_attn(y, memory, memory, tgt_mask))
    return layer.sublayer3(x, layer.feed_forward)


def full_swap(layer, x, memory, src_mask, tgt_mask):
    x = layer.sublayer1(x, lambda y: layer.self_attn(y, y, y, tgt_mask))
    x = layer.sublayer2(x, lambda y: layer.src_attn(memory, y, y, src_mask))
    return layer.sublayer3(x, layer.feed_forward)


def second_reads_input(layer, x, memory, src_mask, tgt_mask):
    x1 = layer.sublayer1(x, lambda y: layer.self_attn(y, y, y, tgt_mask))  # noqa: F841
    x2 = layer.sublayer2(x, lambda y: layer.src_attn(y, memory, memory, src_mask))  # not x1
    return layer.sublayer3(x2, layer.feed_forward)


def query_from_input(layer, x, memory, src_mask, tgt_mask):
    x1 = layer.sublayer1(x, lambda y: layer.self_attn(y, y, y, tgt_mask))
    x2 = layer.sublayer2(x1, lambda y: layer.src_attn(x, memory, memory, src_mask))
    return layer.sublayer3(x2, layer.feed_forward)


def ffn_outside(layer, x, memory, src_mask, tgt_mask):
    """Wrong: the feed-forward called bare, outside `layer.sublayer3`."""
    x = layer.sublayer1(x, lambda y: layer.self_attn(y, y, y, tgt_mask))
    x = layer.sublayer2(x, lambda y: layer.src_attn(y, memory, memory, src_mask))
    return layer.feed_forward(x)


def ffn_residual_only(layer, x, memory, src_mask, tgt_mask):
    """Wrong: the feed-forward with its residual but without its layer norm."""
    x = layer.sublayer1(x, lambda y: layer.self_attn(y, y, y, tgt_mask))
    x = layer.sublayer2(x, lambda y: layer.src_attn(y, memory, memory, src_mask))
    return x + layer.feed_forward(x)


def self_kv_from_memory(layer, x, memory, src_mask, tgt_mask):
    """Wrong: the self-attention reads its keys and values from the encoder."""
    x = layer.sublayer1(x, lambda y: layer.self_attn(y, memory, memory, tgt_mask))
    x = layer.sublayer2(x, lambda y: layer.src_attn(y, memory, memory, src_mask))
    return layer.sublayer3(x, layer.feed_forward)


def tgt_mask_to_src_attn(layer, x, memory, src_mask, tgt_mask):
    """Wrong: the causal mask given to encoder-decoder attention as well."""
    x = layer.sublayer1(x, lambda y: layer.self_attn(y, y, y, tgt_mask))
    x = layer.sublayer2(x, lambda y: layer.src_attn(y, memory, memory, tgt_mask))
    return layer.sublayer3(x, layer.feed_forward)


def connected(how):
    """The right wiring, each sub-layer connected by ``how(norm, x, f)``."""
    def fn(layer, x, memory, src_mask, tgt_mask):
        subs = [(layer.sublayer1, lambda y: layer.self_attn(y, y, y, tgt_mask)),
                (layer.sublayer2, lambda y: layer.src_attn(y, memory, memory, src_mask)),
                (layer.sublayer3, layer.feed_forward)]
        for wrapper, f in subs:
            x = how(wrapper.norm, x, f)
        return x
    return fn


def connected_through(wrappers):
    """The right wiring, sub-layer ``k`` through ``layer.sublayer{wrappers[k - 1]}``."""
    def fn(layer, x, memory, src_mask, tgt_mask):
        s = [getattr(layer, f"sublayer{k}") for k in wrappers]
        x = s[0](x, lambda y: layer.self_attn(y, y, y, tgt_mask))
        x = s[1](x, lambda y: layer.src_attn(y, memory, memory, src_mask))
        return s[2](x, layer.feed_forward)
    return fn


MISTAKES = [
    (full_swap, HINT + r"encoder-decoder attention had its roles swapped: queries from "
                       r"`memory` and keys and values from the decoder"),
    (second_reads_input, HINT + r"the second sub-layer read the layer's input `x` instead "
                                r"of the first sub-layer's output"),
    (query_from_input, HINT + r"encoder-decoder attention took its queries from the "
                              r"layer's input `x`"),
    (connected(lambda norm, x, f: norm(f(x))), HINT + r"each sub-layer's output was "
                                                      r"normalised without the residual"),
    (connected(lambda norm, x, f: x + f(norm(x))), HINT + r"you normalised \*before\* each "
                                                          r"sub-layer \(pre-norm"),
    (variant(kv="decoder"), HINT + r"the keys and values of encoder-decoder attention came "
                                   r"from the decoder"),
    (variant(q="memory"), HINT + r"the queries of encoder-decoder attention came from "
                                 r"`memory`"),
    (variant(self_mask=False), HINT + r"the self-attention ignored `tgt_mask`"),
    (variant(src_mask_used=False), HINT + r"encoder-decoder attention ignored `src_mask`"),
    (variant(order=(2, 1, 3)), HINT + r"encoder-decoder attention ran before the masked "
                                      r"self-attention"),
    (variant(order=(1, 2)), HINT + r"the feed-forward sub-layer is missing"),
    (variant(add_norm=False), HINT + r"the sub-layers were chained without their residual"),
    (swapped_masks, HINT + r"the two masks were swapped"),
    (connected_through((1, 1, 1)), HINT + r"a sub-layer went through another sub-layer's "
                                          r"wrapper"),
    (connected_through((1, 2, 2)), HINT + r"a sub-layer went through another sub-layer's "
                                          r"wrapper"),
    (ffn_outside, HINT + r"the feed-forward ran outside its wrapper"),
    (ffn_residual_only, HINT + r"the feed-forward ran outside its wrapper"),
    (self_kv_from_memory, HINT + r"the self-attention took its keys and values from "
                                 r"`memory`"),
    (tgt_mask_to_src_attn, HINT + r"`tgt_mask` went to encoder-decoder attention"),
    (lambda *args: wired(*args) + 0.01, r"\nHint: write the three steps one per line"),
]
IDS = ["full_swap", "second_reads_input", "query_from_input", "norm_no_residual",
       "pre_norm", "kv_decoder", "q_memory", "no_causal", "no_src_mask", "order", "no_ffn",
       "no_add_norm", "swapped_masks", "one_norm_for_all", "ffn_through_sublayer2",
       "ffn_outside", "ffn_residual_only", "self_kv_memory", "tgt_mask_to_src_attn",
       "general"]


@pytest.mark.parametrize("fn, hint", MISTAKES, ids=IDS)
def test_check_decoder_layer_names_the_mistake(fn, hint):
    assert_fails(check_decoder_layer, fn, hint)


def test_check_decoder_layer_refuses_a_non_function():
    with pytest.raises(TypeError, match="expects your function itself"):
        check_decoder_layer(42)



def test_check_decoder_layer_explains_a_shape_error():
    """A wiring that only breaks when T != S (the second test) gets the shape-error hint."""
    def memory_in_residual(layer, x, memory, src_mask, tgt_mask):
        x = layer.sublayer1(x, lambda y: layer.self_attn(y, y, y, tgt_mask))
        x = layer.sublayer2(memory, lambda y: layer.src_attn(x, y, y, src_mask))
        return layer.sublayer3(x, layer.feed_forward)

    for wrong in (memory_in_residual, variant(q="memory")):
        def fn(layer, x, memory, src_mask, tgt_mask, wrong=wrong):
            f = wired if x.shape[1] == memory.shape[1] else wrong
            return f(layer, x, memory, src_mask, tgt_mask)

        assert_fails(check_decoder_layer, fn, r"on test 'padded source'.*raised "
                     r"(RuntimeError|ValueError).*\nHint: a shape error usually means")
