"""Tests for illustrated.decoder_only.model (chapter 13): the decoder stack alone."""
import pytest
import torch
from torch import nn

from illustrated.counting import count_parameters
from illustrated.decoder_only.model import DecoderOnly, DecoderOnlyConfig, DecoderOnlyLayer
from illustrated.interop import from_torch
from illustrated.layers import DecoderLayer, EncoderLayer

TINY = dict(vocab=20, N=2, d_model=16, d_ff=32, h=4, dropout=0.0, max_len=12)


def tiny(seed=0, dtype=torch.float64, **overrides):
    config = DecoderOnlyConfig(**{**TINY, **overrides})
    model = DecoderOnly(config, torch.Generator().manual_seed(seed))
    return model.to(dtype).eval()


def ids(B=2, T=9, vocab=20, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(3, vocab, (B, T), generator=g)  # (B, T)


def test_equals_torch_transformer_encoder_under_a_causal_mask():
    """The same weights in torch's own nn.TransformerEncoder, told the
    sequence is causal, give the same next-token distributions."""
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
    reference = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    reference = reference.double().eval()
    model = tiny()
    for ours, torch_layer in zip(model.layers, reference.layers):  # an encoder layer's names
        ours.load_state_dict(from_torch(torch_layer).state_dict())
    tokens = ids()
    T = tokens.shape[1]
    blocked = nn.Transformer.generate_square_subsequent_mask(T, dtype=torch.float64)
    x = model.embed(tokens)  # (B, T, D)
    expected = model.generator(reference(x, mask=blocked, is_causal=True))
    torch.testing.assert_close(model(tokens), expected, atol=1e-12, rtol=1e-12)


def test_a_layer_is_an_encoder_layer_and_a_decoder_layer_less_its_cross_attention():
    """Chapter 13's claim, by name and shape: the decoder-only layer holds an encoder
    layer's parameters, which are a decoder layer's less its encoder-decoder attention and
    the norm after it (so the shipped writer's file loads as it always did)."""
    def shapes(layer, skip=()):
        return {k: v.shape for k, v in layer.state_dict().items() if not k.startswith(skip)}
    gpt = DecoderOnlyLayer(16, 4, 32)
    assert isinstance(gpt, EncoderLayer)
    assert shapes(gpt) == shapes(EncoderLayer(16, 4, 32))
    less = shapes(DecoderLayer(16, 4, 32), skip=("src_attn.", "sublayer2.", "sublayer3."))
    assert less == {k: v for k, v in shapes(gpt).items() if not k.startswith("sublayer2.")}


def test_a_position_never_sees_later_tokens():
    model, tokens = tiny(), ids()
    changed = tokens.clone()
    changed[:, 5:] = 3  # rewrite the future of position 4
    before, after = model(tokens), model(changed)
    torch.testing.assert_close(before[:, :5], after[:, :5], atol=1e-12, rtol=0)
    assert not torch.allclose(before[:, 5:], after[:, 5:])


def test_the_cache_gives_the_same_numbers_one_token_at_a_time():
    model, tokens = tiny(), ids()
    cache = model.new_cache()
    parts = [model(tokens[:, :4], cache=cache)]  # the prompt in one call
    parts += [model(tokens[:, t:t + 1], cache=cache) for t in range(4, 9)]
    torch.testing.assert_close(torch.cat(parts, 1), model(tokens),
                               atol=1e-12, rtol=1e-12)
    assert len(cache[0]) == 9


def test_the_last_position_output_is_the_full_forwards_last_row():
    """Writing scores only the last position: the same numbers as the full forward's
    last row, with and without a cache."""
    model, tokens = tiny(), ids()
    full = model(tokens)  # (B, T, V)
    last = model(tokens, last_only=True)
    assert last.shape == (2, 1, 20)
    torch.testing.assert_close(last, full[:, -1:], atol=1e-12, rtol=1e-12)
    cache = model.new_cache()
    model(tokens[:, :4], cache=cache, last_only=True)  # the prompt fills the cache
    step = model(tokens[:, 4:5], cache=cache, last_only=True)  # (B, 1, V)
    torch.testing.assert_close(step, full[:, 4:5], atol=1e-12, rtol=1e-12)


def test_log_probabilities_and_tied_weights():
    model = tiny()
    out = model(ids())
    assert out.shape == (2, 9, 20)
    torch.testing.assert_close(out.exp().sum(-1), torch.ones(2, 9, dtype=out.dtype))
    assert model.generator.proj.weight is model.embed[0].embedding.weight
    # the tied table is counted once: embeddings + 2 layers + output bias
    layer = 4 * (16 * 16 + 16) + (16 * 32 + 32) + (32 * 16 + 16) + 2 * 2 * 16
    assert count_parameters(model) == 20 * 16 + 2 * layer + 20


def test_same_seed_same_weights():
    a, b, c = tiny(seed=1), tiny(seed=1), tiny(seed=2)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert not torch.equal(a.layers[0].self_attn.w_q.weight,
                           c.layers[0].self_attn.w_q.weight)


@pytest.mark.parametrize("call, error, words", [
    (lambda m: m(torch.full((1, 3), 20)), ValueError, "vocab=20"),
    (lambda m: m(torch.zeros(1, 3)), TypeError, "integer ids"),
    (lambda m: m(torch.zeros(3, dtype=torch.long)), ValueError, "2-D"),
    (lambda m: m(torch.zeros(1, 13, dtype=torch.long)), ValueError, "max_len=12"),
    (lambda m: m(torch.zeros(1, 3, dtype=torch.long), cache=[None]), TypeError,
     "got a list of 1: NoneType"),
    (lambda m: m(torch.zeros(1, 3, dtype=torch.long), cache={}), TypeError,
     "one per layer (model.new_cache()), got dict"),
])
def test_bad_input_is_named(call, error, words):
    with pytest.raises(error, match=None) as caught:
        call(tiny())
    assert words in str(caught.value)


def test_a_full_cache_says_so():
    model = tiny()
    cache = model.new_cache()
    model(ids(B=1, T=12), cache=cache)
    with pytest.raises(ValueError, match="longer than max_len=12"):
        model(torch.ones(1, 1, dtype=torch.long), cache=cache)


@pytest.mark.parametrize("field, value, words", [
    ("h", 3, "divisible"), ("d_model", 15, "even"), ("dropout", 1.5, "dropout"),
    ("vocab", 0, "vocab"),
])
def test_bad_config_is_named(field, value, words):
    overrides = {field: value, **({"h": 5} if field == "d_model" else {})}
    with pytest.raises((ValueError, TypeError)) as caught:
        DecoderOnlyConfig(**{**TINY, **overrides})
    assert words in str(caught.value)
