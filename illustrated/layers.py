"""Layers. Introduced in chapter 8, Residual connections, layer norm, dropout and the
feed-forward network; the decoder layer in chapter 9.

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

from .checks import (check_dropout, check_heads, check_positive_int, check_stream,
                     check_token_ids, out_of_vocabulary)
from .attention import MultiHeadAttention
from .kv_cache import KVCache
from .masks import check_mask


class Embeddings(nn.Module):
    """Token ids to vectors, scaled by ``sqrt(d_model)`` as in the paper (section 3.4).

    The table starts as ``N(0, 1/d_model)``, the initialisation of the paper's reference
    code (whose table is shared with the output layer): a row then has length about 1,
    and about ``sqrt(d_model)`` after the scaling, the same order as a row of the
    positional encoding (``sqrt(d_model / 2)``). Chapter 7 measures this.

    Args:
        vocab: vocabulary size ``V``.
        d_model: width ``D`` of each vector.
        name: what error messages call the ids (the Transformer's two tables say ``src``
            and ``tgt``).
    """

    def __init__(self, vocab: int, d_model: int, name: str = "tokens"):
        super().__init__()
        check_positive_int(vocab, "vocab")
        check_positive_int(d_model, "d_model")
        self.vocab, self.d_model, self.name = vocab, d_model, name
        self.embedding = nn.Embedding(vocab, d_model)
        nn.init.normal_(self.embedding.weight, mean=0.0, std=d_model ** -0.5)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Args: tokens ``(B, L)`` integer ids in ``[0, V)``. Returns: ``(B, L, D)``.
        An id outside the table is refused by the lookup itself (on a GPU, by a
        device-side assert), so a good batch costs no read of its ids."""
        check_token_ids(tokens, self.name)
        try:
            vectors = self.embedding(tokens)  # (B, L, D)
        except IndexError:  # an id outside [0, V): only now are the ids read, to say which
            raise out_of_vocabulary(tokens, self.vocab, self.name) from None
        return vectors * math.sqrt(self.d_model)  # (B, L, D)


class PositionwiseFeedForward(nn.Module):
    """``FFN(x) = max(0, x W1 + b1) W2 + b2``, applied to every position separately.

    Args:
        d_model: input and output width ``D`` (512 in the paper).
        d_ff: inner width (2048 in the paper).
        dropout: dropout probability after the ReLU.
        bias: whether the two layers add ``b1`` and ``b2``.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.1, bias: bool = True):
        super().__init__()
        check_positive_int(d_model, "d_model")
        check_positive_int(d_ff, "d_ff")
        check_dropout(dropout)
        self.d_model = d_model
        self.linear1 = nn.Linear(d_model, d_ff, bias=bias)
        self.linear2 = nn.Linear(d_ff, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Args: x ``(B, L, D)``. Returns: ``(B, L, D)``."""
        check_stream(x, self.d_model, like=self)
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
        norm: the normalisation module; ``None`` is ``nn.LayerNorm(d_model)`` (the paper's).
            The decoder variants (:mod:`illustrated.decoder_only.variants`) pass an
            RMSNorm here.
    """

    def __init__(self, d_model: int, dropout: float = 0.1, norm_first: bool = False,
                 norm: nn.Module | None = None):
        super().__init__()
        check_positive_int(d_model, "d_model")
        check_dropout(dropout)
        self.norm_first = bool(norm_first)
        # LayerNorm's eps=1e-5, as torch's Transformer layers
        self.norm = nn.LayerNorm(d_model) if norm is None else norm
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, sublayer: Callable[[torch.Tensor], torch.Tensor]):
        """Args: x ``(B, L, D)``; sublayer maps ``(B, L, D)`` to ``(B, L, D)``.
        Returns: ``(B, L, D)``."""
        if self.norm_first:
            return x + self.dropout(sublayer(self.norm(x)))  # (B, L, D)
        return self.norm(x + self.dropout(sublayer(x)))  # (B, L, D)


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

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """Args:
            x: ``(B, L, D)``.
            mask: optional bool mask broadcasting to ``(B, L, L)``, ``True`` = may attend
                (usually ``padding_mask(src)``, shape ``(B, 1, L)``); the attention checks
                it.

        Returns: ``(B, L, D)``.
        """
        check_stream(x, self.d_model, like=self)
        # 1) every position attends to every (unmasked) position of the same sequence
        x = self.sublayer1(x, lambda y: self.self_attn(y, y, y, mask))  # (B, L, D)
        # 2) position-wise feed-forward
        return self.sublayer2(x, self.feed_forward)  # (B, L, D)


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
                entry of a :class:`~illustrated.kv_cache.DecoderCache`).

        Returns: ``(B, T, D)``.
        """
        _check_decoder_layer(self, x, memory, src_mask, tgt_mask, cache)
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


def _check_decoder_layer(layer, x, memory, src_mask, tgt_mask, cache) -> None:
    """The checks of :meth:`DecoderLayer.forward`: its masks by their names, against the
    positions the cache holds and the new ones."""
    check_stream(x, layer.d_model, like=layer)
    check_stream(memory, layer.d_model, "memory", like=layer)
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
