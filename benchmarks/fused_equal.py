"""``fuse(model)`` against the teaching model on the whole test set of the shipped
translator: every test sentence translated greedy and with beam search (4 candidates,
length penalty 0.6) by both, and how many translations are identical. Prints one line per
decoder and writes ``results/fused_equal.json`` (``make bench``; a few minutes).

    python benchmarks/fused_equal.py [--limit N]
"""
import sys
import time

from _common import progress, report

from illustrated.interop import fuse
from illustrated.translator.corpus import load_split
from illustrated.translator.inference import load_translator, translate

BEAM = 4


def main():
    limit = int(sys.argv[sys.argv.index("--limit") + 1]) if "--limit" in sys.argv else None
    model, tok, blob = load_translator()
    seed = int(blob.get("train_config", {}).get("seed", 0))  # the split it was trained on
    src = [f for f, _ in load_split(seed=seed).test][:limit]
    fused = fuse(model)
    rows = []
    for i, (name, beam) in enumerate((("greedy", 0), ("beam 4", BEAM)), 1):
        t0 = time.perf_counter()
        teaching = translate(model, tok, src, beam=beam)
        t1 = time.perf_counter()
        fast = translate(fused, tok, src, beam=beam)
        t2 = time.perf_counter()
        same = sum(a == b for a, b in zip(teaching, fast))
        rows.append({"decoder": name, "sentences": len(src), "identical": same,
                     "teaching_s": t1 - t0, "fused_s": t2 - t1})
        progress(i, 2, f"{name}: {same} of {len(src)} translations identical (teaching "
                 f"{t1 - t0:.1f} s, fused {t2 - t1:.1f} s)")
        for a, b, s in [(a, b, s) for a, b, s in zip(teaching, fast, src) if a != b][:5]:
            print(f"  differs: {s!r}: teaching {a!r}, fused {b!r}")
    report("fused_equal", rows, list(rows[0]),
           note="translations of the shipped translator: teaching model vs fuse(model)")


if __name__ == "__main__":
    main()
