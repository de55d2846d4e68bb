"""What attention costs in sequence length: the explicit computation vs PyTorch's fused one.

For L = 128 ... 4096 (B=1, H=8 heads of d_k=64, float32, CPU, forward, no grad, a causal
bool mask), compares our explicit ``scaled_dot_product_attention`` (which builds all
``H x L x L`` weights) and our ``lean_attention`` (the core of
``MultiHeadAttention(need_weights=False)``) with
``torch.nn.functional.scaled_dot_product_attention`` given the same mask:

- time: alternating calls in this process after a warm-up, the fastest sample of each;
- peak memory: each (way, L) runs once in a fresh subprocess, which allocates its inputs,
  warms up on a tiny case, resets the kernel's peak-RSS mark (``/proc/self/clear_refs``),
  runs the attention once and reads the peak (``VmHWM`` in ``/proc/self/status``). The
  figure reported is the *rise of the process's peak resident memory* over its resident
  memory before the call: every intermediate and the output, as the operating system saw
  them, independent of PyTorch's allocator bookkeeping. (Not ``ru_maxrss``: a child
  inherits its parent's.) Linux only. It is coarse (pages, not bytes;
  a few MB of noise), so small L shows little; the L^2 growth shows at large L.

    python benchmarks/attention_memory.py [--full]     (--full adds L = 8192)
"""
import json
import subprocess
import sys

import torch
import torch.nn.functional as F

from _common import alternate, full_flag, progress, report

from illustrated.attention import lean_attention, scaled_dot_product_attention
from illustrated.masks import subsequent_mask

B, H, D_K = 1, 8, 64
LENGTHS = (128, 256, 512, 1024, 2048, 4096)


def inputs(L):
    g = torch.Generator().manual_seed(0)
    qkv = [torch.randn(B, H, L, D_K, generator=g) for _ in range(3)]  # 3 x (B, H, L, Dk)
    return qkv + [subsequent_mask(L)]  # q, k, v, mask (1, L, L)


WAYS = {"explicit": lambda q, k, v, m: scaled_dot_product_attention(q, k, v, mask=m)[0],
        "lean": lambda q, k, v, m: lean_attention(q, k, v, mask=m),
        "sdpa": lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
        # The same causal attention told by a flag instead of a mask: on CPU only this
        # reaches the fused kernel, which never holds the L x L weights.
        "sdpa_causal": lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v,
                                                                           is_causal=True)}


def _status_kb(field):
    """A ``/proc/self/status`` figure (kB), e.g. ``VmRSS`` or ``VmHWM`` (the peak)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def peak_rise_mb(way, L):
    """Run in a child process: the rise in peak RSS (MB) caused by one call."""
    fn = WAYS[way]
    with torch.no_grad():
        fn(*inputs(16))  # load the kernels, start the threads
        qkvm = inputs(L)
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset the peak mark VmHWM to the current VmRSS
        before = _status_kb("VmRSS")
        out = fn(*qkvm)
        after = _status_kb("VmHWM")
    del out
    return (after - before) / 1024


def measure_in_child(way, L):
    cmd = [sys.executable, __file__, "--child", way, str(L)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    lengths = LENGTHS + ((8192,) if full_flag() else ())
    rows = []
    for i, L in enumerate(lengths, 1):
        qkvm = inputs(L)
        repeats = 9 if L <= 2048 else 5
        with torch.no_grad():
            t = alternate({w: (lambda fn=fn: fn(*qkvm)) for w, fn in WAYS.items()},
                          repeats, warmup=1)
        mem = {w: measure_in_child(w, L) for w in WAYS}
        weights_mb = B * H * L * L * 4 / 2**20
        rows.append({"L": L, "explicit_ms": 1e3 * t["explicit"], "sdpa_ms": 1e3 * t["sdpa"],
                     "lean_ms": 1e3 * t["lean"],
                     "time_ratio": t["explicit"] / t["sdpa"],
                     "lean_time_ratio": t["lean"] / t["sdpa"],
                     "explicit_peak_MB": mem["explicit"], "lean_peak_MB": mem["lean"],
                     "sdpa_peak_MB": mem["sdpa"], "causal_flag_ms": 1e3 * t["sdpa_causal"],
                     "causal_flag_peak_MB": mem["sdpa_causal"], "weights_MB": weights_mb,
                     "mem_ratio": mem["explicit"] / max(mem["sdpa"], 1.0),
                     "lean_mem_ratio": mem["lean"] / max(mem["sdpa"], 1.0)})
        r = rows[-1]
        progress(i, len(lengths), f"L={L}: time {r['time_ratio']:.2f}x (lean "
                 f"{r['lean_time_ratio']:.2f}x), peak explicit {r['explicit_peak_MB']:.0f} MB, "
                 f"lean {r['lean_peak_MB']:.0f} MB, sdpa {r['sdpa_peak_MB']:.0f} MB "
                 f"(one weights tensor {weights_mb:.0f} MB)")
    report("attention_memory", rows, list(rows[0]),
           note="peak = rise of VmHWM over VmRSS in a fresh subprocess per case; "
                "mem_ratio divides by max(sdpa, 1 MB)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        torch.set_num_threads(torch.get_num_threads())
        print(json.dumps(peak_rise_mb(sys.argv[2], int(sys.argv[3]))))
    else:
        main()
