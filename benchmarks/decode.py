"""Cached vs uncached greedy decoding (run by ``make bench``, not by ``make test``).

The issue's setting: B=1, N=3, d_model=256, a 64-word vocabulary, ``<eos>`` never emitted,
so every step runs. Three ways, timed alternately in one process at several numbers of new
tokens: the teaching model recomputing the whole prefix at every step (``uncached``), the
teaching model with its key/value cache (``cached``), and the inference copy that serves,
``fuse(model)`` (:mod:`illustrated.interop`), with the same cache (``fused_cached``); all
three must write the same tokens. Prints the medians, the ratios to recomputation (the
target: >= 10x at 512 tokens for what serves) and the growth exponents fitted on a log-log
scale. ``fused_uncached`` is also timed, so the cache's own gain on the fast path shows.
"""
import math
import statistics
import time

import torch

from _common import progress, report

from illustrated.decoding import greedy_decode
from illustrated.interop import fuse
from illustrated.model import ModelConfig, Transformer

LENGTHS = (25, 50, 100, 200, 512)
VOCAB = 64


def main(repeats=3):
    cfg = ModelConfig(src_vocab=VOCAB, tgt_vocab=VOCAB, N=3, d_model=256, d_ff=1024, h=4,
                      dropout=0.0, max_len=600)
    model = Transformer(cfg, torch.Generator().manual_seed(0)).eval()
    with torch.no_grad():
        model.generator.proj.bias[2] = -1e9  # never emit <eos>: decode every step
    fused = fuse(model)
    src = torch.randint(3, VOCAB, (1, 12), generator=torch.Generator().manual_seed(1))
    ways = {"cached": (model, True), "fused_cached": (fused, True),
            "uncached": (model, False), "fused_uncached": (fused, False)}
    rows = []
    for T in LENGTHS:
        times, outs = {name: [] for name in ways}, {}
        for _ in range(repeats):
            for name, (m, cached) in ways.items():
                t0 = time.perf_counter()
                outs[name] = greedy_decode(m, src, T + 1, 1, 2, use_cache=cached)
                times[name].append(time.perf_counter() - t0)
        assert all(torch.equal(out, outs["uncached"]) for out in outs.values())
        t = {name: statistics.median(ts) for name, ts in times.items()}
        rows.append({"T": T, **{f"{name}_s": s for name, s in t.items()},
                     "uncached/cached": t["uncached"] / t["cached"],
                     "uncached/fused_cached": t["uncached"] / t["fused_cached"],
                     "fused_uncached/fused_cached": t["fused_uncached"] / t["fused_cached"]})
        progress(len(rows), len(LENGTHS), f"T={T:4d}  cached {t['cached']:7.3f} s  fused "
                 f"cached {t['fused_cached']:7.3f} s  uncached {t['uncached']:7.3f} s  ratios "
                 f"{t['uncached'] / t['cached']:5.1f}x (teaching), "
                 f"{t['uncached'] / t['fused_cached']:5.1f}x (fused)")
    for name in ways:
        xs = [math.log(r["T"]) for r in rows]
        ys = [math.log(r[f"{name}_s"]) for r in rows]
        mx, my = statistics.mean(xs), statistics.mean(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        print(f"{name}: time grows as T^{slope:.2f}")
    report("decode", rows, list(rows[0]),
           note=f"greedy decoding, B=1 N=3 d_model=256 vocabulary {VOCAB}; medians of "
                f"{repeats}; uncached = the teaching model recomputing the prefix")


if __name__ == "__main__":
    main()
