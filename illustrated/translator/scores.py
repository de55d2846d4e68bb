"""Scoring translations as the field scores them: corpus BLEU and chrF by sacreBLEU with
their signatures, a paired bootstrap for the difference of two systems, a
sentence-by-sentence comparison, the distance of each test sentence to the training set,
and scores by group (by length, by kind). Introduced in the chapter Real sentences;
``python -m illustrated evaluate`` writes all of it for the shipped translator
(:mod:`illustrated.translator.report`).

Protocol: one hypothesis and one reference per test pair, the reference *as the corpus
writes it* (case and contractions kept, :mod:`illustrated.translator.corpus`); sacreBLEU's
defaults (BLEU: 13a tokenisation, mixed case, exp smoothing; chrF: character 6-grams, beta
2), which each score's signature records. Resampling uses sacreBLEU's own sufficient
statistics (what ``sacrebleu.significance`` resamples), so a resampled score is computed
exactly as sacreBLEU computes a corpus score.
"""
from __future__ import annotations

import dataclasses
import re

import numpy as np

_WORD = re.compile(r"\w+")


def _metrics():
    """sacreBLEU's BLEU and chrF with their defaults (imported here: sacreBLEU loads slowly)."""
    import sacrebleu

    return {"bleu": sacrebleu.BLEU(), "chrf": sacrebleu.CHRF()}


def _check_texts(texts, name: str) -> None:
    if isinstance(texts, str) or not isinstance(texts, (list, tuple)):
        raise TypeError(f"{name} must be a list of str (one per sentence), got "
                        f"{type(texts).__name__}")
    if not texts:
        raise ValueError(f"{name} is empty: nothing to score")
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            hint = (" (one reference per sentence as a str; do not nest it as sacrebleu's "
                    "[refs])" if isinstance(t, (list, tuple)) else "")
            raise TypeError(f"{name}[{i}] must be a str, got {type(t).__name__}{hint}")


def _check_aligned(refs, **systems) -> None:
    """Raise unless ``refs`` and every system are non-empty lists of str of one length."""
    _check_texts(refs, "refs")
    for name, hyps in systems.items():
        _check_texts(hyps, name)
        if len(hyps) != len(refs):
            raise ValueError(f"{name} has {len(hyps)} sentences but refs has {len(refs)}: "
                             "expected one hypothesis per reference, in the same order")


def corpus_scores(hyps, refs) -> dict:
    """Corpus BLEU and chrF of ``hyps`` against ``refs`` (one reference each, as written).

    Args:
        hyps: N translations, str each.
        refs: N references, str each, in the same order.
    Returns:
        A dict with ``sentences`` (N), ``bleu`` and ``chrf`` (floats on sacreBLEU's 0-100
        scale), ``bleu_signature`` and ``chrf_signature`` (str).
    """
    _check_aligned(refs, hyps=hyps)
    out = {"sentences": len(refs)}
    for name, metric in _metrics().items():
        out[name] = metric.corpus_score(list(hyps), [list(refs)]).score
        out[f"{name}_signature"] = str(metric.get_signature())  # nrefs known after scoring
    return out


def resample_indices(n: int, resamples: int, seed: int) -> np.ndarray:
    """``(resamples, n)`` sentence indices drawn with replacement by
    ``numpy.random.default_rng(seed)``: row ``r`` is the ``r``-th bootstrap test set."""
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def _stats(metric, hyps, refs) -> np.ndarray:
    """sacreBLEU's sufficient statistics, one row per sentence: ``(N, K)``."""
    return np.asarray(metric._extract_corpus_statistics(list(hyps), [list(refs)]))


def _resampled(metric, stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The metric on each resampled test set: ``(R,)`` from stats ``(N, K)``, idx ``(R, N)``."""
    counts = np.zeros((idx.shape[0], stats.shape[0]), dtype=np.int64)  # (R, N)
    np.add.at(counts, (np.arange(idx.shape[0])[:, None], idx), 1)
    sums = counts @ stats.astype(np.int64)  # (R, K): exact integer sums
    return np.array([metric._compute_score_from_stats([int(x) for x in s]).score
                     for s in sums])


def _interval(values: np.ndarray) -> list[float]:
    """The 95 % percentile interval: the 2.5 % and 97.5 % order statistics (sacreBLEU's
    own convention, ``n // 40`` from each end)."""
    v, k = np.sort(values), len(values) // 40
    return [float(v[k]), float(v[len(v) - 1 - k])]


def _check_resampling(resamples, seed) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be an int >= 1, got {resamples!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")


def paired_bootstrap(hyps_a, hyps_b, refs, resamples: int = 1000, seed: int = 0) -> dict:
    """Paired bootstrap of the BLEU difference ``b - a`` (Koehn, 2004): both systems are
    scored on the *same* resampled test sets, so the difference of each draw cancels how
    hard its sentences happen to be.

    Args:
        hyps_a, hyps_b: N translations each, of the same N sources.
        refs: the N references.
    Returns:
        A dict with ``a`` and ``b`` (BLEU of each on the whole set), ``delta`` (``b - a``),
        ``low`` and ``high`` (its 95 % interval over the resamples), ``b_wins`` (the share
        of resamples where ``b`` scores strictly higher), ``resamples`` and ``seed``.
    """
    _check_aligned(refs, hyps_a=hyps_a, hyps_b=hyps_b)
    _check_resampling(resamples, seed)
    bleu = _metrics()["bleu"]
    a, b = (bleu.corpus_score(list(h), [list(refs)]).score for h in (hyps_a, hyps_b))
    idx = resample_indices(len(refs), resamples, seed)  # one draw for both: paired
    diff = (_resampled(bleu, _stats(bleu, hyps_b, refs), idx)
            - _resampled(bleu, _stats(bleu, hyps_a, refs), idx))  # (R,)
    low, high = _interval(diff)
    return {"a": a, "b": b, "delta": b - a, "low": low, "high": high,
            "b_wins": float(np.mean(diff > 0)), "resamples": resamples, "seed": seed}


def bootstrap_interval(hyps, refs, metric: str = "bleu", resamples: int = 1000,
                       seed: int = 0) -> list[float]:
    """The 95 % bootstrap interval ``[low, high]`` of one system's corpus ``metric``
    (``"bleu"`` or ``"chrf"``) over ``resamples`` resampled test sets."""
    _check_aligned(refs, hyps=hyps)
    _check_resampling(resamples, seed)
    metrics = _metrics()
    if metric not in metrics:
        raise ValueError(f"metric must be one of {sorted(metrics)}, got {metric!r}")
    m = metrics[metric]
    return _interval(_resampled(m, _stats(m, hyps, refs),
                                resample_indices(len(refs), resamples, seed)))


@dataclasses.dataclass(frozen=True)
class SentenceComparison:
    """Two systems compared sentence by sentence with sentence-level chrF.

    chrF, not BLEU: most test sentences here are a handful of tokens (``"I'm fat."`` is 3
    for 13a), and a sentence of fewer than four tokens has no 4-gram, so its BLEU is
    decided by smoothing; chrF's character n-grams also give part credit for a near miss
    (``apple`` for ``apples``). A *win* is a sentence where ``b`` has the higher chrF, a
    *loss* one where ``a`` has, a *tie* equal chrF (within 1e-9).
    """

    refs: list
    hyps_a: list
    hyps_b: list
    chrf_a: list
    chrf_b: list

    def _deltas(self) -> np.ndarray:
        return np.array(self.chrf_b) - np.array(self.chrf_a)  # (N,)

    @property
    def wins(self) -> int:
        """Sentences where ``b`` has the higher chrF."""
        return int((self._deltas() > 1e-9).sum())

    @property
    def losses(self) -> int:
        """Sentences where ``a`` has the higher chrF."""
        return int((self._deltas() < -1e-9).sum())

    @property
    def ties(self) -> int:
        """Sentences where both have the same chrF."""
        return len(self.refs) - self.wins - self.losses

    def largest_wins(self, k: int = 5) -> list[dict]:
        """The ``k`` sentences where ``b`` beats ``a`` by the most chrF (ties by index)."""
        return self._largest(k, sign=1)

    def largest_losses(self, k: int = 5) -> list[dict]:
        """The ``k`` sentences where ``a`` beats ``b`` by the most chrF (ties by index)."""
        return self._largest(k, sign=-1)

    def _largest(self, k: int, sign: int) -> list[dict]:
        d = sign * self._deltas()
        order = sorted((i for i in range(len(d)) if d[i] > 1e-9), key=lambda i: (-d[i], i))
        return [{"index": i, "reference": self.refs[i], "a": self.hyps_a[i],
                 "b": self.hyps_b[i], "chrf_a": self.chrf_a[i], "chrf_b": self.chrf_b[i]}
                for i in order[:k]]


def compare_sentences(hyps_a, hyps_b, refs) -> SentenceComparison:
    """Sentence-level chrF of two systems on the same N references
    (:class:`SentenceComparison`: wins, losses, ties, the largest of each)."""
    _check_aligned(refs, hyps_a=hyps_a, hyps_b=hyps_b)
    chrf = _metrics()["chrf"]
    score = [[chrf.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
             for hyps in (hyps_a, hyps_b)]
    return SentenceComparison(list(refs), list(hyps_a), list(hyps_b), *score)


def word_tokens(text: str) -> tuple[str, ...]:
    """The words of an English sentence for :func:`nearest_training_distance`: its
    lower-cased runs of ``\\w`` (letters, digits, ``_``): ``"I'm late!"`` ->
    ``("i", "m", "late")``."""
    return tuple(_WORD.findall(text.lower()))


def _variants(words: tuple) -> tuple[set, set]:
    """Each one-word deletion, and each one-word wildcard (``*`` in place of a word)."""
    dels = {" ".join(words[:i] + words[i + 1:]) for i in range(len(words))}
    wild = {" ".join(words[:i] + ("*",) + words[i + 1:]) for i in range(len(words))}
    return dels, wild


def nearest_training_distance(test_refs, train_refs, cap: int = 2) -> list[int]:
    """For each test sentence, the word-level edit distance (substitution, insertion or
    deletion of one word, words as :func:`word_tokens`) to the nearest training sentence,
    capped: 0, 1, or ``cap`` meaning "``cap`` or more". ``cap`` is 1 or 2.

    No pairwise comparison: an index of each training sentence, its one-word deletions and
    its one-word wildcards answers "distance <= 1?" by set lookups. A test sentence ``t``
    is one edit from a training sentence ``s`` when ``t`` is a deletion of ``s``, a
    deletion of ``t`` is ``s``, or ``t`` and ``s`` share a wildcard (one substitution).
    """
    _check_texts(test_refs, "test_refs")
    _check_texts(train_refs, "train_refs")
    if cap not in (1, 2):
        raise ValueError(f"cap must be 1 or 2 (distances 0, 1, 2+ are indexed), got {cap!r}")
    exact, deletions, wildcards = set(), set(), set()
    for words in {word_tokens(s) for s in train_refs}:
        exact.add(" ".join(words))
        dels, wild = _variants(words)
        deletions |= dels
        wildcards |= wild
    out = []
    for text in test_refs:
        words = word_tokens(text)
        if " ".join(words) in exact:
            out.append(0)
            continue
        dels, wild = _variants(words)
        near = (" ".join(words) in deletions  # one word fewer than a training sentence
                or not dels.isdisjoint(exact)  # one word more
                or not wild.isdisjoint(wildcards))  # one word different
        out.append(1 if near else 2)
    return [min(d, cap) for d in out]


def grouped_scores(hyps, refs, labels, resamples: int = 1000, seed: int = 0) -> dict:
    """:func:`corpus_scores` of each group of sentences, ``labels[i]`` naming the group of
    sentence ``i``, with 95 % bootstrap intervals (two groups of different sentences are
    compared by their intervals: they share no sentence to pair).

    Returns:
        ``{label: scores}`` in order of first appearance, the scores a dict of
        ``sentences``, ``share`` (the group's fraction of the N sentences), ``bleu``,
        ``chrf``, ``bleu_95`` and ``chrf_95`` (``[low, high]``).
    """
    _check_aligned(refs, hyps=hyps)
    if len(labels) != len(refs):
        raise ValueError(f"labels has {len(labels)} entries but refs has {len(refs)}: "
                         "expected one label per sentence")
    out = {}
    for label in dict.fromkeys(labels):
        keep = [i for i, g in enumerate(labels) if g == label]
        h, r = [hyps[i] for i in keep], [refs[i] for i in keep]
        s = corpus_scores(h, r)
        out[label] = {"sentences": len(keep), "share": len(keep) / len(refs),
                      "bleu": s["bleu"], "chrf": s["chrf"],
                      "bleu_95": bootstrap_interval(h, r, "bleu", resamples, seed),
                      "chrf_95": bootstrap_interval(h, r, "chrf", resamples, seed)}
    return out


def length_buckets(sources, edges=(5, 10, 15)) -> list[str]:
    """A length label for each source sentence by its number of words
    (:func:`illustrated.translator.limits.words`): with the default edges ``"1-5"``, ``"6-10"``,
    ``"11-15"``, ``"16+"`` (a sentence without words counts as ``"1-5"``)."""
    from .limits import words

    _check_texts(sources, "sources")
    if list(edges) != sorted(set(edges)) or not edges or edges[0] < 1:
        raise ValueError(f"edges must be increasing positive word counts, got {edges!r}")
    names = [f"{lo + 1}-{hi}" for lo, hi in zip((0, *edges), edges)] + [f"{edges[-1] + 1}+"]
    return [names[sum(len(words(s)) > e for e in edges)] for s in sources]
