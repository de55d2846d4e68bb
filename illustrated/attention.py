"""Attention. Introduced in chapter 3, Self-attention and Q, K, V; scaled in chapter 4;
split into heads in chapter 5.

``scaled_dot_product_attention`` is the formula of the paper,
``softmax(Q K^T / sqrt(d_k)) V``; ``MultiHeadAttention`` runs ``h`` of them side by side
on learned projections and mixes the results with ``W^O``. Its ``forward`` is the five
steps of chapter 5; two of them are methods that later chapters extend:
:meth:`~MultiHeadAttention.keys_values` reads and fills the key/value cache of chapter 10
(:class:`~illustrated.kv_cache.KVCache`), and :meth:`~MultiHeadAttention.attend` takes
the memory-lean path of chapter 16, What attention costs, :func:`lean_attention`, when
the module is built with ``need_weights=False`` (or a model told
``keep_attention_weights(False)``): the same output through PyTorch's fused
``F.scaled_dot_product_attention``, keeping no weights. The teaching path, which keeps
them for the figures, stays the default; the tests prove both equal. The copy in
PyTorch's layout that serves readers is :func:`illustrated.interop.fuse`.

``scaled_dot_product_attention`` and ``MultiHeadAttention.forward`` check their inputs
first, with a plain call (:func:`check_sdpa_inputs`, :func:`check_attention_inputs`, at
the end of this file): on a call they accept, shapes, dtypes and devices, never values
(only a mask refused for not being bool has its values read, to suggest the conversion).
The formula itself is ``_attention``, which ``MultiHeadAttention`` calls on the heads of
the inputs it has checked.

Masks follow the package convention (bool, ``True`` = may attend; see
:mod:`illustrated.masks`). A query row whose keys are *all* blocked gets weights of exactly
0 and an output of 0, not NaN: it has nothing to look at, so it reads nothing.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from .checks import (broadcast_shape, check_dropout, check_heads, check_like_weights,
                     check_same_dtype_and_device, check_same_width, check_tensor)
from .kv_cache import KVCache
from .masks import check_mask


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
    check_sdpa_inputs(query, key, value, mask, dropout)
    return _attention(query, key, value, mask, dropout)


def _attention(query, key, value, mask=None, dropout=None):
    """The formula of :func:`scaled_dot_product_attention`, on inputs already checked:
    :class:`MultiHeadAttention` calls it on the heads of the inputs it has checked."""
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
    dropout probability. It adds no checks to the kernel's own: its callers, the attention
    modules, have checked their inputs.
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

    def forward(self, query, key, value, mask=None, cache=None):
        """Args: query ``(B, L, D)``; key, value ``(B, S, D)``; mask broadcasting to
        ``(B, L, S)`` (2-D or 3-D; the same for every head) or ``(B, H, L, S)``; cache: for
        decoding one token at a time, see :meth:`keys_values`. Returns: ``(B, L, D)``."""
        check_attention_inputs(self, query, key, value, mask, cache)
        B, L, _ = query.shape
        # 1) project, 2) split into h heads of width d_k
        q = self.split_heads(self.w_q(query))  # (B, H, L, Dk)
        k, v = self.keys_values(key, value, cache)  # (B, H, S, Dk) each, the same way
        # 3) attend in every head at once
        z = self.attend(q, k, v, mask)  # (B, H, L, Dk)
        # 4) merge the heads: their outputs side by side
        z = z.transpose(1, 2).reshape(B, L, self.d_model)  # (B, L, D)
        # 5) output projection W^O
        return self.w_o(z)  # (B, L, D)

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        """``(B, n, D)`` to ``(B, H, n, Dk)``: head ``i`` gets the columns
        ``i * Dk .. (i + 1) * Dk - 1`` of every position."""
        B, n, _ = x.shape
        return x.view(B, n, self.h, self.d_k).transpose(1, 2)  # (B, H, n, Dk)

    def keys_values(self, key, value, cache=None):
        """Steps 1 and 2 for K and V: projected and split into heads, ``(B, H, S, Dk)``
        each. With a :class:`~illustrated.kv_cache.KVCache` (chapter 10), those of the
        earlier steps come first (self-attention), or the memory's are reused as the first
        step projected them (encoder-decoder attention)."""
        if cache is not None and cache.holds_memory():
            return cache.k, cache.v  # (B, H, S, Dk) each
        k = self.split_heads(self.w_k(key))  # (B, H, S, Dk)
        v = self.split_heads(self.w_v(value))  # (B, H, S, Dk)
        return (k, v) if cache is None else cache.update(k, v)

    def attend(self, q, k, v, mask=None):
        """Step 3 in every head at once: ``(B, H, L, Dk)``. The teaching path keeps the
        weights ``(B, H, L, S)`` in ``attention_weights``; ``need_weights=False`` takes
        the lean path of chapter 16, What attention costs, :func:`lean_attention`, which
        keeps none. ``forward`` has checked the inputs: the heads are not checked again."""
        if mask is not None and mask.dim() < 4:
            mask = mask.unsqueeze(-3)  # (B, 1, L, S): the same mask for every head
        if not self.need_weights:
            self.attention_weights = None
            return lean_attention(q, k, v, mask, self.dropout.p if self.training else 0.0)
        z, weights = _attention(q, k, v, mask, self.dropout)
        self.attention_weights = weights.detach()  # (B, H, L, S)
        return z  # (B, H, L, Dk)


# --- the checks ----------------------------------------------------------------------


def check_sdpa_inputs(query, key, value, mask, dropout) -> None:
    """Raise unless the arguments of :func:`scaled_dot_product_attention` fit together:
    float tensors of one dtype and device, ``(..., L, Dk)``, ``(..., S, Dk)``,
    ``(..., S, Dv)`` with batch axes that broadcast, and a mask for ``(..., L, S)``."""
    for name, x in (("query", query), ("key", key), ("value", value)):
        check_tensor(x, name, min_ndim=2, floating=True)
    if not (query.dtype == key.dtype == value.dtype and query.device == key.device
            == value.device):
        check_same_dtype_and_device(query=query, key=key, value=value)  # names which differ
    q, k, v = query.shape, key.shape, value.shape
    if not len(q) == len(k) == len(v):
        raise ValueError(
            "query, key and value must have the same number of dimensions, got shapes "
            f"{tuple(q)}, {tuple(k)}, {tuple(v)}"
        )
    check_same_width(query, key, "query", "key")
    if k[-2] != v[-2]:
        raise ValueError(
            "key and value must have the same length S (one value per key), got "
            f"key {tuple(k)} and value {tuple(v)}"
        )
    batch = q[:-2]
    if not batch == k[:-2] == v[:-2]:  # batch axes that differ must broadcast
        if broadcast_shape(batch, k[:-2], v[:-2]) is None:
            raise ValueError(
                "the batch dimensions of query, key and value do not match: "
                f"{tuple(q)}, {tuple(k)}, {tuple(v)}"
            )
        batch = broadcast_shape(batch, k[:-2])  # the batch axes of Q K^T
    if dropout is not None and not callable(dropout):
        raise TypeError(
            f"dropout must be a module such as nn.Dropout(p) or None, got "
            f"{type(dropout).__name__} ({dropout!r})"
        )
    if mask is not None:
        check_mask(mask, (*batch, q[-2], k[-2]))  # against (..., L, S)


def check_attention_inputs(module, query, key, value, mask, cache) -> None:
    """Raise unless the arguments of one call of a multi-head attention ``module`` (one
    with ``d_model``, ``h`` and parameters) fit it: query ``(B, L, D)``, key and value
    ``(B, S, D)`` of the module's dtype and device, a mask for the keys attended to (with
    a ``cache``, those it holds too). :class:`MultiHeadAttention` and
    :class:`~illustrated.interop.FusedAttention` share them."""
    if cache is not None and not isinstance(cache, KVCache):
        raise TypeError(f"cache must be a KVCache or None, got {type(cache).__name__}")
    # Each tensor once: self-attention passes one tensor three times, encoder-decoder
    # attention the memory twice.
    inputs = {"query": query}
    if key is not query:
        inputs["key"] = key
    if value is not key and value is not query:
        inputs["value"] = value
    for name, x in inputs.items():
        check_tensor(x, name, ndim=3, floating=True)
        if x.shape[2] != module.d_model:
            raise ValueError(f"{name} must have last dimension d_model={module.d_model}, "
                             f"got shape {tuple(x.shape)}")
    if len(inputs) > 1:
        check_same_dtype_and_device(**inputs)
    check_like_weights(module, query)
    (B, L, _), (B_k, S, _), (B_v, S_v, _) = query.shape, key.shape, value.shape
    if not B == B_k == B_v:
        raise ValueError(
            "query, key and value must have the same batch size B, got shapes "
            f"{tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}"
        )
    if S != S_v:
        raise ValueError(
            f"key and value must have the same length S, got {tuple(key.shape)} "
            f"and {tuple(value.shape)}"
        )
    if cache is not None and cache.k is not None:
        if cache.k.shape[0] != B:
            raise ValueError(
                f"the cache holds keys for a batch of {cache.k.shape[0]} but the query "
                f"has B={B}: start a new KVCache for a new batch (or reorder() this one)"
            )
        S = len(cache) if cache.static else len(cache) + S  # the keys attended to
    if mask is not None:
        check_tensor(mask, "mask", ndim=(2, 3, 4))
        # Check the mask as the caller gave it, so an error names their shape.
        check_mask(mask, (B, module.h, L, S) if mask.dim() == 4 else (B, L, S))
