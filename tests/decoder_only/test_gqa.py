"""Tests for illustrated.decoder_only.gqa: grouped-query attention against the book's
multi-head attention and PyTorch's kernel, its cache, RoPE on queries and keys only."""
import pytest
import torch
import torch.nn.functional as F

from illustrated.attention import MultiHeadAttention
from illustrated.decoder_only.gqa import GroupedQueryAttention, cache_bytes
from illustrated.decoder_only.rope import apply_rope
from illustrated.kv_cache import KVCache
from illustrated.masks import padding_mask, subsequent_mask

F64 = torch.float64
D, H, T = 16, 4, 7


def gqa(n_kv=None, rope=False, seed=0, bias=True):
    torch.manual_seed(seed)
    return GroupedQueryAttention(D, H, n_kv, bias=bias, rope=rope).double().eval()


def stream(B=2, seed=1):
    return torch.randn(B, T, D, generator=torch.Generator().manual_seed(seed), dtype=F64)


def test_with_h_kv_heads_it_is_the_books_multi_head_attention():
    """n_kv_heads = h: MultiHeadAttention's weights load by name, and under the causal
    mask (as is_causal or as a tensor) and a padding mask the outputs are equal."""
    torch.manual_seed(0)
    mha = MultiHeadAttention(D, H).double().eval()
    ours = gqa()
    ours.load_state_dict(mha.state_dict())
    x, causal = stream(), subsequent_mask(T)
    tokens = torch.tensor([[5] * T, [5] * 4 + [0] * 3])
    both = causal & padding_mask(tokens)  # (B, T, T)
    close = dict(atol=1e-12, rtol=1e-12)
    torch.testing.assert_close(ours(x, is_causal=True), mha(x, x, x, causal), **close)
    torch.testing.assert_close(ours(x, causal), mha(x, x, x, causal), **close)
    torch.testing.assert_close(ours(x, both), mha(x, x, x, both), **close)


@pytest.mark.parametrize("n_kv", [1, 2, 4])
def test_equals_torch_scaled_dot_product_attention_with_enable_gqa(n_kv):
    """The key/value heads shared as PyTorch shares them: query head j reads kv head
    j // (h / n_kv) (n_kv = 1: multi-query attention)."""
    ours, x = gqa(n_kv), stream()
    B, d_k = x.shape[0], D // H
    q = ours.w_q(x).view(B, T, H, d_k).transpose(1, 2)  # (B, H, T, Dk)
    k = ours.w_k(x).view(B, T, n_kv, d_k).transpose(1, 2)  # (B, Hkv, T, Dk)
    v = ours.w_v(x).view(B, T, n_kv, d_k).transpose(1, 2)  # (B, Hkv, T, Dk)
    z = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    expected = ours.w_o(z.transpose(1, 2).reshape(B, T, D))
    torch.testing.assert_close(ours(x, is_causal=True), expected, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("n_kv,rope", [(4, False), (2, True), (1, True)])
def test_writing_with_the_cache_equals_the_full_forward(n_kv, rope):
    """The prompt in one call, then one position at a time, then two at once: the same
    outputs as one causal call on the whole sequence."""
    ours, x = gqa(n_kv, rope), stream()
    full = ours(x, is_causal=True)
    cache = KVCache()
    parts = [ours(x[:, :3], cache=cache, is_causal=True)]
    parts += [ours(x[:, t:t + 1], cache=cache, is_causal=True) for t in (3, 4)]
    parts.append(ours(x[:, 5:], cache=cache, is_causal=True))
    torch.testing.assert_close(torch.cat(parts, dim=1), full, atol=1e-12, rtol=1e-12)


def test_the_cache_holds_rotated_keys_and_plain_values_of_the_kv_heads_only():
    """RoPE turns queries and keys, never values; the cache holds n_kv heads, the keys
    rotated at their own positions."""
    ours, x = gqa(2, rope=True), stream()
    cache = KVCache()
    ours(x, cache=cache, is_causal=True)
    B, d_k = x.shape[0], D // H
    k = ours.w_k(x).view(B, T, 2, d_k).transpose(1, 2)  # (B, Hkv, T, Dk)
    v = ours.w_v(x).view(B, T, 2, d_k).transpose(1, 2)  # (B, Hkv, T, Dk)
    assert cache.k.shape == (B, 2, T, d_k)
    torch.testing.assert_close(cache.k, apply_rope(k), atol=1e-14, rtol=0)
    torch.testing.assert_close(cache.v, v, atol=0, rtol=0)


@pytest.mark.parametrize("n_kv", [1, 2])
def test_the_cache_is_h_over_n_kv_times_smaller(n_kv):
    x = stream()
    sizes = {}
    for heads in (H, n_kv):
        caches = [KVCache()]
        gqa(heads)(x, cache=caches[0], is_causal=True)
        sizes[heads] = cache_bytes(caches)
    assert sizes[H] == 2 * x.shape[0] * T * D * 8  # keys and values, float64
    assert sizes[H] / sizes[n_kv] == H / n_kv


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="n_kv_heads=3 must divide h=4"):
        GroupedQueryAttention(D, H, 3)
    with pytest.raises(ValueError, match="either is_causal=True or a mask"):
        gqa()(stream(), subsequent_mask(T), is_causal=True)
    with pytest.raises(ValueError, match="does not broadcast"):
        gqa()(stream(), subsequent_mask(T + 1))
    with pytest.raises(ValueError, match="d_k = d_model / h = 3 must be even"):
        GroupedQueryAttention(12, 4, rope=True)
