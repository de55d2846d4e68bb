"""The checkers of chapter 6, Masking: the subsequent (causal) mask and the padding mask,
both in the package's convention (bool, ``True`` = may attend)."""
from __future__ import annotations

from typing import Callable

import torch

from ..masks import padding_mask, subsequent_mask
from ._frames import learner_frames_only
from ._runner import Case, equals, run

_CONVENTION = "In this book True means 'may attend' and False means 'blocked'"

# ---------------------------------------------------------------- subsequent mask

_CAUSAL_INVERTED = ("it looks like your mask is inverted: True where a position is blocked. "
                    f"{_CONVENTION}; `torch.triu(..., diagonal=1)` marks the future, so "
                    "compare it with 0 (`== 0`) or take the lower triangle with `.tril()`.")
_NO_SELF = ("it looks like your diagonal is off by one: position i may not see itself. "
            "Keep the diagonal: `tril()` (diagonal=0), or `triu(diagonal=1) == 0`.")
_ONE_AHEAD = ("it looks like your diagonal is off by one: position i also sees position "
              "i + 1, the word it must predict. Use `tril()` with diagonal=0, or "
              "`triu(diagonal=1) == 0`.")
_UPPER = ("it looks like you kept the upper triangle: position i then sees the future "
          "i .. L-1 instead of the past 0 .. i. Rows are queries, columns keys: use "
          "`tril()`.")
_NOT_BOOL = ("return a bool tensor: a mask of 0/1 numbers (or uint8, as some sources use) "
             "is not what `masked_fill(~mask, ...)` expects; convert with `.bool()` or build "
             "it with a comparison such as `== 0`.")
_ADDITIVE = ("this looks like an additive float mask (0 = attend, -inf = blocked), as "
             "`nn.Transformer.generate_square_subsequent_mask` returns; the package wants "
             "bool: convert with `mask == 0`.")
_NO_BATCH_AXIS = ("add the leading axis of size 1, `(1, L, L)` as the package's "
                  "`subsequent_mask` returns: `.unsqueeze(0)`; it broadcasts over the batch.")


def _same_values(variant: Callable) -> Callable:
    """A diagnosis: the learner's tensor holds ``variant()``'s values in another dtype."""

    def test(gots) -> bool:
        g, v = gots[0], variant()
        return g.dtype != torch.bool and g.shape == v.shape and torch.equal(g != 0, v)

    return test


def _subsequent_mistakes(case: Case) -> list:
    L = case.inputs["size"]
    ones = torch.ones(L, L, dtype=torch.bool)
    want = subsequent_mask(L)  # (1, L, L)
    additive = lambda g: g[0].is_floating_point() and g[0].shape[-2:] == (L, L) and (  # noqa: E731
        torch.equal(torch.isinf(g[0]).reshape(L, L), ~want[0]))
    return [
        (_ADDITIVE, additive),
        (_NOT_BOOL, _same_values(lambda: want)),
        (_NO_BATCH_AXIS, equals(lambda: want[0])),
        (_CAUSAL_INVERTED, equals(lambda: ~want)),
        (_NO_SELF, equals(lambda: ones.tril(-1).unsqueeze(0))),
        (_ONE_AHEAD, equals(lambda: ones.tril(1).unsqueeze(0))),
        (_UPPER, equals(lambda: ones.triu().unsqueeze(0))),
    ]


@learner_frames_only
def check_subsequent_mask(fn: Callable) -> None:
    """Check ``fn(size) -> mask``: the causal mask of :func:`illustrated.masks.subsequent_mask`,
    bool ``(1, L, L)`` with ``True`` on and below the diagonal (query ``i`` may attend to
    keys ``0 .. i``)."""
    cases = [Case(f"size {n}", {"size": n}) for n in (4, 1, 2, 7)]
    run("check_subsequent_mask", fn, cases, subsequent_mask, _subsequent_mistakes,
         error_hint="build an `(L, L)` tensor of ones with `torch.ones(size, size)`, keep "
                    "its lower triangle, then add a leading axis of size 1.",
         general_hint="print your mask for size 4 and compare it row by row with "
                      "`illustrated.masks.subsequent_mask(4)`: row i is query i, and "
                      "it must be True in columns 0 .. i only.",
         success="your subsequent mask matches on {n} sizes, from 1 to 7.")


# ---------------------------------------------------------------- padding mask

_PAD_INVERTED = ("it looks like your mask is inverted: True on the padding. "
                 f"{_CONVENTION}, so real tokens are True: `tokens != pad_id`.")
_QUERY_AXIS = ("it looks like you added the new axis in the wrong place: `(B, S, 1)` "
               "broadcasts along the keys, so it would blank whole query *rows* and leave "
               "the pad columns open. Insert it in the middle, `(B, 1, S)`: "
               "`.unsqueeze(1)`, so that it broadcasts over the queries.")
_NO_AXIS = ("add the query axis: a `(B, S)` mask broadcasts against scores `(B, L, S)` "
            "as `(1, B, S)`, lining the batch up with the queries. Return `(B, 1, S)` "
            "with `.unsqueeze(1)`.")
_BATCH_AXIS = ("it looks like you inserted the new axis first, `(1, B, S)`: against scores "
               "`(B, L, S)` that lines the batch up with the queries. Insert it in the "
               "middle, `(B, 1, S)`: `.unsqueeze(1)`, so that it broadcasts over the "
               "queries.")
_SQUARE = ("you expanded the mask to `(B, S, S)`, as the source's `get_attn_pad_mask` does; "
           "that fits only when there are as many queries as keys. Keep the query axis "
           "of size 1, `(B, 1, S)`: broadcasting repeats it for any number of queries.")
_ZERO_PAD = ("it looks like you compared with 0 instead of the `pad_id` argument: this "
             "test pads with another id. Use `tokens != pad_id`.")
_ORDERED = ("it looks like you compared the ids by size (`tokens > pad_id`): an id is a "
            "name, not a quantity, and a real token may have a smaller id than the "
            "padding. Test equality: `tokens != pad_id`.")
_FROM_LENGTHS = ("it looks like you built the mask from each sentence's length "
                 "(`arange(S) < length`): that assumes the padding comes last, but in a "
                 "left-padded batch it comes first. Compare every token with the pad id "
                 "instead: `tokens != pad_id`.")

_CUMPROD = ("it looks like you blocked everything after a row's first pad (a `cumprod` "
            "along the row): that assumes the padding comes last, but in a left-padded "
            "batch it comes first, and a row that starts with padding is blocked whole. "
            "Compare every token with "
            "the pad id on its own: `tokens != pad_id`.")


def _from_lengths(tokens: torch.Tensor, pad_id: int) -> torch.Tensor:
    """The mask a length-based learner builds: the first ``length`` positions True."""
    lengths = (tokens != pad_id).sum(-1, keepdim=True)  # (B, 1)
    return (torch.arange(tokens.shape[-1]) < lengths).unsqueeze(1)  # (B, 1, S)


def _padding_mistakes(case: Case) -> list:
    tokens, pad_id = case.inputs["tokens"], case.inputs["pad_id"]
    want = padding_mask(tokens, pad_id)  # (B, 1, S)
    S = tokens.shape[-1]
    return [
        (_NOT_BOOL, _same_values(lambda: want)),
        (_PAD_INVERTED, equals(lambda: ~want)),
        (_QUERY_AXIS, equals(lambda: want.transpose(1, 2))),
        (_NO_AXIS, equals(lambda: want[:, 0])),
        (_BATCH_AXIS, equals(lambda: want.transpose(0, 1))),
        (_SQUARE, equals(lambda: want.expand(-1, S, S))),
        (_ZERO_PAD, equals(lambda: padding_mask(tokens, 0))),
        (_ORDERED, equals(lambda: (tokens > pad_id).unsqueeze(1))),
        (_FROM_LENGTHS, equals(lambda: _from_lengths(tokens, pad_id))),
        (_CUMPROD, equals(lambda: want.cumprod(-1).bool())),
    ]


def _ids(*rows) -> torch.Tensor:
    return torch.tensor(rows, dtype=torch.long)


@learner_frames_only
def check_padding_mask(fn: Callable) -> None:
    """Check ``fn(tokens, pad_id) -> mask``: the padding mask of
    :func:`illustrated.masks.padding_mask`, bool ``(B, 1, S)``, ``True`` on real tokens,
    for token ids ``(B, S)``."""
    cases = [
        Case("the source's batch", {"tokens": _ids([5, 2, 1, 0, 0], [1, 3, 1, 4, 0]),
                                     "pad_id": 0}),
        Case("pad id 1, token 0 is a word", {"tokens": _ids([0, 4, 2, 1], [3, 0, 1, 1]),
                                              "pad_id": 1}),
        Case("pad id 9", {"tokens": _ids([9, 9, 9], [5, 9, 9], [7, 8, 2]),
                           "pad_id": 9}),
        Case("no padding", {"tokens": _ids([3, 4, 5, 6]), "pad_id": 0}),
        Case("left-padded", {"tokens": _ids([0, 0, 5, 2], [0, 3, 1, 4], [6, 2, 7, 1]),
                              "pad_id": 0}),
    ]
    run("check_padding_mask", fn, cases, padding_mask, _padding_mistakes,
         error_hint="compare the ids with the pad id, `tokens != pad_id` `(B, S)`, then "
                    "insert a query axis with `.unsqueeze(1)`.",
         general_hint="print your mask for this test's tokens and compare it with "
                      "`illustrated.masks.padding_mask(tokens, pad_id)`.",
         success="your padding mask matches on {n} batches, including pad ids other "
                 "than 0, a batch without padding and a left-padded one.")
