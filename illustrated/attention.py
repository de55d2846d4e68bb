"""Attention. Introduced in chapter 3, Self-attention and Q, K, V; scaled in chapter 4;
split into heads in chapter 5.

``scaled_dot_product_attention`` is the formula of the paper,
``softmax(Q K^T / sqrt(d_k)) V``; ``MultiHeadAttention`` runs ``h`` of them side by side
on learned projections and mixes the results with ``W^O``.

For decoding one token at a time, :class:`KVCache` keeps the keys and values a
``MultiHeadAttention`` has already projected, so each step projects only the newest token
(self-attention) or nothing at all (encoder-decoder attention, whose keys and values come
from the fixed encoder memory). See :mod:`illustrated.decoding`.

Without gradients (a trained model translating), ``MultiHeadAttention`` projects Q, K and
V with one product on ``W^Q``, ``W^K`` and ``W^V`` stacked, as PyTorch's
``in_proj_weight``: the three layers' weights are the rows of one block of memory
(:mod:`illustrated.stacking`).

``MultiHeadAttention(..., need_weights=False)`` (or ``need_weights=False`` in one call)
takes a memory-lean path: :func:`lean_attention` hands the same computation to PyTorch's
fused ``F.scaled_dot_product_attention`` and keeps no weights. The teaching path, which
keeps them for the figures, stays the default; the tests prove both equal.

Masks follow the package convention (bool, ``True`` = may attend; see
:mod:`illustrated.masks`). A query row whose keys are *all* blocked gets weights of exactly
0 and an output of 0, not NaN: it has nothing to look at, so it reads nothing.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import broadcast_shape, check_dropout, check_heads, check_same_width, check_tensor
from .masks import check_mask, subsequent_mask
from .stacking import stack


# The method that casts a tensor or a module to a dtype, for error messages.
_CAST = {torch.float64: ".double()", torch.float32: ".float()", torch.float16: ".half()",
         torch.bfloat16: ".bfloat16()"}


def _cast(dtype: torch.dtype) -> str:
    return _CAST.get(dtype, f".to({dtype})")


def _autocast(x: torch.Tensor) -> bool:
    """Whether autocast is on for ``x``'s device: it then casts mixed dtypes itself."""
    try:
        return torch.is_autocast_enabled(x.device.type)
    except TypeError:  # torch < 2.4 takes no device type
        return torch.is_autocast_enabled() or torch.is_autocast_cpu_enabled()


def _check_same_dtype_and_device(**tensors: torch.Tensor) -> None:
    """Raise unless the tensors share one dtype and one device: PyTorch's own error
    ("mat1 and mat2 must have the same dtype") names neither the argument nor the fix."""
    (first, a), *others = tensors.items()
    for name, x in others:
        if x.dtype != a.dtype and not _autocast(a):
            raise TypeError(
                f"{first} and {name} must have the same dtype, got {first} {a.dtype} and "
                f"{name} {x.dtype}; cast one to the other's, e.g. {name}{_cast(a.dtype)}"
            )
        if x.device != a.device:
            raise ValueError(
                f"{first} and {name} must be on the same device, got {first} on {a.device} "
                f"and {name} on {x.device}; move one, e.g. {name}.to({first}.device)"
            )


def _check_qkv(query, key, value) -> None:
    for name, x in (("query", query), ("key", key), ("value", value)):
        check_tensor(x, name, min_ndim=2, floating=True)
    _check_same_dtype_and_device(query=query, key=key, value=value)
    if query.dim() != key.dim() or key.dim() != value.dim():
        raise ValueError(
            "query, key and value must have the same number of dimensions, got shapes "
            f"{tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}"
        )
    check_same_width(query, key, "query", "key")
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(
            "key and value must have the same length S (one value per key), got "
            f"key {tuple(key.shape)} and value {tuple(value.shape)}"
        )
    if broadcast_shape(query.shape[:-2], key.shape[:-2], value.shape[:-2]) is None:
        raise ValueError(
            "the batch dimensions of query, key and value do not match: "
            f"{tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}"
        )


def _check_attention(query, key, value, mask, dropout) -> None:
    """The checks of :func:`scaled_dot_product_attention`, which its callers that have
    checked their inputs already (:class:`MultiHeadAttention`) skip with ``check=False``."""
    _check_qkv(query, key, value)
    if dropout is not None and not callable(dropout):
        raise TypeError(
            f"dropout must be a module such as nn.Dropout(p) or None, got "
            f"{type(dropout).__name__} ({dropout!r})"
        )
    if mask is not None:
        batch = broadcast_shape(query.shape[:-2], key.shape[:-2])  # the batch axes of Q K^T
        check_mask(mask, (*batch, query.shape[-2], key.shape[-2]))  # against (..., L, S)


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None, *, check=True):
    """Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V.

    Args:
        query: ``(..., L, Dk)``.
        key: ``(..., S, Dk)``.
        value: ``(..., S, Dv)``.
        mask: optional bool tensor broadcasting to ``(..., L, S)``; ``True`` = may attend.
        dropout: optional module (e.g. ``nn.Dropout``) applied to the weights.
        check: ``False`` skips the input checks, for a caller that has made them already.

    Returns:
        ``(output, weights)``: output ``(..., L, Dv)``, weights ``(..., L, S)`` whose rows
        sum to 1 (or are all 0 where every key is blocked). With ``dropout`` in training
        mode the weights returned are the dropped-out ones actually used, as in PyTorch.
    """
    if check:
        _check_attention(query, key, value, mask, dropout)
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


def _is_causal(mask: torch.Tensor, L: int, S: int) -> bool:
    """Whether ``mask`` is the plain causal mask: one ``(L, L)`` lower triangle shared by
    every batch row and head (:func:`~illustrated.masks.subsequent_mask`). Its shape is
    checked first (integers); only a mask of that shape is compared with the triangle."""
    shape = mask.shape
    if L != S or L == 1 or shape[-2:] != (L, S) or any(n != 1 for n in shape[:-2]):
        return False
    return torch.equal(mask.reshape(1, L, S), subsequent_mask(L, mask.device))


def lean_attention(query, key, value, mask=None, dropout_p: float = 0.0):
    """The output of :func:`scaled_dot_product_attention` through PyTorch's fused kernel,
    which need not hold all the ``(..., L, S)`` weights at once; the weights are not returned.

    A causal mask (:func:`~illustrated.masks.subsequent_mask`, shared by every row) is
    handed over as ``is_causal=True`` instead, the kernel's own causal route: it skips the
    blocked half of the scores rather than reading a mask.

    ``F.scaled_dot_product_attention`` reads a bool mask as we do (True = may attend), but
    some versions give NaN where a query row may attend to nothing. Such rows, if any, are
    opened to every key for the kernel and their output is set to 0 afterwards, as the
    teaching path promises (their gradients are then 0 too). Shapes as
    :func:`scaled_dot_product_attention`; ``dropout_p`` is the kernel's dropout probability.
    """
    if mask is None:
        return F.scaled_dot_product_attention(query, key, value, dropout_p=dropout_p)
    if _is_causal(mask, query.shape[-2], key.shape[-2]):
        return F.scaled_dot_product_attention(query, key, value, dropout_p=dropout_p,
                                              is_causal=True)  # (..., L, Dv)
    blind = ~mask.any(dim=-1, keepdim=True)  # (..., L, 1): rows with nothing to look at
    if not blind.any():  # the usual case: no extra (L, S) mask to build
        return F.scaled_dot_product_attention(query, key, value, attn_mask=mask,
                                              dropout_p=dropout_p)  # (..., L, Dv)
    z = F.scaled_dot_product_attention(query, key, value, attn_mask=mask | blind,
                                       dropout_p=dropout_p)  # (..., L, Dv)
    return z.masked_fill(blind, 0.0)  # (..., L, Dv)


class KVCache:
    """The keys and values one :class:`MultiHeadAttention` has projected so far, kept
    between the steps of incremental decoding.

    Args:
        static: ``False`` for self-attention: each call appends the new positions' keys and
            values. ``True`` for encoder-decoder attention: the keys and values of the
            (fixed) memory are projected on the first call and reused afterwards.

    ``k`` and ``v`` are ``(B, H, S, Dk)`` once filled, ``None`` before.
    """

    def __init__(self, static: bool = False):
        self.static = bool(static)
        self.k: torch.Tensor | None = None
        self.v: torch.Tensor | None = None

    def __len__(self) -> int:
        """The number of positions ``S`` held."""
        return 0 if self.k is None else self.k.shape[-2]

    def reorder(self, index: torch.Tensor) -> None:
        """Keep the batch rows ``index`` (a 1-D LongTensor), in that order: beam search
        calls this when hypotheses are extended from other rows."""
        if self.k is not None:
            self.k = self.k.index_select(0, index)  # (B', H, S, Dk)
            self.v = self.v.index_select(0, index)  # (B', H, S, Dk)


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
            memory-lean path: PyTorch's fused ``F.scaled_dot_product_attention``, which
            need not hold all ``B x H x L x S`` weights at once; ``attention_weights`` is
            then ``None``. Both give the same output and gradients (tests prove it); the
            ``need_weights`` keyword of :meth:`forward` overrides this for one call.
    """

    def __init__(self, d_model: int, h: int, dropout: float = 0.0, bias: bool = True,
                 need_weights: bool = True):
        super().__init__()
        check_heads(d_model, h)
        check_dropout(dropout)
        if not isinstance(need_weights, bool):
            raise TypeError(f"need_weights must be True or False, got {need_weights!r}")
        self.need_weights = need_weights
        self.d_model, self.h, self.d_k = d_model, h, d_model // h
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)
        self.attention_weights = None
        # W^Q, W^K, W^V side by side in one block, for one product where it may (_project).
        self._stacked = stack((self.w_q, self.w_k, self.w_v))

    def _apply(self, fn, recurse=True):
        # .to(), .half(), .cuda() ... give the parameters new memory: stack them again.
        super()._apply(fn, recurse)
        self._stacked = stack((self.w_q, self.w_k, self.w_v))
        return self

    def __setattr__(self, name, value):
        if name == "attention_weights":  # a plain attribute set on every call: nn.Module's
            self.__dict__[name] = value  # checks for parameters and buffers cost 2 us here
        else:
            super().__setattr__(name, value)

    def __getstate__(self):
        state = super().__getstate__()  # a deep copy or a pickle leaves the block out ...
        state["_stacked"] = None
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        self._stacked = stack((self.w_q, self.w_k, self.w_v))  # ... and stacks again

    def _check_inputs(self, query, key, value, mask, cache, need_weights) -> None:
        """Every check of one call, made once here at the module's door: the steps of
        :meth:`forward` then run unchecked (``check=False``). Integer and dtype comparisons
        only, so a tiny call does not pay for its checks more than for its arithmetic."""
        if not (need_weights is None or isinstance(need_weights, bool)):
            raise TypeError(f"need_weights must be True, False or None, got {need_weights!r}")
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
            self._check_input(x, name)
        if len(inputs) > 1:
            _check_same_dtype_and_device(**inputs)
        self._check_like_weights(query)
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
            check_mask(mask, (B, self.h, L, S) if mask.dim() == 4 else (B, L, S))

    def _check_input(self, x, name: str) -> None:
        """Raise unless ``x`` is a float tensor ``(B, n, d_model)``."""
        if isinstance(x, torch.Tensor) and x.dim() == 3 and x.is_floating_point() \
                and x.shape[2] == self.d_model:
            return  # the usual case, in one test
        check_tensor(x, name, ndim=3, floating=True)
        raise ValueError(
            f"{name} must have last dimension d_model={self.d_model}, "
            f"got shape {tuple(x.shape)}"
        )

    def _check_like_weights(self, x: torch.Tensor) -> None:
        """Raise unless the input has the dtype and device of the module's weights."""
        # self.w_q.weight read from nn.Module's own dicts: through its __getattr__ (twice) it
        # costs a microsecond, as much as all the other checks of a tiny call together.
        w = self._modules["w_q"]._parameters.get("weight")
        if w is None:  # a projection replaced by one without a weight: nothing to compare
            return
        if x.dtype != w.dtype and not _autocast(x):
            raise TypeError(
                f"the input has dtype {x.dtype} but the module's weights are {w.dtype}: call "
                f"{_cast(x.dtype)} on the module (model{_cast(x.dtype)}) or cast the input "
                f"with {_cast(w.dtype)}"
            )
        if x.device != w.device:
            raise ValueError(
                f"the input is on {x.device} but the module's weights are on {w.device}: "
                f"move the module (model.to('{x.device}')) or the input (.to('{w.device}'))"
            )

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        B, n, _ = x.shape
        return x.view(B, n, self.h, self.d_k).transpose(1, 2)  # (B, H, n, Dk)

    def _project(self, query, key, value, skip_kv: bool = False):
        """Steps 1 and 2 of :meth:`forward`: ``Q = query W^Q``, ``K = key W^K``,
        ``V = value W^V``, each split into ``h`` heads; ``K`` and ``V`` are ``None`` with
        ``skip_kv``. Where the three may run as one product on their stacked weights
        (:mod:`illustrated.stacking`: no gradient recorded, no hook), they do, as PyTorch's
        ``in_proj_weight``: the same numbers, one call instead of three."""
        modules = self._modules  # not self.w_q ...: nn.Module's __getattr__ costs 0.6 us a name
        w_q, w_k, w_v = linears = modules["w_q"], modules["w_k"], modules["w_v"]
        split, stacked = self._split, self._stacked
        if stacked is None or not stacked.ready(linears):  # the three layers one by one
            q = split(w_q(query))  # (B, H, L, Dk)
            if skip_kv:
                return q, None, None
            return q, split(w_k(key)), split(w_v(value))  # (B, H, S, Dk) each
        # One product for the projections that read the same tensor, on their stacked rows.
        if query is key and key is value and not skip_kv:  # self-attention: Q, K, V at once
            qkv = F.linear(query, stacked.weight, stacked.bias)  # (B, L, 3D)
            return self._split_stacked(qkv, 3)  # 3 x (B, H, L, Dk)
        W, b = stacked.weights, stacked.biases  # W^Q, W^K, W^V: 3 x (D, D); 3 x (D,) or None
        q = split(F.linear(query, W[0], b[0]))  # (B, H, L, Dk)
        if skip_kv:
            return q, None, None
        if key is value:  # encoder-decoder attention: K and V at once, from the memory
            D = self.d_model
            b_kv = None if stacked.bias is None else stacked.bias[D:]  # (2D,)
            kv = F.linear(key, stacked.weight[D:], b_kv)  # (B, S, 2D)
            return (q, *self._split_stacked(kv, 2))  # q, 2 x (B, H, S, Dk)
        return q, split(F.linear(key, W[1], b[1])), split(F.linear(value, W[2], b[2]))

    def _split_stacked(self, x: torch.Tensor, n: int):
        """``n`` projections side by side, ``(B, L, n * D)``, split into ``n`` tensors of
        heads ``(B, H, L, Dk)``, as :meth:`_split` splits each: one view for all ``n``."""
        B, L, _ = x.shape
        heads = x.view(B, L, n, self.h, self.d_k)  # (B, L, n, H, Dk)
        return heads.permute(2, 0, 3, 1, 4).unbind(0)  # n x (B, H, L, Dk)

    def forward(self, query, key, value, mask=None, cache: KVCache | None = None,
                need_weights: bool | None = None):
        """Args: query ``(B, L, D)``; key, value ``(B, S, D)``; mask broadcasting to
        ``(B, L, S)`` (2-D or 3-D, a head axis is added) or ``(B, H, L, S)`` (4-D);
        cache: optional :class:`KVCache` for incremental decoding. With a cache that
        already holds ``P`` positions, self-attention attends to ``P + S`` keys (the mask
        must broadcast to ``(B, L, P + S)``); a static cache reuses the keys and values it
        holds and ignores ``key`` and ``value`` apart from checking them;
        need_weights: ``True``/``False`` overrides ``self.need_weights`` for this call.

        Returns: ``(B, L, D)``.
        """
        self._check_inputs(query, key, value, mask, cache, need_weights)
        if need_weights is None:
            need_weights = self.need_weights
        reuse = cache is not None and cache.static and cache.k is not None
        past = len(cache) if cache is not None and not cache.static else 0
        B, L, _ = query.shape
        if mask is not None and mask.dim() < 4:
            mask = mask.unsqueeze(-3)  # (B, 1, L, S): the same mask for every head
        # 1) project, 2) split into heads (keys and values only if not cached already)
        q, k, v = self._project(query, key, value, skip_kv=reuse)  # (B, H, L or S, Dk) each
        if reuse:
            k, v = cache.k, cache.v  # (B, H, S, Dk)
        if cache is not None and not reuse:
            if past:
                k = torch.cat([cache.k, k], dim=-2)  # (B, H, P + S, Dk)
                v = torch.cat([cache.v, v], dim=-2)  # (B, H, P + S, Dk)
            cache.k, cache.v = k, v
        # 3) attend in every head at once
        if need_weights:
            # Dropout only where it does something (training, p > 0): in eval it is the
            # identity, and a call to skip.
            dropout = self.dropout if self.training and self.dropout.p > 0 else None
            z, weights = scaled_dot_product_attention(q, k, v, mask, dropout, check=False)
            self.attention_weights = weights.detach()  # (B, H, L, S)
        else:
            p = self.dropout.p if self.training else 0.0
            z = lean_attention(q, k, v, mask=mask, dropout_p=p)  # (B, H, L, Dk)
            self.attention_weights = None
        # 4) merge heads: concatenate the h outputs side by side
        z = z.transpose(1, 2).reshape(B, L, self.d_model)  # (B, L, D)
        # 5) output projection W^O
        return self.w_o(z)  # (B, L, D)

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
