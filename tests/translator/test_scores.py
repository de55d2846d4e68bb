"""illustrated.translator.scores: sacreBLEU's scores and signatures, the paired bootstrap
against a direct resampling, the sentence comparison, the nearest-training-sentence index
against brute force."""
import random
import re

import numpy as np
import pytest
import sacrebleu

from illustrated.translator import scores as ev

REFS = ["I'm fat.", "Tom left early.", "Do you want coffee or tea?", "It's too hot to run.",
        "We got to the cinema late.", "She left her umbrella on the bus.",
        "My uncle lives near the station.", "This book is funnier than the movie.",
        "Close the window, please."]
# Two systems that differ sentence by sentence: b better on 0, 2, 4, 5, a on 1, 3, 6, 7, the
# same translation for 8.
HYPS_A = ["I am fat.", "Tom left early.", "Do you want coffee?", "It is too hot to run.",
          "We arrived late at the cinema.", "She forgot her umbrella in the bus.",
          "My uncle lives near the station.", "This book is funnier than the film.",
          "Close the window."]
HYPS_B = ["I'm fat.", "Tom has left early.", "Do you want coffee or tea?",
          "It's too hot for running.", "We got to the cinema late.",
          "She left her umbrella on the bus.", "My uncle lives by the station.",
          "This book is more funny than the movie.", "Close the window."]


def _system(seed, n=40):
    """A synthetic test set and two noisy systems: words dropped and replaced at random."""
    rng = random.Random(seed)
    vocab = "the a cat dog sees likes runs home now big small red".split()
    refs = [" ".join(rng.choice(vocab) for _ in range(rng.randint(2, 9))).capitalize() + "."
            for _ in range(n)]

    def noisy(p):
        return [" ".join(w if rng.random() > p else rng.choice(vocab) for w in r.split())
                for r in refs]
    return noisy(0.3), noisy(0.2), refs


# --- corpus_scores --------------------------------------------------------------------------

def test_corpus_scores_are_sacrebleus_with_signatures():
    s = ev.corpus_scores(HYPS_A, REFS)
    assert s["sentences"] == len(REFS)
    assert s["bleu"] == sacrebleu.corpus_bleu(HYPS_A, [REFS]).score
    assert s["chrf"] == sacrebleu.corpus_chrf(HYPS_A, [REFS]).score
    # chrF weighs recall twice as much as precision: swapping the arguments changes it
    assert s["chrf"] != pytest.approx(sacrebleu.corpus_chrf(REFS, [HYPS_A]).score)
    assert s["bleu_signature"] == "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
    assert s["chrf_signature"] == "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0"


def test_case_counts():
    """References as the corpus writes them: a lower-cased translation loses points."""
    assert ev.corpus_scores(REFS, REFS)["bleu"] == pytest.approx(100.0)
    assert ev.corpus_scores([r.lower() for r in REFS], REFS)["bleu"] < 90


@pytest.mark.parametrize("hyps, refs, error, message", [
    (["a."], ["a.", "b."], ValueError,
     "hyps has 1 sentences but refs has 2: expected one hypothesis per reference"),
    ([], [], ValueError, "refs is empty: nothing to score"),
    (["a."], [["a."]], TypeError, "refs[0] must be a str, got list (one reference per sentence"),
    ("a.", ["a."], TypeError, "hyps must be a list of str (one per sentence), got str"),
    (["a.", None], ["a.", "b."], TypeError, "hyps[1] must be a str, got NoneType"),
])
def test_bad_input_is_named(hyps, refs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        ev.corpus_scores(hyps, refs)


# --- the bootstrap --------------------------------------------------------------------------

@pytest.mark.parametrize("metric", ["bleu", "chrf"])
def test_sufficient_statistics_give_sacrebleus_corpus_score(metric):
    """Resampling from the sentence statistics: the unresampled set (each sentence once)
    scores exactly what sacreBLEU's corpus score gives."""
    a, _, refs = _system(0)
    m = ev._metrics()[metric]
    whole = ev._resampled(m, ev._stats(m, a, refs), np.arange(len(refs))[None])  # (1,)
    assert whole.tolist() == [m.corpus_score(a, [refs]).score]


def test_paired_bootstrap_equals_direct_resampling():
    """The same interval as rescoring every resampled test set with sacreBLEU, both
    systems on the same draw."""
    a, b, refs = _system(1, n=30)
    got = ev.paired_bootstrap(a, b, refs, resamples=80, seed=3)
    diffs = []
    for row in ev.resample_indices(len(refs), 80, 3):
        r = [[refs[i] for i in row]]
        diffs.append(sacrebleu.corpus_bleu([b[i] for i in row], r).score
                     - sacrebleu.corpus_bleu([a[i] for i in row], r).score)
    diffs = np.sort(diffs)
    assert got["low"] == pytest.approx(diffs[2], abs=1e-9)  # 80 // 40 from each end
    assert got["high"] == pytest.approx(diffs[-3], abs=1e-9)
    assert got["b_wins"] == np.mean(diffs > 0)
    assert got["delta"] == pytest.approx(sacrebleu.corpus_bleu(b, [refs]).score
                                         - sacrebleu.corpus_bleu(a, [refs]).score)
    assert got["low"] <= got["delta"] <= got["high"]


def test_paired_bootstrap_of_a_system_with_itself_is_zero():
    """Paired: a system against itself differs by exactly 0 on every resample (resampling
    the two independently would spread the difference around 0)."""
    a, _, refs = _system(2)
    got = ev.paired_bootstrap(a, list(a), refs, resamples=200)
    assert (got["delta"], got["low"], got["high"], got["b_wins"]) == (0.0, 0.0, 0.0, 0.0)


def test_paired_bootstrap_is_seeded_and_checked():
    a, b, refs = _system(3)
    first = ev.paired_bootstrap(a, b, refs, resamples=100, seed=5)
    assert ev.paired_bootstrap(a, b, refs, resamples=100, seed=5) == first
    assert ev.paired_bootstrap(a, b, refs, resamples=100, seed=6) != first
    with pytest.raises(ValueError, match="resamples must be an int >= 1, got 0"):
        ev.paired_bootstrap(a, b, refs, resamples=0)
    with pytest.raises(ValueError, match="hyps_b has 39 sentences but refs has 40"):
        ev.paired_bootstrap(a, b[:-1], refs)


def test_bootstrap_interval_brackets_the_score():
    a, _, refs = _system(4)
    for metric in ("bleu", "chrf"):
        low, high = ev.bootstrap_interval(a, refs, metric, resamples=200)
        score = ev.corpus_scores(a, refs)[metric]
        assert low < score < high
    with pytest.raises(ValueError, match="metric must be one of \\['bleu', 'chrf'\\], got 'ter'"):
        ev.bootstrap_interval(a, refs, "ter")


# --- sentence by sentence -------------------------------------------------------------------

def test_compare_sentences_counts_and_lists_both_ways():
    cmp = ev.compare_sentences(HYPS_A, HYPS_B, REFS)
    assert cmp.chrf_a == [sacrebleu.sentence_chrf(h, [r]).score for h, r in zip(HYPS_A, REFS)]
    assert (cmp.wins, cmp.losses, cmp.ties) == (4, 4, 1)
    wins, losses = cmp.largest_wins(2), cmp.largest_losses(9)
    assert [w["index"] for w in wins] == [4, 0]  # a reordered sentence put right gains most
    assert [w["index"] for w in losses] == [6, 1, 3, 7]  # all 4, the largest loss first
    assert all(w["chrf_b"] > w["chrf_a"] for w in wins)
    assert all(w["chrf_b"] < w["chrf_a"] for w in losses)
    assert wins[0] == {"index": 4, "reference": REFS[4], "a": HYPS_A[4], "b": HYPS_B[4],
                       "chrf_a": cmp.chrf_a[4], "chrf_b": 100.0}
    same = ev.compare_sentences(HYPS_A, HYPS_A, REFS)
    assert (same.wins, same.losses, same.ties) == (0, 0, len(REFS))
    assert same.largest_wins() == same.largest_losses() == []


# --- the nearest training sentence ----------------------------------------------------------

def _words_distance(a, b):
    """Levenshtein distance over words, by dynamic programming."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def test_word_tokens_definition():
    assert ev.word_tokens("I'm late, Tom!") == ("i", "m", "late", "tom")


def test_nearest_distance_examples():
    train = ["I am fat.", "Tom left early.", "Do you want tea?"]
    test = ["i am FAT!", "I'm fat.", "Tom left.", "Tom left very early.", "Do you want?",
            "Do you want coffee or tea?", "Nothing alike at all."]
    assert ev.nearest_training_distance(test, train) == [0, 1, 1, 1, 1, 2, 2]
    assert ev.nearest_training_distance(test, train, cap=1) == [0, 1, 1, 1, 1, 1, 1]
    with pytest.raises(ValueError, match="cap must be 1 or 2"):
        ev.nearest_training_distance(test, train, cap=3)


def test_nearest_distance_equals_brute_force():
    rng = random.Random(0)
    vocab = ["a", "b", "c", "d"]

    def sentence():
        return " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 5)))
    train = [sentence() for _ in range(60)]
    test = [sentence() for _ in range(300)]
    want = [min(2, min(_words_distance(ev.word_tokens(t), ev.word_tokens(s)) for s in train))
            for t in test]
    assert ev.nearest_training_distance(test, train) == want
    assert {0, 1, 2} <= set(want)  # every case occurs


# --- groups and lengths ---------------------------------------------------------------------

def test_grouped_scores_score_each_group_alone():
    labels = ["x", "y", "x", "x", "y", "y", "x", "y", "y"]
    got = ev.grouped_scores(HYPS_A, REFS, labels, resamples=50)
    assert list(got) == ["x", "y"]
    for g in got:
        keep = [i for i, lab in enumerate(labels) if lab == g]
        alone = ev.corpus_scores([HYPS_A[i] for i in keep], [REFS[i] for i in keep])
        assert (got[g]["bleu"], got[g]["chrf"]) == (alone["bleu"], alone["chrf"])
        assert got[g]["sentences"] == labels.count(g)
        assert got[g]["share"] == labels.count(g) / len(REFS)
        assert got[g]["bleu_95"][0] <= got[g]["bleu"] <= got[g]["bleu_95"][1]
    with pytest.raises(ValueError, match="labels has 2 entries but refs has 9"):
        ev.grouped_scores(HYPS_A, REFS, ["x", "y"])


def test_length_buckets():
    sources = ["Je suis là.", "J'ai " * 5, "un " * 6, "un " * 15, "un " * 16, "!"]
    assert ev.length_buckets(sources) == ["1-5", "6-10", "6-10", "11-15", "16+", "1-5"]
    assert ev.length_buckets(sources, edges=(3,)) == ["1-3", "4+", "4+", "4+", "4+", "1-3"]
    with pytest.raises(ValueError, match="edges must be increasing positive word counts"):
        ev.length_buckets(sources, edges=(10, 5))
