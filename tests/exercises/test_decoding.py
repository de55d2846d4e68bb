"""Tests for illustrated.exercises.decoding (chapter 10): check_greedy_decode and
check_beam_step accept correct work and name the mistake in each planted wrong version."""
import pytest
import torch

from illustrated.exercises import check_beam_step, check_greedy_decode
from illustrated.exercises.decoding import _beam_step, _greedy

from .helpers import HINT, assert_fails, assert_one_line


def greedy_loop(next_logits, batch_size, bos_id, eos_id, max_len):
    """Correct, written row by row with Python lists."""
    rows = [[bos_id] for _ in range(batch_size)]
    while len(rows[0]) < max_len and not all(eos_id in r for r in rows):
        logits = next_logits(torch.tensor(rows))
        for b, r in enumerate(rows):
            r.append(0 if eos_id in r else int(logits[b].argmax()))
    return torch.tensor(rows)


@pytest.mark.parametrize("fn", [_greedy, greedy_loop])
def test_check_greedy_decode_accepts_correct(fn, capsys):
    assert check_greedy_decode(fn) is None
    out = assert_one_line(capsys, check_greedy_decode)
    assert out == "✓ check_greedy_decode: your greedy decoding matches on 4 tests.\n"


def greedy_fill_eos(next_logits, batch_size, bos_id, eos_id, max_len):
    """Wrong: a finished row is padded with eos_id, not the pad id 0."""
    ys = torch.full((batch_size, 1), bos_id, dtype=torch.long)
    done = torch.zeros(batch_size, dtype=torch.bool)
    while ys.shape[1] < max_len and not done.all():
        nxt = next_logits(ys).argmax(-1)
        nxt = nxt.masked_fill(done, eos_id)
        ys = torch.cat([ys, nxt[:, None]], dim=1)
        done |= nxt == eos_id
    return ys


def greedy_done_first(next_logits, batch_size, bos_id, eos_id, max_len):
    """Wrong: `done` updated before the fill, so the <eos> itself becomes padding."""
    ys = torch.full((batch_size, 1), bos_id, dtype=torch.long)
    done = torch.zeros(batch_size, dtype=torch.bool)
    while ys.shape[1] < max_len and not done.all():
        nxt = next_logits(ys).argmax(-1)
        done |= nxt == eos_id
        nxt = nxt.masked_fill(done, 0)
        ys = torch.cat([ys, nxt[:, None]], dim=1)
    return ys


GREEDY_MISTAKES = [
    (lambda *a: _greedy(*a, axis=0), HINT + "you took the argmax over the wrong axis"),
    (lambda *a: _greedy(*a, feed="first"), HINT + "the prefix you feed the model never grows"),
    (lambda *a: _greedy(*a, feed="last"), HINT + r"you fed the model only the last token, "
                                                 r"`ys\[:, -1:\]`"),
    (lambda *a: _greedy(*a, stop_rows=False), HINT + "a row goes on after its <eos>"),
    (lambda *a: _greedy(*a, stop_any=True), HINT + "you stopped as soon as one row finished"),
    (greedy_fill_eos, HINT + "you filled finished rows with `eos_id`"),
    (greedy_done_first, HINT + "you marked a row done before writing its token"),
    (lambda *a: _greedy(*a, keep_bos=False), HINT + "you dropped <bos>"),
    (lambda *a: _greedy(*a, extra=1), HINT + "your output is one token too long"),
    (lambda *a: _greedy(*a).float(), r"wrong dtype of the result: expected torch\.int64, "
                                     r"got torch\.float32\.\nHint: token ids are whole "
                                     r"numbers: keep them `torch\.long`"),
    (lambda *a: _greedy(*a).tolist(), r"returned a list"),
]


@pytest.mark.parametrize("fn, hint", GREEDY_MISTAKES,
                         ids=["axis", "grow", "last_only", "rows", "any", "fill_eos",
                              "done_first", "bos", "long",
                              "dtype", "list"])
def test_check_greedy_decode_names_the_mistake(fn, hint):
    assert_fails(check_greedy_decode, fn, hint)


def test_check_greedy_decode_error_hint_on_a_shape_error():
    def flat_append(next_logits, batch_size, bos_id, eos_id, max_len):
        ys = torch.full((batch_size, 1), bos_id)
        nxt = next_logits(ys).argmax(-1)
        return torch.cat([ys, nxt], dim=1)  # nxt is (B,), not a column
    assert_fails(check_greedy_decode, flat_append, r"raised RuntimeError.*\nHint: "
                 r"`next_logits` takes the whole prefix")


def beam_step_loop(scores, log_probs, k):
    """Correct, by sorting every (score, row, token) triple."""
    K, V = log_probs.shape
    triples = sorted(((float(scores[r] + log_probs[r, t]), r, t)
                      for r in range(K) for t in range(V)), reverse=True)
    return torch.tensor([[r, t] for _, r, t in triples[:k]])


@pytest.mark.parametrize("fn", [_beam_step, beam_step_loop])
def test_check_beam_step_accepts_correct(fn, capsys):
    assert check_beam_step(fn) is None
    out = assert_one_line(capsys, check_beam_step)
    assert out == "✓ check_beam_step: your beam step matches on 5 tests.\n"


def best_beam_per_token(scores, log_probs, k):
    """Wrong: for each token, only its best beam; then the k best tokens."""
    best = (scores[:, None] + log_probs).max(0)  # over the beams: (V,)
    tokens = best.values.topk(k).indices
    return torch.stack([best.indices[tokens], tokens], dim=1)


def first_beam_only(scores, log_probs, k):
    """Wrong: the k best words after beam 0, never ranked against the other beams."""
    tokens = (scores[0] + log_probs[0]).topk(k).indices
    return torch.stack([torch.zeros_like(tokens), tokens], dim=1)


BEAM_MISTAKES = [
    (lambda *a: _beam_step(*a, combine="multiply"), HINT + "you multiplied log-probabilities"),
    (lambda *a: _beam_step(*a, combine="probs"), HINT + r"you added probabilities \(after"),
    (lambda *a: _beam_step(*a, combine="forget"), HINT + "you ranked the new words by their "
                                                         "own log-probabilities only"),
    (lambda *a: _beam_step(*a, per_beam=True), HINT + "each beam kept only its own best word"),
    (lambda *a: _beam_step(*a, swap=True), HINT + "the flat index was split the wrong way"),
    (lambda *a: _beam_step(*a, smallest=True), HINT + "you kept the k lowest scores"),
    (lambda *a: _beam_step(*a, by_k=True), HINT + "you split the flat index with K, the "
                                                  "number of beams, instead of V"),
    (lambda *a: _beam_step(*a, token_first=True), HINT + r"your pairs are \(token, row\)"),
    (best_beam_per_token, HINT + r"each token kept only its best beam"),
    (first_beam_only, HINT + r"all k came from the first beam"),
]


@pytest.mark.parametrize("fn, hint", BEAM_MISTAKES,
                         ids=["multiply", "probs", "forget", "per_beam", "swap", "smallest",
                              "by_k", "token_first", "best_beam_per_token", "first_beam_only"])
def test_check_beam_step_names_the_mistake(fn, hint):
    assert_fails(check_beam_step, fn, hint)


def test_checkers_refuse_a_non_function():
    with pytest.raises(TypeError, match="expects your function itself"):
        check_greedy_decode(3)
    with pytest.raises(TypeError, match="expects your function itself"):
        check_beam_step("beam")
