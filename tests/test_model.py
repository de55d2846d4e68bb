"""Tests for illustrated.model (chapters 1 and 9)."""
import dataclasses
import math

import pytest
import torch
from torch import nn

from illustrated.counting import count_parameters
from illustrated.interop import from_torch
from illustrated.masks import padding_mask
from illustrated.model import Encoder, ModelConfig, Transformer, make_model, make_std_masks

TOL = dict(atol=1e-10, rtol=1e-10)


def tiny_model(seed=0, **overrides):
    return Transformer(ModelConfig.tiny(**overrides), torch.Generator().manual_seed(seed))


def batch(B=3, S=7, T=5, vocab=16, seed=0):
    """Source and target ids without padding (ids 1..vocab-1; 0 is the pad id)."""
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(1, vocab, (B, S), generator=g)  # (B, S)
    tgt = torch.randint(1, vocab, (B, T), generator=g)  # (B, T)
    return src, tgt


# ----------------------------------------------------------------- shapes and outputs


def test_shapes_through_make_model():
    model = make_model(11, 13, N=2, d_model=32, d_ff=64, h=4, dropout=0.0, seed=0)
    src, tgt = batch(B=3, S=7, T=5, vocab=11)
    src_mask, tgt_mask = make_std_masks(src, tgt)
    memory = model.encode(src, src_mask)
    assert memory.shape == (3, 7, 32)
    assert model.decode(memory, src_mask, tgt, tgt_mask).shape == (3, 5, 32)
    assert model(src, tgt, src_mask, tgt_mask).shape == (3, 5, 13)


def test_outputs_are_log_probabilities():
    model = tiny_model().eval()
    src, tgt = batch()
    logp = model(src, tgt, *make_std_masks(src, tgt))
    assert (logp <= 0).all()
    torch.testing.assert_close(logp.logsumexp(dim=-1), torch.zeros(3, 5), atol=1e-5, rtol=0)


def test_make_std_masks():
    src = torch.tensor([[4, 5, 0]])
    tgt = torch.tensor([[1, 2, 0]])
    src_mask, tgt_mask = make_std_masks(src, tgt, pad_id=0)
    assert torch.equal(src_mask, torch.tensor([[[True, True, False]]]))
    expected = torch.tensor([[[True, False, False], [True, True, False], [True, True, False]]])
    assert torch.equal(tgt_mask, expected)


# ----------------------------------------------------------------- properties


@pytest.mark.parametrize("norm_first", [False, True])
def test_changing_a_target_token_leaves_earlier_outputs_unchanged(norm_first):
    model = tiny_model(norm_first=norm_first).double().eval()
    src, tgt = batch(T=6)
    t = 3
    changed = tgt.clone()
    changed[:, t] = (tgt[:, t] % 15) + 1  # a different non-pad id
    out, out_changed = (model(src, y, *make_std_masks(src, y)) for y in (tgt, changed))
    torch.testing.assert_close(out_changed[:, :t], out[:, :t], **TOL)
    assert not torch.allclose(out_changed[:, t:], out[:, t:])


def test_changing_a_padded_source_token_changes_nothing():
    model = tiny_model().double().eval()
    src, tgt = batch(S=7)
    src[:, 5:] = 0  # the last two source positions are padding
    src_mask, tgt_mask = make_std_masks(src, tgt)
    changed = src.clone()
    changed[:, 5:] = torch.tensor([[3, 9]])  # new ids where the padding was; same masks
    out = model(src, tgt, src_mask, tgt_mask)
    torch.testing.assert_close(model(changed, tgt, src_mask, tgt_mask), out, **TOL)
    # without the mask the decoder does read those positions
    assert not torch.allclose(model(changed, tgt, None, tgt_mask), model(src, tgt, None, tgt_mask))


def test_deterministic_in_eval_mode_and_random_in_training():
    model = tiny_model(dropout=0.3)
    src, tgt = batch()
    masks = make_std_masks(src, tgt)
    model.eval()
    assert torch.equal(model(src, tgt, *masks), model(src, tgt, *masks))
    model.train()
    torch.manual_seed(0)
    assert not torch.equal(model(src, tgt, *masks), model(src, tgt, *masks))


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_stack_matches_torch(norm_first):
    torch.manual_seed(0)
    D, N = 16, 2
    layer = nn.TransformerEncoderLayer(D, 4, 32, batch_first=True, norm_first=norm_first,
                                       dtype=torch.float64)
    final = nn.LayerNorm(D, dtype=torch.float64) if norm_first else None
    ref = nn.TransformerEncoder(layer, N, norm=final, enable_nested_tensor=False).eval()
    ours = Encoder(N, D, 4, 32, norm_first=norm_first).double().eval()
    ours.layers = nn.ModuleList(from_torch(m) for m in ref.layers)
    if norm_first:
        ours.norm.load_state_dict(final.state_dict())
    x = torch.randn(2, 6, D, dtype=torch.float64)
    pad = torch.tensor([[False] * 6, [False] * 4 + [True] * 2])  # torch: True = padding
    torch.testing.assert_close(ours(x, ~pad.unsqueeze(1)), ref(x, src_key_padding_mask=pad), **TOL)


# ----------------------------------------------------------------- initialisation, parameters


def test_same_seed_same_model_without_touching_the_global_seed():
    torch.manual_seed(123)
    a = make_model(10, 10, N=1, d_model=16, d_ff=32, h=2, seed=7)
    b = make_model(10, 10, N=1, d_model=16, d_ff=32, h=2, seed=7)
    c = make_model(10, 10, N=1, d_model=16, d_ff=32, h=2, seed=8)
    assert torch.initial_seed() == 123
    for (name, p), q, r in zip(a.named_parameters(), b.parameters(), c.parameters()):
        assert torch.equal(p, q), name
        assert p.dim() == 1 or not torch.equal(p, r), name


def test_initialisation_is_xavier_uniform_with_zero_biases():
    model = tiny_model()
    for name, p in model.named_parameters():
        if name.endswith("embedding.weight"):  # N(0, 1/d_model), see the next test
            continue
        if p.dim() == 2:
            bound = (6.0 / sum(p.shape)) ** 0.5
            assert p.abs().max() <= bound and p.abs().max() > 0.9 * bound, name
        elif name.endswith("bias"):
            assert torch.equal(p, torch.zeros_like(p)), name
        else:  # LayerNorm gains
            assert torch.equal(p, torch.ones_like(p)), name


def test_scaled_embedding_rows_match_positional_rows():
    # Chapter 7's argument: embedding rows of length ~1, times sqrt(d_model), against
    # positional rows of length sqrt(d_model / 2); Xavier on a (37000, 512) table would
    # give scaled rows of length ~3.7 instead of ~22.6.
    D = 512
    model = Transformer(ModelConfig(src_vocab=4000, tgt_vocab=4000, d_model=D, N=1),
                        generator=torch.Generator().manual_seed(0))
    for embed in (model.src_embed[0], model.tgt_embed[0]):
        rows = (embed.embedding.weight * math.sqrt(D)).norm(dim=-1)  # (V,)
        assert abs(rows.mean().item() - math.sqrt(D)) < 0.05 * math.sqrt(D)
    pe_rows = model.src_embed[1].pe[0, :100].norm(dim=-1)  # (100,)
    torch.testing.assert_close(pe_rows, torch.full_like(pe_rows, math.sqrt(D / 2)))


def expected_parameter_count(c: ModelConfig) -> int:
    D, V_s, V_t = c.d_model, c.src_vocab, c.tgt_vocab
    attention = 4 * (D * D + D)  # W^Q, W^K, W^V, W^O with biases
    feed_forward = (D * c.d_ff + c.d_ff) + (c.d_ff * D + D)
    norm = 2 * D  # gain and bias
    encoder = c.N * (attention + feed_forward + 2 * norm)
    decoder = c.N * (2 * attention + feed_forward + 3 * norm)
    final_norms = 2 * norm if c.norm_first else 0
    return (V_s + V_t) * D + encoder + decoder + final_norms + (D * V_t + V_t)


@pytest.mark.parametrize(
    "config",
    [ModelConfig(), ModelConfig.tiny(), ModelConfig.tiny(norm_first=True)],
    ids=["paper-base", "tiny", "tiny-pre-norm"],
)
def test_parameter_count_matches_the_formula(config):
    with torch.device("meta"):  # count the paper's model without allocating 400 MB
        model = Transformer(config)
    assert count_parameters(model) == expected_parameter_count(config)
    assert count_parameters(model) == sum(p.numel() for p in model.parameters())
    if config == ModelConfig():
        # the encoder and decoder stacks alone: about 44 million
        assert count_parameters(model.encoder) + count_parameters(model.decoder) == 44_138_496


# ----------------------------------------------------------------- config and errors


def test_config_defaults_are_the_paper_base_model():
    c = ModelConfig()
    assert (c.N, c.d_model, c.d_ff, c.h, c.dropout, c.norm_first) == (6, 512, 2048, 8, 0.1, False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.N = 2


def test_tiny_preset_and_overrides():
    c = ModelConfig.tiny(N=1, norm_first=True)
    assert (c.N, c.norm_first, c.d_model, c.h) == (1, True, 32, 4)
    assert ModelConfig.tiny().dropout == 0.0
    with pytest.raises(TypeError, match=r"unknown ModelConfig field\(s\) \['layers'\]"):
        ModelConfig.tiny(layers=3)


@pytest.mark.parametrize(
    "overrides, error, match",
    [
        (dict(d_model=30, h=4), ValueError, r"d_model=30 is not divisible by h=4 heads"),
        (dict(d_model=9, h=3), ValueError, r"d_model must be even"),
        (dict(N=0), ValueError, r"N must be positive, got N=0"),
        (dict(d_ff=2.5), TypeError, r"d_ff must be an int"),
        (dict(dropout=1.0), ValueError, r"dropout must be in \[0, 1\)"),
        (dict(pad_id=16), ValueError, r"pad_id=16 must be a token id of both vocabularies"),
        (dict(norm_first="yes"), TypeError, r"norm_first must be True or False"),
        (dict(src_vocab=-1), ValueError, r"src_vocab must be positive"),
    ],
)
def test_config_validation(overrides, error, match):
    with pytest.raises(error, match=match):
        ModelConfig.tiny(**overrides)


def test_model_input_errors():
    model = tiny_model()
    src, tgt = batch(B=3)
    with pytest.raises(ValueError, match=r"src and tgt must have the same batch size B"):
        model(src, tgt[:2])
    with pytest.raises(ValueError, match=r"src must be token ids in \[0, vocab=16\)"):
        model(src + 16, tgt)
    with pytest.raises(TypeError, match=r"src must hold integer ids"):
        model(src.float(), tgt)
    with pytest.raises(ValueError, match=r"longer than max_len=64"):
        model(src, torch.ones(3, 65, dtype=torch.long))
    with pytest.raises(TypeError, match=r"config must be a ModelConfig, got dict"):
        Transformer(dict(N=2))
    with pytest.raises(ValueError, match=r"src_mask of shape"):
        model(src, tgt, src_mask=padding_mask(src[:, :4]))


def test_shared_embeddings_are_one_matrix_and_keys_do_not_change():
    plain = Transformer(ModelConfig.tiny())
    shared = Transformer(ModelConfig.tiny(share_embeddings=True))
    assert list(plain.state_dict()) == list(shared.state_dict())
    w = shared.src_embed[0].embedding.weight
    assert shared.tgt_embed[0].embedding.weight is w and shared.generator.proj.weight is w
    n = sum(p.numel() for p in shared.parameters())
    assert n == sum(p.numel() for p in plain.parameters()) - 2 * w.numel()
    with pytest.raises(ValueError, match="share_embeddings needs one vocabulary"):
        ModelConfig.tiny(share_embeddings=True, tgt_vocab=17)
    with pytest.raises(TypeError, match="share_embeddings must be True or False"):
        ModelConfig.tiny(share_embeddings=1)
    src = torch.tensor([[1, 5, 2]])
    assert shared(src, src).shape == (1, 3, 16)
