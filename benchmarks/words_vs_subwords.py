"""Words or subwords for the real translator, chosen by held-out BLEU at equal training.

Trains the real translator twice with the same settings and the same number of steps, once
with the shipped byte-level BPE vocabulary (4,000 subwords) and once with a word-level one
(the 8,000 most frequent words and marks, as source 001's d2l does), then scores both on
the development set (greedy and beam 4). The two runs go side by side, one thread each, so
that their seconds compare. A word-level step is slower, so a third run gives the subword
model as many steps as fit in the word model's time ("bpe_equal_time"). Writes ``chapters/data/tatoeba/words_vs_subwords.json``, which
the chapter Real sentences reads.

    python benchmarks/words_vs_subwords.py [--steps 1200]   (about 30 minutes on 2 cores)

Not part of ``make test``.
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "chapters" / "data" / "tatoeba" / "words_vs_subwords.json"


def run(tokens: str, steps: int, folder: Path, name: str = "") -> subprocess.Popen:
    name = name or tokens
    cmd = [sys.executable, "-m", "illustrated.train", "--corpus", "tatoeba", "--tokens", tokens,
           "--steps", str(steps), "--eval", "dev", "--state", str(folder / f"{name}-state.pt"),
           "--out", str(folder / f"{name}.pt"), "--no-progress"]
    return subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1"})


def score(path: Path) -> dict:
    blob = torch.load(path, weights_only=True)
    out = {k: blob["scores"][k] for k in ("steps", "seconds", "set", "sentences", "bleu",
                                          "beam_bleu")}
    out["vocabulary"] = blob["config"]["tgt_vocab"]
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=1200, help="training steps of each run")
    p.add_argument("--folder", default="checkpoints/words-vs-subwords",
                   help="where the two checkpoints go")
    p.add_argument("--reuse", action="store_true",
                   help="score the two checkpoints already in --folder instead of training")
    args = p.parse_args()
    folder = ROOT / args.folder
    folder.mkdir(parents=True, exist_ok=True)
    if not args.reuse:
        procs = [run(tokens, args.steps, folder) for tokens in ("bpe", "word")]
        if any(proc.wait() != 0 for proc in procs):
            sys.exit("a training run failed")
    results = {name: score(folder / f"{name}.pt") for name in ("bpe", "word")}
    equal = int(args.steps * results["word"]["seconds"] / results["bpe"]["seconds"])  # that fit
    if not args.reuse and run("bpe", equal, folder, "bpe_equal_time").wait() != 0:
        sys.exit("the equal-time run failed")
    results["bpe_equal_time"] = score(folder / "bpe_equal_time.pt")
    OUT.write_text(json.dumps(results, indent=1) + "\n")
    for name, r in results.items():
        print(f"{name:>14}: {r['vocabulary']} tokens, {r['steps']} steps, "
              f"dev BLEU greedy {r['bleu']:.1f}, "
              f"beam {r['beam_bleu']:.1f}, {r['seconds']:.0f} s")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
