"""Training the toy translator: the paper's learning-rate schedule
(:func:`illustrated.schedule.rate`), a teacher-forced training loop with a tqdm progress
bar, atomic checkpoints. ``python -m illustrated.train`` trains with the defaults, saves a
checkpoint and prints the held-out scores.

The command prints what it read and wrote (the corpus, the checkpoint's path); its progress
bar is shown on a terminal only, so a redirected log stays short; warnings are one plain
line, a bad option a one-line message (exit status 2).
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import os
import random
import time
from typing import Callable

from ._cli import Parser, at_least, idle_cores, passive_waits, plain_warnings, torch_threads

if __name__ == "__main__":  # the command: before torch loads OpenMP, which reads it once
    passive_waits()

import torch  # noqa: E402
import tqdm  # noqa: E402
from torch import nn  # noqa: E402

from .checkpoint import read_checked, write_atomically
from .data import FIXED, Vocab, make_batch, split_pairs
from .decoding import greedy_decode
from .loss import LabelSmoothingLoss
from .model import ModelConfig, Transformer
from .schedule import rate

FORMAT = "illustrated-translator-1"


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    seed: int = 0  # data split, initial weights and batch order
    steps: int = 1200  # optimiser steps
    batch_size: int = 64  # sentence pairs per step
    warmup: int = 200  # warm-up steps of the schedule
    factor: float = 1.0  # scale of the schedule
    smoothing: float = 0.1  # label smoothing eps
    d_model: int = 64
    N: int = 2
    h: int = 4
    d_ff: int = 128
    dropout: float = 0.1


def train(cfg: TrainConfig = TrainConfig(), progress: bool | None = True,
          model_factory: Callable[[ModelConfig, torch.Generator], nn.Module] | None = None):
    """Train on the toy corpus. Returns ``(model, src_vocab, tgt_vocab, history, held_out)``.

    Args:
        cfg: the sizes and the schedule.
        progress: show a tqdm progress bar (``None``: only when stderr is a terminal).
        model_factory: builds the model to train, ``model_factory(config, generator)``
            with a :class:`~illustrated.model.ModelConfig` and the ``torch.Generator``
            seeded with ``cfg.seed`` for the initial weights. The model must take
            ``model(src, tgt_in, src_mask, tgt_mask)`` and return log-probabilities
            ``(B, T, tgt_vocab)``. Default: the package's
            :class:`~illustrated.model.Transformer` (the capstone trains the reader's
            own class this way).
    """
    if model_factory is None:
        model_factory = Transformer
    elif not callable(model_factory):
        raise TypeError(f"model_factory must be a callable (config, generator) -> "
                        f"nn.Module, e.g. a class, got {type(model_factory).__name__}")
    train_pairs, held = split_pairs(cfg.seed)
    # The vocabularies come from the training pairs only: a held-out word the
    # training pairs lack is <unk>, as it would be for a sentence never seen.
    sv = Vocab.build(s for s, _ in train_pairs)
    tv = Vocab.build(t for _, t in train_pairs)
    mc = ModelConfig(src_vocab=len(sv), tgt_vocab=len(tv), N=cfg.N, d_model=cfg.d_model,
                     d_ff=cfg.d_ff, h=cfg.h, dropout=cfg.dropout, max_len=64)
    gen = torch.Generator().manual_seed(cfg.seed)
    model = model_factory(mc, gen)
    if not isinstance(model, nn.Module):
        raise TypeError(f"model_factory(config, generator) must return an nn.Module, got "
                        f"{type(model).__name__}")
    # The sources' own sentences are single pairs among hundreds: repeat them so they stick.
    data = [(sv.encode(s), tv.encode(t)) for s, t in train_pairs + list(FIXED) * 20]
    crit = LabelSmoothingLoss(len(tv), 0, cfg.smoothing)
    opt, sched = paper_optimiser(model, cfg)
    rng = random.Random(cfg.seed)
    history = []
    state = torch.get_rng_state()
    torch.manual_seed(cfg.seed)  # dropout; restored below
    bar = tqdm.tqdm(range(cfg.steps), disable=None if progress is None else not progress,
                    desc="training")
    start = time.perf_counter()
    tokens = 0
    model.train()
    for _ in bar:
        chunk = rng.sample(data, min(cfg.batch_size, len(data)))
        b = make_batch([s for s, _ in chunk], [t for _, t in chunk])
        loss = train_step(model, b, crit, opt, sched)
        history.append(loss)
        tokens += int((b.tgt_out != 0).sum())
        bar.set_postfix(loss=f"{loss:.3f}",
                        tok_s=f"{tokens / (time.perf_counter() - start):.0f}")
    torch.set_rng_state(state)
    return model.eval(), sv, tv, history, held


def paper_optimiser(model, cfg):
    """Adam with the paper's betas and epsilon, and the paper's schedule.

    The optimiser's own rate is 1, and ``LambdaLR`` multiplies it by
    ``rate(step)`` at every step, so the rate in use is the schedule's.
    """
    opt = torch.optim.Adam(model.parameters(), lr=1.0,
                           betas=(0.9, 0.98), eps=1e-9)
    sched = torch.optim.lr_scheduler.LambdaLR(  # steps count from 1
        opt, lambda s: rate(s + 1, cfg.d_model, cfg.warmup, cfg.factor))
    return opt, sched


def train_step(model, batch, criterion, opt, sched):
    """One teacher-forced step on one batch; returns the loss (a float).

    The decoder reads ``batch.tgt_in`` (``<bos>`` w1 ... wn) and is scored
    on ``batch.tgt_out`` (w1 ... wn ``<eos>``), every position at once.
    """
    logp = model(batch.src, batch.tgt_in, batch.src_mask,
                 batch.tgt_mask)  # (B, T, V) log-probabilities
    loss = criterion(logp, batch.tgt_out)  # mean over non-pad targets
    opt.zero_grad()  # gradients add up: clear the last step's
    loss.backward()  # the gradient of the loss for every weight
    opt.step()  # Adam moves the weights
    sched.step()  # the next step's learning rate
    return loss.item()


def translate_ids(model, sv, tv, sentences, max_len=32):
    """Greedy translations (strings) of a list of source sentences."""
    src = make_batch([sv.encode(s) for s in sentences], [[1, 2]] * len(sentences)).src
    out = greedy_decode(model, src, max_len, tv.bos_id, tv.eos_id)
    return [tv.decode(row) for row in out]


def save_checkpoint(path, model, sv, tv, history=()):
    """Write atomically (:func:`illustrated.checkpoint.write_atomically`)."""
    blob = {"format": FORMAT, "config": dataclasses.asdict(model.config),
            "src_vocab": sv.itos, "tgt_vocab": tv.itos, "history": list(history),
            "state_dict": model.state_dict()}
    return write_atomically(blob, path)


def load_checkpoint(path):
    """Returns ``(model, src_vocab, tgt_vocab)``; a damaged file or one of another shape
    raises ``ValueError`` naming the file."""
    blob = read_checked(path, FORMAT, "translator checkpoint")
    model = Transformer(ModelConfig(**blob["config"]))
    try:
        model.load_state_dict(blob["state_dict"])
    except RuntimeError as e:
        raise ValueError(f"{path}: weights do not fit the config {blob['config']}: {e}") from None
    sv, tv = Vocab([]), Vocab([])
    sv.itos, tv.itos = blob["src_vocab"], blob["tgt_vocab"]
    sv.stoi = {w: i for i, w in enumerate(sv.itos)}
    tv.stoi = {w: i for i, w in enumerate(tv.itos)}
    return model.eval(), sv, tv


def _parser():
    p = Parser(
        prog="python -m illustrated.train",
        description="Train a French->English translator: the toy grammar (default; the "
        "model of chapters 10-11) or the Tatoeba corpus (--corpus tatoeba; the chapter Real "
        "sentences). Several processes: torchrun --nproc_per_node N -m illustrated.train "
        "--corpus tatoeba ...")
    p.add_argument("--corpus", choices=["toy", "tatoeba"], default="toy",
                   help="toy: the grammar of illustrated.data (32 s measured on a quiet "
                   "2-core CPU); tatoeba: the Tatoeba pairs (16 minutes on a quiet 2-core CPU)")
    p.add_argument("--steps", type=at_least(1), default=None,
                   help=f"optimiser steps, each on one batch (default {TrainConfig.steps} "
                   "for toy; RealConfig.steps for tatoeba)")
    p.add_argument("--seed", type=int, default=0,
                   help="the random seed of the initial weights, the train/held-out split "
                   "and the batch order; the same seed gives the same model (default 0)")
    p.add_argument("--out", default=None, help="checkpoint file to write (default "
                   "checkpoints/translator-<time>.pt, or checkpoints/real-<time>.pt)")
    p.add_argument("--threads", type=at_least(0), default=None, metavar="N",
                   help="CPU threads (default: OMP_NUM_THREADS when it is set, else the cores "
                   "that the last minute's load average left idle, at least 1; 0: PyTorch's "
                   "default). On a busy CPU, threads that wait for each other are slower "
                   "than one. The same seed and the same threads give the same model")
    real = p.add_argument_group("tatoeba only")
    real.add_argument("--max-tokens", type=at_least(1), default=None,
                      help="token budget of a step's global batch (default RealConfig's)")
    real.add_argument("--warmup", type=at_least(1), default=None,
                      help="warm-up steps of the learning-rate schedule (default RealConfig's)")
    real.add_argument("--factor", type=float, default=None,
                      help="scale of the learning-rate schedule (default the preset's)")
    real.add_argument("--limit", type=at_least(0), default=0,
                      help="train on the first N training pairs only (0: all)")
    real.add_argument("--preset", choices=["laptop", "base"], default="laptop",
                      help="laptop: d_model 256, N 2, minutes on a CPU (default); base: the "
                      "paper's base sizes, d_model 512, N 6, 8 heads (a GPU)")
    real.add_argument("--tiny", action="store_true",
                      help="a 1-layer, 32-wide model without dropout (tests, smoke runs)")
    real.add_argument("--device", default=None,
                      help="cpu, cuda or mps (default: the best available)")
    real.add_argument("--amp", action=argparse.BooleanOptionalAction, default=None,
                      help="mixed precision, bfloat16 (default: on where it is native: a "
                      "GPU, or a CPU with AVX-512 BF16 or AMX)")
    real.add_argument("--compile", action="store_true",
                      help="train through torch.compile (off by default): for a GPU; on a "
                      "CPU the compiling outweighs the gain")
    real.add_argument("--state", default="checkpoints/real-state.pt",
                      help="the resumable training state, rewritten atomically every "
                      "--save-every steps (default %(default)s)")
    real.add_argument("--save-every", type=at_least(1), default=None,
                      help="steps between two writes of --state (default RealConfig's)")
    real.add_argument("--resume", action="store_true",
                      help="continue from --state (after Ctrl-C or a killed process)")
    real.add_argument("--stop-after", type=at_least(1), default=None,
                      help="stop after this many steps, as if interrupted (then --resume)")
    real.add_argument("--new-tokenizer", action="store_true",
                      help="train the BPE tokenizer on the training split and save it to "
                      "chapters/data/tatoeba/tokenizer.json first")
    real.add_argument("--tokens", choices=["bpe", "word"], default="bpe",
                      help="bpe: the shipped subword tokenizer (default); word: a word-level "
                      "vocabulary of the 8,000 most frequent words, trained on the spot, to "
                      "compare the two by held-out BLEU")
    real.add_argument("--eval", choices=["dev", "test", "none"], default="test",
                      help="held-out set scored at the end (default %(default)s)")
    real.add_argument("--eval-limit", type=at_least(0), default=0,
                      help="score only the first N held-out pairs (0: all)")
    real.add_argument("--no-progress", action="store_true",
                      help="no progress bar (it is shown on a terminal only anyway)")
    return p


def main(argv=None):
    """The ``python -m illustrated.train`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    with plain_warnings(), _threads(args.threads):
        try:
            if args.corpus == "tatoeba":
                return _main_real(args)
            return _main_toy(args)
        except OSError as error:  # e.g. --out in a folder that cannot be written
            print(f"python -m illustrated.train: {error}", file=sys.stderr)
            return 1


def _threads(n: int | None):
    """torch's threads while training: ``n``, or the cores the load leaves idle
    (:func:`illustrated._cli.idle_cores`), at most torch's default."""
    return torch_threads(n, lambda default: min(default, idle_cores()))


def _main_toy(args):
    import sacrebleu  # here, not at import time

    cfg = TrainConfig(seed=args.seed, steps=args.steps or TrainConfig.steps)
    train_pairs, held = split_pairs(cfg.seed)
    print(f"read: the toy grammar's sentence pairs (illustrated.data): {len(train_pairs)} "
          f"to train on, {len(held)} held out; {_plural(cfg.steps, 'step')} on "
          f"{_plural(torch.get_num_threads(), 'CPU thread')}", flush=True)
    t0 = time.perf_counter()
    model, sv, tv, history, held = train(cfg, progress=None)
    seconds = time.perf_counter() - t0
    out = args.out or f"checkpoints/translator-{time.strftime('%Y%m%d-%H%M%S')}.pt"
    path = save_checkpoint(out, model, sv, tv, history)
    print(f"wrote: {path} (translate with it: python -m illustrated.translate --toy "
          f"--checkpoint {path})", flush=True)
    hyps = translate_ids(model, sv, tv, [s for s, _ in held])
    refs = [t for _, t in held]
    exact = sum(h == r for h, r in zip(hyps, refs)) / len(refs)
    bleu = sacrebleu.corpus_bleu(hyps, [refs]).score
    print(f"held-out: exact_match={exact:.3f} bleu={bleu:.1f} seconds={seconds:.1f}")
    return 0


def _main_real(args):
    from .corpus import TSV, load_split
    from .limits import TrainingProfile
    from .names import copy_probe, copy_rate
    from .tokenizer import TOKENIZER_FILE, SubwordTokenizer
    from .trainer import PRESETS, train_real
    from .translator import save_translator, translate

    over = {k: v for k, v in dict(steps=args.steps, max_tokens=args.max_tokens,
                                  warmup=args.warmup, factor=args.factor,
                                  save_every=args.save_every).items()
            if v is not None}
    if args.tiny:
        over.update(d_model=32, N=1, h=2, d_ff=64, dropout=0.0)
    cfg = dataclasses.replace(PRESETS[args.preset], seed=args.seed, limit=args.limit, **over)
    split = load_split(seed=args.seed)
    if int(os.environ.get("RANK", "0")) == 0:
        print(f"read: {_rel(TSV)}: {len(split.train)} pairs to train on, {len(split.dev)} "
              f"dev, {len(split.test)} test; {args.preset} preset, {cfg.steps} steps; "
              f"{_plural(torch.get_num_threads(), 'CPU thread')}", flush=True)
    if args.tokens == "word":  # an experiment: kept in its checkpoint, never saved alone
        tok = SubwordTokenizer.train_words([x for pair in split.train for x in pair])
    else:
        if args.new_tokenizer:
            tok = SubwordTokenizer.train([x for pair in split.train for x in pair])
            tok.save(TOKENIZER_FILE)
        tok = SubwordTokenizer.load(TOKENIZER_FILE)
    t0 = time.perf_counter()
    dev = split.dev[:args.eval_limit] if args.eval_limit else split.dev
    model, log = train_real(cfg, split.train, tok, args.state, args.resume, args.device,
                            args.amp, False if args.no_progress else None, args.stop_after,
                            dev_pairs=dev if args.eval != "none" else (),
                            compile=args.compile)
    seconds = time.perf_counter() - t0
    if len(log.loss) < cfg.steps:
        print(f"stopped after {len(log.loss)} of {cfg.steps} steps; the training state is in "
              f"{args.state}: continue with --resume")
        return 0
    if int(os.environ.get("RANK", "0")) != 0:
        return 0
    held = {"dev": split.dev, "test": split.test, "none": []}[args.eval]
    held = held[:args.eval_limit] if args.eval_limit else held
    scores = {"seconds": round(seconds, 1), "steps": cfg.steps}
    if held:
        from .evaluation import corpus_scores

        src, refs = [f for f, _ in held], [e for _, e in held]
        greedy = corpus_scores(translate(model, tok, src), refs)
        beam = corpus_scores(translate(model, tok, src, beam=4), refs)
        scores.update(set=args.eval, sentences=len(held), bleu=greedy["bleu"],
                      beam_bleu=beam["bleu"], chrf=greedy["chrf"], beam_chrf=beam["chrf"],
                      bleu_signature=greedy["bleu_signature"],
                      chrf_signature=greedy["chrf_signature"])
        probe = copy_probe(held, split.train)
        scores["names_copied"] = copy_rate(translate(model, tok, [f for f, _, _ in probe]),
                                           probe)
        scores["names_probe"] = len(probe)
        if log.last is not None:  # the same model before the checkpoint averaging
            from .model import Transformer

            last = Transformer(model.config)
            last.load_state_dict(log.last)
            last.eval()
            scores["unaveraged_bleu"] = corpus_scores(translate(last, tok, src), refs)["bleu"]
            scores["unaveraged_beam_bleu"] = corpus_scores(
                translate(last, tok, src, beam=4), refs)["bleu"]
    out = args.out or f"checkpoints/real-{time.strftime('%Y%m%d-%H%M%S')}.pt"
    trained_on = split.train[:cfg.limit] if cfg.limit else split.train
    path = save_translator(out, model, tok, history=log.loss, curve=log.curve, scores=scores,
                           train_config=dataclasses.asdict(cfg), preset=args.preset,
                           profile=TrainingProfile.from_pairs(trained_on).to_json())
    print(f"wrote: {path} (python -m illustrated.translate --checkpoint {path} uses it)")
    if held:
        print("held-out: " + " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                                      for k, v in scores.items() if "signature" not in k))
    return 0


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _rel(path) -> str:
    """``path`` relative to the current folder when it is inside it, for messages."""
    from pathlib import Path

    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main())
