"""Sentences per second of the translator the book ships, on the held-out test set.

Greedy and beam search (k = 4, length penalty 0.6) of the inference copy that serves
(:func:`illustrated.interop.fuse`) through :func:`illustrated.translator.inference.translate`, which
decodes batches of sentences of similar lengths (beam search through
:func:`illustrated.decoding.beam_search_batch`). For comparison, beam search one sentence
at a time (:func:`illustrated.decoding.beam_search`, as ``translate`` did before) on a
sample of the test set, checked to give the same translations as the batched search.

And the command, ``python -m illustrated translate``: its ``main()`` reading a file of the
test sentences, one per line, on stdin (stdout captured), greedy, from the checkpoint read
to the last line printed, against a direct ``translate()`` call on the same sentences
(:func:`~illustrated.translator.inference.prepare`-d, the same fused model and thread
count as the command's): the command's target is 100 sentences/s, and its translations
must be the direct call's.

    python benchmarks/translate.py [--full] [--command]
    (--full: the one-at-a-time beam on the whole set; --command: the command's part only)
"""
import contextlib
import io
import os
import random
import sys
import tempfile
import time

import torch

from _common import full_flag, progress, report

from illustrated.commands import translate as command
from illustrated.commands.common import torch_threads
from illustrated.decoding import beam_search
from illustrated.interop import fuse
from illustrated.translator.corpus import load_split
from illustrated.translator.inference import MAX_LEN, load_translator, prepare, translate
from illustrated.translator.limits import split_sentences

BEAM, ALPHA = 4, 0.6


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def cpu_timed(fn):
    """``(out, wall seconds, CPU seconds of this process)``."""
    c0 = time.process_time()
    out, wall = timed(fn)
    return out, wall, time.process_time() - c0


def run_command(path, argv=()):
    """``command.main(argv)`` with ``path`` on stdin; returns (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with open(path, encoding="utf-8") as stdin, contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        saved, sys.stdin = sys.stdin, stdin
        try:
            status = command.main(list(argv))
        finally:
            sys.stdin = saved
    return status, out.getvalue(), err.getvalue()


def command_vs_direct(rounds: int = 2):
    """The command on a file of the test sentences against translate() on them, alternating
    (command, direct, command, direct ...): the fastest of each."""
    src = [f for f, _ in load_split().test]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8", delete=False) as f:
        f.write("\n".join(src) + "\n")
    model, tok, _ = load_translator()
    model = fuse(model)  # as the command serves
    threads = 1  # the command's default --threads
    # The command cuts a line into sentences (4 test lines hold two): so does the direct call.
    cut = [split_sentences(line) for line in src]
    prepared = [prepare(s) for sentences in cut for s in sentences]
    run_command(f.name)  # warm-up: fills the training profile's cache, as a first use does
    times = {"command": [], "direct": []}
    cpu = {"command": [], "direct": []}
    for i in range(rounds):
        (status, out, err), t, c = cpu_timed(lambda: run_command(f.name))
        times["command"].append(t)
        cpu["command"].append(c)
        progress(2 * i + 1, 2 * rounds, f"command: {len(src)} lines in {t:.1f} s (status "
                 f"{status}, {len(err.splitlines())} lines on stderr)")
        with torch_threads(threads, default=None):  # as the command's --threads
            direct, t, c = cpu_timed(lambda: translate(model, tok, prepared))
        times["direct"].append(t)
        cpu["direct"].append(c)
        progress(2 * i + 2, 2 * rounds, f"direct translate(): {len(src)} sentences in {t:.1f} s")
    os.unlink(f.name)
    lines, english = out.splitlines(), iter(direct)
    joined = [" ".join(next(english) for _ in sentences) for sentences in cut]
    # sentences/s: wall clock, and per CPU second of the process (what an idle core gives)
    row = {"sentences": len(src), "command_sent_s": len(src) / min(times["command"]),
           "direct_sent_s": len(src) / min(times["direct"]),
           "command_over_direct": min(times["command"]) / min(times["direct"]),
           "command_sent_cpu_s": len(src) / min(cpu["command"]),
           "direct_sent_cpu_s": len(src) / min(cpu["direct"]),
           "lines_out": len(lines), "equal": sum(a == b for a, b in zip(lines, joined)),
           "threads": threads}
    report("translate_command", [row], list(row),
           note=f"python -m illustrated translate < test sentences (greedy, --threads "
                f"{threads}) vs translate() on them; fastest of {rounds}")


def main():
    if "--command" in sys.argv[1:]:
        return command_vs_direct()
    model, tok, _ = load_translator()
    model = fuse(model)  # what serves readers
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
    command_vs_direct()


if __name__ == "__main__":
    main()
