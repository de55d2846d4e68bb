"""The per-call cost of a tiny attention call: ours vs ``torch.nn.MultiheadAttention``.

B=1, L=16, d_model=64, 4 heads, float32, eval, no grad, same weights, one thread: the call
a learner makes thousands of times in exercises, where the work is small and every
microsecond of Python shows. Each sample times 200 calls in a row; the ways alternate
(ours, lean, torch, torch with weights, ...) for 25 samples after a warm-up; medians, and
the ratio of the fastest samples (``best_*``), steadier when other work shares the CPU.
Also times the input checks one call of ours runs, alone, so the report says what they cost.

    python benchmarks/overhead.py [--profile] [--breakdown]

``--profile``: cProfile of our call. ``--breakdown``: each step of our call timed alone
(the same tensors, the same calls as inside ``forward``), beside torch's fused native op
alone, so the note can say where the microseconds go.
"""
import cProfile
import pstats
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

from _common import progress, report

from illustrated.attention import (MultiHeadAttention, check_attention_inputs, check_sdpa_inputs,
                                   scaled_dot_product_attention)
from illustrated.interop import from_torch
from illustrated.masks import check_mask

B, L, D, H = 1, 16, 64, 4
CALLS, SAMPLES = 200, 25


def per_call_us(fn):
    t0 = time.perf_counter()
    for _ in range(CALLS):
        fn()
    return 1e6 * (time.perf_counter() - t0) / CALLS


def samples_us(ways: dict) -> dict:
    """SAMPLES per-call times (us) of each callable, after a warm-up, the ways alternating."""
    times = {name: [] for name in ways}
    with torch.no_grad():
        for fn in ways.values():
            per_call_us(fn)  # warm-up
        for _ in range(SAMPLES):
            for name, fn in ways.items():
                times[name].append(per_call_us(fn))
    return times


def checks(ours, x):
    """What one call of ours checks, with a plain call at the top of ``forward``: the
    module's inputs (its heads then go to the formula unchecked)."""
    check_attention_inputs(ours, x, x, x, None, None)


def breakdown(ours, theirs, x):
    """Median microseconds of each step of our call, timed alone, and of torch's parts."""
    q = ours.split_heads(ours.w_q(x))  # (B, H, L, Dk)
    z = F.scaled_dot_product_attention(q, q, q)  # (B, H, L, Dk)
    w = (q @ q.transpose(-2, -1)).softmax(-1)  # (B, H, L, L)
    q3, w3 = q.reshape(B * H, L, D // H), w.view(B * H, L, L)  # 3-D, as torch's op uses
    lin = [ours.w_q, ours.w_k, ours.w_v, ours.w_o]
    w_in, b_in = theirs.in_proj_weight.detach(), theirs.in_proj_bias.detach()
    w_out, b_out = theirs.out_proj.weight.detach(), theirs.out_proj.bias.detach()
    steps = {
        "our whole call (teaching path)": lambda: ours(x, x, x),
        "  its checks (check_attention_inputs)": lambda: checks(ours, x),
        "  the formula's checks, on a reader's call (check_sdpa_inputs)":
            lambda: check_sdpa_inputs(q, q, q, None, ours.dropout),
        "  4 projections, nn.Linear modules": lambda: [m(x) for m in lin],
        "  the same 4 products, F.linear": lambda: [F.linear(x, m.weight, m.bias) for m in lin],
        "  the same as 1 product on stacked weights + W^O": lambda: (
            F.linear(x, w_in, b_in), F.linear(x, w_out, b_out)),
        "  split into heads (x3)": lambda: [ours.split_heads(x) for _ in range(3)],
        "  attend, teaching (scaled_dot_product_attention, its checks included)":
            lambda: scaled_dot_product_attention(q, q, q, None, ours.dropout),
        "    its two products, 4-D @ as in the formula": lambda: (
            q @ q.transpose(-2, -1), w @ q),
        "    the same two products, bmm on 3-D (B*H, L, .) views": lambda: (
            torch.bmm(q3, q3.transpose(-2, -1)), torch.bmm(w3, q3)),
        "  attend, lean (F.scaled_dot_product_attention)":
            lambda: F.scaled_dot_product_attention(q, q, q),
        "  merge heads": lambda: z.transpose(1, 2).reshape(B, L, D),
        "torch's whole call (nn.MultiheadAttention)": lambda: theirs(x, x, x, need_weights=False),
        "  its fused C++ op alone (_native_multi_head_attention)":
            lambda: torch._native_multi_head_attention(
                x, x, x, D, H, w_in, b_in, w_out, b_out, None, False, True, None),
    }
    times = samples_us(steps)
    print("median us per call (min-max of the samples):")
    for name, t in times.items():
        print(f"{statistics.median(t):7.2f} ({min(t):6.2f}-{max(t):6.2f})  {name}")


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(D, H, batch_first=True).eval()
    ours = from_torch(theirs).eval()
    lean = from_torch(theirs).eval()
    lean.need_weights = False
    x = torch.randn(B, L, D)
    mask = torch.ones(1, 1, L, L, dtype=torch.bool)
    ways = {"ours": lambda: ours(x, x, x), "lean": lambda: lean(x, x, x),
            "torch": lambda: theirs(x, x, x, need_weights=False),
            "torch_w": lambda: theirs(x, x, x, need_weights=True, average_attn_weights=False),
            "checks": lambda: checks(ours, x),
            "mask_check": lambda: check_mask(mask, (B, H, L, L))}
    times = samples_us(ways)
    us = {name: statistics.median(t) for name, t in times.items()}
    spread = {name: (max(t) - min(t)) / statistics.median(t) for name, t in times.items()}
    row = {"ours_us": us["ours"], "lean_us": us["lean"], "torch_us": us["torch"],
           "torch_w_us": us["torch_w"], "checks_us": us["checks"],
           "ratio": us["ours"] / us["torch"], "w_ratio": us["ours"] / us["torch_w"],
           "lean_ratio": us["lean"] / us["torch"],
           "checks_share": us["checks"] / us["ours"],
           # On a busy machine the fastest sample is the least disturbed one.
           "best_ratio": min(times["ours"]) / min(times["torch"]),
           "best_lean_ratio": min(times["lean"]) / min(times["torch"]),
           "spread": max(spread[n] for n in ("ours", "lean", "torch", "torch_w"))}
    progress(1, 1, f"tiny call: ours {us['ours']:.1f} us, lean {us['lean']:.1f} us, torch "
             f"{us['torch']:.1f} us (ratio {row['ratio']:.2f}x); our checks "
             f"{us['checks']:.1f} us ({100 * row['checks_share']:.0f} % of our call)")
    report("overhead", [row], list(row), note="spread = (max - min) / median of the samples")
    if "--breakdown" in sys.argv[1:]:
        breakdown(ours, theirs, x)
    if "--profile" in sys.argv[1:]:
        with torch.no_grad():
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(5000):
                ours(x, x, x)
            prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
