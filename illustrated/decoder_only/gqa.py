"""Grouped-query attention (GQA), multi-query attention as its extreme, and optional rotary
positions. Used by the decoder variants of :mod:`illustrated.decoder_only.variants`; the
attention it generalises is chapter 5's :class:`~illustrated.attention.MultiHeadAttention`.

Writing one token at a time, a decoder keeps the keys and values of every earlier position
(chapter 10's :class:`~illustrated.kv_cache.KVCache`): ``2 * N * h * d_k`` numbers a
position. Shazeer (2019, *Fast Transformer Decoding*) lets all ``h`` query heads share one
key head and one value head (multi-query attention, MQA); Ainslie et al. (2023, *GQA*) take
the middle road: ``n_kv_heads`` key/value heads, each shared by a group of
``h / n_kv_heads`` query heads. Query head ``j`` reads key/value head
``j // (h / n_kv_heads)``: ``repeat_interleave`` on the head axis makes that copy
(``repeat`` would give head ``j`` the key head ``j % n_kv_heads`` instead, another model).
The cache then holds ``n_kv_heads`` heads, ``h / n_kv_heads`` times fewer numbers.
``n_kv_heads = h`` is multi-head attention, ``n_kv_heads = 1`` multi-query attention.

With ``rope=True``, queries and keys (never values) are rotated by their positions
(:func:`~illustrated.decoder_only.rope.apply_rope`) before the keys enter the cache: the
cache holds keys already rotated at their own positions, and the new ones are rotated at
``P .. P + T - 1``.

Masks follow the package convention (bool, ``True`` = may attend, :mod:`illustrated.masks`).
A decoder's mask is always the causal one: ``is_causal=True`` says so without a mask, and
lets PyTorch's fused kernel skip the blocked half instead of reading a triangle.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..attention import lean_attention
from ..checks import check_dropout, check_heads, check_positive_int, check_stream
from ..kv_cache import KVCache
from ..masks import check_mask, subsequent_mask
from .rope import LAYOUTS, apply_rope


class GroupedQueryAttention(nn.Module):
    """Self-attention with ``h`` query heads and ``n_kv_heads`` key/value heads.

    Args:
        d_model: width of the token vectors.
        h: number of query heads; must divide ``d_model`` (``d_k = d_model / h``).
        n_kv_heads: number of key/value heads; must divide ``h``. ``None`` means ``h``
            (multi-head attention); 1 is multi-query attention.
        dropout: dropout probability on the attention weights.
        bias: whether the four projections have a bias (Llama's have none).
        rope: rotate queries and keys by their positions (RoPE).
        rope_base, rope_layout: RoPE's ``base`` and layout
            (:func:`~illustrated.decoder_only.rope.apply_rope`).

    The projections keep :class:`~illustrated.attention.MultiHeadAttention`'s names: with
    ``n_kv_heads = h`` its state dict loads here, and the outputs are equal.
    """

    def __init__(self, d_model: int, h: int, n_kv_heads: int | None = None,
                 dropout: float = 0.0, bias: bool = True, rope: bool = False,
                 rope_base: float = 10000.0, rope_layout: str = "interleaved"):
        super().__init__()
        n_kv_heads = h if n_kv_heads is None else n_kv_heads
        _check_gqa(d_model, h, n_kv_heads, dropout, rope, rope_layout)
        self.d_model, self.h, self.n_kv_heads, self.d_k = d_model, h, n_kv_heads, d_model // h
        self.group = h // n_kv_heads  # query heads per key/value head
        self.w_q = nn.Linear(d_model, h * self.d_k, bias=bias)  # D -> h heads
        self.w_k = nn.Linear(d_model, n_kv_heads * self.d_k, bias=bias)  # D -> n_kv heads
        self.w_v = nn.Linear(d_model, n_kv_heads * self.d_k, bias=bias)  # D -> n_kv heads
        self.w_o = nn.Linear(h * self.d_k, d_model, bias=bias)
        self.dropout = dropout
        self.rope, self.rope_base, self.rope_layout = bool(rope), rope_base, rope_layout

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None,
                cache: KVCache | None = None, is_causal: bool = False) -> torch.Tensor:
        """Args: x ``(B, T, D)``; mask: bool, broadcasting to ``(B, T, P + T)`` (2-D or
        3-D) or ``(B, H, T, P + T)``, with ``P`` positions in ``cache``; is_causal: the
        causal mask, without one (then ``mask`` must be ``None``). Returns:
        ``(B, T, D)``."""
        P = _check_call(self, x, mask, cache, is_causal)
        B, T, _ = x.shape
        # 1) project and split: h query heads, n_kv key and value heads
        q = self.w_q(x).view(B, T, self.h, self.d_k).transpose(1, 2)  # (B, H, T, Dk)
        kv_heads = (B, T, self.n_kv_heads, self.d_k)
        k = self.w_k(x).view(kv_heads).transpose(1, 2)  # (B, Hkv, T, Dk)
        v = self.w_v(x).view(kv_heads).transpose(1, 2)  # (B, Hkv, T, Dk)
        # 2) rotate queries and keys (not values) at their positions P .. P+T-1
        if self.rope:
            q = apply_rope(q, P, self.rope_base, self.rope_layout)  # (B, H, T, Dk)
            k = apply_rope(k, P, self.rope_base, self.rope_layout)  # (B, Hkv, T, Dk)
        # 3) the cache keeps the n_kv heads only (keys already rotated)
        if cache is not None:
            k, v = cache.update(k, v)  # (B, Hkv, P+T, Dk) each
        # 4) share: query head j reads key/value head j // group
        k = k.repeat_interleave(self.group, dim=1)  # (B, H, P+T, Dk)
        v = v.repeat_interleave(self.group, dim=1)  # (B, H, P+T, Dk)
        # 5) attend in every head at once, 6) merge the heads, 7) output projection
        z = self.attend(q, k, v, mask, is_causal, P)  # (B, H, T, Dk)
        z = z.transpose(1, 2).reshape(B, T, self.h * self.d_k)  # (B, T, D)
        return self.w_o(z)  # (B, T, D)

    def attend(self, q, k, v, mask, is_causal: bool, P: int) -> torch.Tensor:
        """Step 5 through PyTorch's fused kernel: ``(B, H, T, Dk)``. Causal without a cache
        takes the kernel's ``is_causal`` route; with ``P`` cached positions the new query
        ``P + i`` sees keys ``0 .. P + i`` (the kernel's ``is_causal`` aligns the triangle
        top-left, which is wrong there), so the mask is written out, except for a single
        new token, which sees every key."""
        p = self.dropout if self.training else 0.0
        if is_causal and P == 0:
            return F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
        if is_causal:
            T = q.shape[-2]
            mask = None if T == 1 else subsequent_mask(P + T, q.device)[:, P:]  # (1, T, P+T)
        if mask is not None and mask.dim() < 4:
            mask = mask.unsqueeze(-3)  # (B, 1, T, S): the same mask for every head
        return lean_attention(q, k, v, mask, p)  # (B, H, T, Dk)


def cache_bytes(caches) -> int:
    """The bytes the keys and values of a list of :class:`~illustrated.kv_cache.KVCache`
    (one per layer) hold."""
    return sum(c.k.nbytes + c.v.nbytes for c in caches if c.k is not None)


def _check_gqa(d_model, h, n_kv_heads, dropout, rope, rope_layout) -> None:
    """The checks of :class:`GroupedQueryAttention`'s arguments."""
    check_heads(d_model, h)
    check_positive_int(n_kv_heads, "n_kv_heads")
    if h % n_kv_heads:
        raise ValueError(f"n_kv_heads={n_kv_heads} must divide h={h}: each key/value head "
                         f"serves a group of h / n_kv_heads query heads")
    check_dropout(dropout)
    if rope and (d_model // h) % 2:
        raise ValueError(f"RoPE rotates pairs of dimensions: d_k = d_model / h = "
                         f"{d_model // h} must be even")
    if rope_layout not in LAYOUTS:
        raise ValueError(f"rope_layout must be one of {LAYOUTS}, got {rope_layout!r}")


def _check_call(module, x, mask, cache, is_causal) -> int:
    """The checks of :meth:`GroupedQueryAttention.forward`; returns the positions cached."""
    check_stream(x, module.d_model, like=module)
    if cache is not None and not isinstance(cache, KVCache):
        raise TypeError(f"cache must be a KVCache or None, got {type(cache).__name__}")
    P = 0 if cache is None else len(cache)
    if cache is not None and cache.k is not None and cache.k.shape[0] != x.shape[0]:
        raise ValueError(f"the cache holds keys for a batch of {cache.k.shape[0]} but x has "
                         f"B={x.shape[0]}: start a new KVCache for a new batch")
    if is_causal and mask is not None:
        raise ValueError("give either is_causal=True or a mask, not both")
    if mask is not None:
        B, T = x.shape[:2]
        check_mask(mask, (B, module.h, T, P + T) if mask.dim() == 4 else (B, T, P + T))
    return P
