"""``python -m illustrated.translate "je suis étudiant"``: translate with the latest
checkpoint in ``checkpoints/`` (or ``--checkpoint``; without either, the translator the
repository ships in ``chapters/data/``), greedy or ``--beam N``."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .decoding import beam_search
from .train import load_checkpoint, translate_ids


def latest_checkpoint(folder="checkpoints"):
    """The most recently written ``*.pt`` file in ``folder``, or ``None``."""
    files = sorted(Path(folder).glob("*.pt"), key=lambda p: p.stat().st_mtime)
    return files[-1] if files else None


# The checkpoint the chapters load (``make checkpoint`` regenerates it); present in a
# clone of the repository, absent from an installed wheel.
SHIPPED = Path(__file__).resolve().parents[1] / "chapters" / "data" / "translator.pt"


def main(argv=None):
    """The ``python -m illustrated.translate`` command; returns the exit status."""
    p = argparse.ArgumentParser(description="Translate French sentences to English.")
    p.add_argument("sentences", nargs="*", help="sentences (default: one per line on stdin)")
    p.add_argument("--checkpoint", default=None, help="file (default: latest in checkpoints/)")
    p.add_argument("--beam", type=int, default=0, help="beam size (default: greedy)")
    args = p.parse_args(argv)
    path = args.checkpoint or latest_checkpoint() or (SHIPPED if SHIPPED.exists() else None)
    if path is None or not Path(path).exists():
        print(f"no checkpoint found ({args.checkpoint or 'checkpoints/ is empty'});"
              " make one with: python -m illustrated.train", file=sys.stderr)
        return 1
    model, sv, tv = load_checkpoint(path)
    sentences = args.sentences or [s for s in sys.stdin.read().splitlines() if s.strip()]
    for s in sentences:
        if args.beam > 0:
            src = translate_src(sv, s)
            (tokens, _), = beam_search(model, src, 32, tv.bos_id, tv.eos_id, args.beam)
            print(tv.decode(tokens))
        else:
            print(translate_ids(model, sv, tv, [s])[0])
    return 0


def translate_src(sv, sentence):
    """One sentence as a ``(1, S)`` tensor of source ids."""
    import torch
    return torch.tensor([sv.encode(sentence)])  # (1, S)


if __name__ == "__main__":
    sys.exit(main())
