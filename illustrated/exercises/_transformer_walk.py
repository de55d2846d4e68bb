"""How :func:`~illustrated.exercises.check_transformer` finds the part that differs: it
feeds each of the reader's parts (embeddings, every encoder and decoder layer and, when
no whole-layer mistake fits, the modules inside the layer, the stacks, the output layer)
the reference's input, in the order data flows, and names the first part whose output
differs and the planted mistake it equals.
"""
from __future__ import annotations

import torch

from ._transformer_mistakes import (DTYPE, GENERAL, INTERFACE, NO_LOG_SOFTMAX,
                                    SOFTMAX, dec_mistakes, embed_mistakes, enc_mistakes,
                                    part_mistakes, stack_mistakes)

# float64 throughout. The package keeps its positional table in float32, so a model that
# computes the table in float64 differs from it by ~1e-8 at the input: allow 1e-6.
_RTOL, _ATOL = 1e-5, 1e-6
_LOOSE = 1e-4  # a planted mistake "matches" within this (absolute and relative)


# ---------------------------------------------------------------- comparing


def close(a, b, tol=1.0) -> bool:
    return (isinstance(a, torch.Tensor) and a.shape == b.shape
            and torch.allclose(a.to(b.dtype), b, _RTOL * tol, _ATOL * tol))


def matches(got, variant) -> bool:
    try:
        want = variant()
    except (RuntimeError, ValueError, IndexError):
        return False
    return (isinstance(got, torch.Tensor) and got.shape == want.shape
            and torch.allclose(got.to(want.dtype), want, _LOOSE, _LOOSE))


def how(got, want) -> str:
    if not isinstance(got, torch.Tensor):
        return f"it returned a {type(got).__name__}, expected a tensor"
    if got.shape != want.shape:
        return f"wrong shape: expected {tuple(want.shape)}, got {tuple(got.shape)}"
    if not bool(torch.isfinite(got).all()):
        return "it contains NaN or inf"
    return f"largest difference {(got.to(want.dtype) - want).abs().max().item():.3g}"


def raised_hint(exc: Exception) -> str:
    """A dtype clash means a tensor made inside the model; anything else, the interface."""
    if any(word in str(exc) for word in ("dtype", "Double", "Float", "double", "float")):
        return DTYPE
    return INTERFACE


class Differs(Exception):
    def __init__(self, part: str, problem: str, hint: str):
        super().__init__(part)
        self.part, self.problem, self.hint = part, problem, hint


def _compare(part: str, call, want, mistakes) -> None:
    """Run the reader's part; raise _Differs naming it and the likely mistake if its
    output is not the reference's."""
    try:
        with torch.no_grad():
            got = call()
    except Exception as exc:
        raise Differs(part, f"calling it raised {type(exc).__name__}: {exc}",
                       raised_hint(exc)) from exc
    if close(got, want):
        return
    hint = next((h for h, v in mistakes if matches(got, v) and not same(v, want)),
                GENERAL)
    raise Differs(part, how(got, want), hint)


def same(variant, want) -> bool:
    """Whether a mistake changes nothing here (ignoring a mask when there is none): it
    must not be named for an output that merely differs in the last digits."""
    try:
        return close(variant(), want)
    except (RuntimeError, ValueError, IndexError):
        return False


def walk(model, pkg, src, tgt, src_mask, tgt_mask, pre_model) -> None:
    """Feed each of the reader's parts the reference's input, in the order data flows;
    raise _Differs at the first part whose output differs."""
    with torch.no_grad():
        x = pkg.src_embed(src)  # (B, S, D)
        _compare("the source embedding + positions (`model.src_embed(src)`)",
                 lambda: model.src_embed(src), x, embed_mistakes(pkg.src_embed, src))
        for i, (mine, pl) in enumerate(zip(model.encoder.layers, pkg.encoder.layers)):
            y = pl(x, src_mask)  # (B, S, D)
            where = f"encoder layer {i} (`model.encoder.layers[{i}](x, src_mask)`)"
            try:
                _compare(where, lambda: mine(x, src_mask), y,
                         enc_mistakes(pl, x, src_mask, pre_model))
            except Differs as d:
                if d.hint == GENERAL:  # no whole-layer mistake fits: look inside
                    _inside_layer(mine, pl, f"encoder layer {i}",
                                  [("self_attn", (x, x, x, src_mask)), ("feed_forward", ())])
                raise
            x = y
        enc_in = pkg.src_embed(src)
        memory = pkg.encoder(enc_in, src_mask)  # (B, S, D)
        _compare("the encoder's output (`model.encoder(x, src_mask)`)",
                 lambda: model.encoder(enc_in, src_mask), memory,
                 stack_mistakes({"raw": x}, pre_model))
        x = pkg.tgt_embed(tgt)  # (B, T, D)
        _compare("the target embedding + positions (`model.tgt_embed(tgt)`)",
                 lambda: model.tgt_embed(tgt), x, embed_mistakes(pkg.tgt_embed, tgt))
        for i, (mine, pl) in enumerate(zip(model.decoder.layers, pkg.decoder.layers)):
            y = pl(x, memory, src_mask, tgt_mask)  # (B, T, D)
            where = f"decoder layer {i} (`model.decoder.layers[{i}](x, memory, ...)`)"
            mistakes = dec_mistakes(pl, x, memory, src_mask, tgt_mask, pre_model)
            try:
                _compare(where, lambda: mine(x, memory, src_mask, tgt_mask), y, mistakes)
            except Differs as d:
                if d.hint == GENERAL:  # no whole-layer mistake fits: look inside
                    _inside_layer(mine, pl, f"decoder layer {i}",
                                  [("self_attn", (x, x, x, tgt_mask)),
                                   ("src_attn", (x, memory, memory, src_mask)),
                                   ("feed_forward", ())])
                raise
            x = y
        dec_in = pkg.tgt_embed(tgt)
        out = pkg.decoder(dec_in, memory, src_mask, tgt_mask)  # (B, T, D)
        _compare("the decoder's output (`model.decoder(x, memory, src_mask, tgt_mask)`)",
                 lambda: model.decoder(dec_in, memory, src_mask, tgt_mask), out,
                 stack_mistakes({"raw": x}, pre_model))
        logits = pkg.generator.proj(out)  # (B, T, V)
        _compare("the output layer (`model.generator(x)`)", lambda: model.generator(out),
                 logits.log_softmax(-1), [(NO_LOG_SOFTMAX, lambda: logits),
                                          (SOFTMAX, lambda: logits.softmax(-1))])


def _inside_layer(mine, pl, layer: str, parts: list) -> None:
    """Compare the modules of one layer (``self_attn``, ``src_attn``, ``feed_forward``),
    each on the reference's input, when the interface reaches them; the feed-forward
    network reads the normalised input ``pl.sublayer1.norm(x)``, ``()`` in ``parts``."""
    x = parts[0][1][0]
    for name, args in parts:
        args = args or (pl.sublayer1.norm(x),)
        module = getattr(mine, name, None)
        if module is None:
            return
        want = getattr(pl, name)(*args)
        _compare(f"{layer}'s `{name}`", lambda: module(*args), want,
                 part_mistakes(getattr(pl, name), name, args))
