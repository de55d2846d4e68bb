"""``python -m illustrated train``: train a French-English translator, the toy one of
chapters 10-11 on the toy grammar (:mod:`illustrated.training`, the default) or the real one
of chapter 12 on the Tatoeba pairs (``--corpus tatoeba``:
:mod:`illustrated.translator.training`), save it and print its held-out scores.

The command prints what it read and wrote (the corpus, the checkpoint's path); its progress
bar is shown on a terminal only, so a redirected log stays short; warnings are one plain
line, a bad option a one-line message (exit status 2). Several processes:
``torchrun --nproc_per_node N -m illustrated train --corpus tatoeba``.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time

import torch

from ..data import split_pairs
from ..training import TrainConfig, save_checkpoint, train, translate_ids
from . import PROGRAM
from .common import Parser, at_least, idle_cores, plain_warnings, shown, torch_threads


def parser(program: str = PROGRAM):
    """The ``train`` command's options, as ``{program} train --help`` lists them
    (``program``: how the package's entry names itself)."""
    p = Parser(
        prog=f"{program} train",
        description="Train a French->English translator: the toy grammar (default; the "
        "model of chapters 10-11) or the Tatoeba corpus (--corpus tatoeba; the chapter Real "
        "sentences). Several processes: torchrun --nproc_per_node N -m illustrated train "
        "--corpus tatoeba ...")
    p.add_argument("--corpus", choices=["toy", "tatoeba"], default="toy",
                   help="toy: the grammar of illustrated.data (32 s measured on a quiet "
                   "2-core CPU); tatoeba: the Tatoeba pairs (16 minutes on a quiet 2-core CPU)")
    p.add_argument("--steps", type=at_least(1), default=None,
                   help=f"optimiser steps, each on one batch (default {TrainConfig.steps} "
                   "for toy; RealConfig.steps for tatoeba)")
    p.add_argument("--seed", type=int, default=0,
                   help="the random seed of the initial weights, the train/held-out split "
                   "and the batch order; the same seed gives the same model (default 0)")
    p.add_argument("--out", default=None, help="checkpoint file to write (default "
                   "checkpoints/translator-<time>.pt, or checkpoints/real-<time>.pt)")
    p.add_argument("--threads", type=at_least(0), default=None, metavar="N",
                   help="CPU threads (default: OMP_NUM_THREADS when it is set, else the cores "
                   "that the last minute's load average left idle, at least 1; 0: PyTorch's "
                   "default). On a busy CPU, threads that wait for each other are slower "
                   "than one. The same seed and the same threads give the same model")
    real = p.add_argument_group("tatoeba only")
    real.add_argument("--max-tokens", type=at_least(1), default=None,
                      help="token budget of a step's global batch (default RealConfig's)")
    real.add_argument("--warmup", type=at_least(1), default=None,
                      help="warm-up steps of the learning-rate schedule (default RealConfig's)")
    real.add_argument("--factor", type=float, default=None,
                      help="scale of the learning-rate schedule (default the preset's)")
    real.add_argument("--limit", type=at_least(0), default=0,
                      help="train on the first N training pairs only (0: all)")
    real.add_argument("--preset", choices=["laptop", "base"], default="laptop",
                      help="laptop: d_model 256, N 2, minutes on a CPU (default); base: the "
                      "paper's base sizes, d_model 512, N 6, 8 heads (a GPU)")
    real.add_argument("--tiny", action="store_true",
                      help="a 1-layer, 32-wide model without dropout (tests, smoke runs)")
    real.add_argument("--device", default=None,
                      help="cpu, cuda or mps (default: the best available)")
    real.add_argument("--amp", action=argparse.BooleanOptionalAction, default=None,
                      help="mixed precision, bfloat16 (default: on where it is native: a "
                      "GPU, or a CPU with AVX-512 BF16 or AMX)")
    real.add_argument("--compile", action="store_true",
                      help="train through torch.compile (off by default): for a GPU; on a "
                      "CPU the compiling outweighs the gain")
    real.add_argument("--state", default="checkpoints/real-state.pt",
                      help="the resumable training state, rewritten atomically every "
                      "--save-every steps (default %(default)s)")
    real.add_argument("--save-every", type=at_least(1), default=None,
                      help="steps between two writes of --state (default RealConfig's)")
    real.add_argument("--resume", action="store_true",
                      help="continue from --state (after Ctrl-C or a killed process)")
    real.add_argument("--stop-after", type=at_least(1), default=None,
                      help="stop after this many steps, as if interrupted (then --resume)")
    real.add_argument("--new-tokenizer", action="store_true",
                      help="train the BPE tokenizer on the training split and save it over "
                      "the shipped one (illustrated/shipped/tatoeba/tokenizer.json) first")
    real.add_argument("--tokens", choices=["bpe", "word"], default="bpe",
                      help="bpe: the shipped subword tokenizer (default); word: a word-level "
                      "vocabulary of the 8,000 most frequent words, trained on the spot, to "
                      "compare the two by held-out BLEU")
    real.add_argument("--eval", choices=["dev", "test", "none"], default="test",
                      help="held-out set scored at the end (default %(default)s)")
    real.add_argument("--eval-limit", type=at_least(0), default=0,
                      help="score only the first N held-out pairs (0: all)")
    real.add_argument("--no-progress", action="store_true",
                      help="no progress bar (it is shown on a terminal only anyway)")
    return p


def main(argv=None, program: str = PROGRAM):
    """The ``train`` command (``program``: how the package's entry names itself, for the
    messages); returns the exit status."""
    options = parser(program)
    args = options.parse_args(argv)
    args.program = program
    with plain_warnings(), _threads(args.threads):
        try:
            if args.corpus == "tatoeba":
                return _main_real(args)
            return _main_toy(args)
        except OSError as error:  # e.g. --out in a folder that cannot be written
            print(f"{options.prog}: {error}", file=sys.stderr)
            return 1


def _threads(n: int | None):
    """torch's threads while training: ``n``, or the cores the load leaves idle
    (:func:`illustrated.commands.common.idle_cores`), at most torch's default."""
    return torch_threads(n, lambda default: min(default, idle_cores()))


def _main_toy(args):
    import sacrebleu  # here, not at import time

    cfg = TrainConfig(seed=args.seed, steps=args.steps or TrainConfig.steps)
    train_pairs, held = split_pairs(cfg.seed)
    print(f"read: the toy grammar's sentence pairs (illustrated.data): {len(train_pairs)} "
          f"to train on, {len(held)} held out; {_plural(cfg.steps, 'step')} on "
          f"{_plural(torch.get_num_threads(), 'CPU thread')}", flush=True)
    t0 = time.perf_counter()
    model, sv, tv, history, held = train(cfg, progress=None)
    seconds = time.perf_counter() - t0
    out = args.out or f"checkpoints/translator-{time.strftime('%Y%m%d-%H%M%S')}.pt"
    path = save_checkpoint(out, model, sv, tv, history)
    print(f"wrote: {path} (translate with it: {args.program} translate --toy "
          f"--checkpoint {path})", flush=True)
    hyps = translate_ids(model, sv, tv, [s for s, _ in held])
    refs = [t for _, t in held]
    exact = sum(h == r for h, r in zip(hyps, refs)) / len(refs)
    bleu = sacrebleu.corpus_bleu(hyps, [refs]).score
    print(f"held-out: exact_match={exact:.3f} bleu={bleu:.1f} seconds={seconds:.1f}")
    return 0


def _main_real(args):
    from ..shipped import PAIRS
    from ..translator.corpus import load_split
    from ..translator.inference import save_translator
    from ..translator.limits import TrainingProfile
    from ..translator.report import held_out_scores
    from ..translator.training import PRESETS, train_real

    over = {k: v for k, v in dict(steps=args.steps, max_tokens=args.max_tokens,
                                  warmup=args.warmup, factor=args.factor,
                                  save_every=args.save_every).items()
            if v is not None}
    if args.tiny:
        over.update(d_model=32, N=1, h=2, d_ff=64, dropout=0.0)
    cfg = dataclasses.replace(PRESETS[args.preset], seed=args.seed, limit=args.limit, **over)
    split = load_split(seed=args.seed)
    first = int(os.environ.get("RANK", "0")) == 0  # the process that prints and saves
    if first:
        print(f"read: {shown(PAIRS)}: {len(split.train)} pairs to train on, {len(split.dev)} "
              f"dev, {len(split.test)} test; {args.preset} preset, {cfg.steps} steps; "
              f"{_plural(torch.get_num_threads(), 'CPU thread')}", flush=True)
    tok = _tokenizer(args, split.train)
    t0 = time.perf_counter()
    dev = split.dev[:args.eval_limit] if args.eval_limit else split.dev
    model, log = train_real(cfg, split.train, tok, args.state, args.resume, args.device,
                            args.amp, False if args.no_progress else None, args.stop_after,
                            dev_pairs=dev if args.eval != "none" else (),
                            compile=args.compile)
    seconds = time.perf_counter() - t0
    if len(log.loss) < cfg.steps:
        print(f"stopped after {len(log.loss)} of {cfg.steps} steps; the training state is in "
              f"{args.state}: continue with --resume")
        return 0
    if not first:
        return 0
    held = {"dev": split.dev, "test": split.test, "none": []}[args.eval]
    held = held[:args.eval_limit] if args.eval_limit else held
    scores = {"seconds": round(seconds, 1), "steps": cfg.steps}
    if held:
        scores.update(set=args.eval, **held_out_scores(model, tok, held, split.train,
                                                       log.last))
    out = args.out or f"checkpoints/real-{time.strftime('%Y%m%d-%H%M%S')}.pt"
    trained_on = split.train[:cfg.limit] if cfg.limit else split.train
    path = save_translator(out, model, tok, history=log.loss, curve=log.curve, scores=scores,
                           train_config=dataclasses.asdict(cfg), preset=args.preset,
                           profile=TrainingProfile.from_pairs(trained_on).to_json())
    print(f"wrote: {path} ({args.program} translate --checkpoint {path} uses it)")
    if held:
        print("held-out: " + " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                                      for k, v in scores.items() if "signature" not in k))
    return 0


def _tokenizer(args, train_pairs):
    """The shipped subword tokenizer (trained again first with ``--new-tokenizer``), or a
    word-level one trained on the spot (``--tokens word``)."""
    from ..shipped import TOKENIZER
    from ..translator.tokenizer import SubwordTokenizer

    texts = [x for pair in train_pairs for x in pair]
    if args.tokens == "word":  # an experiment: kept in its checkpoint, never saved alone
        return SubwordTokenizer.train_words(texts)
    if args.new_tokenizer:
        SubwordTokenizer.train(texts).save(TOKENIZER)
    return SubwordTokenizer.load(TOKENIZER)


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
