"""Attention. Introduced in chapter 3, Self-attention and Q, K, V; scaled in chapter 4;
split into heads in chapter 5.

``scaled_dot_product_attention`` is the formula of the paper,
``softmax(Q K^T / sqrt(d_k)) V``; ``MultiHeadAttention`` runs ``h`` of them side by side
on learned projections and mixes the results with ``W^O``.

For decoding one token at a time, a :class:`~illustrated.kv_cache.KVCache` keeps the keys
and values a ``MultiHeadAttention`` has already projected (:meth:`MultiHeadAttention.keys_values`;
see :mod:`illustrated.decoding`).

``MultiHeadAttention(..., need_weights=False)`` (or ``model.keep_attention_weights(False)``)
takes a memory-lean path: :func:`lean_attention` hands the same computation to PyTorch's
fused ``F.scaled_dot_product_attention`` and keeps no weights. The teaching path, which
keeps them for the figures, stays the default; the tests prove both equal. The fast path
that serves readers, with the three input projections stacked in one matrix as PyTorch
stores them, is :mod:`illustrated.fused`.

Inputs are checked once, at the door (``checked_at_the_door``):
by the outermost call a reader makes, not again by the calls it makes inside.

Masks follow the package convention (bool, ``True`` = may attend; see
:mod:`illustrated.masks`). A query row whose keys are *all* blocked gets weights of exactly
0 and an output of 0, not NaN: it has nothing to look at, so it reads nothing.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ._attention_checks import check_attention_inputs, check_sdpa_inputs
from ._checks import check_dropout, check_heads, checked_at_the_door
from .kv_cache import KVCache  # noqa: F401 (chapter 10 imports it from here)


@checked_at_the_door(check_sdpa_inputs)
def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    """Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V.

    Args:
        query: ``(..., L, Dk)``.
        key: ``(..., S, Dk)``.
        value: ``(..., S, Dv)``.
        mask: optional bool tensor broadcasting to ``(..., L, S)``; ``True`` = may attend.
        dropout: optional module (e.g. ``nn.Dropout``) applied to the weights.

    Returns:
        ``(output, weights)``: output ``(..., L, Dv)``, weights ``(..., L, S)`` whose rows
        sum to 1 (or are all 0 where every key is blocked). With ``dropout`` in training
        mode the weights returned are the dropped-out ones actually used, as in PyTorch.
    """
    d_k = query.shape[-1]
    # Dividing Q by sqrt(d_k) before the product equals dividing the scores after it, and
    # touches L x Dk numbers instead of L x S: at long lengths a pass fewer over the scores.
    scores = (query / math.sqrt(d_k)) @ key.transpose(-2, -1)  # (..., L, S)
    if mask is not None:
        # The most negative finite number, not -inf: a fully blocked row then gives a
        # uniform softmax (no NaN), which the line after the softmax sets to 0.
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    weights = scores.softmax(dim=-1)  # (..., L, S)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)
    if dropout is not None:
        weights = dropout(weights)
    return weights @ value, weights  # (..., L, Dv), (..., L, S)


def lean_attention(query, key, value, mask=None, dropout_p: float = 0.0):
    """The output of :func:`scaled_dot_product_attention` through PyTorch's fused kernel,
    which need not hold all the ``(..., L, S)`` weights at once; the weights are not returned.

    ``F.scaled_dot_product_attention`` reads a bool mask as we do (True = may attend), but
    some versions give NaN where a query row may attend to nothing. Such rows are opened to
    every key for the kernel and their output is set to 0 afterwards, as the teaching path
    promises (their gradients are then 0 too); no value is read back to the host to find
    them. Shapes as :func:`scaled_dot_product_attention`; ``dropout_p`` is the kernel's
    dropout probability.
    """
    if mask is None:
        return F.scaled_dot_product_attention(query, key, value, dropout_p=dropout_p)
    blind = ~mask.any(dim=-1, keepdim=True)  # (..., L, 1): rows with nothing to look at
    z = F.scaled_dot_product_attention(query, key, value, attn_mask=mask | blind,
                                       dropout_p=dropout_p)  # (..., L, Dv)
    return z.masked_fill(blind, 0.0)  # (..., L, Dv)


class MultiHeadAttention(nn.Module):
    """Multi-head attention, batch-first (chapter 5).

    ``MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O`` with
    ``head_i = Attention(Q W^Q_i, K W^K_i, V W^V_i)``. The ``h`` per-head projections of
    width ``d_k = d_model / h`` are stored side by side in one ``d_model x d_model``
    linear layer each for Q, K and V.

    Args:
        d_model: width of the token vectors.
        h: number of heads; must divide ``d_model``.
        dropout: dropout probability on the attention weights.
        bias: whether the four projections have a bias.
        need_weights: ``True`` (the default, the teaching path) computes the weights with
            :func:`scaled_dot_product_attention` and keeps them in
            ``self.attention_weights`` ``(B, H, L, S)`` after each call. ``False`` takes the
            memory-lean path, :func:`lean_attention`: the same output and gradients
            (tests prove it), no weights kept (``attention_weights`` is ``None``).
    """

    def __init__(self, d_model: int, h: int, dropout: float = 0.0, bias: bool = True,
                 need_weights: bool = True):
        super().__init__()
        check_heads(d_model, h)
        check_dropout(dropout)
        if not isinstance(need_weights, bool):
            raise TypeError(f"need_weights must be True or False, got {need_weights!r}")
        self.d_model, self.h, self.d_k = d_model, h, d_model // h
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)
        self.need_weights = need_weights
        self.attention_weights = None

    @checked_at_the_door(check_attention_inputs)
    def forward(self, query, key, value, mask=None, cache=None):
        """Args: query ``(B, L, D)``; key, value ``(B, S, D)``; mask broadcasting to
        ``(B, L, S)`` (2-D or 3-D; the same for every head) or ``(B, H, L, S)``;
        cache: optional :class:`~illustrated.kv_cache.KVCache` for decoding one token at a
        time (see :meth:`keys_values`). Returns: ``(B, L, D)``."""
        B, L, _ = query.shape
        if mask is not None and mask.dim() < 4:
            mask = mask.unsqueeze(-3)  # (B, 1, L, S): the same mask for every head
        # 1) project, 2) split into h heads of width d_k
        q = self._split(self.w_q(query))  # (B, H, L, Dk)
        k, v = self.keys_values(key, value, cache)  # (B, H, S, Dk) each
        # 3) attend in every head at once
        if self.need_weights:
            z, weights = scaled_dot_product_attention(q, k, v, mask, self.dropout)
            self.attention_weights = weights.detach()  # (B, H, L, S)
        else:
            p = self.dropout.p if self.training else 0.0
            z = lean_attention(q, k, v, mask, p)  # (B, H, L, Dk)
            self.attention_weights = None
        # 4) merge the heads: their outputs side by side
        z = z.transpose(1, 2).reshape(B, L, self.d_model)  # (B, L, D)
        # 5) output projection W^O
        return self.w_o(z)  # (B, L, D)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        B, n, _ = x.shape
        return x.view(B, n, self.h, self.d_k).transpose(1, 2)  # (B, H, n, Dk)

    def keys_values(self, key, value, cache=None):
        """K and V projected and split into heads, ``(B, H, S, Dk)`` each. With a
        :class:`~illustrated.kv_cache.KVCache`, those of the earlier steps come first
        (self-attention), or the memory's are reused as the first step projected them
        (encoder-decoder attention)."""
        if cache is not None and cache.holds_memory():
            return cache.k, cache.v  # (B, H, S, Dk) each
        k = self._split(self.w_k(key))  # (B, H, S, Dk)
        v = self._split(self.w_v(value))  # (B, H, S, Dk)
        return (k, v) if cache is None else cache.update(k, v)

    @classmethod
    def from_torch(cls, m: nn.MultiheadAttention) -> "MultiHeadAttention":
        """Build a ``MultiHeadAttention`` holding the weights of a
        ``torch.nn.MultiheadAttention`` (either ``batch_first``), so both compute the same."""
        if not isinstance(m, nn.MultiheadAttention):
            raise TypeError(f"expected torch.nn.MultiheadAttention, got {type(m).__name__}")
        if m.bias_k is not None or m.add_zero_attn:
            raise ValueError("add_bias_kv and add_zero_attn have no counterpart here")
        if not m._qkv_same_embed_dim:
            raise ValueError(
                f"kdim={m.kdim} and vdim={m.vdim} must equal embed_dim={m.embed_dim}"
            )
        bias = m.in_proj_bias is not None
        ours = cls(m.embed_dim, m.num_heads, dropout=m.dropout, bias=bias)
        # Move to m's dtype *before* copying: copying float64 weights into the default
        # float32 parameters would round them, and the two modules would then differ.
        ours = ours.to(device=m.in_proj_weight.device, dtype=m.in_proj_weight.dtype)
        w_q, w_k, w_v = m.in_proj_weight.detach().chunk(3, dim=0)  # 3 x (D, D)
        ours_lin = (ours.w_q, ours.w_k, ours.w_v)
        with torch.no_grad():
            for lin, w in zip(ours_lin, (w_q, w_k, w_v)):
                lin.weight.copy_(w)
            ours.w_o.weight.copy_(m.out_proj.weight)
            if bias:
                for lin, b in zip(ours_lin, m.in_proj_bias.detach().chunk(3)):
                    lin.bias.copy_(b)
                ours.w_o.bias.copy_(m.out_proj.bias)
        return ours.train(m.training)  # same mode, so dropout behaves the same
