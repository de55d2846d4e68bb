"""The checkers of the decoding exercises: chapter 10, From vectors to words: decoding.

``check_greedy_decode`` runs the learner's greedy loop against a toy model (one known
sentence per batch row, predicted word by word as long as the prefix follows it), so that
every mistake of the loop itself (argmax over the wrong axis, a prefix that does not grow
or is cut to its last token, a finished row that goes on) shows without a trained
translator. ``check_beam_step`` checks one step of
beam search: which ``k`` (beam row, token) pairs survive.
"""
from __future__ import annotations

from typing import Callable

import torch

from ._frames import learner_frames_only
from ._runner import Case, equals, randn, run

PAD, BOS, EOS = 0, 1, 2


class _ToyModel:
    """Next-token logits ``(B, V)`` for prefixes ``ys`` ``(B, T)``. Row ``b`` knows one
    sentence: while its prefix is ``<bos>`` followed by the sentence's first ``T - 1``
    words, the sentence's next word leads by a clear margin. The model reads the whole
    prefix, as a decoder does: fed only the last token, it is off the sentence and falls
    back on noise that depends on that token alone."""

    def __init__(self, sentences: list[list[int]], vocab: int, seed: int):
        self.noise = randn(seed, len(sentences), vocab, vocab, scale=0.3)  # (B, V, V)
        self.sentences = sentences
        self.batch = len(sentences)

    def __call__(self, ys: torch.Tensor) -> torch.Tensor:
        if not isinstance(ys, torch.Tensor) or ys.dim() != 2 or ys.shape[0] != self.batch:
            got = tuple(ys.shape) if isinstance(ys, torch.Tensor) else type(ys).__name__
            raise ValueError(f"next_logits expects the prefixes ys as a (B, T) = "
                             f"({self.batch}, T) tensor of token ids, got {got}")
        logits = self.noise[torch.arange(self.batch), ys[:, -1].long()].clone()  # (B, V)
        for b, words in enumerate(self.sentences):
            prefix, T = ys[b].long().tolist(), ys.shape[1]
            if T <= len(words) and prefix == [BOS] + words[:T - 1]:
                logits[b, words[T - 1]] += 4.0  # the sentence's next word
        return logits

    def __repr__(self) -> str:
        return "toy"


def _greedy(next_logits, batch_size, bos_id, eos_id, max_len, *, axis=-1, feed="all",
            stop_rows=True, stop_any=False, keep_bos=True, extra=0, fill=PAD,
            done_first=False):
    """The reference greedy loop, and (through its flags) the planted mistakes."""
    ys = torch.full((batch_size, 1), bos_id, dtype=torch.long)  # (B, 1)
    done = torch.zeros(batch_size, dtype=torch.bool)  # (B,)
    while ys.shape[1] < max_len + extra and not bool(done.any() if stop_any else done.all()):
        fed = {"all": ys, "first": ys[:, :1], "last": ys[:, -1:]}[feed]  # (B, T) or (B, 1)
        logits = next_logits(fed)  # (B, V)
        nxt = logits.argmax(axis)  # (B,)
        if done_first:  # the <eos> just chosen counts as done before the fill: it is lost
            done |= nxt == eos_id
        if stop_rows:
            nxt = nxt.masked_fill(done, fill)
        ys = torch.cat([ys, nxt[:, None]], dim=1)  # (B, T + 1)
        done |= nxt == eos_id
    return ys if keep_bos else ys[:, 1:]


_AXIS = ("it looks like you took the argmax over the wrong axis: `logits` is (B, V), one "
         "row per sentence; pick one token per row with `logits.argmax(dim=-1)`.")
_GROW = ("it looks like the prefix you feed the model never grows: after each step append "
         "the chosen tokens, `ys = torch.cat([ys, nxt[:, None]], dim=1)`, and feed the "
         "whole `ys` next time.")
_LAST_ONLY = ("it looks like you fed the model only the last token, `ys[:, -1:]`: a "
              "decoder predicts the next word from the whole prefix (its self-attention "
              "reads every earlier word), so call `next_logits(ys)` with all of `ys`.")
_ROWS = ("it looks like a row goes on after its <eos>: keep a `done` flag per row and "
         "write the pad id in finished rows, `nxt = nxt.masked_fill(done, 0)`.")
_FILL_EOS = ("it looks like you filled finished rows with `eos_id`: after a row's <eos> "
             "comes padding, the pad id 0, `nxt = nxt.masked_fill(done, 0)`.")
_DONE_FIRST = ("it looks like you marked a row done before writing its token, so its "
               "<eos> itself was replaced by padding: fill with `done` as it was before "
               "this step, then update it, `done |= nxt == eos_id`.")
_ANY = ("it looks like you stopped as soon as one row finished: stop when every row has "
        "produced <eos> (`done.all()`) or the length reaches max_len.")
_BOS = "it looks like you dropped <bos>: the output starts with it, as the prefixes do."
_LONG = ("it looks like your output is one token too long: max_len counts <bos>, so loop "
         "`while ys.shape[1] < max_len`.")


def _greedy_mistakes(case: Case) -> list:
    args = list(case.inputs.values())
    return [(_AXIS, equals(lambda: _greedy(*args, axis=0))),
            (_GROW, equals(lambda: _greedy(*args, feed="first"))),
            (_LAST_ONLY, equals(lambda: _greedy(*args, feed="last"))),
            (_ROWS, equals(lambda: _greedy(*args, stop_rows=False))),
            (_FILL_EOS, equals(lambda: _greedy(*args, fill=EOS))),
            (_DONE_FIRST, equals(lambda: _greedy(*args, done_first=True))),
            (_ANY, equals(lambda: _greedy(*args, stop_any=True))),
            (_BOS, equals(lambda: _greedy(*args, keep_bos=False))),
            (_LONG, equals(lambda: _greedy(*args, extra=1)))]


def _greedy_case(name, sentences, vocab, max_len, seed) -> Case:
    model = _ToyModel(sentences, vocab, seed)
    return Case(name, {"next_logits": model, "batch_size": len(sentences), "bos_id": BOS,
                        "eos_id": EOS, "max_len": max_len})


@learner_frames_only
def check_greedy_decode(fn: Callable) -> None:
    """Check ``fn(next_logits, batch_size, bos_id, eos_id, max_len)``: greedy decoding.

    ``next_logits(ys)`` takes the prefixes ``(B, T)`` and returns next-token logits
    ``(B, V)``. ``fn`` returns a ``(B, T)`` LongTensor starting with ``bos_id``, at most
    ``max_len`` long, pad id 0 after a row's ``eos_id``, stopping once every row is done.
    """
    cases = [
        _greedy_case("five rows, five words", [[3, 4, 2], [4, 2], [3, 3, 3, 3, 3], [2],
                                               [4, 3, 2]], 5, 6, 10),
        _greedy_case("rows ending at different steps", [[3, 4, 2], [4, 3, 5, 2],
                                                        [3, 5, 3, 5, 3, 5]], 6, 7, 11),
        _greedy_case("every row ends", [[5, 2], [3, 4, 6, 2]], 7, 10, 12),
        _greedy_case("one row, no <eos>", [[3, 4, 3, 4]], 5, 5, 13),
    ]
    run("check_greedy_decode", fn, cases, _greedy, _greedy_mistakes,
         error_hint="`next_logits` takes the whole prefix ys (B, T) and returns (B, V); "
                    "the chosen tokens `nxt` are (B,): append them as a column, "
                    "`nxt[:, None]`.",
         general_hint="print `ys` after each step on this test and compare with what the "
                      "model's most likely token should be.",
         success="your greedy decoding matches on {n} tests.")


# ---------------------------------------------------------------- one beam-search step


def _beam_step(scores, log_probs, k, *, combine="add", per_beam=False, per_token=False,
               first_beam=False, swap=False, smallest=False, by_k=False, token_first=False):
    """The reference step, and (through its flags) the planted mistakes."""
    K, V = log_probs.shape
    if combine == "add":
        cand = scores[:, None] + log_probs  # (K, V)
    elif combine == "multiply":
        cand = scores[:, None] * log_probs
    elif combine == "probs":
        cand = scores.exp()[:, None] + log_probs.exp()
    else:  # the previous score forgotten
        cand = log_probs
    if first_beam:  # the k best words after beam 0, never ranked against the others
        tokens = cand[0].topk(k).indices
        return torch.stack([torch.zeros_like(tokens), tokens], dim=1)  # (k, 2)
    if per_token:  # each token keeps only its best beam
        best = cand.max(0)  # (V,)
        tokens = best.values.topk(min(k, V)).indices
        return torch.stack([best.indices[tokens], tokens], dim=1)  # (k', 2)
    if per_beam:
        best = cand.max(-1)  # each beam keeps only its own best word
        order = best.values.topk(min(k, K)).indices
        return torch.stack([order, best.indices[order]], dim=1)  # (k', 2)
    top = cand.flatten().topk(k, largest=not smallest).indices  # (k,)
    n = K if by_k else V  # the size that splits the flat index (V is right)
    rows, tokens = (top % K, top // K) if swap else (top // n, top % n)
    return torch.stack([tokens, rows] if token_first else [rows, tokens], dim=1)  # (k, 2)


_MULTIPLY = ("it looks like you multiplied log-probabilities: in log space the "
             "probabilities' product is a sum, `scores[:, None] + log_probs`.")
_PROBS = ("it looks like you added probabilities (after `exp`): a sequence's probability "
          "is the product of its words', so add log-probabilities instead.")
_FORGOT = ("it looks like you ranked the new words by their own log-probabilities only: "
           "add each beam's score so far, `scores[:, None] + log_probs`.")
_PER_BEAM = ("it looks like each beam kept only its own best word: rank all K x V "
             "candidates together (`.flatten().topk(k)`); one beam may supply several.")
_PER_TOKEN = ("it looks like each token kept only its best beam: two beams may both be "
              "worth extending with the same token; rank all K x V candidates together "
              "(`.flatten().topk(k)`).")
_FIRST_BEAM = ("it looks like all k came from the first beam: every beam's candidates "
               "compete, so rank the whole (K, V) table `scores[:, None] + log_probs` at "
               "once (`.flatten().topk(k)`).")
_SWAP = ("it looks like the flat index was split the wrong way: for a (K, V) table, "
         "row = i // V and token = i % V.")
_BY_K = ("it looks like you split the flat index with K, the number of beams, instead of "
         "V: the (K, V) table is flattened row by row, V entries per row, so "
         "row = i // V and token = i % V.")
_TOKEN_FIRST = ("it looks like your pairs are (token, row): each pair must be "
                "(beam row, token), `torch.stack([i // V, i % V], dim=1)`.")
_SMALLEST = ("it looks like you kept the k lowest scores: log-probabilities are <= 0, and "
             "the best hypothesis has the highest (closest to 0).")


def _beam_mistakes(case: Case) -> list:
    args = list(case.inputs.values())
    return [(_SMALLEST, equals(lambda: _beam_step(*args, smallest=True))),
            (_MULTIPLY, equals(lambda: _beam_step(*args, combine="multiply"))),
            (_PER_TOKEN, equals(lambda: _beam_step(*args, per_token=True))),
            (_FIRST_BEAM, equals(lambda: _beam_step(*args, first_beam=True))),
            (_PROBS, equals(lambda: _beam_step(*args, combine="probs"))),
            (_FORGOT, equals(lambda: _beam_step(*args, combine="forget"))),
            (_PER_BEAM, equals(lambda: _beam_step(*args, per_beam=True))),
            (_SWAP, equals(lambda: _beam_step(*args, swap=True))),
            (_BY_K, equals(lambda: _beam_step(*args, by_k=True))),
            (_TOKEN_FIRST, equals(lambda: _beam_step(*args, token_first=True)))]


def _beam_case(name, scores, vocab, k, seed, scale=2.0) -> Case:
    log_probs = randn(seed, len(scores), vocab, scale=scale).log_softmax(-1)  # (K, V)
    return Case(name, {"scores": torch.tensor(scores, dtype=torch.float64),
                        "log_probs": log_probs, "k": k})


@learner_frames_only
def check_beam_step(fn: Callable) -> None:
    """Check ``fn(scores, log_probs, k)``: one step of beam search.

    ``scores`` ``(K,)`` are the beams' summed log-probabilities, ``log_probs`` ``(K, V)``
    the next word's log-probabilities after each beam. ``fn`` returns a ``(k, 2)``
    LongTensor of (beam row, token) pairs, the ``k`` best extensions, best first.
    """
    cases = [  # the first tells every planted mistake apart (each gives other pairs)
        _beam_case("three beams, four survivors", [-0.2, -0.4, -0.9], 5, 4, 24, scale=3.0),
        _beam_case("more survivors than beams", [-0.2, -1.6], 6, 4, 21),
        _beam_case("three beams", [-0.4, -2.5, -1.1], 7, 3, 20),
        _beam_case("first step, one beam", [0.0], 8, 3, 22),
        _beam_case("sure and unsure beams", [-0.05, -3.0, -0.9, -1.5], 5, 4, 23, scale=4.0),
    ]
    run("check_beam_step", fn, cases, _beam_step, _beam_mistakes,
         error_hint="`scores[:, None] + log_probs` is (K, V); flatten it, take `.topk(k)`, "
                    "and split each flat index i into row i // V and token i % V.",
         general_hint="compute `(scores[:, None] + log_probs)` on this test and check "
                      "that your pairs are its k largest entries, best first.",
         success="your beam step matches on {n} tests.")
