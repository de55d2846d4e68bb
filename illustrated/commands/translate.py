"""``python -m illustrated translate "je suis étudiant"``: translate French to English with
the real translator the package ships (:data:`illustrated.shipped.TRANSLATOR`, trained on
the Tatoeba pairs by ``make checkpoint-real``), or with the toy one of chapters 10–11
(``--toy``: the latest ``checkpoints/translator-*.pt``, else the shipped
:data:`illustrated.shipped.TOY_TRANSLATOR`). Greedy, or ``--beam N``; ``--attention``
prints where each English token looked in the French sentence; ``--vocab`` lists the words
the toy translator knows; the model computes on ``--threads`` CPU threads (default 1, or
``OMP_NUM_THREADS``).

**Input.** All of it is read first: the arguments, each one *line*, or without any the lines
of stdin. A line may hold several sentences (:func:`illustrated.translator.limits.split_sentences`).

**Checks.** The real translator checks each sentence by the rule the live page applies
too (:func:`illustrated.translator.limits.check_sentence`): a sentence without words, with letters
outside the Latin alphabet (each one named) or longer than the model reads is *refused*;
one longer than every French training sentence, with words or symbols that no training
sentence has, or with numbers (few training sentences have a digit), is translated with a
*warning*. A sentence ends at ``. ! ? …`` followed by a space, or at the Chinese and
Japanese ``。！？``. The toy translator refuses a sentence without words or over its length
limit, and warns about words it does not know.

**Output.** stdout holds one line per input line, in input order: the translations of the
line's sentences joined by one space; an empty input line, or one whose sentences were all
refused, gives an empty line. The real translator translates all the accepted sentences in
one batched call. With ``--attention``, each line is followed by the tables of its
sentences (a legend before the first). stderr holds everything else: the checkpoint read,
and one line per refusal, ``skipped line N, "...": why``, and per warning, ``warning: line
N, "...": what`` (N: the line of stdin, or the argument's number). The toy translator's
messages name the sentence alone (``skipped '...': why``); when it writes "not" for a
sentence with le or la and no ne ... pas, a note (once) says why: its grammar has le and la
only in negated sentences (``ARTICLE_NOTE``, chapter 10).

**Exit status.** 0; 1 when a sentence was refused, when there is nothing at all to
translate, or when the checkpoint is missing or unreadable; 2 for a bad option (a
one-line message).
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

from ..shipped import TOY_TRANSLATOR, TRANSLATOR
from ..translator.limits import check_sentence, split_sentences, training_profile
from . import PROGRAM
from .common import Parser, at_least, input_lines, plain_warnings, shown, torch_threads


LEGEND = ("Attention tables. Rows: the English tokens written; columns: the French tokens "
          "read; each cell is the cross-attention weight in % (last decoder layer, averaged "
          "over its heads); each row sums to 100, up to rounding.")


def latest_checkpoint(folder="checkpoints", pattern="translator-*.pt"):
    """The most recently written file matching ``pattern`` in ``folder``, or ``None``."""
    files = sorted(Path(folder).glob(pattern), key=lambda p: p.stat().st_mtime)
    return files[-1] if files else None


class _Parser(Parser):
    """The command's parser: its description, which reads the shipped checkpoint, is
    written only when the help is shown."""

    def format_help(self):
        self.description = _description()
        return super().format_help()


def _description() -> str:
    from ..translator.inference import load_translator

    try:
        profile = training_profile(load_translator(TRANSLATOR)[2])
    except (OSError, ValueError) as error:  # a missing or damaged shipped file
        return (f"Translate French to English with the real translator the package "
                f"ships, or the toy one of chapters 10-11 (--toy). What the real one was "
                f"trained on cannot be said here: {error}.")
    return (
        f"Translate French to English with the real translator the package ships, or the "
        f"toy one of chapters 10-11 (--toy). The real translator was trained on "
        f"{profile.pairs:,} French-English sentence pairs of the Tatoeba Project, short "
        f"everyday sentences: the longest French one has {profile.max_words} words, the "
        f"longest English one {profile.max_english_words}. It knows short everyday "
        f"sentences; longer sentences, names it never saw, rare words and other topics or "
        f"registers come out worse (the appendix Studying the translator measures this, in "
        f"its section Limits). Each input "
        f"line gives one output line; refusals and warnings go to stderr.")


def parser(program: str = PROGRAM):
    """The ``translate`` command's options, as ``{program} translate --help`` lists them
    (``program``: how the package's entry names itself)."""
    p = _Parser(prog=f"{program} translate", description="(computed)")
    p.add_argument("sentences", nargs="*",
                   help="French text, one line per argument, one or more sentences per line "
                   "(default: the lines of stdin)")
    p.add_argument("--toy", action="store_true",
                   help="the toy translator (its grammar's lower-case words only)")
    p.add_argument("--checkpoint", default=None,
                   help="a checkpoint file, real or toy (default: the shipped real one; with "
                   "--toy the latest checkpoints/translator-*.pt, else the shipped toy one)")
    p.add_argument("--beam", type=at_least(1), default=1, metavar="N",
                   help="beam search with N candidates (default 1: greedy decoding); real "
                   "model: length penalty 0.6")
    p.add_argument("--attention", action="store_true",
                   help="real model: print a table of the last decoder layer's "
                   "cross-attention (averaged over heads) for each sentence")
    p.add_argument("--vocab", action="store_true",
                   help="list the words the translator knows and stop (with --toy: its "
                   "French words; the real one reads subword tokens)")
    p.add_argument("--threads", type=at_least(0), default=None, metavar="N",
                   help="CPU threads of the model (default 1, or OMP_NUM_THREADS when it is "
                   "set: the model's small products gain little from more, and on a busy CPU "
                   "threads that wait for each other cost much more; 0: PyTorch's default)")
    return p


def main(argv=None, program: str = PROGRAM):
    """The ``translate`` command (``program`` is how the package's entry names itself, for
    the messages); returns the exit status."""
    args = parser(program).parse_args(argv)
    args.program = program
    with plain_warnings():
        lines = [] if args.vocab else input_lines(args.sentences)
        if not args.vocab and not any(split_sentences(line) for line in lines):
            print("nothing to translate: give French sentences as arguments or on stdin, "
                  f"e.g. {program} translate \"je suis étudiant\"",
                  file=sys.stderr)
            return 1
        try:
            if args.toy or (args.checkpoint and _is_toy(args.checkpoint)):
                return _toy(args, lines)
            return _real(args, lines)
        # a damaged or foreign checkpoint, or no corpus: the message names the file
        except (ValueError, FileNotFoundError) as error:
            print(f"cannot translate: {error}", file=sys.stderr)
            return 1


def _quote(sentence: str) -> str:
    return '"' + (sentence if len(sentence) <= 60 else sentence[:59] + "…") + '"'


def _threads(n: int | None):
    """torch's threads while translating: ``n``, or 1."""
    return torch_threads(n, lambda default: 1)


def _is_toy(path) -> bool:
    import torch

    try:
        return torch.load(path, weights_only=True).get("format") == "illustrated-translator-1"
    except Exception:
        return False  # the real loader names the problem


def _real(args, lines):
    from ..interop import fuse
    from ..translator.inference import (MAX_LEN, attention_table, load_translator, prepare,
                                        translate)

    path = Path(args.checkpoint or TRANSLATOR)
    if not path.exists():
        print(f"no checkpoint {path}; make one with: make checkpoint-real", file=sys.stderr)
        return 1
    model, tok, blob = load_translator(path)
    print(f"real translator: {shown(path)}", file=sys.stderr)
    if args.vocab:
        print(f"The real translator reads subword tokens, not words: {len(tok):,} tokens "
              f"learned from its French and English training sentences, enough to spell "
              f"any French sentence ({args.program} translate --toy --vocab lists "
              f"the toy translator's words).")
        return 0
    profile = training_profile(blob)
    status, accepted = 0, []  # accepted: (index of the line, the sentence prepared)
    for i, line in enumerate(lines):
        for s in split_sentences(line):
            text = prepare(s)  # "" for a sentence of invisible spaces, which has no words
            pieces = len(tok.encode(text)) if text else 0
            verdict = check_sentence(s, pieces, profile, MAX_LEN)
            where = f"line {i + 1}, {_quote(s)}"
            if verdict.refusal:
                print(f"skipped {where}: {verdict.refusal}", file=sys.stderr)
                status = 1
                continue
            for warning in verdict.warnings:
                print(f"warning: {where}: {warning}", file=sys.stderr)
            accepted.append((i, text))
    # The fast inference copy (illustrated.interop), unless the tables need the weights.
    fast = model if args.attention else fuse(model)
    with _threads(args.threads):
        english = translate(fast, tok, [text for _, text in accepted],
                            beam=args.beam if args.beam > 1 else 0)
        done = [[] for _ in lines]
        for (i, text), translation in zip(accepted, english):
            done[i].append((text, translation))
        legend = args.attention
        for pairs in done:
            print(" ".join(translation for _, translation in pairs))
            for text, translation in pairs if args.attention else ():
                if legend:
                    print(LEGEND)
                    legend = False
                print(attention_table(model, tok, text, translation))
    return status


# The toy translator of chapters 10-11: its own checks, one sentence at a time.
def _toy(args, lines):
    from ..training import load_checkpoint

    path = args.checkpoint or latest_checkpoint() or TOY_TRANSLATOR
    if not Path(path).exists():
        print(f"no checkpoint found ({args.checkpoint or 'checkpoints/ is empty'});"
              f" make one with: {args.program} train", file=sys.stderr)
        return 1
    model, sv, tv = load_checkpoint(path)
    print(f"toy translator: {shown(path)}", file=sys.stderr)
    if args.vocab:
        known = toy_vocabulary(sv)
        print(f"The toy translator knows {len(known)} French words "
              f"(lower case; any other word is read as <unk>):")
        print(" ".join(known))
        return 0
    status, noted = 0, False  # noted: ARTICLE_NOTE printed (once)
    with _threads(args.threads):
        for line in lines:
            english = []
            for s in split_sentences(line):
                problem = _toy_problem(s, model.config.max_len)
                if problem:
                    print(f"skipped {s[:60]!r}: {problem}", file=sys.stderr)
                    status = 1
                    continue
                _warn_unknown(s, sv)
                english.append(_toy_translate(model, sv, tv, s, args.beam))
                if not noted and negated_by_article(s, english[-1]):
                    print(ARTICLE_NOTE, file=sys.stderr)
                    noted = True
            print(" ".join(english))
    return status


# The toy grammar's quirk (chapter 10 explains it): le/la come only with ne ... pas.
ARTICLE_NOTE = ("note: the toy translator wrote \"not\" for a sentence without ne ... pas: "
                "in its grammar le and la occur only in negated sentences (\"je ne vois pas "
                "le chat\"), so it reads them as a negation (chapter 10 explains it)")


def negated_by_article(french: str, english: str) -> bool:
    """True when the toy translator's quirk shows: ``english`` says "not" for a French
    sentence that has le or la and no negation (ne, n', pas)."""
    from ..data import tokenize

    words = tokenize(french)
    negated = any(w in ("ne", "pas") or w.startswith(("n'", "n’")) for w in words)
    return bool({"le", "la"} & set(words)) and not negated and "not" in english.split()


def _toy_translate(model, sv, tv, sentence, beam):
    import torch

    from ..decoding import beam_search
    from ..training import translate_ids

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unknown words were named just before
        if beam > 1:
            src = torch.tensor([sv.encode(sentence)])  # (1, S)
            (tokens, _), = beam_search(model, src, 32, tv.bos_id, tv.eos_id, beam)
            return tv.decode(tokens)
        return translate_ids(model, sv, tv, [sentence])[0]


def toy_vocabulary(sv) -> list[str]:
    """The words and marks of the toy translator's source vocabulary, sorted, without the
    special tokens (``<pad>``, ``<bos>``, ``<eos>``, ``<unk>``)."""
    return sorted(w for w in sv.itos if not (w.startswith("<") and w.endswith(">")))


def _toy_problem(sentence, max_len):
    """Why the toy translator cannot take ``sentence``, or ``None``."""
    from ..data import tokenize

    found = tokenize(sentence)
    if not found:
        return "no words in it"
    if len(found) + 2 > max_len:
        return (f"too long: {len(found)} words, the limit is {max_len - 2}; split it into "
                f"shorter sentences")
    return None


def _warn_unknown(sentence, sv):
    """One line naming the words the toy translator does not know; when they are most of
    the sentence, say that its translation is a guess."""
    from ..data import tokenize

    found = tokenize(sentence)
    unknown = [w for w in found if w not in sv.stoi]
    if not unknown:
        return
    names = ", ".join(dict.fromkeys(unknown))
    if 2 * len(unknown) > len(found):
        print(f"warning: most of {sentence[:60]!r} is unknown to the toy translator "
              f"({len(unknown)} of {len(found)} words: {names}); the translation below is "
              f"a guess (--vocab lists the words it knows)", file=sys.stderr)
    else:
        print(f"warning: unknown to the toy translator, read as <unk>: {names}",
              file=sys.stderr)

