"""Tests for illustrated.layers (chapters 8-9), with PyTorch's Transformer layers as reference."""
import math

import pytest
import torch
from torch import nn

from illustrated.interop import from_torch
from illustrated.layers import (
    DecoderLayer,
    EncoderLayer,
    Embeddings,
    PositionwiseFeedForward,
    SublayerConnection,
)
from illustrated.masks import subsequent_mask, to_torch_blocked

D, H, D_FF = 16, 4, 32
TOL = dict(atol=1e-10, rtol=1e-10)


def key_padding(lengths, size):
    """True on padded positions (torch's convention), shape (B, size)."""
    return torch.arange(size).unsqueeze(0) >= torch.tensor(lengths).unsqueeze(1)  # (B, size)


def torch_layer(cls, norm_first, **kwargs):
    options = dict(dim_feedforward=D_FF, dropout=0.1, batch_first=True, norm_first=norm_first,
                   dtype=torch.float64)
    return cls(D, H, **{**options, **kwargs}).eval()


# ----------------------------------------------------------------- small parts


def test_embeddings_scale_by_sqrt_d_model():
    torch.manual_seed(0)
    emb = Embeddings(10, D)
    tokens = torch.tensor([[1, 2, 3], [9, 0, 0]])
    out = emb(tokens)
    assert out.shape == (2, 3, D)
    torch.testing.assert_close(out, emb.embedding.weight[tokens] * math.sqrt(D))


def test_embedding_table_starts_with_rows_of_length_about_one():
    torch.manual_seed(0)
    emb = Embeddings(2000, 256)
    assert abs(emb.embedding.weight.std().item() - 256 ** -0.5) < 0.02 * 256 ** -0.5
    assert abs(emb.embedding.weight.norm(dim=-1).mean().item() - 1.0) < 0.05


def test_embeddings_refuse_bad_tokens():
    emb = Embeddings(10, D)
    with pytest.raises(TypeError, match=r"tokens must hold integer ids, got dtype torch.float32"):
        emb(torch.zeros(2, 3))
    with pytest.raises(ValueError, match=r"tokens must be 2-D"):
        emb(torch.zeros(3, dtype=torch.long))
    with pytest.raises(ValueError,
                       match=r"tokens must be token ids in \[0, vocab=10\), got ids from 0 to 10"):
        emb(torch.tensor([[0, 10]]))
    with pytest.raises(ValueError, match=r"tokens must be token ids in \[0, vocab=10\), got ids "
                                         r"from -1 to 2"):
        emb(torch.tensor([[-1, 2]]))
    with pytest.raises(ValueError, match=r"^src must be token ids in \[0, vocab=10\)"):
        Embeddings(10, D, name="src")(torch.tensor([[0, 10]]))
    with pytest.raises(ValueError, match=r"vocab must be positive"):
        Embeddings(0, D)


def test_feed_forward_is_relu_between_two_linears():
    torch.manual_seed(0)
    ff = PositionwiseFeedForward(D, D_FF, dropout=0.0).double()
    x = torch.randn(2, 5, D, dtype=torch.float64)
    w1, b1 = ff.linear1.weight, ff.linear1.bias
    w2, b2 = ff.linear2.weight, ff.linear2.bias
    expected = torch.clamp(x @ w1.T + b1, min=0) @ w2.T + b2  # max(0, x W1 + b1) W2 + b2
    torch.testing.assert_close(ff(x), expected, **TOL)
    with pytest.raises(ValueError, match=r"x must have shape \(B, L, d_model=16\), got \(2, 5, 8"):
        ff(torch.randn(2, 5, 8))


@pytest.mark.parametrize("norm_first", [False, True])
def test_sublayer_connection_formulas(norm_first):
    torch.manual_seed(0)
    sub = SublayerConnection(D, dropout=0.0, norm_first=norm_first)
    x = torch.randn(2, 3, D)
    double = lambda y: 2 * y  # noqa: E731  a sub-layer simple enough to check by hand
    ln = lambda y: nn.functional.layer_norm(y, (D,), eps=1e-5)  # noqa: E731  fresh LayerNorm
    expected = x + 2 * ln(x) if norm_first else ln(x + 2 * x)
    torch.testing.assert_close(sub(x, double), expected)


# ----------------------------------------------------------------- parity with torch


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_matches_torch(norm_first):
    torch.manual_seed(0)
    ref = torch_layer(nn.TransformerEncoderLayer, norm_first)
    ours = from_torch(ref)
    assert not ours.training and ours.sublayer1.norm_first == norm_first
    x = torch.randn(3, 6, D, dtype=torch.float64)
    pad = key_padding([6, 4, 1], 6)  # (B, S), True = padding
    expected = ref(x, src_key_padding_mask=pad)
    got = ours(x, mask=~pad.unsqueeze(1))  # (B, 1, S), True = may attend
    torch.testing.assert_close(got, expected, **TOL)
    torch.testing.assert_close(ours(x), ref(x), **TOL)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_matches_torch(norm_first):
    torch.manual_seed(1)
    ref = torch_layer(nn.TransformerDecoderLayer, norm_first)
    ours = from_torch(ref)
    T, S = 5, 7
    x = torch.randn(3, T, D, dtype=torch.float64)
    memory = torch.randn(3, S, D, dtype=torch.float64)
    causal = subsequent_mask(T)  # (1, T, T), True = may attend
    tgt_pad, mem_pad = key_padding([5, 3, 2], T), key_padding([7, 2, 5], S)
    expected = ref(x, memory, tgt_mask=to_torch_blocked(causal[0]),
                   tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=mem_pad)
    got = ours(x, memory, src_mask=~mem_pad.unsqueeze(1),  # (B, 1, S)
               tgt_mask=~tgt_pad.unsqueeze(1) & causal)  # (B, T, T)
    assert got.shape == (3, T, D)
    torch.testing.assert_close(got, expected, **TOL)


# ----------------------------------------------------------------- properties


def test_causal_mask_hides_the_future_from_the_decoder():
    torch.manual_seed(2)
    layer = DecoderLayer(D, H, D_FF).double().eval()
    T, t = 6, 3
    x = torch.randn(2, T, D, dtype=torch.float64)
    memory = torch.randn(2, 4, D, dtype=torch.float64)
    changed = x.clone()
    changed[:, t:] = torch.randn(2, T - t, D, dtype=torch.float64)
    out, out_changed = (layer(y, memory, tgt_mask=subsequent_mask(T)) for y in (x, changed))
    torch.testing.assert_close(out_changed[:, :t], out[:, :t], **TOL)
    assert not torch.allclose(out_changed[:, t:], out[:, t:])
    # without the mask the past does see the future
    assert not torch.allclose(layer(changed, memory)[:, :t], layer(x, memory)[:, :t])


def test_encoder_padding_mask_hides_padded_keys():
    torch.manual_seed(3)
    layer = EncoderLayer(D, H, D_FF).double().eval()
    x = torch.randn(1, 5, D, dtype=torch.float64)
    changed = x.clone()
    changed[:, 3:] = torch.randn(1, 2, D, dtype=torch.float64)  # the "padding" positions
    mask = torch.tensor([[[True, True, True, False, False]]])  # (1, 1, 5)
    torch.testing.assert_close(layer(changed, mask)[:, :3], layer(x, mask)[:, :3], **TOL)


# ----------------------------------------------------------------- errors


def test_layer_input_errors():
    enc, dec = EncoderLayer(D, H, D_FF), DecoderLayer(D, H, D_FF)
    x, memory = torch.randn(2, 5, D), torch.randn(2, 7, D)
    with pytest.raises(ValueError, match=r"x must be 3-D, got 2-D"):
        enc(torch.randn(5, D))
    with pytest.raises(ValueError, match=r"x must have shape \(B, L, d_model=16\)"):
        enc(torch.randn(2, 5, 8))
    with pytest.raises(TypeError, match=r"x must be a floating-point tensor"):
        enc(torch.ones(2, 5, D, dtype=torch.long))
    with pytest.raises(TypeError, match=r"mask must be a bool tensor"):
        enc(x, torch.ones(2, 1, 5))
    with pytest.raises(ValueError, match=r"mask of shape \(2, 1, 4\) does not broadcast"):
        enc(x, torch.ones(2, 1, 4, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"x and memory must have the same batch size B"):
        dec(x, torch.randn(3, 7, D))
    with pytest.raises(ValueError, match=r"memory must have shape \(B, L, d_model=16\)"):
        dec(x, torch.randn(2, 7, 8))
    with pytest.raises(ValueError, match=r"src_mask of shape \(2, 1, 5\) does not broadcast"):
        dec(x, memory, src_mask=torch.ones(2, 1, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"tgt_mask of shape \(1, 7, 7\)"):
        dec(x, memory, tgt_mask=subsequent_mask(7))


def test_constructor_errors():
    with pytest.raises(ValueError, match=r"d_model=30 is not divisible by h=4 heads"):
        EncoderLayer(30, 4, D_FF)
    with pytest.raises(ValueError, match=r"d_ff must be positive, got d_ff=0"):
        DecoderLayer(D, H, 0)
    with pytest.raises(ValueError, match=r"dropout must be in \[0, 1\)"):
        EncoderLayer(D, H, D_FF, dropout=1.5)
