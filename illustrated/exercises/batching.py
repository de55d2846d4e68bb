"""The checker of the chapter Real sentences: packing sentences, sorted by length, into
batches of a token budget (the step inside
:func:`illustrated.translator.batching.token_batches`)."""
from __future__ import annotations

from typing import Callable

import torch

from ._frames import learner_frames_only
from ._runner import Case, equals, run


def _pack(lengths: torch.Tensor, max_tokens: int, cost=None, strict: bool = False,
          old_max: bool = False) -> torch.Tensor:
    """Batch number of each sentence; ``cost``/``strict``/``old_max`` plant mistakes."""
    ids, batch, n, longest, total = [], 0, 0, 0, 0
    for L in lengths.tolist():
        grown = longest if old_max and n else max(longest, L)
        need = total + L if cost == "sum" else (n + 1) * grown
        if n and (need >= max_tokens if strict else need > max_tokens):
            batch, n, longest, total = batch + 1, 0, 0, 0
        n, longest, total = n + 1, max(longest, L), total + L
        ids.append(batch)
    return torch.tensor(ids, dtype=torch.long)


def _reference(lengths, max_tokens):
    return _pack(lengths, max_tokens)


_SUM = ("it looks like you counted the sentences' own tokens (the sum of their lengths). "
        "A batch is a padded rectangle: it costs `len(batch) * max(length)` tokens, "
        "padding included.")
_STRICT = ("it looks like a batch that fills the budget exactly was cut: the budget "
           "allows `len(batch) * longest <= max_tokens` (use `>` to decide when to start "
           "a new batch, not `>=`).")
_OLD_MAX = ("it looks like you priced the batch with its longest sentence *before* adding "
            "the new one; the new sentence (sorted: the longest so far) widens the "
            "rectangle, so use `max(longest, length)`.")


def _mistakes(case: Case) -> list:
    lengths, budget = case.inputs["lengths"], case.inputs["max_tokens"]
    return [
        (_SUM, equals(lambda: _pack(lengths, budget, cost="sum"))),
        (_STRICT, equals(lambda: _pack(lengths, budget, strict=True))),
        (_OLD_MAX, equals(lambda: _pack(lengths, budget, old_max=True))),
    ]


@learner_frames_only
def check_token_batches(fn: Callable) -> None:
    """Check ``fn(lengths, max_tokens) -> batch_ids``: ``lengths`` a LongTensor ``(N,)``
    sorted in increasing order, ``batch_ids`` a LongTensor ``(N,)`` numbering the batches
    0, 1, 2, ...: each sentence joins the current batch unless the padded batch
    ``len(batch) * max(length)`` would then exceed ``max_tokens``; a sentence longer than
    the budget gets a batch of its own."""
    cases = [
        Case("five sentences", {"lengths": torch.tensor([2, 3, 3, 5, 6]), "max_tokens": 10}),
        Case("exact fit", {"lengths": torch.tensor([4, 4, 4, 6, 6]), "max_tokens": 12}),
        Case("one too long", {"lengths": torch.tensor([3, 3, 9, 20]), "max_tokens": 12}),
        Case("a corpus", {"lengths": torch.sort(torch.randint(
            3, 25, (200,), generator=torch.Generator().manual_seed(0))).values,
            "max_tokens": 120}),
    ]
    run("check_token_batches", fn, cases, _reference, _mistakes,
         error_hint="walk through the lengths in order, keeping the current batch's size "
                    "and longest length; start a new batch when adding the sentence would "
                    "make `size * longest` exceed the budget.",
         general_hint="print your batch ids next to the lengths for the first test and "
                      "compute `len(batch) * max(length)` of each batch by hand: none may "
                      "exceed the budget, and no batch may be cut earlier than needed.",
         success="your batches match on {n} tests, exact fits and a corpus of 200 "
                 "sentences included.")
