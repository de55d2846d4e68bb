"""The bridge to PyTorch's own modules, both ways. Shown in chapter 5, Multi-head attention
(torch.nn.MultiheadAttention); used in chapters 8 and 9 to check our layers against
PyTorch's, and by the ``translate`` command to serve chapter 12's translator.

:func:`from_torch` builds the teaching module that holds the weights of a
``torch.nn.MultiheadAttention``, ``TransformerEncoderLayer`` or ``TransformerDecoderLayer``,
so that both compute the same.

The other way, the fast path for a trained model is ``fuse(model)``. The teaching
:class:`~illustrated.attention.MultiHeadAttention` keeps ``W^Q``, ``W^K``, ``W^V`` and
``W^O`` as four layers, as the paper writes them. :func:`fuse` returns an
inference copy (eval mode, no gradients; the original is untouched) in which each of
them is a :class:`FusedAttention` holding the same numbers as ``torch.nn.MultiheadAttention``
stores them: ``W^Q``, ``W^K``, ``W^V`` as the rows of one ``in_proj_weight (3D, D)``,
``W^O`` as ``out_proj``. A tensor is then projected in one product on the rows it needs:
self-attention gets Q, K and V from one product, encoder-decoder attention Q from the rows
``[:D]`` and K, V from the rows ``[D:]``. The attention itself is PyTorch's fused
``F.scaled_dot_product_attention`` (:func:`~illustrated.attention.lean_attention`), which
keeps no weights. Same call, same input checks, same key/value cache
(:class:`~illustrated.kv_cache.KVCache`), same outputs: ``tests/test_interop.py`` and
``benchmarks/fused_equal.py`` (every test sentence translated both ways) prove it.
"""
from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import nn

from .attention import MultiHeadAttention, check_attention_inputs, lean_attention
from .layers import DecoderLayer, EncoderLayer
from .model import Transformer


class FusedAttention(nn.Module):
    """Multi-head attention for inference, with the call of the teaching
    :class:`~illustrated.attention.MultiHeadAttention`; build it with :func:`fuse`.

    ``in_proj_weight`` ``(3D, D)`` holds ``W^Q``, ``W^K``, ``W^V`` one under the other (and
    ``in_proj_bias`` ``(3D,)`` their biases, zeros if they have none), as
    ``torch.nn.MultiheadAttention`` stores them; ``out_proj`` is ``W^O``. No weights are
    kept: ``attention_weights`` stays ``None``.
    """

    def __init__(self, d_model: int, h: int, bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.d_model, self.h, self.d_k = d_model, h, d_model // h
        self.in_proj_weight = nn.Parameter(torch.empty(3 * d_model, d_model, device=device,
                                                       dtype=dtype))
        # Zeros where the teaching module has no bias (torch stores None): one route.
        self.in_proj_bias = nn.Parameter(torch.zeros(3 * d_model, device=device, dtype=dtype))
        self.out_proj = nn.Linear(d_model, d_model, bias=bias, device=device, dtype=dtype)
        self.attention_weights = None

    @classmethod
    @torch.no_grad()
    def from_teaching(cls, m: MultiHeadAttention) -> "FusedAttention":
        """A ``FusedAttention`` computing what the teaching module ``m`` computes."""
        w = m.w_q.weight
        fused = cls(m.d_model, m.h, m.w_q.bias is not None, device=w.device, dtype=w.dtype)
        projections = (m.w_q, m.w_k, m.w_v)
        fused.in_proj_weight.copy_(torch.cat([p.weight for p in projections]))  # (3D, D)
        fused.out_proj.weight.copy_(m.w_o.weight)
        if m.w_q.bias is not None:
            fused.in_proj_bias.copy_(torch.cat([p.bias for p in projections]))  # (3D,)
            fused.out_proj.bias.copy_(m.w_o.bias)
        return fused.eval().requires_grad_(False)

    def _heads(self, y: torch.Tensor, n: int):
        """``n`` projections side by side, ``(B, n_x, n D)``, as ``n`` tensors of heads."""
        B, n_x, _ = y.shape
        y = y.view(B, n_x, n, self.h, self.d_k)  # (B, n_x, n, H, Dk)
        return y.permute(2, 0, 3, 1, 4).unbind(0)  # n x (B, H, n_x, Dk)

    def forward(self, query, key, value, mask=None, cache=None):
        """As :meth:`~illustrated.attention.MultiHeadAttention.forward`: query ``(B, L, D)``;
        key, value ``(B, S, D)``; mask, cache as there. Returns ``(B, L, D)``."""
        check_attention_inputs(self, query, key, value, mask, cache)  # the teaching module's
        W, b, D = self.in_proj_weight, self.in_proj_bias, self.d_model  # (3D, D), (3D,)
        reuse = cache is not None and cache.holds_memory()
        # 1) project and split into heads: one product per input tensor, on its rows of W
        if query is key and key is value and not reuse:  # self-attention: Q, K, V at once
            q, k, v = self._heads(F.linear(query, W, b), 3)  # 3 x (B, H, L, Dk)
        else:
            q, = self._heads(F.linear(query, W[:D], b[:D]), 1)  # (B, H, L, Dk)
            if reuse:  # a static cache's later steps: Q only
                k, v = cache.k, cache.v  # (B, H, S, Dk)
            elif key is value:  # encoder-decoder attention: K and V at once, rows [D:]
                k, v = self._heads(F.linear(key, W[D:], b[D:]), 2)  # 2 x (B, H, S, Dk)
            else:  # a key and a value apart: one product each
                k, = self._heads(F.linear(key, W[D:2 * D], b[D:2 * D]), 1)  # (B, H, S, Dk)
                v, = self._heads(F.linear(value, W[2 * D:], b[2 * D:]), 1)  # (B, H, S, Dk)
        if cache is not None and not reuse:  # 2) the earlier steps' K and V come first
            k, v = cache.update(k, v)  # (B, H, P + S, Dk) each
        if mask is not None and mask.dim() < 4:
            mask = mask.unsqueeze(-3)  # (B, 1, L, S): the same mask for every head
        z = lean_attention(q, k, v, mask)  # 3) attend, PyTorch's fused kernel: (B, H, L, Dk)
        B, _, L, _ = z.shape
        z = z.transpose(1, 2).reshape(B, L, D)  # 4) merge heads: (B, L, D)
        return self.out_proj(z)  # 5) W^O: (B, L, D)


def fuse(module):
    """An inference copy of a teaching :class:`~illustrated.model.Transformer` or
    :class:`~illustrated.attention.MultiHeadAttention` (eval mode, no gradients), each
    ``MultiHeadAttention`` replaced by a :class:`FusedAttention` with its weights. The
    original is left untouched."""
    if isinstance(module, MultiHeadAttention):
        return FusedAttention.from_teaching(module)
    if not isinstance(module, Transformer):
        raise TypeError("fuse() takes a teaching Transformer or MultiHeadAttention, got "
                        f"{type(module).__name__}")
    fused = copy.deepcopy(module).eval().requires_grad_(False)
    for parent in list(fused.modules()):
        for name, child in parent.named_children():
            if isinstance(child, MultiHeadAttention):
                setattr(parent, name, FusedAttention.from_teaching(child))
    return fused


# --- from PyTorch's modules to ours ------------------------------------------------------


def from_torch(module: nn.Module) -> nn.Module:
    """The teaching module holding the weights of a PyTorch one, in the same mode (so that
    dropout behaves the same), on its device and in its dtype:

    - ``nn.MultiheadAttention`` (either ``batch_first``) gives a
      :class:`~illustrated.attention.MultiHeadAttention`;
    - ``nn.TransformerEncoderLayer`` and ``nn.TransformerDecoderLayer`` (``batch_first=True``,
      ReLU) give an :class:`~illustrated.layers.EncoderLayer` and a
      :class:`~illustrated.layers.DecoderLayer`. The copies take masks in this package's
      convention (``True`` = may attend); torch's layers take the opposite one (see
      :func:`illustrated.masks.to_torch_blocked`).
    """
    if isinstance(module, nn.MultiheadAttention):
        return _attention_from_torch(module)
    if isinstance(module, (nn.TransformerEncoderLayer, nn.TransformerDecoderLayer)):
        return _layer_from_torch(module)
    raise TypeError("from_torch takes a torch.nn.MultiheadAttention, TransformerEncoderLayer "
                    f"or TransformerDecoderLayer, got {type(module).__name__}")


@torch.no_grad()
def _attention_from_torch(m: nn.MultiheadAttention) -> MultiHeadAttention:
    if m.bias_k is not None or m.add_zero_attn:
        raise ValueError("add_bias_kv and add_zero_attn have no counterpart here")
    if not m._qkv_same_embed_dim:
        raise ValueError(
            f"kdim={m.kdim} and vdim={m.vdim} must equal embed_dim={m.embed_dim}"
        )
    bias = m.in_proj_bias is not None
    ours = MultiHeadAttention(m.embed_dim, m.num_heads, dropout=m.dropout, bias=bias)
    # Move to m's dtype *before* copying: copying float64 weights into the default
    # float32 parameters would round them, and the two modules would then differ.
    ours = ours.to(device=m.in_proj_weight.device, dtype=m.in_proj_weight.dtype)
    projections = (ours.w_q, ours.w_k, ours.w_v)
    for lin, w in zip(projections, m.in_proj_weight.chunk(3, dim=0)):  # 3 x (D, D)
        lin.weight.copy_(w)
    ours.w_o.weight.copy_(m.out_proj.weight)
    if bias:
        for lin, b in zip(projections, m.in_proj_bias.chunk(3)):
            lin.bias.copy_(b)
        ours.w_o.bias.copy_(m.out_proj.bias)
    return ours.train(m.training)


@torch.no_grad()
def _layer_from_torch(layer: nn.Module) -> EncoderLayer | DecoderLayer:
    """An encoder or decoder layer of ours with the weights of torch's: the feed-forward
    network, the layer norms (weights and eps) and the attention modules."""
    act = layer.activation
    if not (act is F.relu or act is torch.relu or isinstance(act, nn.ReLU)):
        raise ValueError(
            f"only ReLU feed-forward layers can be copied (the paper's choice), "
            f"got activation={getattr(act, '__name__', act)!r}"
        )
    if not layer.self_attn.batch_first:
        raise ValueError("only batch_first=True layers can be copied; this package is batch-first")
    if layer.linear1.bias is None:
        raise ValueError("layers built with bias=False have no counterpart here")
    decoder = isinstance(layer, nn.TransformerDecoderLayer)
    ours = (DecoderLayer if decoder else EncoderLayer)(
        layer.self_attn.embed_dim, layer.self_attn.num_heads, layer.linear1.out_features,
        layer.dropout.p, layer.norm_first)
    w = layer.linear1.weight
    ours.to(device=w.device, dtype=w.dtype)  # before copying, so float64 is not rounded
    ours.self_attn = _attention_from_torch(layer.self_attn)
    if decoder:
        ours.src_attn = _attention_from_torch(layer.multihead_attn)
    ours.feed_forward.linear1.load_state_dict(layer.linear1.state_dict())
    ours.feed_forward.linear2.load_state_dict(layer.linear2.state_dict())
    subs = (ours.sublayer1, ours.sublayer2) + ((ours.sublayer3,) if decoder else ())
    for i, sub in enumerate(subs, start=1):
        norm = getattr(layer, f"norm{i}")  # norm1, norm2 (, norm3 in a decoder layer)
        sub.norm.load_state_dict(norm.state_dict())
        sub.norm.eps = norm.eps
    return ours.train(layer.training)
