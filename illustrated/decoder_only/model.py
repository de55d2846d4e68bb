"""The decoder alone: a language model. Introduced in chapter 13, The decoder alone.

Take the translator's decoder and remove what reads the source: the encoder, and in every
decoder layer the encoder-decoder attention. What is left of a layer is masked
self-attention and the feed-forward network, the two sub-layers of an
:class:`~illustrated.layers.EncoderLayer`; what makes it a decoder is the causal mask
(:func:`~illustrated.masks.subsequent_mask`). Trained to predict each next token of
plain text, the stack is a language model: GPT's design, at a laptop's size.

The model reuses the package's parts: :class:`~illustrated.layers.Embeddings`,
:class:`~illustrated.positional.PositionalEncoding`, :class:`DecoderOnlyLayer` (an
``EncoderLayer``, its parts and parameters, whose ``forward`` also takes chapter 10's
:class:`~illustrated.kv_cache.KVCache`, for writing one token at a time), and
:class:`~illustrated.model.Generator` (its weights tied to the embedding table, as
GPT-2's and the shipped translator's).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ..checks import check_dropout, check_heads, check_positive_int, check_stream
from ..kv_cache import KVCache
from ..layers import EncoderLayer, Embeddings
from ..masks import subsequent_mask
from ..model import Generator, init_parameters
from ..positional import PositionalEncoding


@dataclass(frozen=True)
class DecoderOnlyConfig:
    """Sizes of a decoder-only model. The defaults are the shipped model's."""

    vocab: int = 4000  # vocabulary size V (the translator's subword tokenizer)
    N: int = 2  # number of layers
    d_model: int = 128  # width of every token vector
    d_ff: int = 512  # inner width of the feed-forward network
    h: int = 4  # number of attention heads; d_k = d_model / h = 32
    dropout: float = 0.1  # on every sub-layer output and on embeddings + PE
    max_len: int = 64  # longest sequence, prompt and written tokens together

    def __post_init__(self):
        for name in ("vocab", "N", "d_model", "d_ff", "h", "max_len"):
            check_positive_int(getattr(self, name), name)
        check_heads(self.d_model, self.h)
        if self.d_model % 2 != 0:
            raise ValueError(f"d_model must be even for the sinusoidal positional "
                             f"encoding, got d_model={self.d_model}")
        check_dropout(self.dropout)


class DecoderOnlyLayer(EncoderLayer):
    """A layer of the decoder-only model: an :class:`~illustrated.layers.EncoderLayer`
    (the same two sub-layers, the same parameters), given the causal mask, whose
    self-attention can read and fill a :class:`~illustrated.kv_cache.KVCache`."""

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None,
                cache: KVCache | None = None) -> torch.Tensor:
        """Args: x ``(B, T, D)``; mask: the causal mask, broadcasting to ``(B, T, P + T)``
        with ``P`` positions in the cache (its attention checks both). Returns:
        ``(B, T, D)``."""
        check_stream(x, self.d_model, like=self)
        # 1) masked self-attention, over the cached positions and the new ones
        x = self.sublayer1(x, lambda y: self.self_attn(y, y, y, mask, cache=cache))
        # 2) position-wise feed-forward
        return self.sublayer2(x, self.feed_forward)  # (B, T, D)


class DecoderOnly(nn.Module):
    """A stack of decoder layers without an encoder: a causal language model.

    Args:
        config: the sizes (see :class:`DecoderOnlyConfig`).
        generator: optional ``torch.Generator`` for the initial weights.
    """

    def __init__(self, config: DecoderOnlyConfig,
                 generator: torch.Generator | None = None):
        super().__init__()
        if not isinstance(config, DecoderOnlyConfig):
            raise TypeError(f"config must be a DecoderOnlyConfig, got "
                            f"{type(config).__name__}")
        c = self.config = config
        self.embed = nn.Sequential(
            Embeddings(c.vocab, c.d_model),
            PositionalEncoding(c.d_model, c.dropout, c.max_len))
        # A decoder layer less its encoder-decoder attention: what
        # remains is an encoder layer, made a decoder by the causal mask.
        self.layers = nn.ModuleList(
            DecoderOnlyLayer(c.d_model, c.h, c.d_ff, c.dropout)
            for _ in range(c.N))
        self.generator = Generator(c.d_model, c.vocab)
        # One matrix reads tokens in and writes them out (tied weights).
        self.generator.proj.weight = self.embed[0].embedding.weight
        init_parameters(self, c.d_model, generator)

    def new_cache(self) -> list[KVCache]:
        """An empty key/value cache, one per layer, for :meth:`forward`."""
        return [KVCache() for _ in self.layers]

    def forward(self, tokens: torch.Tensor,
                cache: list[KVCache] | None = None,
                last_only: bool = False) -> torch.Tensor:
        """Args:
            tokens: ids ``(B, T)``; a padded batch pads on the right, so
                that no real token comes after (and so sees) a pad.
            cache: optional, from :meth:`new_cache`. With ``P`` positions
                held, ``tokens`` are the new ones, at ``P..P+T-1``.
            last_only: score the last position only, as writing needs
                (Karpathy's nanoGPT does the same at inference): the output layer,
                ``D x V`` products per position, then runs once, not ``T``
                times. Training needs every position.

        Returns: log-probabilities of the next token ``(B, T, V)``, or
        ``(B, 1, V)`` with ``last_only``.
        """
        check_cache(cache, len(self.layers))  # the layers check the rest
        P = 0 if cache is None else len(cache[0])
        # 1) token vectors plus the positions P..P+T-1
        embed, positional = self.embed
        x = positional(embed(tokens), start=P)  # (B, T, D)
        # 2) the causal mask: new position P+i sees 0..P+i
        T = tokens.shape[1]
        mask = subsequent_mask(P + T, tokens.device)[:, P:]  # (1, T, P+T)
        # 3) N layers of masked self-attention and feed-forward
        for i, layer in enumerate(self.layers):
            layer_cache = None if cache is None else cache[i]
            x = layer(x, mask, cache=layer_cache)  # (B, T, D)
        # 4) a distribution over the next token, at every position or the last
        if last_only:
            x = x[:, -1:]  # (B, 1, D)
        return self.generator(x)  # (B, T, V) or (B, 1, V)


def check_cache(cache, N: int) -> None:
    """Raise unless ``cache`` is ``None`` or a list of ``N`` :class:`~illustrated.kv_cache.KVCache`."""
    if cache is None:
        return
    if not (isinstance(cache, list) and len(cache) == N
            and all(isinstance(c, KVCache) for c in cache)):
        came = (f"a list of {len(cache)}: "
                f"{', '.join(sorted({type(c).__name__ for c in cache})) or 'empty'}"
                if isinstance(cache, list) else type(cache).__name__)
        raise TypeError(f"cache must be a list of {N} KVCache, one per layer "
                        f"(model.new_cache()), got {came}")
