"""``python -m illustrated train-writer``: train the decoder-only model of chapter 13 on the
distinct English sentences of the Tatoeba training split
(:mod:`illustrated.decoder_only.training`), print its time and development perplexity, and
write its file (``make checkpoint-lm`` writes the shipped one,
:data:`illustrated.shipped.WRITER`).
"""
from __future__ import annotations

import dataclasses
import time

from . import PROGRAM
from .common import Parser, at_least


def parser(program: str = PROGRAM):
    """The ``train-writer`` command's options, as ``{program} train-writer --help`` lists them
    (``program``: how the package's entry names itself)."""
    from ..decoder_only.training import LMTrainConfig

    p = Parser(prog=f"{program} train-writer",
               description="Train the decoder-only model on the English sentences of the "
               "Tatoeba training split.")
    p.add_argument("--steps", type=at_least(1), default=LMTrainConfig.steps,
                   help="optimiser steps (default %(default)s)")
    p.add_argument("--seed", type=at_least(0), default=0,
                   help="the seed of the initial weights, batch order and dropout "
                   "(default %(default)s)")
    p.add_argument("--out", default=None, help="the file to write (default "
                   "checkpoints/writer-<time>.pt)")
    return p


def main(argv=None, program: str = PROGRAM) -> int:
    """The ``train-writer`` command (``program``: how the package's entry names itself);
    returns 0."""
    import torch

    from ..decoder_only.training import (LMTrainConfig, load_sentences, perplexity, save_lm,
                                         train_lm)

    args = parser(program).parse_args(argv)
    cfg = LMTrainConfig(steps=args.steps, seed=args.seed)
    train, held, tok = load_sentences(64)
    start, cpu = time.time(), time.process_time()
    model, losses, dev = train_lm(cfg, train, len(tok), held=held)
    seconds, cpu = time.time() - start, time.process_time() - cpu
    ppl = perplexity(model, held)
    print(f"{len(train)} sentences, {cfg.steps} steps in {seconds:.0f} s "
          f"({cpu:.0f} CPU-seconds on {torch.get_num_threads()} threads); "
          f"development perplexity {ppl:.2f}")
    out = args.out or f"checkpoints/writer-{time.strftime('%Y%m%d-%H%M%S')}.pt"
    path = save_lm(out, model, tok, losses=losses, dev_losses=dev, recipe=dataclasses.asdict(cfg),
                   perplexity=ppl, seconds=seconds, cpu_seconds=cpu,
                   threads=torch.get_num_threads(), sentences=len(train))
    print(f"wrote: {path} ({program} generate --checkpoint {path} writes with it)")
    return 0
