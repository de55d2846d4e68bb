import re

import pytest
import torch

from illustrated.decoding import beam_search, greedy_decode
from illustrated.model import ModelConfig, Transformer


def _model(seed=0):
    m = Transformer(ModelConfig.tiny(src_vocab=11, tgt_vocab=11), torch.Generator().manual_seed(seed))
    return m.double()


def test_cached_greedy_equals_uncached_with_padding():
    model = _model()
    src = torch.tensor([[4, 5, 6, 7, 2], [8, 9, 2, 0, 0], [5, 5, 2, 0, 0]])
    a = greedy_decode(model, src, 12, bos_id=1, eos_id=2, use_cache=True)
    b = greedy_decode(model, src, 12, bos_id=1, eos_id=2, use_cache=False)
    assert a.shape[0] == 3 and a[:, 0].eq(1).all()
    assert torch.equal(a, b)


def test_mode_restored():
    model = _model().train()
    greedy_decode(model, torch.tensor([[4, 5, 2]]), 5, 1, 2)
    assert model.training


def test_beam_size_1_equals_greedy():
    for seed in range(4):
        model = _model(seed)
        src = torch.tensor([[3, 4, 5, 6, 2]])
        g = greedy_decode(model, src, 10, 1, 2)[0]
        (tokens, _), = beam_search(model, src, 10, 1, 2, beam_size=1)
        assert torch.equal(tokens, g)


@pytest.mark.parametrize("alpha", [0.0, 0.6])
def test_beam_scores_are_sums_of_log_probs(alpha):
    """The sum of the tokens' log-probabilities, divided by ((5 + n) / 6) ** alpha with n
    the tokens after <bos>."""
    model = _model(1)
    src = torch.tensor([[3, 4, 5, 2]])
    found = beam_search(model, src, 6, 1, 2, beam_size=3, top_beams=3, length_penalty=alpha)
    for tokens, score in found:
        logp = model.eval()(src, tokens[None, :-1], None,
                            torch.ones(1, len(tokens) - 1, len(tokens) - 1).tril().bool())
        expect = logp[0].gather(-1, tokens[1:, None]).sum().item()
        assert abs(score - expect / ((5 + len(tokens) - 1) / 6) ** alpha) < 1e-9


def test_bad_inputs_named():
    import pytest
    model = _model()
    with pytest.raises(ValueError, match="max_len"):
        greedy_decode(model, torch.tensor([[3, 2]]), 1, 1, 2)
    with pytest.raises(ValueError, match="one source"):
        beam_search(model, torch.tensor([[3, 2], [4, 2]]), 5, 1, 2)


def test_large_beam_finds_the_exhaustive_best():
    import itertools
    model = _model(2).eval()
    src = torch.tensor([[3, 4, 2]])
    best = None
    for n in range(1, 4):  # every sequence of up to 3 tokens; unfinished ones at length 3
        for seq in itertools.product(range(11), repeat=n):
            if 2 in seq[:-1] or (n < 3 and seq[-1] != 2):
                continue
            tokens = torch.tensor((1,) + seq)
            T = len(tokens) - 1
            logp = model(src, tokens[None, :-1], None, torch.ones(1, T, T).tril().bool())
            s = logp[0].gather(-1, tokens[1:, None]).sum().item()
            if best is None or s > best[1]:
                best = (tokens, s)
    (tokens, score), = beam_search(model, src, 4, 1, 2, beam_size=200)
    assert torch.equal(tokens, best[0]) and abs(score - best[1]) < 1e-9


def test_beam_does_not_stop_at_the_first_k_poor_finished_hypotheses():
    # Regression: the search used to stop as soon as beam_size hypotheses had ended, all of
    # them unlikely short ones, while the live best prefix was still far better; the
    # translator then answered "student" to "il ne voit pas le chat".
    from illustrated.shipped import TOY_TRANSLATOR
    from illustrated.training import load_checkpoint
    model, sv, tv = load_checkpoint(TOY_TRANSLATOR)
    src = torch.tensor([sv.encode("il ne voit pas le chat")])
    (tokens, score), = beam_search(model, src, 16, tv.bos_id, tv.eos_id, beam_size=4)
    greedy = greedy_decode(model, src, 16, tv.bos_id, tv.eos_id)[0]
    assert tv.decode(tokens) == tv.decode(greedy) == "he does not see the cat"
    assert score > -2.0


def test_beam_does_not_stop_at_k_early_poor_finishes():
    """Early <eos> candidates of low score must not end the search while a live hypothesis
    scores higher (a label-smoothed model spreads about log(eps / V) on every word)."""
    from illustrated.data import split_pairs
    from illustrated.shipped import TOY_TRANSLATOR
    from illustrated.training import load_checkpoint, translate_ids

    model, sv, tv = load_checkpoint(TOY_TRANSLATOR)
    _, held = split_pairs(0)
    for s, ref in held[:12]:
        src = torch.tensor([sv.encode(s)])
        tokens, score = beam_search(model, src, 32, tv.bos_id, tv.eos_id, beam_size=4)[0]
        greedy = translate_ids(model, sv, tv, [s])[0]
        assert tv.decode(tokens) == greedy == ref


@pytest.mark.parametrize("kwargs, err, words", [
    (dict(bos_id=99), ValueError, "bos_id must be a target token id in [0, 16), got 99"),
    (dict(eos_id=-1), ValueError, "eos_id must be a target token id"),
    (dict(pad_id=16), ValueError, "pad_id must be a target token id"),
    (dict(bos_id=1.0), TypeError, "bos_id must be an int token id, got float"),
])
def test_greedy_refuses_token_ids_outside_the_vocabulary(kwargs, err, words):
    from illustrated.model import ModelConfig, Transformer
    model = Transformer(ModelConfig.tiny())
    args = dict(bos_id=1, eos_id=2) | kwargs
    pad = args.pop("pad_id", 0)
    with pytest.raises(err, match=re.escape(words)):
        greedy_decode(model, torch.tensor([[3, 4]]), 5, pad_id=pad, **args)
    if "pad_id" not in kwargs:
        with pytest.raises(err, match=re.escape(words)):
            beam_search(model, torch.tensor([[3, 4]]), 5, **args)


# --- beam search over many sentences at once -------------------------------------------


def _sources(seed, n=7, vocab=11):
    """n sentences of different lengths (ids 3.., then <eos> = 2), right-padded with 0."""
    g = torch.Generator().manual_seed(seed)
    rows = []
    for _ in range(n):
        length = int(torch.randint(1, 8, (1,), generator=g))
        rows.append(torch.randint(3, vocab, (length,), generator=g).tolist() + [2])
    width = max(map(len, rows))
    return rows, torch.tensor([r + [0] * (width - len(r)) for r in rows])  # (n, S)


@pytest.mark.parametrize("k, top_beams, alpha, max_len", [
    (1, 1, 0.0, 10), (3, 2, 0.6, 8), (4, 4, 1.0, 12), (5, 1, 0.6, 3), (2, 3, 0.0, 6)])
def test_beam_search_batch_equals_beam_search_sentence_by_sentence(k, top_beams, alpha, max_len):
    """Same hypotheses, in the same order, with the same scores, as one sentence at a time
    (padding changes the sums in the last bits only: float64 agrees to 1e-9)."""
    from illustrated.decoding import beam_search_batch
    for seed in range(2):
        model = _model(seed)
        rows, src = _sources(seed)
        found = beam_search_batch(model, src, max_len, 1, 2, k, top_beams, alpha)
        assert len(found) == len(rows)
        for row, got in zip(rows, found):
            alone = beam_search(model, torch.tensor([row]), max_len, 1, 2, k, top_beams, alpha)
            assert len(got) == len(alone)
            for (tokens, score), (tokens1, score1) in zip(got, alone):
                assert torch.equal(tokens, tokens1)
                assert abs(score - score1) < 1e-9


def test_beam_search_batch_of_one_equals_beam_search_exactly():
    from illustrated.decoding import beam_search_batch
    model = _model(1).train()
    src = torch.tensor([[3, 4, 5, 6, 2]])
    (got,) = beam_search_batch(model, src, 10, 1, 2, beam_size=3, top_beams=3)
    assert model.training  # the mode is restored
    assert got == [(t, s) for t, s in got]
    alone = beam_search(model, src, 10, 1, 2, beam_size=3, top_beams=3)
    assert [(t.tolist(), s) for t, s in got] == [(t.tolist(), s) for t, s in alone]


def test_beam_search_batch_checks_its_input():
    from illustrated.decoding import beam_search_batch
    model = _model()
    with pytest.raises(ValueError, match="max_len"):
        beam_search_batch(model, torch.tensor([[3, 2]]), 1, 1, 2)
    with pytest.raises(ValueError, match=r"src must be 2-D, got 1-D"):
        beam_search_batch(model, torch.tensor([3, 2]), 5, 1, 2)
    with pytest.raises(ValueError, match=r"eos_id must be a target token id in \[0, 11\)"):
        beam_search_batch(model, torch.tensor([[3, 2]]), 5, 1, 11)


def test_beam_search_runs_one_forward_per_step_for_every_hypothesis_and_sentence():
    """beam_search feeds its k live hypotheses to the model together (one decode call per
    step, the newest token of each, read against the cache); beam_search_batch does so for
    every sentence at once: no more calls than steps."""
    from illustrated.decoding import beam_search_batch
    model = _model(2)
    calls = []
    decode = model.decode

    def counting(memory, src_mask, tgt, tgt_mask, cache=None):
        calls.append(tuple(tgt.shape))
        assert cache is not None and tgt.shape[1] == 1  # one new token per hypothesis
        return decode(memory, src_mask, tgt, tgt_mask, cache=cache)

    model.decode = counting
    beam_search(model, torch.tensor([[3, 4, 5, 2]]), 8, 1, 2, beam_size=3)
    assert 1 <= len(calls) <= 7 and max(b for b, _ in calls) == 3
    calls.clear()
    rows, src = _sources(5)
    beam_search_batch(model, src, 8, 1, 2, beam_size=3)
    assert 1 <= len(calls) <= 7  # steps, not steps x sentences
    assert calls[0][0] == len(rows) and max(b for b, _ in calls) > 3


def test_greedy_trace_records_what_each_step_saw_and_chose():
    from illustrated.decoding import TRACE_TOP, _step
    from illustrated.masks import padding_mask

    model = _model(3).eval()
    src = torch.tensor([[4, 5, 6, 7, 2], [8, 9, 2, 0, 0], [5, 5, 2, 0, 0]])  # (B, S)
    trace = []
    ys = greedy_decode(model, src, 9, 1, 2, trace=trace)  # (B, T)
    assert torch.equal(ys, greedy_decode(model, src, 9, 1, 2))  # a trace changes nothing
    assert len(trace) == ys.shape[1] - 1
    src_mask = padding_mask(src, 0)  # (B, 1, S)
    memory = model.encode(src, src_mask)  # (B, S, D)
    done = torch.zeros(3, dtype=torch.bool)
    for t, step in enumerate(trace):
        assert step["chosen"] == ys[:, t + 1].tolist()
        top = _step(model, memory, src_mask, ys[:, :t + 1], None).topk(TRACE_TOP)  # uncached
        for b in range(3):
            assert step["top_ids"][b] == top.indices[b].tolist()
            assert step["top_logp"][b] == pytest.approx(top.values[b].tolist(), abs=1e-9)
            assert done[b] or step["top_ids"][b][0] == step["chosen"][b]
        done |= ys[:, t + 1] == 2
    assert done.any() and not done.all()  # rows that finished and one that did not


@pytest.mark.parametrize("max_len", [4, 12])
def test_beam_trace_is_what_the_search_did(max_len):
    """Each step's live candidates are the next step's hypotheses; its finished ones, with
    their final scores, are the search's finished hypotheses; at max_len the last live ones
    compete too."""
    model, src, k, alpha = _model(2), torch.tensor([[3, 4, 5, 6, 2]]), 3, 0.6
    trace = []
    found = beam_search(model, src, max_len, 1, 2, k, top_beams=100, length_penalty=alpha,
                        trace=trace)
    assert [(t.tolist(), s) for t, s in found] == [
        (t.tolist(), s) for t, s in beam_search(model, src, max_len, 1, 2, k, top_beams=100,
                                                length_penalty=alpha)]
    assert trace[0]["live"] == [{"tokens": [1], "score": 0.0}]
    for step, after in zip(trace, trace[1:]):
        live = [{"tokens": c["tokens"], "score": c["score"]}
                for c in step["candidates"] if c["fate"] == "live"]
        assert live == after["live"]
    for step in trace:
        scores = [c["score"] for c in step["candidates"]]
        assert scores == sorted(scores, reverse=True) and len(scores) <= 2 * k
        assert sum(c["fate"] == "live" for c in step["candidates"]) <= k
    ended = {tuple(c["tokens"]): c["final"] for s in trace for c in s["candidates"]
             if c["fate"] == "finished"}
    assert all(c["tokens"][-1] == 2 for s in trace for c in s["candidates"]
               if c["fate"] == "finished")
    results = {tuple(t.tolist()): s for t, s in found}
    assert {t: pytest.approx(s) for t, s in ended.items()} == {
        t: s for t, s in results.items() if t in ended}
    # Fewer than top_beams finished (or out of length): the last live hypotheses compete too.
    last = [tuple(c["tokens"]) for c in trace[-1]["candidates"] if c["fate"] == "live"]
    last = last or [tuple(h["tokens"]) for h in trace[-1]["live"]]
    assert {t for t in results if t not in ended} == set(last)
    # 4: the search ran out of length; 12: it settled before, with hypotheses finished.
    assert (len(last[0]) == max_len) == (max_len == 4) and (ended or max_len == 4)


# --- a decoding call checks what it adds; the model checks the rest as it runs ------------


def _decoders():
    from illustrated.decoding import beam_search_batch
    return [greedy_decode, beam_search, beam_search_batch]


def _untouched(model):
    """``model``, refusing to run: a decoding function's own check must fail before the
    model is called."""
    def run(*args, **kwargs):
        raise AssertionError("the model ran: the decoding function did not refuse its input")
    model.encode = model.decode = run
    return model


@pytest.mark.parametrize("decode", _decoders(), ids=lambda f: f.__name__)
@pytest.mark.parametrize("src, max_len, err, words", [
    ([[3.0, 2.0]], 5, TypeError, "src must hold integer ids, got dtype torch.float32"),
    ([[3, 2]], 66, ValueError, "max_len=66 would feed the decoder 65 positions, more than "
                               "the model's config.max_len=64"),
])
def test_decoding_refuses_what_it_cannot_decode(decode, src, max_len, err, words):
    with pytest.raises(err, match=re.escape(words)):
        decode(_untouched(_model()), torch.tensor(src), max_len, 1, 2)


@pytest.mark.parametrize("decode", _decoders(), ids=lambda f: f.__name__)
@pytest.mark.parametrize("src, err, words", [
    ([[3, 11]], ValueError, "src must be token ids in [0, vocab=11), got ids from 3 to 11"),
    ([[-1, 2]], ValueError, "src must be token ids in [0, vocab=11), got ids from -1 to 2"),
    ([[3] * 65], ValueError, "sequence length 65 is longer than max_len=64"),
])
def test_the_model_refuses_the_rest_with_its_own_words(decode, src, err, words):
    """Ids outside the vocabulary and a source too long: the model's embedding and
    positional encoding refuse them as the model encodes, with the model's message."""
    model = _model().train()
    with pytest.raises(err, match=re.escape(words)):
        decode(model, torch.tensor(src), 5, 1, 2)
    assert model.training  # the mode is restored


def test_greedy_checks_its_src_mask():
    """The model refuses a mask that is not (B, 1, S): the decoder's layers check it
    against the queries of a step, by its name."""
    model, src = _model(), torch.tensor([[3, 4, 2]])  # (B, S)
    square = torch.ones(1, 3, 3, dtype=torch.bool)  # (B, S, S): the encoder's, not (B, 1, S)
    with pytest.raises(ValueError, match=re.escape("src_mask of shape (1, 3, 3) does not "
                                                   "broadcast against the attention scores "
                                                   "of shape (1, 1, 3)")):
        greedy_decode(model, src, 5, 1, 2, src_mask=square)
    with pytest.raises(TypeError, match="src_mask"):
        greedy_decode(model, src, 5, 1, 2, src_mask=torch.ones(1, 1, 3))


@pytest.mark.parametrize("kwargs, words", [(dict(beam_size=0), "beam_size must be positive"),
                                           (dict(top_beams=0), "top_beams must be positive")])
def test_beam_search_checks_its_sizes(kwargs, words):
    from illustrated.decoding import beam_search_batch
    for search in (beam_search, beam_search_batch):
        with pytest.raises(ValueError, match=words):
            search(_untouched(_model()), torch.tensor([[3, 2]]), 5, 1, 2, **kwargs)
