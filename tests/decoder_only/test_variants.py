"""Tests for illustrated.decoder_only.variants: chapter 13's model as the baseline, each
change one flag, writing with the cache."""
import dataclasses

import pytest
import torch

from illustrated.counting import count_parameters
from illustrated.decoder_only.model import DecoderOnly, DecoderOnlyConfig
from illustrated.decoder_only.sampling import generate
from illustrated.decoder_only.swiglu import SwiGLUFeedForward
from illustrated.decoder_only.variants import VariantConfig, VariantDecoder, modern

TINY = dict(vocab=20, N=2, d_model=16, d_ff=32, h=4, dropout=0.0, max_len=12)


def tiny(config=None, seed=0, **flags):
    config = config or VariantConfig(**{**TINY, **flags})
    return VariantDecoder(config, torch.Generator().manual_seed(seed)).double().eval()


def ids(B=2, T=9, seed=0):
    return torch.randint(3, 20, (B, T), generator=torch.Generator().manual_seed(seed))


def test_the_default_is_chapter_13s_model():
    """DecoderOnly's weights load by name into the default variant (strictly: the same
    parameters), and the log-probabilities are the same."""
    chapter13 = DecoderOnly(DecoderOnlyConfig(**TINY), torch.Generator().manual_seed(1))
    chapter13 = chapter13.double().eval()
    ours = tiny(seed=2)
    ours.load_state_dict(chapter13.state_dict())
    tokens = ids()
    torch.testing.assert_close(ours(tokens), chapter13(tokens), atol=1e-12, rtol=1e-12)
    assert VariantConfig(**TINY).sizes() == DecoderOnlyConfig(**TINY)


def test_the_parameters_of_each_change_at_chapter_13s_sizes():
    """d_model 128, N 2, h 4, d_ff 512, V 4000. Sinusoids and RoPE add none; SwiGLU at the
    matched width has exactly the ReLU network's; RMSNorm drops the norms' biases; GQA with
    2 kv heads drops half of W^K and W^V; no biases drops every bias."""
    count = {name: count_parameters(VariantDecoder(VariantConfig(**flags)))
             for name, flags in [("baseline", {}), ("rms", dict(norm="rms")),
                                 ("pre", dict(norm_first=True)),
                                 ("rope", dict(position="rope")),
                                 ("swiglu", dict(ffn="swiglu")), ("gqa", dict(n_kv_heads=2)),
                                 ("mqa", dict(n_kv_heads=1)), ("nobias", dict(bias=False))]}
    N, D, h, V, d_k = 2, 128, 4, 4000, 32
    base = count["baseline"]
    assert base == count_parameters(DecoderOnly(DecoderOnlyConfig()))  # 912,544
    assert count["rope"] == count["swiglu"] == base
    assert count["pre"] == base + 2 * D  # the final norm
    assert count["rms"] == base - 2 * N * D  # two norms a layer, without their biases
    for n_kv in (2, 1):  # W^K and W^V (and their biases) of h - n_kv heads
        name = "gqa" if n_kv == 2 else "mqa"
        assert count[name] == base - N * 2 * (h - n_kv) * d_k * (D + 1)
    biases = N * (4 * D + 512 + D + 2 * D) + V  # attention, FFN, norms; the output layer
    assert count["nobias"] == base - biases


@pytest.mark.parametrize("flags", [dict(norm="rms"), dict(position="rope"),
                                   dict(ffn="swiglu"), dict(n_kv_heads=1),
                                   dict(norm_first=True)])
def test_each_flag_changes_the_model_it_names(flags):
    base, changed = tiny(), tiny(**flags)
    assert not torch.allclose(base(ids()), changed(ids()))
    if "ffn" in flags:
        assert isinstance(changed.layers[0].feed_forward, SwiGLUFeedForward)


def test_rope_adds_nothing_to_the_embeddings():
    """With RoPE the positions enter only as rotations of queries and keys: one token
    repeated has the same vector at every position before the first layer, while the
    sinusoidal table makes each position differ."""
    same = torch.full((1, 6), 7)
    rope, sinusoidal = tiny(position="rope").embed(same), tiny().embed(same)  # (1, 6, D)
    torch.testing.assert_close(rope, rope[:, :1].expand_as(rope))
    assert not torch.allclose(sinusoidal, sinusoidal[:, :1].expand_as(sinusoidal))


def test_without_biases_no_bias_is_left():
    """Biases start at 0, so at initialisation the outputs are those of the baseline; the
    parameters are not."""
    names = [n for n, _ in tiny(bias=False).named_parameters()]
    assert names and not [n for n in names if n.endswith("bias")]
    torch.testing.assert_close(tiny(bias=False)(ids()), tiny()(ids()))


def test_a_position_never_sees_later_tokens():
    model, tokens = tiny(modern(**TINY)), ids()
    changed = tokens.clone()
    changed[:, 5:] = 3
    torch.testing.assert_close(model(changed)[:, :5], model(tokens)[:, :5])


@pytest.mark.parametrize("config", [modern(**TINY), VariantConfig(**TINY)],
                         ids=["modern", "baseline"])
def test_writing_with_the_cache_gives_the_full_forwards_log_probabilities(config):
    """GQA + RoPE (modern) and the baseline: a prompt, then one token at a time, the same
    log-probabilities as the whole sequence at once; and generate() writes the same."""
    model, tokens = tiny(config), ids()
    full = model(tokens)
    cache = model.new_cache()
    steps = [model(tokens[:, :4], cache=cache)]
    steps += [model(tokens[:, t:t + 1], cache=cache) for t in range(4, tokens.shape[1])]
    torch.testing.assert_close(torch.cat(steps, dim=1), full, atol=1e-12, rtol=1e-12)
    prompt = [1, 5, 6]
    assert (generate(model, prompt, 6, use_cache=True)
            == generate(model, prompt, 6, use_cache=False))


def test_bad_configurations_are_named():
    with pytest.raises(ValueError, match="norm must be one of"):
        VariantConfig(norm="batch")
    with pytest.raises(ValueError, match="n_kv_heads must be None or a positive int "
                       "dividing h=4"):
        VariantConfig(n_kv_heads=3)
    with pytest.raises(TypeError, match="bias must be True or False"):
        VariantConfig(bias=0)
    with pytest.raises(ValueError, match="d_model=130 is not divisible by h=4"):
        VariantConfig(d_model=130)
    with pytest.raises(TypeError, match="config must be a VariantConfig"):
        VariantDecoder(DecoderOnlyConfig())
    assert dataclasses.replace(modern(), bias=True).bias
