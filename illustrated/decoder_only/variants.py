"""From chapter 13's decoder to today's open decoders, one change at a time.

Llama, Mistral, Qwen and Gemma keep chapter 13's design (a stack of causal self-attention
and feed-forward layers) and change its parts: RMSNorm for layer norm
(:mod:`~illustrated.decoder_only.rmsnorm`), normalisation before each sub-layer (pre-norm)
with one more norm at the top, rotary positions for the sinusoidal table
(:mod:`~illustrated.decoder_only.rope`), the gated SwiGLU feed-forward
(:mod:`~illustrated.decoder_only.swiglu`), grouped-query attention
(:mod:`~illustrated.decoder_only.gqa`), and no biases (Llama and Mistral have none; Qwen
keeps those of the query, key and value projections). :class:`VariantConfig` has one field
for each change; :class:`VariantDecoder` builds any combination from the same code, so two
variants differ in the one flag that names their difference.

``VariantConfig()`` (every flag at its default) is chapter 13's model exactly:
post-norm layer norm, the sinusoidal table added to the embeddings, the ReLU network,
``h`` key/value heads, biases everywhere: the weights of
:class:`~illustrated.decoder_only.model.DecoderOnly` load into it and give the same outputs
(the tests prove it).
:func:`modern` is every change at once.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import torch
from torch import nn

from ..checks import check_stream
from ..kv_cache import KVCache
from ..layers import Embeddings, PositionwiseFeedForward, SublayerConnection
from ..model import Generator, init_parameters
from ..positional import PositionalEncoding
from .gqa import GroupedQueryAttention
from .model import DecoderOnlyConfig, check_cache
from .rmsnorm import RMSNorm
from .swiglu import SwiGLUFeedForward, matched_d_ff

CHOICES = {"norm": ("layer", "rms"), "position": ("sinusoidal", "rope"),
           "ffn": ("relu", "swiglu")}


@dataclass(frozen=True)
class VariantConfig:
    """The sizes of :class:`~illustrated.decoder_only.model.DecoderOnlyConfig` (the same
    defaults, the shipped model's) and one field per change. The defaults are chapter 13's
    model."""

    vocab: int = 4000  # vocabulary size V
    N: int = 2  # number of layers
    d_model: int = 128  # width of every token vector
    d_ff: int = 512  # the ReLU network's inner width; SwiGLU takes the parameter-matched one
    h: int = 4  # query heads; d_k = d_model / h
    dropout: float = 0.1  # on every sub-layer output, the embeddings, attention weights
    max_len: int = 64  # longest sequence, prompt and written tokens together
    norm: str = "layer"  # "layer": LayerNorm (chapter 8); "rms": RMSNorm
    norm_first: bool = False  # False: post-norm (chapter 13); True: pre-norm + a final norm
    position: str = "sinusoidal"  # "sinusoidal": the table added once; "rope": rotations
    ffn: str = "relu"  # "relu": chapter 8's network; "swiglu": the gated one
    n_kv_heads: int | None = None  # key/value heads; None: h (multi-head attention)
    bias: bool = True  # biases in every linear layer and layer norm; False: none

    def __post_init__(self):
        self.sizes()  # DecoderOnlyConfig checks the sizes
        for name, allowed in CHOICES.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got "
                                 f"{name}={getattr(self, name)!r}")
        for name in ("norm_first", "bias"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be True or False, got {getattr(self, name)!r}")
        kv = self.h if self.n_kv_heads is None else self.n_kv_heads
        if isinstance(kv, bool) or not isinstance(kv, int) or kv <= 0 or self.h % kv:
            raise ValueError(f"n_kv_heads must be None or a positive int dividing "
                             f"h={self.h}, got n_kv_heads={self.n_kv_heads!r}")
        if self.position == "rope" and (self.d_model // self.h) % 2:
            raise ValueError(f"RoPE rotates pairs: d_k = d_model / h = "
                             f"{self.d_model // self.h} must be even")

    def sizes(self) -> DecoderOnlyConfig:
        """The sizes alone, as chapter 13's model takes them."""
        names = [f.name for f in dataclasses.fields(DecoderOnlyConfig)]
        return DecoderOnlyConfig(**{name: getattr(self, name) for name in names})

    @property
    def ffn_width(self) -> int:
        """The inner width of the feed-forward network, ``d_ff``, or for SwiGLU the width
        whose parameters are nearest those of the ReLU network
        (:func:`~illustrated.decoder_only.swiglu.matched_d_ff`)."""
        if self.ffn == "relu":
            return self.d_ff
        return matched_d_ff(self.d_model, self.d_ff, self.bias)


def modern(**overrides) -> VariantConfig:
    """Every change at once, as Llama: RMSNorm, pre-norm, RoPE, SwiGLU, no biases, and two
    query heads per key/value head (``n_kv_heads = h / 2``)."""
    h = overrides.get("h", VariantConfig.h)
    changes = dict(norm="rms", norm_first=True, position="rope", ffn="swiglu",
                   n_kv_heads=max(1, h // 2), bias=False)
    return VariantConfig(**{**changes, **overrides})


def _norm(c: VariantConfig) -> nn.Module:
    return RMSNorm(c.d_model) if c.norm == "rms" else nn.LayerNorm(c.d_model, bias=c.bias)


class VariantLayer(nn.Module):
    """One causal layer: self-attention, then feed-forward, each in a
    :class:`~illustrated.layers.SublayerConnection` (its names those of chapter 13's
    layer), the parts chosen by ``config``."""

    def __init__(self, c: VariantConfig):
        super().__init__()
        self.d_model = c.d_model
        self.self_attn = GroupedQueryAttention(
            c.d_model, c.h, c.n_kv_heads, c.dropout, c.bias, rope=c.position == "rope")
        if c.ffn == "relu":
            self.feed_forward = PositionwiseFeedForward(c.d_model, c.d_ff, c.dropout, c.bias)
        else:
            self.feed_forward = SwiGLUFeedForward(c.d_model, c.ffn_width, c.dropout)
        self.sublayer1 = SublayerConnection(c.d_model, c.dropout, c.norm_first, _norm(c))
        self.sublayer2 = SublayerConnection(c.d_model, c.dropout, c.norm_first, _norm(c))

    def forward(self, x: torch.Tensor, cache: KVCache | None = None) -> torch.Tensor:
        """Args: x ``(B, T, D)`` at positions ``P .. P + T - 1``, ``P`` held in ``cache``.
        Returns: ``(B, T, D)``. The mask is the causal one, always."""
        check_stream(x, self.d_model, like=self)
        # 1) causal self-attention, over the cached positions and the new ones
        x = self.sublayer1(x, lambda y: self.self_attn(y, cache=cache, is_causal=True))
        # 2) position-wise feed-forward
        return self.sublayer2(x, self.feed_forward)  # (B, T, D)


class VariantDecoder(nn.Module):
    """A causal language model whose parts :class:`VariantConfig` chooses. The same
    interface as :class:`~illustrated.decoder_only.model.DecoderOnly` (``new_cache``,
    ``forward(tokens, cache, last_only)``), so chapter 13's training and sampling use it.

    Args:
        config: a :class:`VariantConfig`.
        generator: optional ``torch.Generator`` for the initial weights.
    """

    def __init__(self, config: VariantConfig, generator: torch.Generator | None = None):
        super().__init__()
        if not isinstance(config, VariantConfig):
            raise TypeError(f"config must be a VariantConfig, got {type(config).__name__}")
        c = self.config = config
        # Sinusoidal: the table is added once, to the embeddings (then dropout); RoPE adds
        # nothing there: the attention rotates queries and keys instead.
        positions = (PositionalEncoding(c.d_model, c.dropout, c.max_len)
                     if c.position == "sinusoidal" else nn.Dropout(c.dropout))
        self.embed = nn.Sequential(Embeddings(c.vocab, c.d_model), positions)
        self.layers = nn.ModuleList(VariantLayer(c) for _ in range(c.N))
        # Pre-norm leaves the last layer's output unnormalised: one more norm at the top.
        self.final_norm = _norm(c) if c.norm_first else None
        self.generator = Generator(c.d_model, c.vocab, bias=c.bias)
        self.generator.proj.weight = self.embed[0].embedding.weight  # tied
        init_parameters(self, c.d_model, generator)

    def new_cache(self) -> list[KVCache]:
        """An empty key/value cache, one per layer, for :meth:`forward`."""
        return [KVCache() for _ in self.layers]

    def forward(self, tokens: torch.Tensor, cache: list[KVCache] | None = None,
                last_only: bool = False) -> torch.Tensor:
        """As :meth:`~illustrated.decoder_only.model.DecoderOnly.forward`: tokens
        ``(B, T)`` (right-padded), at positions ``P .. P + T - 1`` with ``P`` held in
        ``cache``. Returns log-probabilities ``(B, T, V)``, or ``(B, 1, V)`` with
        ``last_only``."""
        check_cache(cache, len(self.layers))
        P = 0 if cache is None else len(cache[0])
        # 1) token vectors (plus the positions P..P+T-1 for the sinusoidal table)
        embed, positions = self.embed
        x = embed(tokens)  # (B, T, D); it checks the ids
        if P + x.shape[1] > self.config.max_len:  # the table's limit, kept for RoPE too
            raise ValueError(f"positions up to {P + x.shape[1]} are more than "
                             f"max_len={self.config.max_len}")
        x = positions(x, start=P) if self.config.position == "sinusoidal" else positions(x)
        # 2) N causal layers, 3) the final norm of pre-norm
        for i, layer in enumerate(self.layers):
            x = layer(x, cache=None if cache is None else cache[i])  # (B, T, D)
        if self.final_norm is not None:
            x = self.final_norm(x)  # (B, T, D)
        # 4) a distribution over the next token, at every position or the last
        if last_only:
            x = x[:, -1:]  # (B, 1, D)
        return self.generator(x)  # (B, T, V) or (B, 1, V)
