"""Cached vs uncached greedy decoding (run by ``make bench``, not by ``make test``).

Times both ways alternately in one process at several numbers of new tokens, prints the
medians, their ratio, and the growth exponent fitted on a log-log scale.
"""
import math
import statistics
import time

import torch

from _common import progress, report

from illustrated.decoding import greedy_decode
from illustrated.model import ModelConfig, Transformer

LENGTHS = (25, 50, 100, 200, 512)


def main(repeats=3):
    cfg = ModelConfig(src_vocab=100, tgt_vocab=100, N=2, d_model=256, d_ff=1024, h=4,
                      dropout=0.0, max_len=600)
    model = Transformer(cfg, torch.Generator().manual_seed(0)).eval()
    with torch.no_grad():
        model.generator.proj.bias[2] = -1e9  # never emit <eos>: decode every step
    src = torch.randint(3, 100, (1, 12), generator=torch.Generator().manual_seed(1))
    rows = []
    for T in LENGTHS:
        times = {True: [], False: []}
        for _ in range(repeats if T < 512 else 1):
            for cached in (True, False):
                t0 = time.perf_counter()
                out = greedy_decode(model, src, T + 1, 1, 2, use_cache=cached)
                times[cached].append(time.perf_counter() - t0)
                outs = times.setdefault("out", {})
                outs[cached] = out
        assert torch.equal(times["out"][True], times["out"][False])
        c, u = statistics.median(times[True]), statistics.median(times[False])
        rows.append((T, c, u))
        progress(len(rows), len(LENGTHS),
                 f"T={T:4d}  cached {c:7.3f} s  uncached {u:7.3f} s  ratio {u / c:5.1f}x")
    for name, i in (("cached", 1), ("uncached", 2)):
        xs = [math.log(r[0]) for r in rows]
        ys = [math.log(r[i]) for r in rows]
        mx, my = statistics.mean(xs), statistics.mean(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        print(f"{name}: time grows as T^{slope:.2f}")
    report("decode", [{"T": T, "cached_s": c, "uncached_s": u, "uncached/cached": u / c}
                      for T, c, u in rows], ["T", "cached_s", "uncached_s", "uncached/cached"],
           note="greedy decoding with and without the KV cache")


if __name__ == "__main__":
    main()
