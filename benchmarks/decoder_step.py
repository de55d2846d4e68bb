"""A training step of the decoder variants against the same model built from PyTorch's own
modules, and its achieved FLOP/s against this machine's matrix-product peak.

At chapter 13's sizes (N 2, d_model 128, h 4, d_ff 512, V 4000) and a batch of chapter
13's shape (``--batch`` sentences of ``--length`` tokens, about 2000 tokens), one step =
forward, NLL loss, backward, Adam step; dropout 0.1, training mode, float32, CPU, one thread
(``--threads``). The ways, timed alternately (``_common.alternate``):

- ``baseline``: :class:`~illustrated.decoder_only.variants.VariantDecoder` with every flag
  at its default (chapter 13's model; the mask given as ``is_causal``);
- ``modern``: every change at once (:func:`~illustrated.decoder_only.variants.modern`);
- ``chapter13``: :class:`~illustrated.decoder_only.model.DecoderOnly`, the teaching path
  (explicit causal mask, attention weights kept);
- ``torch``: the baseline's embeddings and output layer around
  ``nn.TransformerEncoder(nn.TransformerEncoderLayer(...))`` (post-norm, ReLU) given the
  causal mask with ``is_causal=True``.

FLOPs of a step: ``torch.utils.flop_counter.FlopCounterMode`` over one training step of
``chapter13`` (forward and backward; every product explicit, so the attention's too; 2 per
multiply-add). The peak: the fastest ``torch.mm`` of two float32 ``--mm x --mm`` matrices on
the same threads, ``2 * mm^3`` FLOPs a call.

    python benchmarks/decoder_step.py [--threads 1] [--batch 160] [--length 12] [--mm 1024]

Writes ``benchmarks/results/decoder_step.json``.
"""
import argparse
import copy

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from _common import alternate, report

from illustrated.decoder_only.model import DecoderOnly, DecoderOnlyConfig
from illustrated.decoder_only.variants import VariantConfig, VariantDecoder, modern


class TorchDecoder(nn.Module):
    """``ours``'s embeddings and output layer around PyTorch's encoder stack, causal."""

    def __init__(self, ours, c: VariantConfig):
        super().__init__()
        self.embed, self.generator = copy.deepcopy(ours.embed), copy.deepcopy(ours.generator)
        layer = nn.TransformerEncoderLayer(c.d_model, c.h, c.d_ff, c.dropout,
                                           batch_first=True)  # post-norm, ReLU
        self.core = nn.TransformerEncoder(layer, c.N, enable_nested_tensor=False)

    def forward(self, tokens):
        T = tokens.shape[1]
        blocked = nn.Transformer.generate_square_subsequent_mask(T)  # (T, T), -inf = blocked
        return self.generator(self.core(self.embed(tokens), mask=blocked, is_causal=True))


def step(model, tokens):
    """One training step of ``model`` on ``tokens`` ``(B, T)``, with its own Adam."""
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    inputs, targets = tokens[:, :-1], tokens[:, 1:]

    def run():
        logp = model(inputs)  # (B, T-1, V)
        loss = F.nll_loss(logp.flatten(0, 1), targets.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
    return run


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=160)
    p.add_argument("--length", type=int, default=12)
    p.add_argument("--mm", type=int, default=1024)
    p.add_argument("--repeats", type=int, default=7)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    c = VariantConfig()
    g = lambda: torch.Generator().manual_seed(0)  # noqa: E731
    models = {"baseline": VariantDecoder(c, g()), "modern": VariantDecoder(modern(), g()),
              "chapter13": DecoderOnly(DecoderOnlyConfig(), g())}
    models["torch"] = TorchDecoder(models["baseline"], c)
    tokens = torch.randint(3, c.vocab, (args.batch, args.length + 1), generator=g())
    steps = {name: step(m.train(), tokens) for name, m in models.items()}
    counter = FlopCounterMode(display=False)
    with counter:
        step(copy.deepcopy(models["chapter13"]), tokens)()
    flops = counter.get_total_flops()
    a, b = torch.randn(args.mm, args.mm), torch.randn(args.mm, args.mm)
    t = alternate({**steps, "mm": lambda: torch.mm(a, b)}, repeats=args.repeats)
    peak = 2 * args.mm ** 3 / t["mm"]
    rows = [{"way": name, "ms": 1e3 * t[name], "ratio_to_torch": t[name] / t["torch"],
             "gflops": flops / t[name] / 1e9, "fraction_of_peak": flops / t[name] / peak}
            for name in steps]
    note = (f"B={args.batch} T={args.length}, {args.threads} thread(s); step FLOPs "
            f"{flops / 1e9:.3f} G (chapter 13's model, forward + backward); torch.mm peak "
            f"{peak / 1e9:.1f} GFLOP/s ({args.mm} x {args.mm}, float32)")
    print(note)
    report("decoder_step", rows, list(rows[0]), note=note)


if __name__ == "__main__":
    main()
