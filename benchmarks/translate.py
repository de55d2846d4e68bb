"""Sentences per second of the translator the book ships, on the held-out test set.

Greedy and beam search (k = 4, length penalty 0.6) through
:func:`illustrated.translator.translate`, which decodes batches of sentences of similar
lengths (beam search through :func:`illustrated.decoding.beam_search_batch`). For
comparison, beam search one sentence at a time (:func:`illustrated.decoding.beam_search`,
as ``translate`` did before) on a sample of the test set, checked to give the same
translations as the batched search.

    python benchmarks/translate.py [--full]   (--full: the one-at-a-time beam on the whole set)
"""
import random
import time

import torch

from _common import full_flag, progress, report

from illustrated.corpus import load_split
from illustrated.decoding import beam_search
from illustrated.translator import MAX_LEN, load_translator, translate

BEAM, ALPHA = 4, 0.6


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main():
    model, tok, _ = load_translator()
    src = [f for f, _ in load_split().test]
    sample = src if full_flag() else random.Random(0).sample(src, 200)

    def one_at_a_time(sentences):
        out = []
        for s in sentences:
            (tokens, _), = beam_search(model, torch.tensor([tok.encode(s)]), MAX_LEN,
                                       tok.bos_id, tok.eos_id, BEAM, length_penalty=ALPHA)
            out.append(tok.decode(tokens))
        return out

    greedy, t_greedy = timed(lambda: translate(model, tok, src))
    progress(1, 3, f"greedy: {len(src)} sentences in {t_greedy:.1f} s")
    beam, t_beam = timed(lambda: translate(model, tok, src, beam=BEAM, length_penalty=ALPHA))
    progress(2, 3, f"beam {BEAM}, batched: {len(src)} sentences in {t_beam:.1f} s")
    alone, t_alone = timed(lambda: one_at_a_time(sample))
    index = {s: i for i, s in enumerate(src)}
    same = sum(a == beam[index[s]] for s, a in zip(sample, alone))
    progress(3, 3, f"beam {BEAM}, one sentence at a time: {len(sample)} sentences in "
             f"{t_alone:.1f} s; {same} of {len(sample)} translations equal the batched ones")
    row = {"sentences": len(src), "greedy_sent_s": len(src) / t_greedy,
           "beam_sent_s": len(src) / t_beam, "beam_one_at_a_time_sent_s": len(sample) / t_alone,
           "beam_batched_speedup": (len(src) / t_beam) / (len(sample) / t_alone),
           "one_at_a_time_sample": len(sample), "one_at_a_time_equal": same}
    report("translate", [row], list(row),
           note=f"translator {tok.__class__.__name__}, beam {BEAM}, length penalty {ALPHA}, "
                f"threads {torch.get_num_threads()}")


if __name__ == "__main__":
    main()
