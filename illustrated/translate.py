"""``python -m illustrated.translate "je suis étudiant"``: translate French to English with
the real translator the repository ships (``chapters/data/tatoeba/translator.pt``, trained
on the Tatoeba pairs by ``make checkpoint-real``), or with the toy one of chapters 10–11
(``--toy``: the latest ``checkpoints/translator-*.pt``, else the shipped
``chapters/data/translator.pt``). Greedy, or ``--beam N``; ``--attention`` prints where each
English piece looked in the French sentence; ``--vocab`` lists the words the toy translator
knows.

Input: sentences as arguments or, without any, the lines of stdin; a line may hold several
sentences. Translations go to stdout, one line per sentence; everything else to stderr: the
checkpoint read, and one-line messages. Empty input, a sentence over the length limit and
text in another script are refused with a message (exit status 1); a bad option gets a
one-line message (exit status 2). Text that does not look like French to the real
translator, or words the toy translator does not know (most of a sentence: its translation
is a guess), are translated with a one-line warning.
"""
from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

from ._cli import Parser, at_least, plain_warnings
from .data import tokenize
from .decoding import beam_search
from .train import load_checkpoint, translate_ids

# The toy checkpoint the chapters 10-11 load (``make checkpoint`` regenerates it); present in
# a clone of the repository, absent from an installed wheel.
SHIPPED = Path(__file__).resolve().parents[1] / "chapters" / "data" / "translator.pt"
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
_FOREIGN = re.compile(r"[^\W\d_]")  # a letter; checked against the Latin blocks below


def _shown(path) -> str:
    """``path`` relative to the current folder when it is inside it, for messages."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def latest_checkpoint(folder="checkpoints", pattern="translator-*.pt"):
    """The most recently written file matching ``pattern`` in ``folder``, or ``None``."""
    files = sorted(Path(folder).glob(pattern), key=lambda p: p.stat().st_mtime)
    return files[-1] if files else None


def _parser():
    p = Parser(
        prog="python -m illustrated.translate",
        description="Translate French sentences to English with the real translator "
        "(Tatoeba) the repository ships, or the toy one of chapters 10-11 (--toy).")
    p.add_argument("sentences", nargs="*",
                   help="French text, one or more sentences per argument (default: the "
                   "lines of stdin)")
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
                   "French words; the real one reads subword pieces)")
    return p


def non_latin(text: str) -> list[str]:
    """The letters of ``text`` outside the Latin script (e.g. Cyrillic, Chinese)."""
    import unicodedata

    return [c for c in _FOREIGN.findall(text) if "LATIN" not in unicodedata.name(c, "")]


def main(argv=None):
    """The ``python -m illustrated.translate`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    with plain_warnings():
        if args.vocab:
            sentences = []
        else:
            texts = args.sentences or sys.stdin.read().splitlines()
            sentences = [s for t in texts for s in _SENTENCE_END.split(t.strip()) if s.strip()]
            if not sentences:
                print("nothing to translate: give French sentences as arguments or on stdin, "
                      "e.g. python -m illustrated.translate \"je suis étudiant\"",
                      file=sys.stderr)
                return 1
        try:
            if args.toy or (args.checkpoint and _is_toy(args.checkpoint)):
                return _toy(args, sentences)
            return _real(args, sentences)
        except ValueError as error:  # a damaged or foreign checkpoint, named by the loader
            print(f"cannot translate: {error}", file=sys.stderr)
            return 1


def _is_toy(path) -> bool:
    import torch

    try:
        return torch.load(path, weights_only=True).get("format") == "illustrated-translator-1"
    except Exception:
        return False  # the real loader names the problem


def _toy(args, sentences):
    path = args.checkpoint or latest_checkpoint() or (SHIPPED if SHIPPED.exists() else None)
    if path is None or not Path(path).exists():
        print(f"no checkpoint found ({args.checkpoint or 'checkpoints/ is empty'});"
              " make one with: python -m illustrated.train", file=sys.stderr)
        return 1
    model, sv, tv = load_checkpoint(path)
    print(f"toy translator: {_shown(path)}", file=sys.stderr)
    if args.vocab:
        known = toy_vocabulary(sv)
        print(f"The toy translator knows {len(known)} French words "
              f"(lower case; any other word is read as <unk>):")
        print(" ".join(known))
        return 0
    status = 0
    for s in sentences:
        problem = _toy_problem(s, model.config.max_len)
        if problem:
            print(f"skipped {s[:60]!r}: {problem}", file=sys.stderr)
            status = 1
            continue
        _warn_unknown(s, sv)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the unknown words were named just above
            if args.beam > 1:
                src = translate_src(sv, s)
                (tokens, _), = beam_search(model, src, 32, tv.bos_id, tv.eos_id, args.beam)
                print(tv.decode(tokens))
            else:
                print(translate_ids(model, sv, tv, [s])[0])
    return status


def toy_vocabulary(sv) -> list[str]:
    """The words and marks of the toy translator's source vocabulary, sorted, without the
    special tokens (``<pad>``, ``<bos>``, ``<eos>``, ``<unk>``)."""
    return sorted(w for w in sv.itos if not (w.startswith("<") and w.endswith(">")))


def _toy_problem(sentence, max_len):
    """Why the toy translator cannot take ``sentence``, or ``None``."""
    words = tokenize(sentence)
    if not words:
        return "no words in it"
    if len(words) + 2 > max_len:
        return (f"too long: {len(words)} words, the limit is {max_len - 2}; split it into "
                f"shorter sentences")
    return None


def _warn_unknown(sentence, sv):
    """One line naming the words the toy translator does not know; when they are most of
    the sentence, say that its translation is a guess."""
    words = tokenize(sentence)
    unknown = [w for w in words if w not in sv.stoi]
    if not unknown:
        return
    names = ", ".join(dict.fromkeys(unknown))
    if 2 * len(unknown) > len(words):
        print(f"warning: most of {sentence[:60]!r} is unknown to the toy translator "
              f"({len(unknown)} of {len(words)} words: {names}); the translation below is "
              f"a guess (--vocab lists the words it knows)", file=sys.stderr)
    else:
        print(f"warning: unknown to the toy translator, read as <unk>: {names}",
              file=sys.stderr)


def _real(args, sentences):
    from .translator import MAX_LEN, SHIPPED_REAL, load_translator, prepare, translate

    path = Path(args.checkpoint or SHIPPED_REAL)
    if not path.exists():
        print(f"no checkpoint {path}; make one with: make checkpoint-real", file=sys.stderr)
        return 1
    model, tok, _ = load_translator(path)
    print(f"real translator: {_shown(path)}", file=sys.stderr)
    if args.vocab:
        print(f"The real translator reads subword pieces, not words: {len(tok):,} pieces "
              f"learned from its French and English training sentences, enough to spell "
              f"any French sentence (python -m illustrated.translate --toy --vocab lists "
              f"the toy translator's words).")
        return 0
    status = 0
    for s in sentences:
        problem = _problem(s, tok, MAX_LEN)
        if problem:
            print(f"skipped {s[:60]!r}: {problem}", file=sys.stderr)
            status = 1
            continue
        _warn_if_not_french(s)
        text = prepare(s)
        english, = translate(model, tok, [text], beam=args.beam if args.beam > 1 else 0)
        print(english)
        if args.attention:
            print(attention_table(model, tok, text, english))
    return status


def _problem(sentence, tok, max_len):
    """Why ``sentence`` cannot be translated, or ``None``."""
    from .translator import prepare

    foreign = non_latin(sentence)
    if foreign:
        return (f"not French: letters outside the Latin alphabet ({''.join(foreign[:5])!r}); "
                f"the model has only read French")
    n = len(tok.encode(prepare(sentence)))
    if n > max_len:
        return (f"too long: {n} subword tokens, the limit is {max_len}; split it into "
                f"shorter sentences")
    return None


def _warn_if_not_french(sentence):
    from .corpus import load_pairs

    global _FRENCH
    if "_FRENCH" not in globals():
        _FRENCH = {w for f, _ in load_pairs() for w in re.findall(r"[^\W\d_]+", f)}
    words = re.findall(r"[^\W\d_]+", sentence.lower())
    known = sum(w in _FRENCH for w in words)
    if words and known * 2 < len(words):
        print(f"warning: {sentence[:60]!r} does not look like French ({known} of {len(words)} "
              f"words occur in the French training sentences); translating anyway",
              file=sys.stderr)


def attention_table(model, tok, french: str, english: str) -> str:
    """A text table: one row per English piece, one column per French piece, the
    cross-attention weight in hundredths (last decoder layer, mean over heads)."""
    from .translator import cross_attention

    w, src, tgt = cross_attention(model, tok, french, english)
    width = max(4, *(len(p) for p in src))
    left = max(len(p) for p in tgt)
    lines = [" " * left + " " + " ".join(p.rjust(width) for p in src)]
    for piece, row in zip(tgt, w):
        lines.append(piece.rjust(left) + " " + " ".join(
            f"{round(100 * float(x)):{width}d}" for x in row))
    return "\n".join(lines)


def translate_src(sv, sentence):
    """One sentence as a ``(1, S)`` tensor of source ids."""
    import torch
    return torch.tensor([sv.encode(sentence)])  # (1, S)


if __name__ == "__main__":
    sys.exit(main())
