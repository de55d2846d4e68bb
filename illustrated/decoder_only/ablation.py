"""What each change buys: the variants of :mod:`illustrated.decoder_only.variants` trained
side by side on chapter 13's data, at one token budget, scored by held-out perplexity.

Every run uses chapter 13's recipe (:func:`~illustrated.decoder_only.training.train_lm`:
the same sentences, tokenizer, batches of ``max_tokens`` tokens, the paper's schedule), at
``steps * max_tokens`` tokens (padding included; every variant reads the same batches in
the same order for a seed), and measures the perplexity of the held-out sentences
(:func:`~illustrated.decoder_only.training.perplexity`). :func:`run_variant` is one run;
:func:`length_run` trains on the short sentences only and scores the held-out sentences
longer than any trained on, the question chapter 7 asks of the sinusoids.
``python benchmarks/decoder_ablation.py`` runs variants times seeds and writes one JSON.
"""
from __future__ import annotations

import dataclasses
import math
import time

import torch
import torch.nn.functional as F

from ..counting import count_parameters
from ..translator.batching import token_batches
from .training import LMTrainConfig, padded, perplexity, shift, train_lm
from .variants import VariantConfig, VariantDecoder, modern

#: Chapter 13's model (``baseline``), each change alone, and all of them together
#: (``modern``): the :class:`~illustrated.decoder_only.variants.VariantConfig` fields
#: each variant changes.
VARIANTS = {
    "baseline": {},
    "rmsnorm": dict(norm="rms"),
    "pre-norm": dict(norm_first=True),
    "rope": dict(position="rope"),
    "swiglu": dict(ffn="swiglu"),
    "gqa": dict(n_kv_heads=2),
    "no-bias": dict(bias=False),
    "modern": {f.name: getattr(modern(), f.name) for f in dataclasses.fields(VariantConfig)
               if getattr(modern(), f.name) != getattr(VariantConfig(), f.name)},
}

#: The token budget, 500 batches of 2000 tokens (padding included; about 800,000 real
#: target tokens, a little over two passes over the sentences), chapter 13's batches and
#: warm-up, a fifth of its 2400 steps. Chapter 13's model trained in 97 s at this budget on
#: one thread of a shared 2-core CPU.
BUDGET = dict(steps=500, max_tokens=2000, warmup=200)


def variant_config(name: str, vocab: int, max_len: int = 64, **sizes) -> VariantConfig:
    """The :class:`~illustrated.decoder_only.variants.VariantConfig` of variant ``name`` (a key of :data:`VARIANTS`)."""
    if name not in VARIANTS:
        raise ValueError(f"unknown variant {name!r}; the variants are {sorted(VARIANTS)}")
    return VariantConfig(vocab=vocab, max_len=max_len, **{**VARIANTS[name], **sizes})


def train_variant(name: str, seed: int, train, vocab: int, steps: int = BUDGET["steps"],
                  max_tokens: int = BUDGET["max_tokens"], warmup: int = BUDGET["warmup"],
                  max_len: int = 64, log=None, **sizes):
    """Train variant ``name`` (a key of :data:`VARIANTS`; ``sizes`` override chapter 13's)
    with ``seed`` (its initial weights, batch order and dropout) on the id sequences
    ``train``, for ``steps`` batches of ``max_tokens`` tokens.

    Returns: ``(model, info)``, the model in eval mode and ``{"variant", "seed",
    "parameters", "seconds", "cpu_seconds", "steps", "max_tokens", "tokens", "threads"}``:
    ``tokens`` counts the real target tokens trained on, ``seconds`` the training's
    wall-clock time and ``cpu_seconds`` the process's CPU time during it (on a shared
    machine, the steadier of the two)."""
    config = variant_config(name, vocab, max_len, **sizes)
    recipe = LMTrainConfig(steps=steps, max_tokens=max_tokens, warmup=warmup, seed=seed,
                           d_model=config.d_model, N=config.N, h=config.h,
                           d_ff=config.d_ff, dropout=config.dropout)
    model = VariantDecoder(config, torch.Generator().manual_seed(seed))
    start, cpu = time.perf_counter(), time.process_time()
    model, _, _ = train_lm(recipe, train, vocab, max_len, log=log or (lambda *_: None),
                           model=model)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return model, {"variant": name, "seed": seed, "parameters": count_parameters(model),
                   "seconds": seconds, "cpu_seconds": cpu, "steps": steps,
                   "max_tokens": max_tokens,
                   "tokens": _tokens_seen(train, recipe), "threads": torch.get_num_threads()}


def run_variant(name: str, seed: int, train, held, vocab: int, **budget) -> dict:
    """:func:`train_variant`, then the perplexity of the held-out id sequences ``held``.
    Returns: its ``info`` with ``"perplexity"``."""
    model, info = train_variant(name, seed, train, vocab, **budget)
    return {**info, "perplexity": perplexity(model, held)}


def length_split(seqs, cut: int):
    """The sequences of at most ``cut`` tokens, and those longer."""
    return [s for s in seqs if len(s) <= cut], [s for s in seqs if len(s) > cut]


def length_run(name: str, seed: int, train, held, vocab: int, cut: int = 9,
               control: bool = False, **budget) -> dict:
    """Train variant ``name`` on the sentences of ``train`` of at most ``cut`` tokens, then
    score the held-out sentences of at most ``cut`` tokens and those longer. A sequence of
    ``n`` tokens is read at input positions ``0 .. n - 2``: training covers the positions
    ``0 .. cut - 2``, and the longer sentences also put tokens at ``cut - 1`` and beyond,
    where no training sentence had one. Their tokens are scored at both apart. With
    ``control``, the model trains on every sentence of ``train`` instead and is scored on
    the same sentences: what the longer ones cost a model that has read every length.

    Returns: :func:`train_variant`'s ``info`` with ``"cut"``, ``"control"``,
    ``"short_perplexity"``, ``"long_perplexity"`` (all the longer sentences' tokens),
    ``"long_seen_perplexity"``
    and ``"long_unseen_perplexity"`` (their tokens read at positions training covered, and
    at the others), and per input position, the mean negative log-likelihood and the
    number of tokens: ``"short_nll"``, ``"short_count"``, ``"long_nll"``, ``"long_count"``
    (lists; ``None`` where no token was)."""
    short_train, _ = length_split(train, cut)
    short, long = length_split(held, cut)
    if not short_train or not short or not long:
        raise ValueError(f"cut={cut} leaves no training sentence, or no held-out sentence "
                         f"on one side of it")
    model, info = train_variant(name, seed, train if control else short_train, vocab,
                                **budget)
    out = {**info, "cut": cut, "control": control,
           "short_perplexity": perplexity(model, short),
           "long_perplexity": perplexity(model, long)}
    by_part = {"short": nll_by_position(model, short), "long": nll_by_position(model, long)}
    for part, (total, count) in by_part.items():  # (T,), (T,)
        out[f"{part}_nll"] = [t / c if c else None for t, c in zip(total.tolist(),
                                                                    count.tolist())]
        out[f"{part}_count"] = count.tolist()
    total, count = by_part["long"]  # the longer sentences, split at the cut
    seen = cut - 1  # their input positions 0 .. cut - 2 were trained on
    out["long_seen_perplexity"] = math.exp(total[:seen].sum() / count[:seen].sum())
    out["long_unseen_perplexity"] = math.exp(total[seen:].sum() / count[seen:].sum())
    return out


def end_targets(seqs, marks, eos_id: int) -> tuple[list[int], list[int]]:
    """Per input position, how many targets of the id sequences ``seqs`` end their sentence
    (``eos_id``, or one of ``marks`` followed by it: a final ".", "?" or "!"), and how many
    targets there are: two lists, as long as the longest sequence minus 1."""
    width = max(len(s) for s in seqs) - 1
    ended, count = [0] * width, [0] * width
    for s in seqs:
        for i, target in enumerate(s[1:]):  # the target read at input position i
            after = s[i + 2] if i + 2 < len(s) else None
            ended[i] += target == eos_id or (target in marks and after == eos_id)
            count[i] += 1
    return ended, count


@torch.no_grad()
def nll_by_position(model, seqs, max_tokens: int = 4000, pad_id: int = 0):
    """The negative log-likelihood of the real target tokens of the id sequences ``seqs``,
    summed at each input position, and how many there were: two tensors ``(T,)``, ``T``
    the longest sequence's length minus 1. Summed over the positions they are
    :func:`~illustrated.decoder_only.training.mean_nll`'s total and count."""
    total = torch.zeros(max(len(s) for s in seqs) - 1, dtype=torch.float64)  # (T,)
    count = torch.zeros_like(total, dtype=torch.long)  # (T,)
    was_training = model.training
    model.eval()
    for idx in token_batches([len(s) for s in seqs], max_tokens, pool=len(seqs)):
        inputs, targets = shift(padded([seqs[i] for i in idx], pad_id))  # (B, t) each
        logp = model(inputs)  # (B, t, V)
        nll = F.nll_loss(logp.transpose(1, 2), targets, ignore_index=pad_id,
                         reduction="none")  # (B, t), 0 on padding
        t = targets.shape[1]
        total[:t] += nll.sum(0)
        count[:t] += (targets != pad_id).sum(0)
    model.train(was_training)
    return total, count


def _tokens_seen(train, recipe: LMTrainConfig) -> int:
    """The real target tokens of the batches a run of ``recipe`` reads."""
    lengths, seen, steps, epoch = [len(s) for s in train], 0, 0, 0
    while steps < recipe.steps:
        for idx in token_batches(lengths, recipe.max_tokens, recipe.seed, epoch):
            seen += sum(lengths[i] - 1 for i in idx)
            steps += 1
            if steps == recipe.steps:
                return seen
        epoch += 1
    return seen


# Student's t, two-sided 95 %, by degrees of freedom (n seeds: n - 1), from the standard
# table: the interval of a mean over a handful of seeds is wider than mean +- 2 sd/sqrt(n).
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
       9: 2.262, 10: 2.228}


def summarise(rows, key: str = "perplexity") -> dict:
    """Per variant, over its seeds: ``{"n", "mean", "sd", "min", "max", "interval"}`` of
    ``key``; ``sd`` is the sample standard deviation, ``interval`` the 95 % t-interval of
    the mean (``None`` with one seed, or more than 11)."""
    import statistics

    by_variant: dict[str, list[float]] = {}
    for row in rows:
        by_variant.setdefault(row["variant"], []).append(row[key])
    out = {}
    for name, values in by_variant.items():
        n, mean = len(values), statistics.fmean(values)
        sd = statistics.stdev(values) if n > 1 else 0.0
        half = T95[n - 1] * sd / n ** 0.5 if n - 1 in T95 else None
        out[name] = {"n": n, "mean": mean, "sd": sd, "min": min(values),
                     "max": max(values),
                     "interval": None if half is None else [mean - half, mean + half]}
    return out
