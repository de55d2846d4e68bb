"""Layers. Introduced in chapter 8, Residuals, layer norm and the feed-forward network;
the decoder layer in chapter 9.

Every sub-layer of the Transformer (self-attention, encoder-decoder attention,
feed-forward) is wrapped the same way: a residual connection around it and a layer
normalisation. The paper normalises *after* adding the residual ("post-norm",
``norm(x + Sublayer(x))``); many later models normalise the sub-layer's input instead
("pre-norm", ``x + Sublayer(norm(x))``). Both are here, chosen by ``norm_first``, with the
paper's choice as the default.

Masks follow the package convention: bool, ``True`` = may attend (see
:mod:`illustrated.masks`).
"""
from __future__ import annotations

import math
from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import (check_dropout, check_heads, check_positive_int, check_tensor,
                      checked_at_the_door)
from ._attention_checks import check_like_weights
from .attention import MultiHeadAttention
from .kv_cache import KVCache
from .masks import check_mask


def _check_stream(x, d_model: int, name: str = "x", like: nn.Module | None = None) -> None:
    """Raise unless ``x`` is a float tensor ``(B, L, d_model)`` (with the dtype and device of
    the module ``like``'s weights, if given)."""
    check_tensor(x, name, ndim=3, floating=True)
    if x.shape[-1] != d_model:
        raise ValueError(
            f"{name} must have shape (B, L, d_model={d_model}), got {tuple(x.shape)}"
        )
    if like is not None:
        check_like_weights(like, x)


def check_tokens(tokens, vocab: int, name: str = "tokens") -> None:
    """Raise unless ``tokens`` is a ``(B, L)`` tensor of integer ids in ``[0, vocab)``. The
    range is read from the values (on a GPU, a wait for it): a check for the door only."""
    check_tensor(tokens, name, ndim=2)
    if tokens.is_floating_point() or tokens.dtype == torch.bool:
        raise TypeError(f"{name} must hold integer ids, got dtype {tokens.dtype}")
    if tokens.numel() and (tokens.min() < 0 or tokens.max() >= vocab):
        raise ValueError(
            f"{name} must be token ids in [0, vocab={vocab}), got ids from "
            f"{tokens.min().item()} to {tokens.max().item()}"
        )


def _check_embeddings(module, tokens) -> None:
    check_tokens(tokens, module.vocab)


def _check_feed_forward(module, x) -> None:
    _check_stream(x, module.d_model, like=module)


def _check_encoder_layer(module, x, mask=None, cache=None) -> None:
    _check_stream(x, module.d_model, like=module)
    if cache is not None and not isinstance(cache, KVCache):
        raise TypeError(f"cache must be a KVCache or None, got {type(cache).__name__}")
    past = 0 if cache is None else len(cache)  # positions the cache holds
    if mask is not None:
        B, L, _ = x.shape
        check_mask(mask, (B, L, past + L))


def _check_decoder_layer(module, x, memory, src_mask=None, tgt_mask=None, cache=None) -> None:
    _check_stream(x, module.d_model, like=module)
    _check_stream(memory, module.d_model, "memory", like=module)
    if memory.shape[0] != x.shape[0]:
        raise ValueError(
            f"x and memory must have the same batch size B, got x {tuple(x.shape)} "
            f"and memory {tuple(memory.shape)}"
        )
    if cache is not None and not (isinstance(cache, tuple) and len(cache) == 2
                                  and all(isinstance(c, KVCache) for c in cache)):
        raise TypeError(f"cache must be a (KVCache, KVCache) pair (one entry of a "
                        f"DecoderCache) or None, got {type(cache).__name__}")
    past = 0 if cache is None else len(cache[0])  # positions the self-attention cache holds
    B, T, S = x.shape[0], x.shape[1], memory.shape[1]
    if tgt_mask is not None:
        check_mask(tgt_mask, (B, T, past + T), "tgt_mask")
    if src_mask is not None:
        check_mask(src_mask, (B, T, S), "src_mask")


class Embeddings(nn.Module):
    """Token ids to vectors, scaled by ``sqrt(d_model)`` as in the paper (section 3.4).

    The table starts as ``N(0, 1/d_model)``, the initialisation of the paper's reference
    code (whose table is shared with the output layer): a row then has length about 1,
    and about ``sqrt(d_model)`` after the scaling, the same order as a row of the
    positional encoding (``sqrt(d_model / 2)``). Chapter 7 measures this.

    Args:
        vocab: vocabulary size ``V``.
        d_model: width ``D`` of each vector.
    """

    def __init__(self, vocab: int, d_model: int):
        super().__init__()
        check_positive_int(vocab, "vocab")
        check_positive_int(d_model, "d_model")
        self.vocab, self.d_model = vocab, d_model
        self.embedding = nn.Embedding(vocab, d_model)
        nn.init.normal_(self.embedding.weight, mean=0.0, std=d_model ** -0.5)

    @checked_at_the_door(_check_embeddings)
    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Args: tokens ``(B, L)`` integer ids in ``[0, V)``. Returns: ``(B, L, D)``."""
        return self.embedding(tokens) * math.sqrt(self.d_model)  # (B, L, D)


class PositionwiseFeedForward(nn.Module):
    """``FFN(x) = max(0, x W1 + b1) W2 + b2``, applied to every position separately.

    Args:
        d_model: input and output width ``D`` (512 in the paper).
        d_ff: inner width (2048 in the paper).
        dropout: dropout probability after the ReLU.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.1):
        super().__init__()
        check_positive_int(d_model, "d_model")
        check_positive_int(d_ff, "d_ff")
        check_dropout(dropout)
        self.d_model = d_model
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    @checked_at_the_door(_check_feed_forward)
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Args: x ``(B, L, D)``. Returns: ``(B, L, D)``."""
        # 1) widen and keep the positive part
        hidden = F.relu(self.linear1(x))  # (B, L, d_ff)
        # 2) dropout, 3) project back to d_model
        return self.linear2(self.dropout(hidden))  # (B, L, D)


class SublayerConnection(nn.Module):
    """Residual connection plus layer norm around any sub-layer.

    Post-norm (the paper, ``norm_first=False``): ``norm(x + dropout(sublayer(x)))``.
    Pre-norm (``norm_first=True``): ``x + dropout(sublayer(norm(x)))``.

    Args:
        d_model: width ``D`` of the residual stream.
        dropout: dropout probability on the sub-layer's output (0.1 in the paper).
        norm_first: pre-norm if ``True``, post-norm otherwise.
    """

    def __init__(self, d_model: int, dropout: float = 0.1, norm_first: bool = False):
        super().__init__()
        check_positive_int(d_model, "d_model")
        check_dropout(dropout)
        self.norm_first = bool(norm_first)
        self.norm = nn.LayerNorm(d_model)  # eps=1e-5, as torch's Transformer layers
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, sublayer: Callable[[torch.Tensor], torch.Tensor]):
        """Args: x ``(B, L, D)``; sublayer maps ``(B, L, D)`` to ``(B, L, D)``.
        Returns: ``(B, L, D)``."""
        if self.norm_first:
            return x + self.dropout(sublayer(self.norm(x)))  # (B, L, D)
        return self.norm(x + self.dropout(sublayer(x)))  # (B, L, D)


def _check_torch_layer(layer, expected: type) -> None:
    """Refuse torch layers whose computation differs from ours."""
    if not isinstance(layer, expected):
        raise TypeError(f"expected torch.nn.{expected.__name__}, got {type(layer).__name__}")
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


def _copy_common(ours, layer, norms) -> None:
    """Copy the feed-forward weights and the layer norms (weights and eps) from torch."""
    ours.self_attn = MultiHeadAttention.from_torch(layer.self_attn)
    with torch.no_grad():
        ours.feed_forward.linear1.load_state_dict(layer.linear1.state_dict())
        ours.feed_forward.linear2.load_state_dict(layer.linear2.state_dict())
        for i, sub in enumerate(norms, start=1):
            norm = getattr(layer, f"norm{i}")  # norm1, norm2 (, norm3 in a decoder layer)
            sub.norm.load_state_dict(norm.state_dict())
            sub.norm.eps = norm.eps


class EncoderLayer(nn.Module):
    """One encoder layer: self-attention, then feed-forward, each wrapped in a
    :class:`SublayerConnection`.

    Args:
        d_model: width ``D`` (512 in the paper).
        h: number of heads (8).
        d_ff: inner width of the feed-forward network (2048).
        dropout: dropout probability everywhere in the layer (0.1).
        norm_first: pre-norm if ``True``; the paper's post-norm otherwise.
    """

    def __init__(self, d_model: int, h: int, d_ff: int, dropout: float = 0.1,
                 norm_first: bool = False):
        super().__init__()
        check_heads(d_model, h)
        self.d_model = d_model
        self.self_attn = MultiHeadAttention(d_model, h, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.sublayer1 = SublayerConnection(d_model, dropout, norm_first)
        self.sublayer2 = SublayerConnection(d_model, dropout, norm_first)

    @checked_at_the_door(_check_encoder_layer)
    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None,
                cache: KVCache | None = None) -> torch.Tensor:
        """Args:
            x: ``(B, L, D)``.
            mask: optional bool mask broadcasting to ``(B, L, L)``, ``True`` = may attend
                (usually ``padding_mask(src)``, shape ``(B, 1, L)``); under a causal mask
                the layer is the decoder-only model's (chapter 13).
            cache: optional :class:`~illustrated.kv_cache.KVCache` of the self-attention
                for writing one token at a time (the decoder-only model's); with ``P``
                positions held, ``mask`` broadcasts to ``(B, L, P + L)``.

        Returns: ``(B, L, D)``.
        """
        # 1) every position attends to every (unmasked) position of the same sequence
        x = self.sublayer1(
            x, lambda y: self.self_attn(y, y, y, mask, cache=cache)
        )  # (B, L, D)
        # 2) position-wise feed-forward
        return self.sublayer2(x, self.feed_forward)  # (B, L, D)

    @classmethod
    def from_torch(cls, layer: nn.TransformerEncoderLayer) -> "EncoderLayer":
        """An ``EncoderLayer`` holding the weights of a ``torch.nn.TransformerEncoderLayer``
        (``batch_first=True``, ReLU), so both compute the same. The copy takes masks in
        this package's convention (``True`` = may attend); torch's layer takes the
        opposite one (see :func:`illustrated.masks.to_torch_blocked`)."""
        _check_torch_layer(layer, nn.TransformerEncoderLayer)
        ours = cls(layer.self_attn.embed_dim, layer.self_attn.num_heads,
                   layer.linear1.out_features, layer.dropout.p, layer.norm_first)
        w = layer.linear1.weight
        ours.to(device=w.device, dtype=w.dtype)  # before copying, so float64 is not rounded
        _copy_common(ours, layer, (ours.sublayer1, ours.sublayer2))
        return ours.train(layer.training)


class DecoderLayer(nn.Module):
    """One decoder layer: masked self-attention, encoder-decoder attention, feed-forward,
    each wrapped in a :class:`SublayerConnection`.

    In the encoder-decoder attention the queries come from the decoder and the keys and
    values from the encoder's output ``memory``.

    Args: as :class:`EncoderLayer`.
    """

    def __init__(self, d_model: int, h: int, d_ff: int, dropout: float = 0.1,
                 norm_first: bool = False):
        super().__init__()
        check_heads(d_model, h)
        self.d_model = d_model
        self.self_attn = MultiHeadAttention(d_model, h, dropout)
        self.src_attn = MultiHeadAttention(d_model, h, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.sublayer1 = SublayerConnection(d_model, dropout, norm_first)
        self.sublayer2 = SublayerConnection(d_model, dropout, norm_first)
        self.sublayer3 = SublayerConnection(d_model, dropout, norm_first)

    @checked_at_the_door(_check_decoder_layer)
    def forward(self, x: torch.Tensor, memory: torch.Tensor,
                src_mask: torch.Tensor | None = None,
                tgt_mask: torch.Tensor | None = None,
                cache: tuple[KVCache, KVCache] | None = None) -> torch.Tensor:
        """Args:
            x: decoder stream ``(B, T, D)``.
            memory: encoder output ``(B, S, D)``.
            src_mask: bool mask broadcasting to ``(B, T, S)``, usually
                ``padding_mask(src)`` ``(B, 1, S)``.
            tgt_mask: bool mask broadcasting to ``(B, T, T)``, usually
                ``padding_mask(tgt) & subsequent_mask(T)``; with a cache holding ``P``
                earlier positions, to ``(B, T, P + T)`` (``None`` when ``x`` is the one
                newest position: it may look at every earlier one).
            cache: optional ``(self-attention cache, encoder-decoder cache)`` pair of
                :class:`~illustrated.kv_cache.KVCache`, for incremental decoding (one
                entry of a :class:`DecoderCache`).

        Returns: ``(B, T, D)``.
        """
        self_cache, src_cache = (None, None) if cache is None else cache
        # 1) masked self-attention: each target position looks at earlier ones only
        x = self.sublayer1(
            x, lambda y: self.self_attn(y, y, y, tgt_mask, cache=self_cache)
        )  # (B, T, D)
        # 2) encoder-decoder attention: queries from the decoder, keys/values from memory
        x = self.sublayer2(
            x, lambda y: self.src_attn(y, memory, memory, src_mask, cache=src_cache)
        )  # (B, T, D)
        # 3) position-wise feed-forward
        return self.sublayer3(x, self.feed_forward)  # (B, T, D)

    @classmethod
    def from_torch(cls, layer: nn.TransformerDecoderLayer) -> "DecoderLayer":
        """A ``DecoderLayer`` holding the weights of a ``torch.nn.TransformerDecoderLayer``
        (``batch_first=True``, ReLU)."""
        _check_torch_layer(layer, nn.TransformerDecoderLayer)
        ours = cls(layer.self_attn.embed_dim, layer.self_attn.num_heads,
                   layer.linear1.out_features, layer.dropout.p, layer.norm_first)
        w = layer.linear1.weight
        ours.to(device=w.device, dtype=w.dtype)  # before copying, so float64 is not rounded
        _copy_common(ours, layer, (ours.sublayer1, ours.sublayer2, ours.sublayer3))
        ours.src_attn = MultiHeadAttention.from_torch(layer.multihead_attn)
        return ours.train(layer.training)


class DecoderCache:
    """The key/value caches of a stack of ``N`` decoder layers, for incremental decoding:
    per layer, a self-attention :class:`~illustrated.kv_cache.KVCache` that grows by one
    position per step and a static one holding the projected encoder memory.

    Args:
        N: number of decoder layers.
    """

    def __init__(self, N: int):
        check_positive_int(N, "N")
        self.layers = [(KVCache(), KVCache(static=True)) for _ in range(N)]

    def __len__(self) -> int:
        """The number of target positions decoded so far."""
        return len(self.layers[0][0])

    def reorder(self, index: torch.Tensor) -> None:
        """Keep the batch rows ``index`` (1-D LongTensor) of every cache, in that order."""
        for self_cache, src_cache in self.layers:
            self_cache.reorder(index)
            src_cache.reorder(index)
