"""A training step of ``make_model`` vs a same-shape model built on ``torch.nn.Transformer``.

Both share the same embeddings, positional encoding and output layer (deep copies of ours);
only the encoder-decoder stack differs. One step = forward, label-smoothing-free NLL loss,
backward, Adam step; dropout 0.1, training mode, float32, CPU, causal target mask, no
padding. (``nn.Transformer`` also ends its encoder and decoder with a LayerNorm, which our
post-norm model has not: a little more work on PyTorch's side.) Two ratios: ``ratio`` for
our default teaching path (every attention keeps its weights for the figures) and
``lean_ratio`` for the lean path (``need_weights=False`` everywhere, as
:func:`illustrated.translator.training.train_real` trains: the fused kernel, the causal mask as
``is_causal``).

    python benchmarks/train_step.py [--full]
"""
import copy

import torch
import torch.nn.functional as F
from torch import nn

from _common import alternate, full_flag, progress, report

from illustrated.masks import subsequent_mask
from illustrated.model import make_model

# (N, d_model, h, d_ff, B, length)
SHORT = [(2, 128, 4, 512, 16, 32), (2, 256, 8, 1024, 16, 64), (6, 512, 8, 2048, 8, 64)]
FULL = SHORT + [(2, 64, 4, 256, 32, 16), (4, 256, 8, 1024, 8, 256), (2, 512, 8, 2048, 4, 512)]
VOCAB = 1000


class TorchTransformer(nn.Module):
    """Our embeddings and generator around ``nn.Transformer``."""

    def __init__(self, ours, N, d_model, h, d_ff):
        super().__init__()
        self.src_embed = copy.deepcopy(ours.src_embed)
        self.tgt_embed = copy.deepcopy(ours.tgt_embed)
        self.generator = copy.deepcopy(ours.generator)
        self.core = nn.Transformer(d_model, h, N, N, d_ff, dropout=0.1, batch_first=True)

    def forward(self, src, tgt, tgt_mask):
        out = self.core(self.src_embed(src), self.tgt_embed(tgt), tgt_mask=tgt_mask,
                        tgt_is_causal=True)  # (B, T, D)
        return self.generator(out)  # (B, T, V)


def case(N, d, h, d_ff, B, n):
    ours = make_model(VOCAB, VOCAB, N=N, d_model=d, d_ff=d_ff, h=h, dropout=0.1, seed=0)
    theirs = TorchTransformer(ours, N, d, h, d_ff)
    lean = copy.deepcopy(ours).keep_attention_weights(False)
    g = torch.Generator().manual_seed(1)
    src = torch.randint(3, VOCAB, (B, n), generator=g)
    tgt = torch.randint(3, VOCAB, (B, n + 1), generator=g)
    tgt_in, tgt_out = tgt[:, :-1], tgt[:, 1:]
    ours_mask = subsequent_mask(n)  # (1, T, T), True = may attend
    torch_mask = nn.Transformer.generate_square_subsequent_mask(n)  # (T, T), -inf = blocked
    opt_ours = torch.optim.Adam(ours.parameters(), lr=1e-4)
    opt_theirs = torch.optim.Adam(theirs.parameters(), lr=1e-4)
    opt_lean = torch.optim.Adam(lean.parameters(), lr=1e-4)

    def step(model, opt, *args):
        def run():
            logp = model(*args)  # (B, T, V)
            loss = F.nll_loss(logp.reshape(-1, VOCAB), tgt_out.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
        return run

    t = alternate({"ours": step(ours, opt_ours, src, tgt_in, None, ours_mask),
                   "lean": step(lean, opt_lean, src, tgt_in, None, ours_mask),
                   "torch": step(theirs, opt_theirs, src, tgt_in, torch_mask)}, repeats=9)
    return {"N": N, "d_model": d, "h": h, "d_ff": d_ff, "B": B, "L": n,
            "ours_ms": 1e3 * t["ours"], "lean_ms": 1e3 * t["lean"], "torch_ms": 1e3 * t["torch"],
            "ratio": t["ours"] / t["torch"], "lean_ratio": t["lean"] / t["torch"]}


def main():
    torch.manual_seed(0)
    sweep = FULL if full_flag() else SHORT
    rows = []
    for i, size in enumerate(sweep, 1):
        r = case(*size)
        rows.append(r)
        progress(i, len(sweep), f"N={r['N']} d_model={r['d_model']} B={r['B']} L={r['L']}: "
                 f"ours/torch {r['ratio']:.2f}x, lean {r['lean_ratio']:.2f}x")
    report("train_step", rows, list(rows[0]), note="ratio = make_model / nn.Transformer step")


if __name__ == "__main__":
    main()
