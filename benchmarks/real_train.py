"""Training throughput of the real translator (target tokens per second) against a
same-shape model built on ``torch.nn.Transformer``, measured side by side in one run.

Both models train on the same real batches (the Tatoeba training pairs in 1,500-token
bucketed batches, as ``python -m illustrated train --corpus tatoeba`` makes them) with the
same loss (label smoothing 0.1, :func:`illustrated.translator.step.smoothed_loss_sum`),
Adam, dropout 0.1, float32 on the CPU. Ours runs as the trainer runs it (the fused
attention kernel, one matrix shared by the embeddings and the output layer); PyTorch's gets deep copies of our
embeddings and output layer around ``nn.Transformer`` (whose encoder and decoder end with
a LayerNorm more). Calls alternate, ours then PyTorch's, so a change of load hits both.

    OMP_NUM_THREADS=1 python benchmarks/real_train.py [--full]

Not part of ``make test``. The shipped model's BLEU, greedy and beam, is in
``illustrated/shipped/tatoeba/translator.pt`` (``scores``), written by ``make
checkpoint-real``.
"""
import copy

import torch
from torch import nn

from _common import alternate, full_flag, progress, report

from illustrated.data import make_batch
from illustrated.model import Transformer
from illustrated.translator.batching import token_batches
from illustrated.translator.corpus import load_split
from illustrated.translator.step import smoothed_loss_sum
from illustrated.translator.tokenizer import SubwordTokenizer
from illustrated.translator.training import RealConfig, model_config


class TorchTransformer(nn.Module):
    """Our embeddings and generator around ``nn.Transformer`` (same sizes)."""

    def __init__(self, ours, cfg):
        super().__init__()
        self.src_embed = copy.deepcopy(ours.src_embed)
        self.tgt_embed = copy.deepcopy(ours.tgt_embed)
        self.generator = copy.deepcopy(ours.generator)
        self.core = nn.Transformer(cfg.d_model, cfg.h, cfg.N, cfg.N, cfg.d_ff,
                                   dropout=cfg.dropout, batch_first=True)

    def forward(self, src, tgt):
        T = tgt.shape[1]
        causal = torch.ones(T, T, dtype=torch.bool).triu(1)  # (T, T), True = blocked
        out = self.core(self.src_embed(src), self.tgt_embed(tgt), tgt_mask=causal,
                        src_key_padding_mask=src == 0, tgt_key_padding_mask=tgt == 0,
                        memory_key_padding_mask=src == 0, tgt_is_causal=True)  # (B, T, D)
        return self.generator(out)  # (B, T, V)


def main():
    cfg = RealConfig()
    tok = SubwordTokenizer.load()
    pairs = load_split().train[:20000]
    data = [(tok.encode(f), tok.encode(e)) for f, e in pairs]
    batches = token_batches([max(len(s), len(t)) for s, t in data], cfg.max_tokens)
    batches = [make_batch([data[i][0] for i in b], [data[i][1] for i in b])
               for b in batches[:(24 if full_flag() else 8)]]
    n_tok = sum(int((b.tgt_out != 0).sum()) for b in batches)
    ours = Transformer(model_config(cfg, len(tok)), torch.Generator().manual_seed(0))
    ours.keep_attention_weights(False)
    theirs = TorchTransformer(ours, cfg)
    opts = {"ours": torch.optim.Adam(ours.parameters()),
            "torch": torch.optim.Adam(theirs.parameters())}

    def epoch(name):
        model, opt = (ours, opts["ours"]) if name == "ours" else (theirs, opts["torch"])

        def run():
            model.train()
            for b in batches:
                if name == "ours":
                    logp = model(b.src, b.tgt_in, b.src_mask, b.tgt_mask)
                else:
                    logp = model(b.src, b.tgt_in)
                loss = smoothed_loss_sum(logp, b.tgt_out, 0, cfg.smoothing) / b.tgt_out.ne(0).sum()
                opt.zero_grad()
                loss.backward()
                opt.step()
        return run

    t = alternate({"ours": epoch("ours"), "torch": epoch("torch")}, repeats=3, warmup=1)
    row = {"batches": len(batches), "target_tokens": n_tok,
           "ours_tok_s": n_tok / t["ours"], "torch_tok_s": n_tok / t["torch"],
           "ratio": t["torch"] / t["ours"]}
    progress(1, 1, f"ours {row['ours_tok_s']:.0f} tok/s, nn.Transformer "
             f"{row['torch_tok_s']:.0f} tok/s")
    report("real_train", [row], list(row),
           note="ratio = our throughput / nn.Transformer's (> 1: ours faster)")


if __name__ == "__main__":
    main()
