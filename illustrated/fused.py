"""The fast path for a trained model: ``fuse(model)``. Shown in chapter 5, How PyTorch
stores it.

The teaching :class:`~illustrated.attention.MultiHeadAttention` keeps ``W^Q``, ``W^K``,
``W^V`` and ``W^O`` as four layers, as the paper writes them. :func:`fuse` returns an
inference copy (eval mode, no gradients; the original is untouched) in which each of
them is a :class:`FusedAttention` holding the same numbers as ``torch.nn.MultiheadAttention``
stores them: ``W^Q``, ``W^K``, ``W^V`` as the rows of one ``in_proj_weight (3D, D)``,
``W^O`` as ``out_proj``. A tensor is then projected in one product on the rows it needs:
self-attention gets Q, K and V from one product, encoder-decoder attention Q from the rows
``[:D]`` and K, V from the rows ``[D:]``. The attention itself is PyTorch's fused
``F.scaled_dot_product_attention`` (:func:`~illustrated.attention.lean_attention`), which
keeps no weights. Same call, same input checks, same key/value cache
(:class:`~illustrated.kv_cache.KVCache`), same outputs: ``tests/test_fused.py`` and
``benchmarks/fused_equal.py`` (every test sentence translated both ways) prove it.
"""
from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import nn

from ._attention_checks import check_attention_inputs
from ._checks import checked_at_the_door
from .attention import MultiHeadAttention, lean_attention
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

    @checked_at_the_door(check_attention_inputs)  # the teaching module's checks
    def forward(self, query, key, value, mask=None, cache=None):
        """As :meth:`~illustrated.attention.MultiHeadAttention.forward`: query ``(B, L, D)``;
        key, value ``(B, S, D)``; mask, cache as there. Returns ``(B, L, D)``."""
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
