"""illustrated.decoder_only.sampling: the seeded generator, the filtered distribution
(against a direct computation), the draw, and the generation loop (with and
without the cache) on a tiny decoder-only model."""
from __future__ import annotations

import math

import pytest
import torch

from illustrated.decoder_only.model import DecoderOnly, DecoderOnlyConfig
from illustrated.decoder_only.sampling import (Mulberry32, draw, generate, generate_many,
                                               next_token_probs)

# The classic JavaScript mulberry32 (a += 0x6D2B79F5; Math.imul ...; >>> 0),
# run under Node 20: its first three numbers for each seed.
CLASSIC = {0: [0.26642920868471265, 0.0003297457005828619, 0.2232720274478197],
           1: [0.6270739405881613, 0.002735721180215478, 0.5274470399599522],
           42: [0.6011037519201636, 0.44829055899754167, 0.8524657934904099],
           2**32 - 1: [0.8964226141106337, 0.189478256739676, 0.7156526781618595]}


def test_mulberry32_draws_the_javascript_numbers():
    for seed, want in CLASSIC.items():
        rng = Mulberry32(seed)
        assert [rng.random() for _ in want] == want


def test_mulberry32_stays_in_range():
    rng = Mulberry32(7)
    k = [rng.next_uint32() for _ in range(5000)]
    assert 0 <= min(k) and max(k) < 2**32 and len(set(k)) == len(k)


def brute_force(scores, temperature, top_k, top_p):
    """The filtered distribution in plain Python: softmax, rank by
    (probability descending, id ascending), keep k, renormalise, keep
    tokens while the running sum before them is under top_p."""
    s = scores.double().tolist()
    if temperature == 0:
        best = s.index(max(s))
        return [float(i == best) for i in range(len(s))]
    e = [math.exp((x - max(s)) / temperature) for x in s]
    p = [x / sum(e) for x in e]
    ranked = sorted(range(len(p)), key=lambda i: (-p[i], i))
    ranked = ranked[:top_k or len(p)]
    total = sum(p[i] for i in ranked)
    kept, run = {}, 0.0
    for i in ranked:
        if top_p < 1 and run >= top_p:
            break
        kept[i] = p[i] / total
        run += kept[i]
    z = sum(kept.values())
    return [kept.get(i, 0.0) / z for i in range(len(p))]


def rows(n, seed=0):
    """Random rows: wide and narrow, log-probs and logits, many ties
    (rounded scores), some tokens ruled out (-inf)."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for i in range(n):
        V = [1, 2, 5, 9, 40][i % 5]
        s = torch.randn(V, generator=g) * 3
        if i % 3 == 0:
            s = s.round()  # ties
        if i % 4 == 1 and V > 2:
            s[torch.randperm(V, generator=g)[: V // 2]] = -math.inf
        out.append(s.log_softmax(0) if i % 2 else s)
    return out


SETTINGS = [(t, k, p) for t in (0, 0.5, 1.0, 3.0) for k in (0, 1, 3, 50)
            for p in (1.0, 0.9, 0.4, 1e-9)]


def test_filtering_equals_the_direct_computation():
    for s in rows(20):
        for t, k, p in SETTINGS:
            got = next_token_probs(s, t, k, p)
            want = torch.tensor(brute_force(s, t, k, p), dtype=torch.float64)
            assert torch.equal(got > 0, want > 0), (s, t, k, p)
            assert torch.allclose(got, want, rtol=0, atol=1e-12)
            assert got.dtype == torch.float64 and abs(float(got.sum()) - 1) < 1e-12


def test_ties_go_to_the_lower_id():
    s = torch.tensor([1.0, 3.0, 2.0, 2.0, 3.0])  # ids 1, 4 tie; then 2, 3
    assert next_token_probs(s, 1.0, top_k=1).nonzero().flatten().tolist() == [1]
    assert next_token_probs(s, 1.0, top_k=3).nonzero().flatten().tolist() == [1, 2, 4]
    assert next_token_probs(s, 0).nonzero().flatten().tolist() == [1]
    probs = next_token_probs(s, 1.0)
    half = float(probs[1] + probs[4])  # 0.66...: the two best reach it
    assert next_token_probs(s, 1.0, top_p=half - 1e-9).nonzero().flatten().tolist() == [1, 4]
    assert next_token_probs(s, 1.0, top_p=0.1).nonzero().flatten().tolist() == [1]


def test_top_p_keeps_the_fewest_that_reach_it():
    s = torch.tensor([4.0, 2.0, 1.0, 1.0]).log()  # probabilities 1/2, 1/4, 1/8, 1/8
    kept = {p: int((next_token_probs(s, 1.0, top_p=p) > 0).sum())
            for p in (0.4, 0.6, 0.8, 0.9, 1.0)}
    assert kept == {0.4: 1, 0.6: 2, 0.8: 3, 0.9: 4, 1.0: 4}
    assert torch.allclose(next_token_probs(s, 1.0, top_p=0.6),
                          torch.tensor([2 / 3, 1 / 3, 0, 0], dtype=torch.float64))


def test_temperature_limits():
    s = torch.tensor([0.5, 2.0, -1.0, 1.5])
    greedy = torch.tensor([0, 1, 0, 0], dtype=torch.float64)
    assert torch.equal(next_token_probs(s, 0), greedy)
    assert torch.equal(next_token_probs(s, 1e-300), greedy)  # no NaN
    flat = next_token_probs(s, 1e9)
    assert torch.allclose(flat, torch.full((4,), 0.25, dtype=torch.float64))
    assert torch.allclose(next_token_probs(s, 1.0), s.double().softmax(0))
    assert torch.allclose(next_token_probs(s.log_softmax(0), 2.0),
                          next_token_probs(s, 2.0))  # log-probs or logits
    peaked = next_token_probs(s, 0.5)
    assert peaked[1] > next_token_probs(s, 1.0)[1] > flat[1]


def test_draw_is_the_inverse_cdf():
    probs = torch.tensor([0.25, 0.5, 0.25], dtype=torch.float64)
    got = [draw(probs, u) for u in (0.0, 0.2499, 0.25, 0.7499, 0.75, 0.9999)]
    assert got == [0, 0, 1, 1, 2, 2]
    holes = torch.tensor([0, 0.5, 0, 0.5, 0], dtype=torch.float64)
    assert [draw(holes, u) for u in (0.0, 0.49, 0.5, 0.99)] == [1, 1, 3, 3]
    short = torch.tensor([0.3, 0.6, 0.0], dtype=torch.float64)  # sums to 0.9
    assert draw(short, 0.95) == 1  # the last token that has probability


def test_draws_follow_the_probabilities():
    """5000 seeded draws: each token's share within 4 standard errors."""
    probs = next_token_probs(torch.tensor([2.0, 1.0, 0.0, -1.0, 0.5, 3.0]), 1.0)
    rng, n = Mulberry32(2026), 5000
    counts = torch.bincount(torch.tensor([draw(probs, rng.random())
                                          for _ in range(n)]), minlength=6)
    share = counts.double() / n
    assert ((share - probs).abs() < 4 * (probs * (1 - probs) / n).sqrt()).all(), share


@pytest.mark.parametrize("call, error, message", [
    (lambda: Mulberry32(-1), ValueError, r"seed must be in \[0, 2\*\*32\), got -1"),
    (lambda: Mulberry32(2**32), ValueError, "seed must be in"),
    (lambda: Mulberry32(1.5), TypeError, "seed must be an int"),
    (lambda: next_token_probs(torch.zeros(3), -0.5), ValueError, "temperature must be a finite number, 0 or more"),
    (lambda: next_token_probs(torch.zeros(3), math.inf), ValueError, "temperature must be .*; got inf"),
    (lambda: next_token_probs(torch.zeros(3), "1"), TypeError, "temperature must be .*; got str '1'"),
    (lambda: next_token_probs(torch.zeros(3), top_k=-1), ValueError, r"top-k must be a whole number, 0 or more \(0: keep every token\); got -1"),
    (lambda: next_token_probs(torch.zeros(3), top_k=2.0), TypeError, "top-k must be a whole number.*; got float 2.0"),
    (lambda: next_token_probs(torch.zeros(3), top_p=0), ValueError, r"top-p must be more than 0 and at most 1 .*; got 0$"),
    (lambda: next_token_probs(torch.zeros(3), top_p=1.5), ValueError, "; got 1.5"),
    (lambda: next_token_probs(torch.zeros(3), top_p=math.nan), ValueError, "top-p must be .*; got nan"),
    (lambda: next_token_probs(torch.zeros(2, 3, 4)), ValueError,
     "scores must be 1-D or 2-D"),
    (lambda: next_token_probs(torch.tensor([[0.0, 1.0], [math.nan, 0.0]])), ValueError,
     r"NaN at \(row, id\) \[\[1, 0\]\]"),
    (lambda: next_token_probs(torch.zeros(3, dtype=torch.long)), TypeError, "floating"),
    (lambda: next_token_probs(torch.zeros(0)), ValueError, "got none"),
    (lambda: next_token_probs(torch.tensor([0.0, math.nan])), ValueError, r"NaN at ids \[1\]"),
    (lambda: next_token_probs(torch.tensor([0.0, math.inf])), ValueError, r"max came inf"),
    (lambda: next_token_probs(torch.full((3,), -math.inf)), ValueError, "max came -inf"),
    (lambda: draw(torch.ones(2) / 2, 1.0), ValueError, r"u must be a float in \[0, 1\)"),
])
def test_bad_input_says_what_was_expected(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.fixture(scope="module")
def model():
    """A tiny decoder-only model; ``model.read`` counts the positions it
    reads (the embedding's input), reset by each test that looks."""
    config = DecoderOnlyConfig(vocab=11, N=2, d_model=8, d_ff=16, h=2,
                               max_len=12)
    lm = DecoderOnly(config, generator=torch.Generator().manual_seed(0))
    lm.read = 0
    lm.eval()  # no dropout where a test calls it directly

    def count(_, inputs):
        lm.read += inputs[0].shape[1]

    lm.embed[0].register_forward_pre_hook(count)  # the token embedding
    return lm


RUNS = [dict(temperature=1.0), dict(temperature=0), dict(temperature=0.7, top_k=3),
        dict(temperature=1.5, top_p=0.8, seed=5), dict(top_k=2, top_p=0.5, seed=9)]


@pytest.mark.parametrize("options", RUNS)
def test_the_cache_changes_the_work_not_the_ids(model, options):
    out = {}
    for use_cache in (True, False):
        model.read, trace = 0, []
        ids = generate(model, [1, 5, 6], 8, eos_id=-1, use_cache=use_cache,
                       trace=trace, **options)
        out[use_cache] = ids, trace, model.read
    (ids, trace, read), (ids0, trace0, read0) = out[True], out[False]
    assert ids == ids0 and len(ids) == 8
    assert [t["u"] for t in trace] == [t["u"] for t in trace0]
    assert [t["chosen"] for t in trace] == ids
    assert torch.allclose(torch.tensor([t["probs"] for t in trace]),
                          torch.tensor([t["probs"] for t in trace0]), atol=1e-6)
    assert (read, read0) == (3 + 7, sum(range(3, 11)))  # prompt, then one a step


@pytest.mark.parametrize("options", [dict(temperature=1.0), dict(top_p=0.8),
                                     dict(temperature=1.5, top_k=3)])
def test_many_seeds_side_by_side_write_what_generate_writes(model, options):
    seeds = range(20, 32)
    endless = generate_many(model, [1, 5], seeds, 10, eos_id=-1, **options)
    # as eos, the id written most often: some rows end early, some fill max_len
    eos = max(range(11), key=lambda i: sum(i in row for row in endless))
    rows = generate_many(model, [1, 5], seeds, 10, eos_id=eos, **options)
    assert rows == [generate(model, [1, 5], 10, seed=s, eos_id=eos, **options)
                    for s in seeds]
    assert len({len(r) for r in rows}) > 1  # the batch held rows of every length


def test_a_batch_of_rows_is_each_row_on_its_own():
    scores = torch.randn(5, 30, generator=torch.Generator().manual_seed(0))
    for options in RUNS[:4]:
        options = {k: v for k, v in options.items() if k != "seed"}
        rows = torch.stack([next_token_probs(row, **options) for row in scores])
        assert torch.equal(next_token_probs(scores, **options), rows)


@pytest.mark.parametrize("seeds, error, words", [
    ([], ValueError, "one seed at least"), ([1, -1], ValueError, "seed must be in"),
    ([1.5], TypeError, "seed must be an int")])
def test_bad_seeds_are_named(model, seeds, error, words):
    with pytest.raises(error, match=words):
        generate_many(model, [1], seeds, 3)


def test_a_seed_gives_the_same_ids_again(model):
    first = generate(model, [1], 10, seed=3, eos_id=-1)
    assert generate(model, [1], 10, seed=3, eos_id=-1) == first
    others = {tuple(generate(model, [1], 10, seed=s, eos_id=-1)) for s in range(4, 9)}
    assert len(others | {tuple(first)}) > 1


def test_greedy_takes_the_argmax_each_step(model):
    ids = generate(model, [1, 4], 6, temperature=0, eos_id=-1)
    seq = [1, 4]
    for _ in range(6):
        seq.append(int(model(torch.tensor([seq]))[0, -1].argmax()))
    assert ids == seq[2:]


@pytest.mark.parametrize("options", RUNS)
def test_sampling_draws_from_the_full_forwards_last_row(model, options):
    """generate (the last position only, with its cache) sees, step by step, the
    distribution of the full forward's last row, and writes what a loop over the full
    forward writes with the same seed."""
    options = dict(options)
    seed = options.pop("seed", 0)
    rng, seq, rows = Mulberry32(seed), [1, 4, 7], []
    for _ in range(8):
        with torch.no_grad():
            row = model(torch.tensor([seq]))[0, -1]  # (V,) every position scored
        rows.append(row.exp())
        seq.append(draw(next_token_probs(row, **options), rng.random()))
    trace = []
    assert generate(model, [1, 4, 7], 8, seed=seed, eos_id=-1, trace=trace,
                    **options) == seq[3:]
    torch.testing.assert_close(torch.tensor([t["model"] for t in trace]),
                               torch.stack(rows), atol=1e-6, rtol=1e-5)


def test_it_stops_after_eos_and_at_max_len(model):
    trace = []
    ids = generate(model, [1], 50, seed=1, eos_id=-1, trace=trace)
    assert len(ids) == len(trace) == model.config.max_len - 1  # 1 + 11 = 12
    eos = ids[3]
    cut = generate(model, [1], 50, seed=1, eos_id=eos)
    assert cut == ids[: ids.index(eos) + 1]  # eos is the last id returned


def test_the_model_mode_is_restored(model):
    model.train()
    generate(model, [1], 2)
    assert model.training
    model.eval()


@pytest.mark.parametrize("args, kwargs, error, message", [
    (([], 3), {}, ValueError, "prompt_ids must hold one id"),
    (([1, -2], 3), {}, ValueError, "prompt_ids must hold one id"),
    ((torch.tensor([1]), 3), {}, TypeError, "prompt_ids must be a list"),
    (([1, 2.0], 3), {}, TypeError, "prompt_ids must be a list"),
    (([1] * 12, 3), {}, ValueError, "max_len=12 leaves no room"),
    (([1], 0), {}, ValueError, "max_new_tokens must be positive"),
    (([1], 3), {"seed": -1}, ValueError, "seed must be in"),
    (([1], 3), {"top_p": 2}, ValueError, "top-p must be .*; got 2"),
    (([1], 3), {"eos_id": "2"}, TypeError, "eos_id must be an int"),
])
def test_bad_generate_input(model, args, kwargs, error, message):
    with pytest.raises(error, match=message):
        generate(model, *args, **kwargs)
