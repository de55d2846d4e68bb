"""Sampling: the next token drawn from the model's distribution.

Greedy decoding always takes the most likely token; a language model that
writes text draws it instead. :func:`next_token_probs` turns a row of
scores into the distribution to draw from (temperature, then top-k, then
top-p), :func:`draw` picks a token from it with one uniform number (the
inverse of the cumulative distribution), and :func:`generate` repeats the
two until the model says ``<eos>`` or runs out of room. The uniform numbers
come from :class:`Mulberry32`, which the live page's JavaScript copy of
these functions (``_static/live/sampling.mjs``) draws bit for bit, so a
seed gives the same text in the page as here. :func:`generate_many` writes
one text per seed side by side, in one batch: the chapter's measurements.
Introduced in chapter 13, The decoder alone.
"""
from __future__ import annotations

import math

import torch

from ..checks import check_positive_int, check_tensor
from ..decoding import evaluating

MASK32 = 0xFFFFFFFF  # the low 32 bits: what JavaScript's >>> 0 keeps


def _imul(a: int, b: int) -> int:
    """JavaScript's ``Math.imul``: the low 32 bits of the product."""
    return (a * b) & MASK32


class Mulberry32:
    """A tiny seeded generator of uniform numbers, bit for bit the
    well-known JavaScript ``mulberry32`` (Tommy Ettinger's).

    Why not ``torch.Generator``: the live page must draw the very numbers
    this one draws, and torch's Mersenne Twister with ``multinomial`` has
    no JavaScript copy. This one is five lines in either language.

    Args:
        seed: an int in ``[0, 2**32)``.
    """

    def __init__(self, seed: int):
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be an int in [0, 2**32), got "
                            f"{type(seed).__name__} ({seed!r:.40})")
        if not 0 <= seed <= MASK32:
            raise ValueError(f"seed must be in [0, 2**32), got {seed}")
        self.state = seed

    def next_uint32(self) -> int:
        """The next 32-bit number, each line as JavaScript's ``mulberry32``
        (``t ^ t >>> 15``: Python's ints need no ``>>>``)."""
        self.state = (self.state + 0x6D2B79F5) & MASK32
        t = self.state
        t = _imul(t ^ (t >> 15), t | 1)
        t ^= (t + _imul(t ^ (t >> 7), t | 61)) & MASK32
        return t ^ (t >> 14)

    def random(self) -> float:
        """A float in ``[0, 1)``: ``k / 2**32``, ``k`` the next uint32."""
        return self.next_uint32() / 2**32


# The sampling settings' refusals, in the words of the command line and the live writer
# page (_static/live/messages.mjs says them too: tests/test_live_writer.py compares them).
TEMPERATURE = ("temperature must be a finite number, 0 or more (0: greedy, always the most "
               "likely token); got {value}")
TOP_K = "top-k must be a whole number, 0 or more (0: keep every token); got {value}"
TOP_P = "top-p must be more than 0 and at most 1 (1: keep every token); got {value}"


def check_sampling(temperature=1.0, top_k=0, top_p=1.0) -> None:
    """Raise unless temperature >= 0 (finite), top_k an int >= 0 and
    top_p in (0, 1], in the words of ``TEMPERATURE``, ``TOP_K``
    and ``TOP_P``."""
    for words, value in ((TEMPERATURE, temperature), (TOP_P, top_p)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(words.format(value=f"{type(value).__name__} {value!r:.40}"))
    if not (temperature >= 0 and math.isfinite(temperature)):
        raise ValueError(TEMPERATURE.format(value=temperature))
    if isinstance(top_k, bool) or not isinstance(top_k, int):
        raise TypeError(TOP_K.format(value=f"{type(top_k).__name__} {top_k!r:.40}"))
    if top_k < 0:
        raise ValueError(TOP_K.format(value=top_k))
    if not 0 < top_p <= 1:
        raise ValueError(TOP_P.format(value=top_p))


def check_scores(scores) -> None:
    """Raise unless ``scores`` is a float row ``(V,)`` or a batch of rows
    ``(B, V)``: no NaN, no +inf, in every row at least one finite value
    (-inf is a token the model rules out)."""
    check_tensor(scores, "scores", ndim=(1, 2), floating=True)
    if scores.shape[-1] == 0:
        raise ValueError("scores must hold one value per token, got none")
    top = scores.amax(-1)  # () or (B,): NaN where a row holds NaN
    if top.isnan().any():
        at = scores.isnan().nonzero().tolist()  # [[id], ...] or [[row, id], ...]
        where = "ids" if scores.dim() == 1 else "(row, id)"
        at = [a[0] for a in at] if scores.dim() == 1 else at
        raise ValueError(f"scores hold NaN at {where} {at[:10]}")
    if top.isinf().any():
        raise ValueError("scores must be finite or -inf, with one finite "
                         f"value at least in every row (max came "
                         f"{top[top.isinf()].flatten()[0].item()})")


def next_token_probs(scores, temperature=1.0, top_k=0, top_p=1.0):
    """The distribution of the next token, float64.

    Args: scores ``(V,)`` logits or log-probabilities (the same result:
    softmax ignores a constant shift), or a batch of rows ``(B, V)``, each
    row on its own; temperature: divides the scores before the softmax,
    0 = greedy (all mass on the argmax, the first of equal maxima, as
    ``torch.argmax``; top_k and top_p then do nothing); top_k: keep the
    ``k`` most likely tokens (0 or k >= V: all); top_p: keep the fewest
    most likely tokens whose probabilities sum to ``top_p`` or more (1:
    all; the most likely token always stays). Both rank tokens by
    probability, ties by the lower id first, so top-k keeps exactly ``k``.
    top-p reads what top-k left, renormalised.
    Returns: the shape of ``scores``, float64, each row summing to 1, zero
    outside the kept set.
    """
    check_scores(scores)
    check_sampling(temperature, top_k, top_p)
    s = scores.double()  # (..., V)
    if temperature == 0:
        best = s.argmax(-1, keepdim=True)  # (..., 1)
        return torch.zeros_like(s).scatter(-1, best, 1.0)  # (..., V)
    # shift before dividing: a tiny temperature then gives -inf, not NaN
    top = s.amax(-1, keepdim=True)  # (..., 1)
    probs = torch.softmax((s - top) / temperature, dim=-1)  # (..., V)
    return _keep_most_likely(probs, top_k, top_p)


def _keep_most_likely(probs, top_k, top_p):
    """Top-k, then top-p on what top-k kept (renormalised), then
    renormalised again: ``(..., V)`` in, ``(..., V)`` out."""
    V = probs.shape[-1]
    ranked, order = probs.sort(dim=-1, descending=True, stable=True)  # (..., V)
    n = V if top_k == 0 else min(top_k, V)
    ranked = ranked[..., :n]  # (..., n)
    ranked = ranked / ranked.sum(-1, keepdim=True)  # (..., n)
    if top_p < 1:
        cum = ranked.cumsum(-1)  # (..., n) running sums, in rank order
        above = cum[..., :-1]  # (..., n-1): the mass ranked above the next
        # a token stays while what is ranked above it is still below top_p
        stays = torch.cat([torch.ones_like(cum[..., :1], dtype=torch.bool),
                           above < top_p], -1)  # (..., n)
        ranked = ranked * stays  # (..., n)
    kept = torch.zeros_like(probs).scatter(-1, order[..., :n], ranked)
    return kept / kept.sum(-1, keepdim=True)  # (..., V)


def draw(probs, u: float) -> int:
    """The token whose slice of ``[0, 1)`` holds ``u``: the first id whose
    cumulative probability (in id order) exceeds ``u``. A token of
    probability 0 owns no slice, so it is never drawn; if rounding leaves
    the total just under ``u``, the last token with probability > 0.
    Args: probs ``(V,)``, e.g. from :func:`next_token_probs`; u in [0, 1).
    """
    check_tensor(probs, "probs", ndim=1, floating=True)
    if isinstance(u, bool) or not isinstance(u, float) or not 0 <= u < 1:
        raise ValueError(f"u must be a float in [0, 1), got {u!r:.40}")
    cum = probs.cumsum(0)  # (V,)
    i = int(torch.searchsorted(cum, u, right=True))  # first cum > u
    return i if i < len(probs) else int(probs.nonzero()[-1])


def check_prompt(model, prompt_ids, max_new_tokens, eos_id) -> None:
    """Raise unless the prompt is a list of ids with room after it in the
    model's ``max_len``, ``max_new_tokens`` positive and ``eos_id`` an int.
    The model checks the prompt's ids against its vocabulary as it reads
    them."""
    if not isinstance(prompt_ids, (list, tuple)) or any(
            isinstance(i, bool) or not isinstance(i, int)
            for i in prompt_ids):
        raise TypeError("prompt_ids must be a list of int ids (e.g. "
                        f"[bos_id, ...]), got {prompt_ids!r:.80}")
    if not prompt_ids or min(prompt_ids) < 0:
        raise ValueError("prompt_ids must hold one id >= 0 at least, got "
                         f"{prompt_ids!r:.80}")
    max_len = model.config.max_len
    if len(prompt_ids) >= max_len:
        raise ValueError(f"the prompt has {len(prompt_ids)} ids: the "
                         f"model's max_len={max_len} leaves no room for "
                         "a new one")
    check_positive_int(max_new_tokens, "max_new_tokens")
    if isinstance(eos_id, bool) or not isinstance(eos_id, int):
        raise TypeError(f"eos_id must be an int, got {eos_id!r:.40}")


def generate(model, prompt_ids, max_new_tokens, temperature=1.0, top_k=0,
             top_p=1.0, seed=0, use_cache=True, eos_id=2, trace=None):
    """Write up to ``max_new_tokens`` ids after ``prompt_ids``.

    Each step: the model's log-probabilities of the next token,
    :func:`next_token_probs`, one ``u`` from ``Mulberry32(seed)``,
    :func:`draw`. It stops after ``eos_id`` or when prompt and new ids fill
    ``model.config.max_len``. With ``use_cache`` the model reads the prompt
    in one call and then only the newest id (its cache holds the rest);
    without, the whole sequence each step: the same ids, more products.
    Args: model: ``model(tokens, cache=None, last_only=True)`` with
    ``tokens`` ``(B, T)`` returns the last position's log-probabilities
    ``(B, 1, V)`` (a :class:`~illustrated.decoder_only.model.DecoderOnly`);
    prompt_ids: list of ints, e.g. ``[bos_id, ...]``; trace: a list to which each step appends
    ``{"model", "probs", "u", "chosen"}`` (the model's own distribution
    and the one drawn from, ``V`` floats each; the uniform number; the id
    drawn), plain data.
    Returns: the new ids, a list (with the ``eos_id`` if one came).
    """
    check_prompt(model, prompt_ids, max_new_tokens, eos_id)
    check_sampling(temperature, top_k, top_p)
    rng = Mulberry32(seed)  # checks the seed
    return _write(model, prompt_ids, [rng], max_new_tokens,
                  (temperature, top_k, top_p), use_cache, eos_id, trace)[0]


def generate_many(model, prompt_ids, seeds, max_new_tokens, temperature=1.0,
                  top_k=0, top_p=1.0, eos_id=2):
    """:func:`generate` once per seed, the rows side by side in one batch:
    the model reads ``(len(seeds), T)`` ids per step instead of ``(1, T)``,
    which is much faster than one call of ``generate`` per seed. Row ``b``
    draws with ``Mulberry32(seeds[b])``, so it writes what
    ``generate(..., seed=seeds[b])`` writes (tests compare them); a row that
    has written ``eos_id`` stops growing while the others go on.
    Returns: one list of new ids per seed.
    """
    check_prompt(model, prompt_ids, max_new_tokens, eos_id)
    check_sampling(temperature, top_k, top_p)
    seeds = list(seeds)
    if not seeds:
        raise ValueError("seeds must hold one seed at least, got none")
    rngs = [Mulberry32(seed) for seed in seeds]  # checks every seed
    return _write(model, prompt_ids, rngs, max_new_tokens,
                  (temperature, top_k, top_p), True, eos_id)


def _write(model, prompt_ids, rngs, max_new_tokens, setting, use_cache,
           eos_id, trace=None):
    """The loop of :func:`generate` and :func:`generate_many`: one row per
    generator in ``rngs``, all from the same prompt, so the rows stay the
    same length (a finished row is still fed, its new ids not kept)."""
    device = next(model.parameters()).device
    B = len(rngs)
    ids = torch.tensor([list(prompt_ids)] * B, device=device)  # (B, P)
    rows = [[] for _ in rngs]
    room = model.config.max_len - len(prompt_ids)  # new ids that fit
    with evaluating(model):
        cache = model.new_cache() if use_cache else None
        fed = 0  # the positions the cache holds already
        for _ in range(min(max_new_tokens, room)):
            logp = model(ids[:, fed:], cache=cache, last_only=True)[:, -1]  # (B, V)
            fed = ids.shape[1] if use_cache else 0
            probs = next_token_probs(logp, *setting)  # (B, V)
            us = [rng.random() for rng in rngs]
            new = [draw(p, u) for p, u in zip(probs, us)]
            if trace is not None:  # generate's one row
                trace.append({"model": logp[0].exp().tolist(),
                              "probs": probs[0].tolist(), "u": us[0],
                              "chosen": new[0]})
            for row, i in zip(rows, new):
                if eos_id not in row:
                    row.append(i)
            if all(eos_id in row for row in rows):
                break
            new_ids = torch.tensor(new, device=device)[:, None]  # (B, 1)
            ids = torch.cat([ids, new_ids], 1)  # (B, T + 1)
    return rows
