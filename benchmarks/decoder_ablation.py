"""What each change of today's open decoders buys at chapter 13's size: the variants of
``illustrated.decoder_only.ablation.VARIANTS`` (chapter 13's model, each change alone, all
of them) trained on chapter 13's data at one token budget, times seeds, and the length
test (RoPE against the sinusoidal table on held-out sentences longer than any trained on).

    python benchmarks/decoder_ablation.py [--variants baseline rope ...] [--seeds 0 1 2]
        [--steps 500] [--threads 1] [--jobs 1] [--length] [--name decoder_ablation]

Writes ``chapters/data/tatoeba/<name>.json`` (committed: the decoders chapter reads it): one
row per run (variant, seed, parameters,
held-out perplexity, seconds, tokens), and a summary per variant (mean, sample sd, range,
95 % t-interval over the seeds). ``--length`` runs the length test instead (``--cut``
tokens; default the variants ``baseline`` and ``rope``; the longer sentences scored at the
positions training covered and at the others apart, and the loss at each position), and
``--length --control`` its control (the same models trained on sentences of every length,
scored on the same sentences; ``decoder_length_control.json``). One thread by default: a run of
chapter 13's model took 97 s on one thread of a shared 2-core CPU (``BUDGET`` in the
ablation module); a busy machine takes several times as long (``cpu_seconds`` is recorded
beside ``seconds``). ``--jobs 2`` runs two at a time, in two processes of ``--threads``
threads each; every run's result is the same as alone (its seed decides everything).
"""
import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import torch

from _common import progress, table

from illustrated.decoder_only.ablation import (BUDGET, VARIANTS, end_targets, length_run,
                                               length_split, run_variant, summarise)
from illustrated.decoder_only.training import load_sentences


OUT = Path(__file__).resolve().parents[1] / "chapters" / "data" / "tatoeba"
_DATA = {}  # a worker process's sentences, loaded once


def _start_worker(threads: int) -> None:
    torch.set_num_threads(threads)
    _DATA["sentences"] = load_sentences(64)


def _one_run(variant: str, seed: int, length: bool, cut: int, control: bool,
             budget: dict) -> dict:
    """One run in a worker: the variant trained with ``seed``, scored (or the length test)."""
    train, held, tok = _DATA["sentences"]
    if length:
        return length_run(variant, seed, train, held, len(tok), cut=cut, control=control,
                          **budget)
    return run_variant(variant, seed, train, held, len(tok), **budget)


def sentence_ends(cut: int) -> dict:
    """For the length test: per input position, the targets that end their sentence
    (``<eos>`` or a final ".", "?" or "!") and all the targets, in the training sentences of
    at most ``cut`` tokens and in the held-out ones of at most ``cut`` tokens and longer.
    The same whatever the model: it describes the sentences, not the predictions."""
    train, held, tok = load_sentences(64)
    marks = {i for i in range(len(tok)) if tok.decode([i]) in (".", "?", "!")}
    (short_train, _), (short, long) = length_split(train, cut), length_split(held, cut)
    return {part: dict(zip(("ends", "targets"), end_targets(seqs, marks, tok.eos_id)))
            for part, seqs in (("train", short_train), ("short", short), ("long", long))}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variants", nargs="+", choices=sorted(VARIANTS), default=None)
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--steps", type=int, default=BUDGET["steps"])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="runs at a time, one process each")
    p.add_argument("--length", action="store_true", help="the length test instead")
    p.add_argument("--cut", type=int, default=9, help="longest training sentence, in "
                   "tokens, for --length (default %(default)s)")
    p.add_argument("--control", action="store_true", help="with --length: train on the "
                   "sentences of every length instead, scored on the same sentences")
    p.add_argument("--name", default=None, help="chapters/data/tatoeba/<name>.json (default "
                   "decoder_ablation; decoder_length with --length, "
                   "decoder_length_control with --length --control)")
    args = p.parse_args(argv)
    variants = args.variants or (["baseline", "rope"] if args.length else list(VARIANTS))
    budget = {**BUDGET, "steps": args.steps}
    runs = [(v, s) for v in variants for s in args.seeds]
    with ProcessPoolExecutor(args.jobs, initializer=_start_worker,
                             initargs=(args.threads,)) as pool:
        futures = [pool.submit(_one_run, v, s, args.length, args.cut, args.control, budget)
                   for v, s in runs]
        rows = []
        for i, ((variant, seed), future) in enumerate(zip(runs, futures), 1):
            rows.append(future.result())
            progress(i, len(runs), f"{variant}, seed {seed}")
    train, held, _ = load_sentences(64)
    keys = (["short_perplexity", "long_perplexity", "long_seen_perplexity",
             "long_unseen_perplexity"] if args.length else ["perplexity"])
    print(table(rows, ["variant", "seed", "parameters", *keys, "seconds", "cpu_seconds"]))
    name = args.name or ("decoder_ablation" if not args.length else
                         "decoder_length_control" if args.control else "decoder_length")
    meta = {"torch": torch.__version__, "threads": args.threads, "jobs": args.jobs,
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "budget": budget, "held_out": "dev", "train_sentences": len(train),
            "held_sentences": len(held), "command": "python benchmarks/decoder_ablation.py "
            + " ".join(argv if argv is not None else __import__("sys").argv[1:])}
    if args.length:
        meta["sentence_ends"] = sentence_ends(args.cut)
    summary = {key: summarise(rows, key) for key in keys}
    path = OUT / f"{name}.json"
    path.write_text(json.dumps({"meta": meta, "rows": rows, "summary": summary}, indent=1))
    print(f"wrote {path}", flush=True)


if __name__ == "__main__":
    main()
