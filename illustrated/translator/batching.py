"""Length-bucketed batches of a token budget, as the paper batches ("sentence pairs were
batched together by approximate sequence length"; each batch held about 25,000 source and
25,000 target tokens). Introduced in the chapter Real sentences.

A batch of sentences of similar lengths wastes little on padding, and a budget in *tokens*
rather than sentences keeps the work per step about the same whether the sentences are short
or long. Everything here is deterministic given ``(seed, epoch)``, so an interrupted run
resumes with the very batches it would have seen, and every process of a distributed run
builds the same list.
"""
from __future__ import annotations

import random


def padded_tokens(lengths) -> int:
    """Tokens of a padded batch: ``len(lengths) * max(lengths)``."""
    return len(lengths) * max(lengths) if lengths else 0


def token_batches(lengths, max_tokens: int, seed: int = 0, epoch: int = 0,
                  pool: int = 2048, min_size: int = 1) -> list[list[int]]:
    """Split example indices into batches whose padded size stays within a token budget.

    Args:
        lengths: one length per example (e.g. ``max(source length, target length)``).
        max_tokens: the budget: ``len(batch) * max(length in batch) <= max_tokens``
            (a single example longer than the budget gets a batch of its own).
        seed, epoch: the shuffle; the same pair gives the same batches.
        pool: examples are shuffled, cut into pools of this size, each pool sorted by
            length and packed; then the batches themselves are shuffled. A larger pool
            means less padding and less randomness.
        min_size: batches smaller than this are dropped (a distributed run needs at least
            one example per process).

    Returns: a list of batches, each a list of indices into ``lengths``.
    """
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ValueError(f"max_tokens must be a positive int, got {max_tokens!r}")
    if not isinstance(pool, int) or pool < 1:
        raise ValueError(f"pool must be a positive int, got {pool!r}")
    rng = random.Random(seed * 1_000_003 + epoch)
    order = list(range(len(lengths)))
    rng.shuffle(order)
    batches = []
    for start in range(0, len(order), pool):
        chunk = sorted(order[start:start + pool], key=lambda i: (lengths[i], i))
        batch, longest = [], 0
        for i in chunk:
            longest_if = max(longest, lengths[i])
            if batch and (len(batch) + 1) * longest_if > max_tokens:
                batches.append(batch)
                batch, longest_if = [], lengths[i]
            batch.append(i)
            longest = longest_if
        if batch:
            batches.append(batch)
    batches = [b for b in batches if len(b) >= min_size]
    rng.shuffle(batches)
    return batches


def shard(batch: list, rank: int, world: int) -> list:
    """The part of a global batch that process ``rank`` of ``world`` trains on:
    every ``world``-th example, starting at ``rank``."""
    if not 0 <= rank < world:
        raise ValueError(f"rank must be in [0, world={world}), got {rank}")
    return batch[rank::world]
