"""The key/value caches of incremental decoding (chapter 10, From vectors to words:
decoding; their cost in chapter 16, What attention costs).

When a model decodes one token at a time, each step's keys and values of the earlier
positions are the same as the step before computed. :class:`KVCache` keeps those one
attention module has projected, so each step projects only the newest token
(self-attention) or nothing at all (encoder-decoder attention, whose keys and values come
from the fixed encoder memory). See :meth:`illustrated.attention.MultiHeadAttention.keys_values`.
:class:`DecoderCache` holds the two of every layer of a Transformer's decoder; the
decoder-only model of chapter 13 keeps one :class:`KVCache` per layer.
"""
from __future__ import annotations

import torch

from .checks import check_positive_int


class KVCache:
    """The keys and values one :class:`~illustrated.attention.MultiHeadAttention` has
    projected so far, kept between the steps of incremental decoding.

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

    def holds_memory(self) -> bool:
        """Whether the keys and values are those of the memory already: nothing to project."""
        return self.static and self.k is not None

    def update(self, k: torch.Tensor, v: torch.Tensor):
        """Add the keys and values of the new positions, ``(B, H, S, Dk)`` each, after the
        ``P`` held, and return all of them, ``(B, H, P + S, Dk)`` each."""
        if self.k is not None:
            k = torch.cat([self.k, k], dim=-2)  # (B, H, P + S, Dk)
            v = torch.cat([self.v, v], dim=-2)  # (B, H, P + S, Dk)
        self.k, self.v = k, v
        return k, v

    def reorder(self, index: torch.Tensor) -> None:
        """Keep the batch rows ``index`` (a 1-D LongTensor), in that order: beam search
        calls this when hypotheses are extended from other rows."""
        if self.k is not None:
            self.k = self.k.index_select(0, index)  # (B', H, S, Dk)
            self.v = self.v.index_select(0, index)  # (B', H, S, Dk)


class DecoderCache:
    """The key/value caches of a stack of ``N`` decoder layers, for incremental decoding:
    per layer, a self-attention :class:`KVCache` that grows by one position per step and a
    static one holding the projected encoder memory.

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


def check_decoder_cache(cache, N: int) -> None:
    """Raise unless ``cache`` is ``None`` or a :class:`DecoderCache` of ``N`` layers."""
    if cache is None:
        return
    if not isinstance(cache, DecoderCache):
        raise TypeError(f"cache must be a DecoderCache or None, got {type(cache).__name__}")
    if len(cache.layers) != N:
        raise ValueError(
            f"cache has {len(cache.layers)} layers but the decoder has {N}; make it with "
            f"model.new_cache()"
        )
