"""The full encoder-decoder Transformer. Introduced in chapter 1, The black box;
assembled part by part through chapter 9.

``Transformer`` wires together the parts of the other modules: token embeddings plus
positional encodings, a stack of ``N`` encoder layers, a stack of ``N`` decoder layers, and
a ``Generator`` that turns each decoder output into log-probabilities over the target
vocabulary. ``ModelConfig`` holds the sizes, with the paper's base model as defaults.

Masks follow the package convention (bool, ``True`` = may attend); ``make_std_masks``
builds the usual pair from token ids.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import torch
from torch import nn

from .attention import MultiHeadAttention
from .checks import check_dropout, check_heads, check_positive_int, check_token_ids
from .kv_cache import DecoderCache, check_decoder_cache
from .layers import DecoderLayer, EncoderLayer, Embeddings
from .masks import check_mask, padding_mask, subsequent_mask
from .positional import PositionalEncoding


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of a Transformer. The defaults are the sizes of the paper's base model (Table 3);
    unlike the paper, they keep the two embeddings and the output layer as three matrices
    (``share_embeddings=False``)."""

    src_vocab: int = 37000  # source vocabulary size (the paper's English-German BPE: ~37000)
    tgt_vocab: int = 37000  # target vocabulary size (shared with the source in the paper)
    N: int = 6  # number of encoder layers, and of decoder layers
    d_model: int = 512  # width of every token vector in the model
    d_ff: int = 2048  # inner width of the position-wise feed-forward network
    h: int = 8  # number of attention heads; d_k = d_model / h = 64
    dropout: float = 0.1  # P_drop, on every sub-layer output and on embeddings + PE
    max_len: int = 5000  # longest sequence the positional encoding table covers
    norm_first: bool = False  # False: post-norm as in the paper; True: pre-norm
    pad_id: int = 0  # token id used for padding, in both vocabularies
    # One joint (e.g. subword) vocabulary: the source and target embeddings and the
    # generator's weights are one matrix, as in the paper's section 3.4. Off by default.
    share_embeddings: bool = False

    def __post_init__(self):
        for name in ("src_vocab", "tgt_vocab", "N", "d_model", "d_ff", "h", "max_len"):
            check_positive_int(getattr(self, name), name)
        check_heads(self.d_model, self.h)
        if self.d_model % 2 != 0:
            raise ValueError(
                f"d_model must be even for the sinusoidal positional encoding, "
                f"got d_model={self.d_model}"
            )
        check_dropout(self.dropout)
        if not isinstance(self.norm_first, bool):
            raise TypeError(f"norm_first must be True or False, got {self.norm_first!r}")
        if not isinstance(self.share_embeddings, bool):
            raise TypeError(f"share_embeddings must be True or False, got "
                            f"{self.share_embeddings!r}")
        if self.share_embeddings and self.src_vocab != self.tgt_vocab:
            raise ValueError(f"share_embeddings needs one vocabulary, got src_vocab="
                             f"{self.src_vocab} and tgt_vocab={self.tgt_vocab}")
        if isinstance(self.pad_id, bool) or not isinstance(self.pad_id, int):
            raise TypeError(f"pad_id must be an int, got {type(self.pad_id).__name__}")
        if not 0 <= self.pad_id < min(self.src_vocab, self.tgt_vocab):
            raise ValueError(
                f"pad_id={self.pad_id} must be a token id of both vocabularies, i.e. in "
                f"[0, {min(self.src_vocab, self.tgt_vocab)})"
            )

    @classmethod
    def tiny(cls, **overrides) -> "ModelConfig":
        """A small model that runs in milliseconds on a CPU, for notebooks and tests.

        Any field can be overridden: ``ModelConfig.tiny(N=1, norm_first=True)``.
        """
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(overrides) - fields)
        if unknown:
            raise TypeError(f"unknown ModelConfig field(s) {unknown}; fields are {sorted(fields)}")
        preset = dict(src_vocab=16, tgt_vocab=16, N=2, d_model=32, d_ff=64, h=4,
                      dropout=0.0, max_len=64)
        return cls(**{**preset, **overrides})


class Encoder(nn.Module):
    """A stack of ``N`` identical encoder layers (:class:`~illustrated.layers.EncoderLayer`),
    each with its own weights.

    Args:
        N: number of layers (6 in the paper).
        d_model, h, d_ff, dropout, norm_first: as :class:`~illustrated.layers.EncoderLayer`.
    """

    def __init__(self, N: int, d_model: int, h: int, d_ff: int, dropout: float = 0.1,
                 norm_first: bool = False):
        super().__init__()
        check_positive_int(N, "N")
        self.layers = nn.ModuleList(
            EncoderLayer(d_model, h, d_ff, dropout, norm_first) for _ in range(N)
        )
        # A post-norm layer ends with a LayerNorm, so the stack's output is already
        # normalised. A pre-norm layer only normalises the copy it feeds to each sub-layer;
        # its output is the raw residual sum, so a pre-norm stack needs one final norm.
        self.norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """Args: x ``(B, S, D)``; mask broadcasting to ``(B, S, S)``. Returns: ``(B, S, D)``.
        The first layer checks them."""
        for layer in self.layers:
            x = layer(x, mask)  # (B, S, D)
        return self.norm(x)  # (B, S, D)


class Decoder(nn.Module):
    """A stack of ``N`` decoder layers (:class:`~illustrated.layers.DecoderLayer`); every layer
    reads the same ``memory``.

    Args: as :class:`Encoder`.
    """

    def __init__(self, N: int, d_model: int, h: int, d_ff: int, dropout: float = 0.1,
                 norm_first: bool = False):
        super().__init__()
        check_positive_int(N, "N")
        self.layers = nn.ModuleList(
            DecoderLayer(d_model, h, d_ff, dropout, norm_first) for _ in range(N)
        )
        self.norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()  # see Encoder

    def forward(self, x: torch.Tensor, memory: torch.Tensor,
                src_mask: torch.Tensor | None = None,
                tgt_mask: torch.Tensor | None = None,
                cache: DecoderCache | None = None) -> torch.Tensor:
        """Args: x ``(B, T, D)``; memory ``(B, S, D)``; masks and cache as
        :class:`~illustrated.layers.DecoderLayer` (``cache`` a
        :class:`~illustrated.kv_cache.DecoderCache` of this stack's depth).
        Returns: ``(B, T, D)``."""
        check_decoder_cache(cache, len(self.layers))
        for i, layer in enumerate(self.layers):
            layer_cache = None if cache is None else cache.layers[i]
            x = layer(x, memory, src_mask, tgt_mask, cache=layer_cache)  # (B, T, D)
        return self.norm(x)  # (B, T, D)


class Generator(nn.Module):
    """The final linear layer and softmax: decoder vectors to log-probabilities.

    Args:
        d_model: width ``D`` of the decoder output.
        vocab: target vocabulary size ``V``.
        bias: whether the layer adds a bias (Llama's output layer has none).
    """

    def __init__(self, d_model: int, vocab: int, bias: bool = True):
        super().__init__()
        check_positive_int(d_model, "d_model")
        check_positive_int(vocab, "vocab")
        self.proj = nn.Linear(d_model, vocab, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Args: x ``(B, T, D)``. Returns: log-probabilities ``(B, T, V)``."""
        # log_softmax rather than softmax: the training loss needs logs, and taking them
        # inside one function avoids log(0) for very unlikely tokens.
        return self.proj(x).log_softmax(dim=-1)  # (B, T, V)


def make_std_masks(src: torch.Tensor, tgt: torch.Tensor, pad_id: int = 0):
    """The usual masks for a batch of source and target token ids.

    Args:
        src: source ids ``(B, S)``.
        tgt: target (decoder input) ids ``(B, T)``.
        pad_id: the padding id.

    Returns:
        ``(src_mask, tgt_mask)``: ``src_mask`` ``(B, 1, S)`` hides source padding;
        ``tgt_mask`` ``(B, T, T)`` hides target padding *and* future positions.
    """
    src_mask = padding_mask(src, pad_id)  # (B, 1, S)
    tgt_pad = padding_mask(tgt, pad_id)  # (B, 1, T)
    T = tgt_pad.shape[-1]
    tgt_mask = tgt_pad & subsequent_mask(T, device=tgt.device)  # (B, T, T)
    return src_mask, tgt_mask


@torch.no_grad()
def init_parameters(model: nn.Module, d_model: int,
                    generator: torch.Generator | None = None) -> None:
    """The initial weights of the Transformer (and of the decoder-only model). Xavier/Glorot
    uniform on every weight matrix of a linear layer, as the Annotated Transformer does:
    U(-a, a) with a = sqrt(6 / (fan_in + fan_out)) keeps the variance of activations roughly
    constant from layer to layer. The embedding tables get N(0, 1/d_model) instead (see
    Embeddings: after the sqrt(d_model) scaling their rows match the positional encoding's).
    Biases start at 0 and LayerNorms at the identity, so ``generator`` alone decides the
    initial model."""
    for name, p in model.named_parameters():
        if name.endswith("embedding.weight"):
            p.normal_(0.0, d_model ** -0.5, generator=generator)
        elif p.dim() > 1:
            fan_out, fan_in = p.shape
            a = math.sqrt(6.0 / (fan_in + fan_out))
            p.uniform_(-a, a, generator=generator)
        elif name.endswith("bias"):
            p.zero_()


class Transformer(nn.Module):
    """The encoder-decoder Transformer of *Attention Is All You Need*.

    Args:
        config: the sizes (see :class:`ModelConfig`).
        generator: optional ``torch.Generator`` for the initial weights, so a model can
            be reproduced without touching the global random seed.

    Masks passed as ``None`` mean *attend to everything*: no padding is hidden and the
    decoder may look ahead. For training on token ids, pass the masks from
    ``make_std_masks(src, tgt, config.pad_id)``.
    """

    def __init__(self, config: ModelConfig, generator: torch.Generator | None = None):
        super().__init__()
        if not isinstance(config, ModelConfig):
            raise TypeError(f"config must be a ModelConfig, got {type(config).__name__}")
        c = self.config = config
        self.src_embed = nn.Sequential(Embeddings(c.src_vocab, c.d_model, "src"),
                                       PositionalEncoding(c.d_model, c.dropout, c.max_len))
        self.tgt_embed = nn.Sequential(Embeddings(c.tgt_vocab, c.d_model, "tgt"),
                                       PositionalEncoding(c.d_model, c.dropout, c.max_len))
        self.encoder = Encoder(c.N, c.d_model, c.h, c.d_ff, c.dropout, c.norm_first)
        self.decoder = Decoder(c.N, c.d_model, c.h, c.d_ff, c.dropout, c.norm_first)
        self.generator = Generator(c.d_model, c.tgt_vocab)
        if c.share_embeddings:  # one matrix, three uses (named_parameters lists it once)
            shared = self.src_embed[0].embedding.weight
            self.tgt_embed[0].embedding.weight = shared
            self.generator.proj.weight = shared
        init_parameters(self, c.d_model, generator)

    def encode(self, src: torch.Tensor, src_mask: torch.Tensor | None = None) -> torch.Tensor:
        """Args: src ids ``(B, S)``; src_mask ``(B, 1, S)``. Returns: memory ``(B, S, D)``.
        The embedding checks ``src`` (and the positional encoding its length)."""
        x = self.src_embed(src)  # (B, S, D)
        if src_mask is not None:  # named here: the encoder's layers call it mask
            check_mask(src_mask, (src.shape[0], src.shape[1], src.shape[1]), "src_mask")
        return self.encoder(x, src_mask)  # (B, S, D)

    def decode(self, memory: torch.Tensor, src_mask: torch.Tensor | None,
               tgt: torch.Tensor, tgt_mask: torch.Tensor | None,
               cache: DecoderCache | None = None) -> torch.Tensor:
        """Args: memory ``(B, S, D)``; src_mask ``(B, 1, S)``; tgt ids ``(B, T)``;
        tgt_mask ``(B, T, T)``; cache: optional :class:`~illustrated.kv_cache.DecoderCache`
        from :meth:`new_cache`. With a cache holding ``P`` positions, ``tgt`` holds only
        the new tokens (at positions ``P..P+T-1``), the earlier ones are read from the
        cache, and ``tgt_mask`` broadcasts to ``(B, T, P + T)`` (``None`` for one token).
        Returns: ``(B, T, D)``. The decoder's layers check the memory and the masks."""
        check_decoder_cache(cache, self.config.N)
        embed, positional = self.tgt_embed
        x = positional(embed(tgt), start=0 if cache is None else len(cache))  # (B, T, D)
        return self.decoder(x, memory, src_mask, tgt_mask, cache=cache)  # (B, T, D)

    def keep_attention_weights(self, keep: bool = True) -> "Transformer":
        """Choose whether every attention layer keeps its weights after each call
        (``attention_weights``, for the figures; the default) or takes the lean path that
        keeps none (training, serving). Returns the model, as ``train()`` does."""
        if not isinstance(keep, bool):
            raise TypeError(f"keep must be True or False, got {keep!r}")
        for m in self.modules():
            if isinstance(m, MultiHeadAttention):
                m.need_weights = keep
        return self

    def new_cache(self) -> DecoderCache:
        """An empty key/value cache for incremental decoding with :meth:`decode`."""
        return DecoderCache(self.config.N)

    def forward(self, src: torch.Tensor, tgt: torch.Tensor,
                src_mask: torch.Tensor | None = None,
                tgt_mask: torch.Tensor | None = None) -> torch.Tensor:
        """Args:
            src: source ids ``(B, S)``.
            tgt: decoder input ids ``(B, T)`` (the target shifted right).
            src_mask: bool ``(B, 1, S)`` or ``None`` (attend to all source tokens).
            tgt_mask: bool ``(B, T, T)`` or ``None`` (no causal mask!).

        Returns: log-probabilities of the next token ``(B, T, V)``.
        """
        _check_one_batch(src, tgt)  # encode and decode check the rest
        # 1) encode the whole source sentence
        memory = self.encode(src, src_mask)  # (B, S, D)
        # 2) decode every target position, reading the memory
        out = self.decode(memory, src_mask, tgt, tgt_mask)  # (B, T, D)
        # 3) turn each position into a distribution over the target vocabulary
        return self.generator(out)  # (B, T, V)


def make_model(src_vocab: int, tgt_vocab: int, N: int = 6, d_model: int = 512,
               d_ff: int = 2048, h: int = 8, dropout: float = 0.1,
               seed: int | None = None) -> Transformer:
    """Build a :class:`Transformer` with the paper's base sizes unless told otherwise.

    Args:
        src_vocab, tgt_vocab: vocabulary sizes.
        N, d_model, d_ff, h, dropout: as :class:`ModelConfig`.
        seed: if given, the initial weights come from a private generator seeded with it
            (the global random state is not reseeded).

    Returns: a ``Transformer`` in training mode.
    """
    config = ModelConfig(src_vocab=src_vocab, tgt_vocab=tgt_vocab, N=N, d_model=d_model,
                         d_ff=d_ff, h=h, dropout=dropout)
    generator = None if seed is None else torch.Generator().manual_seed(seed)
    return Transformer(config, generator=generator)


def _check_one_batch(src, tgt) -> None:
    """What :meth:`Transformer.forward` adds to the checks of ``encode`` and ``decode``:
    ``src`` and ``tgt`` are the two sides of one batch of sentences."""
    check_token_ids(src, "src")
    check_token_ids(tgt, "tgt")
    if src.shape[0] != tgt.shape[0]:
        raise ValueError(
            f"src and tgt must have the same batch size B, got src {tuple(src.shape)} "
            f"and tgt {tuple(tgt.shape)}"
        )
