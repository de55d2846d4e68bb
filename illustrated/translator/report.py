"""The evaluation report of a real translator: its test split scored as the field scores
translations (:mod:`illustrated.translator.scores`), everything the chapter Real sentences
reports, as one JSON-ready dict (:func:`evaluation_report`), which ``python -m illustrated
evaluate`` writes (``chapters/data/tatoeba/evaluation.json`` for the shipped translator);
and the shorter :func:`held_out_scores` that ``python -m illustrated train`` stores in the
checkpoint it writes. Introduced in the chapter Real sentences.

The report translates the test pairs of the split the checkpoint was trained on, greedy and
with beam search (4 candidates), and holds: sacreBLEU's signatures; BLEU and chrF of each
decoder with 95 % bootstrap intervals; the paired bootstrap of beam against greedy and the
sentence-by-sentence comparison (wins, losses, ties, the largest of each); the test split
into sentences at most one word from a training sentence and the rest, each scored; BLEU by
source length; the names copy probe (:mod:`illustrated.translator.names`); the probe set of
our own sentences, kind by kind; and the test translations themselves, so a chapter
recomputes from them without translating. The same checkpoint gives the same report.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..shipped import PAIRS, PROBE
from .corpus import load_split
from .inference import translate
from .names import copy_probe, copy_rate
from .probe import load_probe, probe_scores
from .scores import (bootstrap_interval, compare_sentences, corpus_scores, grouped_scores,
                     length_buckets, nearest_training_distance, paired_bootstrap)

BEAM = 4  # the beam of every beam score here
EXAMPLES = 5  # largest wins and losses listed
_ROOT = Path(__file__).resolve().parents[2]  # the folder that holds the package


def named_path(path) -> str:
    """A file as the report names it: from the folder that holds the package when it is
    inside it (``illustrated/shipped/probe.tsv``, wherever the command runs), else its
    absolute path."""
    path = Path(path).resolve()
    return path.relative_to(_ROOT).as_posix() if path.is_relative_to(_ROOT) else str(path)


def _both(model, tok, sources):
    """Greedy and beam translations of ``sources``."""
    return {"greedy": translate(model, tok, sources),
            "beam": translate(model, tok, sources, beam=BEAM)}


def _comparison(out, test, resamples) -> dict:
    """Beam against greedy: paired bootstrap of BLEU, sentence-level chrF."""
    refs = [e for _, e in test]
    cmp = compare_sentences(out["greedy"], out["beam"], refs)
    def examples(rows):
        return [{"source": test[r["index"]][0], **r} for r in rows]
    return {"paired_bootstrap": paired_bootstrap(out["greedy"], out["beam"], refs, resamples),
            "sentences": {"metric": "sentence chrF; a is greedy, b is beam", "wins": cmp.wins,
                          "losses": cmp.losses, "ties": cmp.ties,
                          "largest_wins": examples(cmp.largest_wins(EXAMPLES)),
                          "largest_losses": examples(cmp.largest_losses(EXAMPLES))}}


def _near_neighbours(out, test, train, resamples) -> dict:
    """The test split by word edit distance to the nearest training English sentence."""
    refs = [e for _, e in test]
    dist = nearest_training_distance(refs, [e for _, e in train])
    labels = ["near" if d <= 1 else "rest" for d in dist]
    return {"definition": "near: at most one word (lower-cased \\w+ run) substituted, "
                          "inserted or deleted from some training English sentence",
            "distance_counts": {"0": dist.count(0), "1": dist.count(1), "2+": dist.count(2)},
            "distances": dist,
            **{k: grouped_scores(h, refs, labels, resamples) for k, h in out.items()}}


def _by_length(out, test, resamples) -> dict:
    """Scores by the source's length in words, shortest bucket first."""
    refs, labels = [e for _, e in test], length_buckets([f for f, _ in test])
    out = {k: grouped_scores(h, refs, labels, resamples) for k, h in out.items()}
    order = sorted(set(labels), key=lambda b: int(b.split("-")[0].rstrip("+")))
    return {k: {b: groups[b] for b in order} for k, groups in out.items()}


def _names(model, tok, test, train) -> dict:
    probe = copy_probe(test, train)
    total = sum(len(put) for _, _, put in probe)
    result = {"sentences": len(probe), "names": total}
    for k, h in (_both(model, tok, [f for f, _, _ in probe]) if probe else {}).items():
        rate = copy_rate(h, probe)
        result[k] = {"copied": round(rate * total), "rate": rate}
    return result


def _probe(model, tok, path, resamples) -> dict:
    rows = load_probe(path)
    scored = {k: probe_scores(model, tok, path, beam, resamples) for k, beam in
              (("greedy", 0), ("beam", BEAM))}
    return {"file": named_path(path),
            **{k: s["kinds"] for k, s in scored.items()},
            "translations": [{"kind": kind, "french": f, "english": e,
                              **{k: s["translations"][i] for k, s in scored.items()}}
                             for i, (kind, f, e) in enumerate(rows)]}


def evaluation_report(model, tok, train_config=None, resamples: int = 1000, limit: int = 0,
                      probe=PROBE) -> dict:
    """Everything ``python -m illustrated evaluate`` writes, as a JSON-ready dict (see the
    module docstring).
    ``train_config`` (the checkpoint's) names the split's seed and the training pairs;
    ``limit`` keeps the first test pairs only (0: all); ``probe`` is the probe set's file."""
    cfg = train_config or {}
    seed = int(cfg.get("seed", 0))
    split = load_split(seed=seed)
    train = split.train[:cfg["limit"]] if cfg.get("limit") else split.train
    test = split.test[:limit] if limit else split.test
    refs = [e for _, e in test]
    out = _both(model, tok, [f for f, _ in test])
    scores = {k: corpus_scores(h, refs) for k, h in out.items()}
    return {
        "test": {"corpus": named_path(PAIRS), "split_seed": seed,
                 "pairs": len(test), "decoders": {"greedy": "greedy",
                                                  "beam": f"beam search, {BEAM} candidates, "
                                                  "length penalty 0.6"}},
        "signatures": {m: scores["greedy"][f"{m}_signature"] for m in ("bleu", "chrf")},
        "scores": {k: {"bleu": s["bleu"], "chrf": s["chrf"],
                       **{f"{m}_95": bootstrap_interval(out[k], refs, m, resamples)
                          for m in ("bleu", "chrf")}} for k, s in scores.items()},
        "beam_vs_greedy": _comparison(out, test, resamples),
        "near_neighbours": _near_neighbours(out, test, train, resamples),
        "by_length": _by_length(out, test, resamples),
        "names_probe": _names(model, tok, test, train),
        "probe": _probe(model, tok, probe, resamples),
        "translations": out,
    }


def held_out_scores(model, tok, held, train_pairs, last_state=None) -> dict:
    """What ``python -m illustrated train --corpus tatoeba`` stores in its checkpoint about
    the ``held`` pairs (``(french, english)``): BLEU and chrF, greedy and beam, with their
    signatures; the share of invented names copied
    (:func:`~illustrated.translator.names.copy_probe` against ``train_pairs``); and, given
    the weights before the checkpoint averaging (``last_state``), that model's BLEU, greedy
    and beam."""
    src, refs = [f for f, _ in held], [e for _, e in held]
    greedy = corpus_scores(translate(model, tok, src), refs)
    beam = corpus_scores(translate(model, tok, src, beam=BEAM), refs)
    scores = {"sentences": len(held), "bleu": greedy["bleu"], "beam_bleu": beam["bleu"],
              "chrf": greedy["chrf"], "beam_chrf": beam["chrf"],
              "bleu_signature": greedy["bleu_signature"],
              "chrf_signature": greedy["chrf_signature"]}
    probe = copy_probe(held, train_pairs)
    scores["names_copied"] = copy_rate(translate(model, tok, [f for f, _, _ in probe]), probe)
    scores["names_probe"] = len(probe)
    if last_state is not None:  # the same model before the checkpoint averaging
        from ..model import Transformer

        last = Transformer(model.config)
        last.load_state_dict(last_state)
        last.eval()
        scores["unaveraged_bleu"] = corpus_scores(translate(last, tok, src), refs)["bleu"]
        scores["unaveraged_beam_bleu"] = corpus_scores(
            translate(last, tok, src, beam=BEAM), refs)["bleu"]
    return scores


def write_json(report: dict, path) -> None:
    """Write ``report`` to ``path`` atomically: a temporary file beside it, then
    ``os.replace``."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def summary(report: dict) -> list[str]:
    """The few lines the command prints about ``report``."""
    s, boot = report["scores"], report["beam_vs_greedy"]["paired_bootstrap"]
    sent, near = report["beam_vs_greedy"]["sentences"], report["near_neighbours"]
    lines = [f"test: {report['test']['pairs']} pairs; BLEU greedy {_ci(s['greedy'], 'bleu')}, "
             f"beam {_ci(s['beam'], 'bleu')}; chrF greedy {_ci(s['greedy'], 'chrf')}, "
             f"beam {_ci(s['beam'], 'chrf')}",
             f"beam - greedy: {boot['delta']:+.1f} BLEU, 95 % interval [{boot['low']:+.1f}, "
             f"{boot['high']:+.1f}], beam ahead in {boot['b_wins']:.0%} of "
             f"{boot['resamples']} resamples; sentence chrF: beam better {sent['wins']}, "
             f"worse {sent['losses']}, equal {sent['ties']}"]
    parts = [f"{part} {g[part]['share']:.0%} BLEU {_ci(g[part], 'bleu')}"
             for part in ("near", "rest") if part in (g := near["beam"])]
    lines.append("beam by distance to training (near: one word or less): " + "; ".join(parts))
    names = report["names_probe"]
    if names["names"]:
        lines.append(f"names copied: greedy {names['greedy']['rate']:.0%}, beam "
                     f"{names['beam']['rate']:.0%} of {names['names']} names")
    lines.append("probe chrF, beam: " + ", ".join(
        f"{kind} {v['chrf']:.1f}" for kind, v in report["probe"]["beam"].items()))
    lines += [f"signature {m}: {sig}" for m, sig in report["signatures"].items()]
    return lines


def _ci(scores: dict, metric: str) -> str:
    low, high = scores[f"{metric}_95"]
    return f"{scores[metric]:.1f} [{low:.1f}, {high:.1f}]"

