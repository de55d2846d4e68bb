"""``python -m illustrated evaluate``: score a real translator on the Tatoeba test split as
the field scores translations and write everything the chapter Real sentences reports into
one JSON file (:func:`illustrated.translator.report.evaluation_report`; ``make
checkpoint-real`` writes the shipped translator's to ``chapters/data/tatoeba/evaluation.json``).

The same checkpoint gives the same file. On a CPU shared with other work,
``OMP_NUM_THREADS=1`` is faster (threads that wait for each other). A missing or foreign
checkpoint, or an output that cannot be written, gets a one-line message (exit status 1).
"""
from __future__ import annotations

import sys
import time

from ..shipped import PROBE, TRANSLATOR
from . import PROGRAM
from .common import Parser, at_least, plain_warnings, shown

OUT = "evaluation.json"  # in the current folder


def parser(program: str = PROGRAM):
    """The ``evaluate`` command's options, as ``{program} evaluate --help`` lists them
    (``program``: how the package's entry names itself)."""
    p = Parser(prog=f"{program} evaluate", description="Score a real translator on the "
               "Tatoeba test split (sacreBLEU BLEU and chrF, greedy and beam 4, paired "
               "bootstrap, near-neighbour split, names and probe sets) and write one JSON "
               "file.")
    p.add_argument("--checkpoint", default=str(TRANSLATOR),
                   help="the real translator to score (default: the shipped one, "
                   f"{shown(TRANSLATOR)})")
    p.add_argument("--out", default=OUT,
                   help="the JSON file to write (default %(default)s, in the current folder)")
    p.add_argument("--resamples", type=at_least(1), default=1000,
                   help="bootstrap resamples of the test sentences (default %(default)s)")
    p.add_argument("--probe", default=str(PROBE),
                   help="the probe set, kind<TAB>french<TAB>english (default "
                   f"{shown(PROBE)}: our own sentences)")
    p.add_argument("--limit", type=at_least(0), default=0,
                   help="score only the first N test pairs, for a quick check (0: all)")
    return p


def main(argv=None, program: str = PROGRAM) -> int:
    """The ``evaluate`` command (``program``: how the package's entry names itself, for the
    messages); returns the exit status."""
    from ..translator.inference import load_translator
    from ..translator.report import evaluation_report, named_path, summary, write_json

    options = parser(program)
    args = options.parse_args(argv)
    with plain_warnings():
        try:
            model, tok, blob = load_translator(args.checkpoint)
        except FileNotFoundError:
            print(f"{options.prog}: no checkpoint at {args.checkpoint} (train one with: "
                  f"{program} train --corpus tatoeba)", file=sys.stderr)
            return 1
        except ValueError as error:  # damaged, or not a real translator: named by the loader
            print(f"{options.prog}: cannot evaluate: {error}", file=sys.stderr)
            return 1
        print(f"read: {shown(args.checkpoint)}", flush=True)
        start = time.perf_counter()
        report = {"checkpoint": named_path(args.checkpoint),
                  **evaluation_report(model, tok, blob.get("train_config"), args.resamples,
                                      args.limit, args.probe)}
        try:
            write_json(report, args.out)
        except OSError as error:  # a folder that does not exist or cannot be written
            print(f"{options.prog}: cannot write {args.out}: {error}", file=sys.stderr)
            return 1
    for line in summary(report):
        print(line)
    print(f"wrote: {shown(args.out)} ({time.perf_counter() - start:.0f} s)")
    return 0
