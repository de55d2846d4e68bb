"""The checker of the capstone: the reader's whole Transformer against PyTorch's.

``check_transformer(MyTransformer)`` builds a reference from ``torch.nn.Transformer`` (plus
two ``nn.Embedding`` tables, the sinusoidal positions and an output ``nn.Linear``) in
float64, copies its weights into the reader's class, and compares the log-probabilities
with and without masks, in eval mode and in train mode with dropout 0. On a mismatch it
walks the model part by part, feeding each part the reference's input, and names the
first part that differs and the mistake its output most resembles.

``nn.Transformer`` ends each stack with a LayerNorm of its own (``encoder.norm``,
``decoder.norm``). The paper's post-norm stack has none: each of its layers already ends
with one. The reference therefore drops both (sets them to ``None``) for a post-norm
config, and keeps them for a pre-norm one (``norm_first=True``), whose stacks need them.
"""
from __future__ import annotations

import math
import textwrap
import warnings

import torch
from torch import nn

from ..interop import from_torch
from ..masks import padding_mask, subsequent_mask
from ..model import ModelConfig, Transformer
from ..positional import sinusoidal_encoding
from ._frames import learner_frames_only
from ._runner import WIDTH, failure, fill
from ._transformer_mistakes import (GENERAL, INTERFACE, TRAIN_ONLY, WIRING,
                                    model_mistakes)
from ._transformer_walk import close, Differs, how, matches, raised_hint, same, walk

_NAME = "check_transformer"


# ---------------------------------------------------------------- the reference


def _config(config: ModelConfig | None) -> ModelConfig:
    if config is None:
        return ModelConfig(src_vocab=11, tgt_vocab=13, N=2, d_model=16, d_ff=32, h=4,
                           dropout=0.0, max_len=32)
    if not isinstance(config, ModelConfig):
        raise TypeError(fill(f"config must be an illustrated.model.ModelConfig or None, got "
                        f"{type(config).__name__}"))
    if config.dropout != 0.0:
        raise ValueError(fill(f"config.dropout must be 0.0 so that train mode can be compared, "
                         f"got {config.dropout}; use dataclasses.replace(config, dropout=0.0)"))
    if config.share_embeddings:
        raise ValueError(fill("config.share_embeddings must be False, got True: the reference "
                         "has three separate matrices (two embeddings and the output layer), "
                         "which a model holding one shared matrix cannot load; use "
                         "dataclasses.replace(config, share_embeddings=False)"))
    return config


class _Reference(nn.Module):
    """``nn.Transformer`` with embeddings, sinusoidal positions and an output layer."""

    def __init__(self, c: ModelConfig):
        super().__init__()
        self.c = c
        self.src_emb = nn.Embedding(c.src_vocab, c.d_model)
        self.tgt_emb = nn.Embedding(c.tgt_vocab, c.d_model)
        with warnings.catch_warnings():  # "enable_nested_tensor is True, but ...": we
            warnings.filterwarnings("ignore", message="enable_nested_tensor")  # turn it off
            self.core = nn.Transformer(c.d_model, c.h, c.N, c.N, c.d_ff, dropout=0.0,
                                       batch_first=True, norm_first=c.norm_first)
        if not c.norm_first:  # the paper's post-norm stacks end with no extra norm
            self.core.encoder.norm = None
            self.core.decoder.norm = None
        self.core.encoder.use_nested_tensor = False  # keep padded rows, as ours does
        self.out = nn.Linear(c.d_model, c.tgt_vocab)
        # the package's table (computed in float64, stored in float32) as float64
        self.register_buffer("pe", sinusoidal_encoding(c.max_len, c.d_model).double())

    def embed(self, emb: nn.Embedding, ids: torch.Tensor) -> torch.Tensor:
        return emb(ids) * math.sqrt(self.c.d_model) + self.pe[:ids.shape[1]]  # (B, L, D)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None):
        kw = _torch_masks(src_mask, tgt_mask)
        y = self.core(self.embed(self.src_emb, src), self.embed(self.tgt_emb, tgt), **kw)
        return self.out(y).log_softmax(dim=-1)  # (B, T, V)


def _torch_masks(src_mask, tgt_mask) -> dict:
    """Our masks (``True`` = may attend) as nn.Transformer's keyword arguments: a key
    padding mask and an attention mask, both ``True`` = blocked."""
    kw = {}
    if src_mask is not None:  # (B, 1, S)
        kw["src_key_padding_mask"] = ~src_mask[:, 0]  # (B, S)
        kw["memory_key_padding_mask"] = ~src_mask[:, 0]  # (B, S)
    if tgt_mask is not None:  # (B, T, T) = causal & padding; split it back
        T = tgt_mask.shape[-1]
        kw["tgt_mask"] = ~subsequent_mask(T)[0]  # (T, T)
        kw["tgt_key_padding_mask"] = ~tgt_mask[:, -1]  # (B, T): the last row sees every key
    return kw


@torch.no_grad()
def _build(c: ModelConfig) -> tuple[_Reference, Transformer]:
    """The reference (random float64 weights, fixed seed, global seed untouched) and the
    package's Transformer holding the same weights."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(2017)
        ref = _Reference(c).double()
        for name, p in ref.named_parameters():  # nothing left at 0 or 1: a missing bias
            if p.dim() == 1:  # or LayerNorm weight shows
                p.copy_((1.0 if name.endswith("weight") else 0.0) + 0.2 * torch.randn_like(p))
            elif "emb" in name:
                p.copy_(torch.randn_like(p) / math.sqrt(c.d_model))
        ours = Transformer(c).double()  # its own random weights are all overwritten below
    ours.src_embed[0].embedding.weight.copy_(ref.src_emb.weight)
    ours.tgt_embed[0].embedding.weight.copy_(ref.tgt_emb.weight)
    ours.encoder.layers = nn.ModuleList(from_torch(l) for l in ref.core.encoder.layers)
    ours.decoder.layers = nn.ModuleList(from_torch(l) for l in ref.core.decoder.layers)
    if c.norm_first:
        ours.encoder.norm.load_state_dict(ref.core.encoder.norm.state_dict())
        ours.decoder.norm.load_state_dict(ref.core.decoder.norm.state_dict())
        ours.encoder.norm.eps = ref.core.encoder.norm.eps
        ours.decoder.norm.eps = ref.core.decoder.norm.eps
    ours.generator.proj.load_state_dict(ref.out.state_dict())
    return ref, ours


def _reference_output(ref: _Reference, *args) -> torch.Tensor:
    # Grad enabled so that PyTorch takes its ordinary path, not the inference fast path.
    with torch.enable_grad():
        return ref(*args).detach()


# ---------------------------------------------------------------- the reader's model


def _instantiate(cls, c: ModelConfig) -> nn.Module:
    if not isinstance(cls, type):
        raise TypeError(fill(f"{_NAME} expects your class itself, e.g. {_NAME}(MyTransformer), "
                        f"got {type(cls).__name__}"))
    if not issubclass(cls, nn.Module):
        raise TypeError(fill(f"{cls.__name__} must be a subclass of torch.nn.Module"))
    for method in ("forward", "encode", "decode"):
        if not callable(getattr(cls, method, None)):
            raise TypeError(fill(f"{cls.__name__} has no method `{method}`; " + INTERFACE))
    try:
        with torch.random.fork_rng(devices=[]):
            model = cls(c)
    except Exception as exc:
        raise TypeError(fill(f"{cls.__name__}(config) raised {type(exc).__name__}: {exc}; the "
                        f"constructor must take one ModelConfig")) from exc
    if not isinstance(model, nn.Module):
        raise TypeError(fill(f"{cls.__name__}(config) returned {type(model).__name__}, not an "
                        f"nn.Module"))
    return model.double()


def _load(model: nn.Module, state: dict, cls_name: str) -> None:
    """Load the reference weights, or raise ValueError naming the first key that does not
    fit (missing, unexpected, or of another shape)."""
    theirs = model.state_dict()
    missing = [k for k in state if k not in theirs]
    unexpected = [k for k in theirs if k not in state]
    if missing:
        raise ValueError(fill(f"{cls_name}'s state_dict has no key {missing[0]!r} (expected "
                         f"shape {tuple(state[missing[0]].shape)}; {len(missing)} missing in "
                         f"all); " + INTERFACE))
    if unexpected:
        raise ValueError(fill(f"{cls_name}'s state_dict has an unexpected key {unexpected[0]!r} "
                         f"of shape {tuple(theirs[unexpected[0]].shape)} ({len(unexpected)} "
                         f"unexpected in all); " + INTERFACE))
    for k, v in state.items():
        if theirs[k].shape != v.shape:
            raise ValueError(fill(f"{cls_name}'s state_dict key {k!r} has shape "
                             f"{tuple(theirs[k].shape)}, expected {tuple(v.shape)}"))
    model.load_state_dict(state)


def _mode_name(training: bool) -> str:
    return "train mode, dropout 0" if training else "eval mode"


def _inputs(c: ModelConfig):
    g = torch.Generator().manual_seed(12)
    src = torch.randint(1, c.src_vocab, (2, 6), generator=g)  # (B, S)
    tgt = torch.randint(1, c.tgt_vocab, (2, 5), generator=g)  # (B, T)
    tgt[:, 0] = 1  # every target starts with the same token, like <bos>
    padded_src, padded_tgt = src.clone(), tgt.clone()
    padded_src[0, 4:] = c.pad_id  # the first source sentence ends in two pads
    padded_tgt[1, 4:] = c.pad_id  # the second target in one
    src_mask = padding_mask(padded_src, c.pad_id)  # (B, 1, S)
    tgt_mask = padding_mask(padded_tgt, c.pad_id) & subsequent_mask(5)  # (B, T, T)
    return [("no masks", False, (src, tgt, None, None)),
            ("padded, masked", False, (padded_src, padded_tgt, src_mask, tgt_mask)),
            ("padded, masked", True, (padded_src, padded_tgt, src_mask, tgt_mask))]


@learner_frames_only
def check_transformer(cls, config: ModelConfig | None = None) -> None:
    """Check a whole encoder-decoder Transformer class against ``torch.nn.Transformer``.

    **What your class must have** (the package's :class:`~illustrated.model.Transformer`
    has all of it):

    - a constructor ``cls(config)`` taking one :class:`~illustrated.model.ModelConfig`;
    - the same ``state_dict`` keys and shapes as ``illustrated.model.Transformer(config)``
      (this is how the reference weights get in; build it from the package's parts, or
      name your own modules the same way);
    - ``forward(src, tgt, src_mask, tgt_mask)``: ids ``(B, S)`` and ``(B, T)``, bool masks
      (``True`` = may attend) ``(B, 1, S)`` and ``(B, T, T)`` or ``None``; returns
      log-probabilities ``(B, T, tgt_vocab)``;
    - ``encode(src, src_mask)`` returning ``memory`` ``(B, S, D)`` and
      ``decode(memory, src_mask, tgt, tgt_mask)`` returning ``(B, T, D)``;
    - for the part-by-part diagnosis, the parts named by the state_dict keys, called as
      the package calls them: ``src_embed(ids)``, ``tgt_embed(ids)``,
      ``encoder.layers[i](x, mask)``, ``encoder(x, mask)``,
      ``decoder.layers[i](x, memory, src_mask, tgt_mask)``,
      ``decoder(x, memory, src_mask, tgt_mask)``, ``generator(x)``.

    The reference is ``nn.Transformer(d_model, h, N, N, d_ff, dropout=0.0,
    batch_first=True)`` in float64 with random weights (fixed seed), two ``nn.Embedding``
    tables, embeddings times √d_model plus the sinusoidal positions, and an output
    ``nn.Linear`` followed by ``log_softmax``. ``nn.Transformer``'s extra final LayerNorm
    of each stack is removed for a post-norm config (the paper's stack has none) and kept
    for ``config.norm_first=True``.

    Args:
        cls: your Transformer class (the class, not an instance).
        config: the sizes to test with (``dropout`` must be 0); default a small post-norm
            model with ``src_vocab=11, tgt_vocab=13, N=2, d_model=16, d_ff=32, h=4``.

    Compares in float64 (relative 1e-5, absolute 1e-6) on three tests: no masks in eval
    mode; a padded source and a causal + padding target mask in eval mode; the same in
    train mode. Prints one line on success; raises ``AssertionError`` naming the first
    part that differs and the likely mistake; ``TypeError``/``ValueError`` if ``cls`` does
    not have the interface.
    """
    c = _config(config)
    with torch.random.fork_rng(devices=[]):  # dropout(p=0) in train mode still draws
        _check(cls, c)  # random numbers: the reader's global seed stays untouched
    line = (f"✓ {_NAME}: your {cls.__name__} matches torch.nn.Transformer on 3 tests: "
            f"without masks, with padding and causal masks, in eval and in train mode.")
    print(textwrap.fill(line, WIDTH, subsequent_indent="  ", break_long_words=False))


def _check(cls, c: ModelConfig) -> None:
    """Raise on the first test whose output differs (see :func:`check_transformer`)."""
    model = _instantiate(cls, c)
    ref, pkg = _build(c)
    _load(model, pkg.state_dict(), cls.__name__)
    for name, training, args in _inputs(c):
        model.train(training)
        pkg.train(training)
        ref.train(training)
        src, tgt, src_mask, tgt_mask = args
        S, T = src.shape[1], tgt.shape[1]
        where = (f"test '{name}, {_mode_name(training)}' (src ({2}, {S}), tgt ({2}, {T}), "
                 f"float64)")
        want = _reference_output(ref, *args)  # (B, T, V)
        memory = pkg.encode(src, src_mask).detach()  # (B, S, D)
        decoded = pkg.decode(memory, src_mask, tgt, tgt_mask).detach()  # (B, T, D)
        try:
            with torch.no_grad():
                got = model(*args)
                got_memory = model.encode(src, src_mask)
                got_decoded = model.decode(memory, src_mask, tgt, tgt_mask)
        except Exception as exc:
            raise failure(_NAME, where, f"your model raised {type(exc).__name__}: {exc}",
                           raised_hint(exc)).with_traceback(exc.__traceback__) from None
        results = [("forward", got, want), ("encode", got_memory, memory),
                   ("decode", got_decoded, decoded)]
        bad = [(n, g, w) for n, g, w in results if not close(g, w)]
        if not bad:
            continue
        method, g, w = bad[0]
        problem = f"`{method}` differs from the reference ({how(g, w)})"
        try:
            walk(model, pkg, *args, c.norm_first)
        except Differs as d:
            hint = TRAIN_ONLY if training and d.hint == GENERAL else d.hint
            raised = d.__cause__.__traceback__ if d.__cause__ else None  # a part raised
            raise failure(_NAME, where, f"{problem}. The first part that differs is "
                           f"{d.part}: {d.problem}.", hint).with_traceback(raised) from None
        except Exception as exc:  # the parts are not where the interface says
            raise failure(_NAME, where, f"{problem}, and its parts could not be compared "
                           f"one by one ({type(exc).__name__}: {exc}).",
                           INTERFACE).with_traceback(exc.__traceback__) from None
        hint = next((h for h, v in model_mistakes(pkg, *args)
                     if matches(got, v) and not same(v, want)), None)
        if hint is None:
            hint = TRAIN_ONLY if training else WIRING
        raise failure(_NAME, where, f"{problem}; every part matches on the reference's "
                       f"inputs.", hint)
