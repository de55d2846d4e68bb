"""Tests for illustrated.decoder_only.ablation: one run, the length test, the summary, on a
tiny model and made-up sentences (the real runs are benchmarks/decoder_ablation.py's)."""
import math

import pytest

from illustrated.counting import count_parameters
import torch

from illustrated.decoder_only.ablation import (VARIANTS, end_targets, length_run,
                                               length_split, nll_by_position, run_variant,
                                               summarise, train_variant, variant_config)
from illustrated.decoder_only.training import mean_nll, padded, shift
from illustrated.decoder_only.variants import VariantDecoder, modern

SIZES = dict(d_model=16, N=1, h=4, d_ff=32, dropout=0.0)
BUDGET = dict(steps=4, max_tokens=40, warmup=2, max_len=12)
TRAIN = [[1] + [3 + (i * j) % 8 for j in range(n)] + [2]
         for i in range(12) for n in (2, 3, 5, 7)]  # 4 to 9 tokens
HELD = [[1, 4, 5, 2], [1, 6, 7, 8, 2], [1, 3, 4, 5, 6, 7, 8, 9, 2]]


def test_the_variants_are_chapter_13s_model_each_change_and_all_together():
    assert VARIANTS["baseline"] == {}
    assert variant_config("modern", 12, **SIZES) == modern(vocab=12, max_len=64, **SIZES)
    singles = [name for name in VARIANTS if name not in ("baseline", "modern")]
    assert all(len(VARIANTS[name]) == 1 for name in singles)
    flags = {field for name in singles for field in VARIANTS[name]}
    assert flags == set(VARIANTS["modern"])  # all of the single changes, and no other
    with pytest.raises(ValueError, match="unknown variant 'llama'"):
        variant_config("llama", 12)


def test_a_run_is_reproducible_and_says_what_it_trained():
    one = run_variant("modern", 0, TRAIN, HELD, 12, **BUDGET, **SIZES)
    again = run_variant("modern", 0, TRAIN, HELD, 12, **BUDGET, **SIZES)
    assert one["perplexity"] == again["perplexity"] and 1 < one["perplexity"] < 12
    assert {k: one[k] for k in ("variant", "seed", "steps", "max_tokens")} == {
        "variant": "modern", "seed": 0, "steps": 4, "max_tokens": 40}
    # every batch holds at most 40 tokens; each sentence of n tokens has n - 1 targets
    assert 4 * 10 < one["tokens"] <= 4 * 40
    model = VariantDecoder(variant_config("modern", 12, max_len=12, **SIZES))
    assert one["parameters"] == count_parameters(model)  # the variant was trained


def test_the_length_test_trains_on_the_short_sentences_only():
    assert length_split(HELD, 5) == (HELD[:2], HELD[2:])
    result = length_run("rope", 0, TRAIN, HELD, 12, cut=5, **BUDGET, **SIZES)
    short = run_variant("rope", 0, length_split(TRAIN, 5)[0], HELD[:2], 12, **BUDGET,
                        **SIZES)
    assert result["short_perplexity"] == short["perplexity"]
    assert result["tokens"] == short["tokens"] and math.isfinite(result["long_perplexity"])
    with pytest.raises(ValueError, match="cut=20 leaves no"):
        length_run("rope", 0, TRAIN, HELD, 12, cut=20, **BUDGET, **SIZES)
    control = length_run("rope", 0, TRAIN, HELD, 12, cut=5, control=True, **BUDGET, **SIZES)
    every = run_variant("rope", 0, TRAIN, HELD[:2], 12, **BUDGET, **SIZES)  # every length
    assert control["short_perplexity"] == every["perplexity"] and control["control"]
    assert not result["control"]


def test_the_longer_sentences_are_scored_at_trained_and_untrained_positions_apart():
    result = length_run("baseline", 0, TRAIN, HELD, 12, cut=5, **BUDGET, **SIZES)
    model, _ = train_variant("baseline", 0, length_split(TRAIN, 5)[0], 12, **BUDGET,
                             **SIZES)  # the same model: its seed decides everything
    inputs, targets = shift(padded(HELD[2:]))  # one sentence of 9 tokens: 8 targets
    with torch.no_grad():
        nll = -model(inputs).gather(-1, targets[..., None])[0, :, 0]  # (8,)
    # trained on at most 5 tokens: input positions 0 .. 3
    assert result["long_seen_perplexity"] == pytest.approx(math.exp(nll[:4].mean()))
    assert result["long_unseen_perplexity"] == pytest.approx(math.exp(nll[4:].mean()))
    assert result["long_nll"] == pytest.approx(nll.tolist())
    assert result["long_count"] == [1] * 8 and result["short_count"] == [2, 2, 2, 1]
    assert result["short_nll"][3] is not None


def test_the_targets_that_end_a_sentence_are_counted_at_each_position():
    ended, count = end_targets(HELD, marks={9, 4}, eos_id=2)  # 9 and 4 are marks
    assert count == [3, 3, 3, 2, 1, 1, 1, 1]  # as nll_by_position counts them
    assert ended == [0, 0, 1, 1, 0, 0, 1, 1]  # <eos> at 2 and 3; the long one's 9 and <eos>
    # a mark inside a sentence (4, at positions 0 and 1) ends nothing


def test_the_loss_by_position_adds_up_to_the_mean_loss():
    model = VariantDecoder(variant_config("rope", 12, max_len=12, **SIZES),
                           torch.Generator().manual_seed(0))
    total, count = nll_by_position(model, HELD)
    assert count.tolist() == [3, 3, 3, 2, 1, 1, 1, 1]  # targets at each input position
    assert (total.sum() / count.sum()).item() == pytest.approx(mean_nll(model, HELD))
    assert model.training  # its mode is given back


def test_the_summary_over_seeds():
    rows = [{"variant": "a", "perplexity": p} for p in (1.0, 2.0, 3.0)]
    rows.append({"variant": "b", "perplexity": 5.0})
    s = summarise(rows)
    half = 4.303 / math.sqrt(3)  # t(0.975, 2 degrees of freedom) * sd / sqrt(n), sd = 1
    assert s["a"]["mean"] == 2.0 and s["a"]["sd"] == 1.0
    assert s["a"]["interval"] == pytest.approx([2.0 - half, 2.0 + half])
    assert s["b"] == {"n": 1, "mean": 5.0, "sd": 0.0, "min": 5.0, "max": 5.0,
                      "interval": None}
