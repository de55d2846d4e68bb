"""Why a deeper translator collapses, and what keeps it training: short runs of the real
translator's trainer on the Tatoeba pairs, six layers deep, side by side.

Each run trains a 6-layer model (d_model 128, 4 heads, d_ff 512: small enough for a CPU)
for 600 steps of 1,500-token batches, warm-up 400, and records the development loss every
100 steps and greedy development BLEU every 200 (400 development pairs), then how varied
its translations of 200 of them are. The runs cross
- the layer norm's place: post-norm (the paper's) or pre-norm with the gradient's norm
  clipped to 1 (``--preset base``'s),
- the schedule's peak: factor 0.6 (the laptop preset's: 2.7e-3 at this width) or 0.25
  (1.1e-3),
- two seeds (weights, batch order, dropout),
eight runs in all, four at a time in processes of one thread each. Writes
``chapters/data/tatoeba/recipes.json``, which the appendix Studying the translator reads.

    OMP_NUM_THREADS=1 python benchmarks/recipes.py   (about 25 minutes on 2 quiet cores)

Not part of ``make test``.
"""
import argparse
import concurrent.futures
import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "chapters" / "data" / "tatoeba" / "recipes.json"
DEEP = dict(d_model=128, N=6, h=4, d_ff=512, steps=600, warmup=400, eval_every=100,
            bleu_every=200, names=0)
RUNS = {f"{norm}, factor {factor}, seed {seed}": dict(
            DEEP, factor=factor, seed=seed,
            **({"norm_first": True, "clip": 1.0} if norm == "pre-norm" else {}))
        for norm in ("post-norm", "pre-norm") for factor in (0.6, 0.25) for seed in (0, 1)}


def one(over: dict) -> dict:
    """Train one configuration (in this process) and describe the run."""
    import torch

    from illustrated.translator.corpus import load_split
    from illustrated.translator.inference import translate
    from illustrated.translator.tokenizer import SubwordTokenizer
    from illustrated.translator.training import RealConfig, train_real

    torch.set_num_threads(1)
    cfg = dataclasses.replace(RealConfig(), **over)
    split, tok = load_split(), SubwordTokenizer.load()
    dev = split.dev[:400]
    start = time.perf_counter()
    model, log = train_real(cfg, split.train, tok, None, device="cpu", progress=False,
                            dev_pairs=dev)
    outputs = translate(model, tok, [f for f, _ in dev[:200]])
    return {"config": over, "peak_rate": cfg.peak_rate(),
            "seconds": round(time.perf_counter() - start, 1), "curve": log.curve,
            "distinct": len(set(outputs)) / len(outputs),
            "sample": outputs[:5]}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--jobs", type=int, default=4, help="runs at a time (default 4)")
    p.add_argument("--one", help=argparse.SUPPRESS)  # a child process: one run, JSON out
    args = p.parse_args()
    if args.one:
        print(json.dumps(one(json.loads(args.one))))
        return
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}

    def run(item):
        name, over = item
        done = subprocess.run([sys.executable, __file__, "--one", json.dumps(over)],
                              env=env, capture_output=True, text=True, check=True)
        print(f"done: {name}", flush=True)
        return name, json.loads(done.stdout.splitlines()[-1])

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = dict(pool.map(run, RUNS.items()))
    OUT.write_text(json.dumps(results, indent=1) + "\n")
    for name, r in results.items():
        last = r["curve"][-1]
        print(f"{name:>30}: peak {r['peak_rate']:.1e}, dev loss {last['dev_loss']:.2f}, "
              f"dev BLEU {last['dev_bleu']:.1f}, distinct {r['distinct']:.2f}, "
              f"{r['seconds']:.0f} s")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
