"""Our ``MultiHeadAttention`` vs ``torch.nn.MultiheadAttention`` with the same weights.

Forward and forward+backward, float32, CPU, self-attention without a mask, over a sweep of
sequence length L, width d_model and batch B, both batch-first. Three ratios:

- ``*_ratio``: our default teaching path (need_weights=True, keeps the weights) vs PyTorch
  called with ``need_weights=False`` (its fused kernel, no weights) -- the issue's ratio;
- ``*_lean_ratio``: our lean path (need_weights=False) vs the same fused PyTorch call;
- ``fwd_w_ratio``: our teaching path vs PyTorch asked for the same per-head weights
  (``need_weights=True, average_attn_weights=False``): the same work on both sides;
- ``fwd_fused_ratio``: the fast path that serves, ``fuse(ours)`` (:mod:`illustrated.interop`),
  vs PyTorch's module in eval mode, whose inference call takes its own fused native op
  (``torch._native_multi_head_attention``): both are inference copies (the issue's target
  is <= 1.0, <= 1.1 at L=16, d_model=64, B=1); ``fwd_fused_train_ratio`` the same against
  the training-mode call of the other ratios.
The default sweep is short
(a few minutes); ``--full`` runs the issue's sweep (L 16..1024, d_model 64..512, B 1..32,
every combination but B=32 at L=1024, which ``--huge`` adds).

    python benchmarks/attention.py [--full [--huge]]
"""
import itertools
import sys

import torch
from torch import nn

from _common import alternate, full_flag, progress, report

from illustrated.attention import MultiHeadAttention
from illustrated.interop import fuse

SHORT = [(16, 64, 1), (128, 512, 32), (512, 256, 8), (1024, 128, 4), (256, 64, 32)]
# The whole sweep but B=32 at L=1024 (1 GiB of weights a call: minutes a point on 2 cores;
# ``--full --huge`` adds those three points).
FULL = [(L, d, B) for L, d, B in itertools.product((16, 64, 256, 1024), (64, 128, 512),
                                                    (1, 8, 32))
        if "--huge" in sys.argv[1:] or not (L == 1024 and B == 32)]
H = 8


def case(L, d, B):
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(d, H, batch_first=True)
    ours = from_torch(theirs)
    lean = from_torch(theirs)
    lean.need_weights = False
    fused = fuse(ours)  # an inference copy, eval mode
    served = nn.MultiheadAttention(d, H, batch_first=True)
    served.load_state_dict(theirs.state_dict())
    served.eval()  # PyTorch's inference call: its native fused op
    x = torch.randn(B, L, d)
    xg = x.clone().requires_grad_()

    def fwd_ours():
        with torch.no_grad():
            ours(x, x, x)

    def fwd_lean():
        with torch.no_grad():
            lean(x, x, x)

    def fwd_fused():
        with torch.no_grad():
            fused(x, x, x)

    def fwd_theirs():
        with torch.no_grad():
            theirs(x, x, x, need_weights=False)

    def fwd_served():
        with torch.no_grad():
            served(x, x, x, need_weights=False)

    def fwd_theirs_w():
        with torch.no_grad():
            theirs(x, x, x, need_weights=True, average_attn_weights=False)

    def bwd(m, **kw):
        def run():
            out = m(xg, xg, xg, **kw)
            out = out[0] if isinstance(out, tuple) else out
            out.sum().backward()
        return run

    cost = B * L * L * d  # the big points take seconds a call: fewer rounds there
    repeats, warmup = (15, 2) if cost < 2e8 else (7, 1) if cost < 2e9 else (3, 1)
    f = alternate({"ours": fwd_ours, "lean": fwd_lean, "fused": fwd_fused, "torch": fwd_theirs,
                   "torch_eval": fwd_served, "torch_w": fwd_theirs_w}, repeats, warmup)
    b = alternate({"ours": bwd(ours), "lean": bwd(lean),
                   "torch": bwd(theirs, need_weights=False)}, repeats, warmup)
    return {"L": L, "d_model": d, "B": B,
            "fwd_ours_ms": 1e3 * f["ours"], "fwd_torch_ms": 1e3 * f["torch"],
            "fwd_ratio": f["ours"] / f["torch"], "fwd_lean_ratio": f["lean"] / f["torch"],
            "fwd_w_ratio": f["ours"] / f["torch_w"],
            "fwd_fused_ms": 1e3 * f["fused"], "fwd_torch_eval_ms": 1e3 * f["torch_eval"],
            "fwd_fused_ratio": f["fused"] / f["torch_eval"],
            "fwd_fused_train_ratio": f["fused"] / f["torch"],
            "fb_ours_ms": 1e3 * b["ours"], "fb_torch_ms": 1e3 * b["torch"],
            "fb_ratio": b["ours"] / b["torch"], "fb_lean_ratio": b["lean"] / b["torch"]}


def main():
    sweep = FULL if full_flag() else SHORT
    rows = []
    for i, (L, d, B) in enumerate(sweep, 1):
        r = case(L, d, B)
        rows.append(r)
        progress(i, len(sweep), f"L={L} d_model={d} B={B}: fwd {r['fwd_ratio']:.2f}x "
                 f"(lean {r['fwd_lean_ratio']:.2f}x, vs weights {r['fwd_w_ratio']:.2f}x), "
                 f"fused / torch eval {r['fwd_fused_ratio']:.2f}x, fwd+bwd "
                 f"{r['fb_ratio']:.2f}x (lean {r['fb_lean_ratio']:.2f}x)")
    report("attention", rows, list(rows[0]), note="ratio = ours / torch.nn.MultiheadAttention")


if __name__ == "__main__":
    main()
