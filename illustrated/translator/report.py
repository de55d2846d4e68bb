"""``python -m illustrated.evaluate``: score a real translator on the test split as the field
scores translations (:mod:`illustrated.evaluation`) and write everything the chapter Real
sentences reports into one JSON file (default ``chapters/data/tatoeba/evaluation.json``).

It translates the test pairs of the split the checkpoint was trained on, greedy and with
beam search (4 candidates), and writes: sacreBLEU's signatures; BLEU and chrF of each
decoder with 95 % bootstrap intervals; the paired bootstrap of beam against greedy and the
sentence-by-sentence comparison (wins, losses, ties, the largest of each); the test split
into sentences at most one word from a training sentence and the rest, each scored; BLEU by
source length; the names copy probe (``illustrated.names``); the probe set of our own
sentences, kind by kind; and the test translations themselves, so a chapter recomputes from
them without translating. The same checkpoint gives the same file. On a CPU shared with
other work, ``OMP_NUM_THREADS=1`` is faster (threads that wait for each other). A missing or foreign
checkpoint, or an output that cannot be written, gets a one-line message (exit status 1).
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from ._cli import Parser, at_least, plain_warnings
from .corpus import DATA_DIR, TSV, load_split
from .evaluation import (PROBE, bootstrap_interval, compare_sentences, corpus_scores,
                         grouped_scores, length_buckets, load_probe,
                         nearest_training_distance, paired_bootstrap, probe_scores)
from .translator import SHIPPED_REAL, load_translator, translate

PROG = "python -m illustrated.evaluate"
OUT = DATA_DIR / "evaluation.json"
BEAM = 4  # the beam of python -m illustrated.train's scores
EXAMPLES = 5  # largest wins and losses listed


def _parser():
    p = Parser(prog=PROG, description="Score a real translator on the Tatoeba test split "
               "(sacreBLEU BLEU and chrF, greedy and beam 4, paired bootstrap, near-neighbour "
               "split, names and probe sets) and write one JSON file.")
    p.add_argument("--checkpoint", default=str(SHIPPED_REAL),
                   help="the real translator to score (default: the shipped one, "
                   f"{_rel(SHIPPED_REAL)})")
    p.add_argument("--out", default=str(OUT),
                   help=f"the JSON file to write (default {_rel(OUT)})")
    p.add_argument("--resamples", type=at_least(1), default=1000,
                   help="bootstrap resamples of the test sentences (default %(default)s)")
    p.add_argument("--probe", default=str(PROBE),
                   help="the probe set, kind<TAB>french<TAB>english (default "
                   f"{_rel(PROBE)}: our own sentences)")
    p.add_argument("--limit", type=at_least(0), default=0,
                   help="score only the first N test pairs, for a quick check (0: all)")
    return p


def _rel(path) -> str:
    """``path`` relative to the current folder when it is inside it, for messages."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


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
    from .names import copy_probe, copy_rate

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
    return {"file": _rel(path),
            **{k: s["kinds"] for k, s in scored.items()},
            "translations": [{"kind": kind, "french": f, "english": e,
                              **{k: s["translations"][i] for k, s in scored.items()}}
                             for i, (kind, f, e) in enumerate(rows)]}


def evaluate(model, tok, train_config=None, resamples: int = 1000, limit: int = 0,
             probe=PROBE) -> dict:
    """Everything the command writes, as a JSON-ready dict (see the module docstring).
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
        "test": {"corpus": "chapters/data/tatoeba/" + TSV.name, "split_seed": seed,
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



def main(argv=None) -> int:
    """The ``python -m illustrated.evaluate`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    with plain_warnings():
        try:
            model, tok, blob = load_translator(args.checkpoint)
        except FileNotFoundError:
            print(f"{PROG}: no checkpoint at {args.checkpoint} (train one with: python -m "
                  "illustrated.train --corpus tatoeba)", file=sys.stderr)
            return 1
        except ValueError as error:  # damaged, or not a real translator: named by the loader
            print(f"{PROG}: cannot evaluate: {error}", file=sys.stderr)
            return 1
        print(f"read: {_rel(args.checkpoint)}", flush=True)
        start = time.perf_counter()
        report = {"checkpoint": _rel(args.checkpoint),
                  **evaluate(model, tok, blob.get("train_config"), args.resamples, args.limit,
                             args.probe)}
        try:
            _write_json(report, args.out)
        except OSError as error:  # a folder that does not exist or cannot be written
            print(f"{PROG}: cannot write {args.out}: {error}", file=sys.stderr)
            return 1
    for line in summary(report):
        print(line)
    print(f"wrote: {_rel(args.out)} ({time.perf_counter() - start:.0f} s)")
    return 0


def _write_json(report: dict, path) -> None:
    """Write atomically: a temporary file beside ``path``, then ``os.replace``."""
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


if __name__ == "__main__":
    sys.exit(main())
