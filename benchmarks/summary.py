"""Every figure of issues 21 and 30 with its target, from the JSON the benchmarks wrote
(``benchmarks/results/*.json``); run by ``make bench`` after them. Prints one line per
target (MET or MISSED, with the worst point and every point that misses) and writes them
all to ``benchmarks/results/summary.json``.

    python benchmarks/summary.py
"""
import json

from _common import RESULTS


def load(name):
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text())["rows"] if path.exists() else None


def check(lines, what, rows, key, target, at_most=True, point=lambda r: "", unit="x"):
    """One target over ``rows``: each row's ``key`` must be <= target (or >= if not at_most)."""
    if rows is None:
        lines.append({"what": what, "target": target, "status": "NOT RUN"})
        return
    ok = (lambda v: v <= target) if at_most else (lambda v: v >= target)
    worst = (max if at_most else min)(rows, key=lambda r: r[key])
    misses = [f"{point(r)} {r[key]:.2f}{unit}" for r in rows if not ok(r[key])]
    lines.append({"what": what, "target": f"{'<=' if at_most else '>='} {target}",
                  "worst": round(worst[key], 3), "worst_at": point(worst).strip(),
                  "points": len(rows), "missed": misses, "unit": unit,
                  "status": "MET" if not misses else f"MISSED at {len(misses)} of {len(rows)}"})


def main():
    lines = []
    overhead = load("overhead")
    check(lines, "tiny call (B=1, L=16, d_model=64, 4 heads), teaching path / torch asked for "
          "the per-head weights", overhead, "w_ratio", 1.0)
    check(lines, "tiny call, lean path / torch's fused call", overhead, "lean_ratio", 1.0)
    check(lines, "tiny call, teaching path / torch's fused call (no target in the issue; was "
          "2.0x)", overhead, "ratio", 1.0)
    if overhead:
        r = overhead[0]
        lines.append({"what": "tiny call: our input checks", "figure":
                      f"{r['checks_us']:.1f} us = {100 * r['checks_share']:.0f} % of the call",
                      "status": "info"})
    sweep = load("attention")
    at = lambda r: f"L={r['L']} d_model={r['d_model']} B={r['B']}:"  # noqa: E731
    check(lines, "attention forward, teaching path / torch asked for the per-head weights",
          sweep, "fwd_w_ratio", 1.0, point=at)
    check(lines, "attention forward, lean path / torch's fused call", sweep, "fwd_lean_ratio",
          1.0, point=at)
    check(lines, "attention forward+backward, lean path / torch's fused call", sweep,
          "fb_lean_ratio", 1.0, point=at)
    check(lines, "attention forward, teaching path / torch's fused call (no target in the "
          "issue; was 1.12x at L=128 d_model=512 B=32)", sweep, "fwd_ratio", 1.0, point=at)
    check(lines, "attention forward+backward, teaching path / torch's fused call (was 0.89x)",
          sweep, "fb_ratio", 1.0, point=at)
    check(lines, "attention forward, fused path (fuse) / torch's inference call (eval mode)",
          sweep, "fwd_fused_ratio", 1.0, point=at)
    check(lines, "tiny call (B=1, L=16, d_model=64), fused path / torch's inference call",
          sweep and [r for r in sweep if (r["L"], r["d_model"], r["B"]) == (16, 64, 1)],
          "fwd_fused_ratio", 1.1, point=at)
    memory = load("attention_memory")
    if memory:
        for r in memory:
            r["lean_vs_causal_flag"] = r["lean_ms"] / r["causal_flag_ms"]
    check(lines, "causal mask, lean path / F.scaled_dot_product_attention(is_causal=True) "
          "(the is_causal route: about 1.0)", memory, "lean_vs_causal_flag", 1.1,
          point=lambda r: f"L={r['L']}:")
    train = load("train_step")
    step_at = lambda r: f"N={r['N']} d_model={r['d_model']} B={r['B']} L={r['L']}:"  # noqa: E731
    check(lines, "training step, teaching path / nn.Transformer", train, "ratio", 1.0,
          point=step_at)
    check(lines, "training step, lean path (as the trainer trains) / nn.Transformer", train,
          "lean_ratio", 1.0, point=step_at)
    decode = load("decode")
    at_512 = decode and [r for r in decode if r["T"] == 512]
    check(lines, "cached greedy decoding with the fused model that serves: recomputation / "
          "cached time at 512 tokens (B=1, N=3, d_model=256, 64 words)", at_512,
          "uncached/fused_cached", 10.0, at_most=False, point=lambda r: f"T={r['T']}:")
    if at_512:
        lines.append({"what": "the same with the teaching model's cache; the fused model's "
                              "cache against its own recomputation",
                      "figure": f"{at_512[0]['uncached/cached']:.1f}x; "
                                f"{at_512[0]['fused_uncached/fused_cached']:.1f}x",
                      "status": "info"})
    equal = load("fused_equal")
    check(lines, "fuse(model) against the teaching model: test translations that differ",
          equal and [{**r, "differ": r["sentences"] - r["identical"]} for r in equal],
          "differ", 0, point=lambda r: f"{r['decoder']}:", unit="")
    translate = load("translate")
    if translate:
        r = translate[0]
        lines.append({"what": f"shipped translator on the {r['sentences']} test sentences",
                      "figure": f"greedy {r['greedy_sent_s']:.1f} sentences/s, beam 4 "
                                f"{r['beam_sent_s']:.1f} sentences/s (batched; one at a time "
                                f"{r['beam_one_at_a_time_sent_s']:.1f}/s, "
                                f"{r['one_at_a_time_equal']} of {r['one_at_a_time_sample']} "
                                f"sampled translations equal)", "status": "info"})
    command = load("translate_command")
    check(lines, "python -m illustrated translate on the test sentences, greedy, sentences/s",
          command, "command_sent_s", 100, at_most=False, unit=" sentences/s")
    if command:
        r = command[0]
        lines.append({"what": "the command / a direct translate() call on the same sentences",
                      "figure": f"{r['command_over_direct']:.2f}x the time ("
                                f"{r['direct_sent_s']:.1f} sentences/s direct; "
                                f"{r['equal']} of {r['sentences']} lines equal)",
                      "status": "info"})
    real = load("real_train")
    if real:
        lines.append({"what": "real training, our tokens/s / nn.Transformer's",
                      "figure": f"{real[0]['ratio']:.2f}x", "status": "info"})
    print("\n== Issues 21 and 30: every figure and its target ==")
    for line in lines:
        figure = line.get("figure") or (f"worst {line['worst']:.2f}{line['unit']}"
                                        f"{' at ' + line['worst_at'] if line.get('worst_at') else ''}"
                                        if "worst" in line else "")
        target = f" (target {line['target']})" if "target" in line else ""
        print(f"- {line['what']}: {figure}{target}: {line['status']}")
        for miss in line.get("missed", []):
            print(f"    missed: {miss}")
    path = RESULTS / "summary.json"
    path.write_text(json.dumps(lines, indent=1))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
