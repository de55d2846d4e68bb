"""``python -m illustrated generate``: the decoder-only model of chapter 13 writes English
after a prompt, greedily or by sampling. The live writer page does the same in the browser.

    python -m illustrated generate "The cat" --top-p 0.9 --seed 3
    python -m illustrated generate "" --samples 5          # five sentences from nothing
    python -m illustrated generate "I think" --greedy --steps

Each prompt (an argument, else each line of stdin) gives one line per sample: the prompt and
what the model wrote after it. ``--steps`` adds, after each line, each token the model
wrote with its probability under the model and after the settings, the uniform number ``u``
and the token's slice of ``[0, 1)`` when sampling, and the most likely tokens under both
distributions: what the live writer page shows at each step. A bad option or a
prompt that leaves no room gets a one-line message naming what was expected and what came.
A prompt is checked as the translator checks a sentence
(:func:`illustrated.translator.limits.check_prompt`): one with letters outside the Latin
alphabet is skipped (``skipped prompt N: ...``), one whose words are mostly French, or
with symbols no English training sentence has (an emoji), is written after a
``warning: prompt N: ...`` on stderr.
"""
from __future__ import annotations

import sys
from pathlib import Path

from ..shipped import WRITER
from . import PROGRAM
from .common import Parser, at_least, input_lines, plain_warnings, torch_threads

ALTERNATIVES = 3  # the most likely tokens --steps shows beside each written one
# The words of the refusals; the live writer page (_static/live/messages.mjs) says TOO_LONG
# and SEED too, word for word (tests/test_live_writer.py compares them). One sample has one
# seed, named alone (SEED): the page writes one sample, and has no --samples.
TOO_LONG = ("the prompt is {n} tokens long; the model writes at most {room} tokens in all, "
            "so it must be shorter than {room} tokens to leave room for one new token")
SEED = "the seed must be below 2**32, got --seed {seed}"
SEEDS = ("the seeds SEED..SEED+N-1 must be below 2**32, got --seed {seed} "
         "--samples {samples}")


def prompt_ids(tokenizer, text: str, max_len: int) -> list[int]:
    """``[bos, ids of the prompt's tokens...]``: the prompt as the corpus writes its text
    (:func:`~illustrated.translator.corpus.clean`: NFC, plain spaces, one apostrophe, stripped),
    without the ``<eos>`` the tokenizer adds (the model is to go on, not stop). An empty
    prompt is ``[bos]``: a sentence from nothing. Raises ``ValueError`` when the prompt
    leaves no room for one new token in ``max_len``."""
    from ..translator.corpus import clean

    text = clean(text)
    ids = tokenizer.encode(text)[:-1] if text else [tokenizer.bos_id]
    if len(ids) >= max_len:
        raise ValueError(TOO_LONG.format(n=len(ids) - 1, room=max_len - 1))
    return ids


def number(text: str) -> float:
    """argparse's ``type`` for a setting that is a number: ``float``, named so that a bad
    value reads "invalid number value: 'abc'"."""
    return float(text)


def whole_number(text: str) -> int:
    """argparse's ``type`` for top-k: ``int`` ("invalid whole number value: '1.5'")."""
    return int(text)


whole_number.__name__ = "whole number"


def parser(program: str = PROGRAM):
    """The ``generate`` command's options, as ``{program} generate --help`` lists them
    (``program``: how the package's entry names itself)."""
    p = Parser(prog=f"{program} generate",
               description="Write English after a prompt with the decoder-only model of "
               "the chapter The decoder alone, trained on the English sentences of the "
               "Tatoeba Project: short everyday sentences.")
    p.add_argument("prompts", nargs="*", metavar="PROMPT",
                   help="the start of an English sentence, one per argument; \"\" starts "
                   "from nothing (default: the lines of stdin)")
    p.add_argument("--greedy", action="store_true",
                   help="always take the most likely token (temperature 0; the "
                   "sampling settings are then ignored)")
    p.add_argument("--temperature", type=number, default=1.0, metavar="T",
                   help="divide the scores by T before the softmax: below 1 sharper, "
                   "above 1 flatter (default 1)")
    p.add_argument("--top-k", type=whole_number, default=0, metavar="K",
                   help="draw from the K most likely tokens only (default 0: all)")
    p.add_argument("--top-p", type=number, default=1.0, metavar="P",
                   help="after top-k, keep the fewest most likely tokens whose probabilities, "
                   "shared out again among those top-k kept, sum to P or more "
                   "(default 1: all)")
    p.add_argument("--seed", type=at_least(0), default=0,
                   help="the seed of the uniform numbers (the page's seed gives the page's "
                   "text; default 0)")
    p.add_argument("--samples", type=at_least(1), default=1, metavar="N",
                   help="N samples per prompt, with seeds SEED, SEED+1, ... (default 1)")
    p.add_argument("--max-new-tokens", type=at_least(1), default=40, metavar="N",
                   help="stop after N new tokens (default 40)")
    p.add_argument("--steps", action="store_true",
                   help="after each line, every written token with its probability under "
                   "the model and after the settings, u and its slice when sampling, and "
                   f"the {ALTERNATIVES} most likely tokens")
    p.add_argument("--checkpoint", default=str(WRITER), help="the model's file "
                   "(default: the shipped one, made by make checkpoint-lm)")
    p.add_argument("--threads", type=at_least(0), default=None, metavar="N",
                   help="CPU threads (default 1, or OMP_NUM_THREADS when set; 0: "
                   "PyTorch's default)")
    return p


def main(argv=None, program: str = PROGRAM) -> int:
    """The ``generate`` command (``program``: how the package's entry names itself, for the
    messages); returns the exit status."""
    options = parser(program)
    args = options.parse_args(argv)
    from ..decoder_only.sampling import check_sampling

    temperature = 0.0 if args.greedy else args.temperature
    try:
        check_sampling(temperature, args.top_k, args.top_p)
        if args.seed + args.samples - 1 >= 2**32:
            words = SEED if args.samples == 1 else SEEDS
            raise ValueError(words.format(seed=args.seed, samples=args.samples))
    except (TypeError, ValueError) as error:
        options.error(str(error))
    prompts = input_lines(args.prompts)
    with plain_warnings(), torch_threads(args.threads, lambda default: 1):
        try:
            return _write(args, prompts, temperature)
        except (ValueError, FileNotFoundError) as error:  # the file, named
            print(f"cannot write: {error}", file=sys.stderr)
            return 1


def _write(args, prompts, temperature) -> int:
    from ..decoder_only.sampling import generate
    from ..decoder_only.training import load_lm
    from ..translator.limits import check_prompt, training_profile

    if not Path(args.checkpoint).is_file():
        raise FileNotFoundError(f"no file {args.checkpoint}; make one with: "
                                f"make checkpoint-lm")
    model, tok, _ = load_lm(args.checkpoint)
    profile = training_profile({})  # the training split whose English the writer read
    status = 0
    for i, text in enumerate(prompts):
        try:
            verdict = check_prompt(text, profile)
            if verdict.refusal:
                raise ValueError(verdict.refusal)
            ids = prompt_ids(tok, text, model.config.max_len)
        except ValueError as error:
            print(f"skipped prompt {i + 1}: {error}", file=sys.stderr)
            status = 1
            continue
        for warning in verdict.warnings:
            print(f"warning: prompt {i + 1}: {warning}", file=sys.stderr)
        for seed in range(args.seed, args.seed + args.samples):
            trace = [] if args.steps else None
            new = generate(model, ids, args.max_new_tokens, temperature, args.top_k,
                           args.top_p, seed, trace=trace)
            print(tok.decode(ids + new))
            for step in trace or ():
                print(_step_line(tok, step, temperature > 0))
    return status


def _step_line(tok, step: dict, sampling: bool) -> str:
    """One step of a trace, as the live writer page shows it: the token written, its
    probability under the model and after the settings (temperature, top-k, top-p; greedy
    puts all on the most likely), the uniform number ``u`` and the token's slice of
    ``[0, 1)`` when sampling, and the model's most likely tokens under both."""
    model, drawn, chosen = step["model"], step["probs"], step["chosen"]
    line = (f"  {_token(tok, chosen):<14} model {percent(model[chosen])}, after the "
            f"settings {percent(drawn[chosen])}")
    if sampling:  # where u fell (greedy draws a u too, and ignores it)
        start, end = token_slice(drawn, chosen)
        line += f"; {slice_words(step['u'], start, end)}"
    best = sorted(range(len(model)), key=lambda i: (-model[i], i))[:ALTERNATIVES]
    others = ", ".join(f"{_token(tok, i)} {percent(model[i])} → {percent(drawn[i])}"
                       for i in best)
    return f"{line}  (most likely: {others})"


def percent(p: float) -> str:
    """A probability as the page shows it: one decimal, ``<0.1 %`` for a tiny non-zero one."""
    return "<0.1 %" if 0 < p < 0.0005 else f"{100 * p:.1f} %"


def token_slice(probs, chosen: int) -> tuple[float, float]:
    """The slice of ``[0, 1)`` that :func:`~illustrated.decoder_only.sampling.draw` gives
    token ``chosen``: the tokens end to end in id order, as ``draw`` walks them."""
    start = sum(probs[:chosen])  # the mass of the lower ids, added in id order
    return start, start + probs[chosen]


def slice_words(u: float, start: float, end: float) -> str:
    """``u = 0.4562 ∈ [0.4540, 0.4571)``: four decimals, six when the slice is narrower
    than 0.001 (so its two ends differ on the page)."""
    d = 4 if end - start >= 1e-3 else 6
    return f"u = {u:.{d}f} ∈ [{start:.{d}f}, {end:.{d}f})"


def _token(tok, i: int) -> str:
    """A token as the book shows it (``▁`` for a word start, ``<eos>`` by name)."""
    from ..translator.inference import pieces

    return pieces(tok, [i])[0]
