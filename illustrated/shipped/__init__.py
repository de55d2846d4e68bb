"""The files the package ships and its commands read, one constant each: installed with the
package (package data), so that ``python -m illustrated translate`` works from any folder.
The chapters that made them load them too: the toy translator (chapters 10-11), the real
translator with its corpus and tokenizer (chapter 12), the writer (chapter 13).

``tatoeba/`` holds the Tatoeba sentence pairs and what is trained on them, under the pairs'
licence (CC BY 2.0 FR, ``tatoeba/LICENSE``; ``tatoeba/README.md`` says what each file is);
the toy translator and the probe set beside it are the book's own.

Each ``make checkpoint*`` target rewrites one of them (the Makefile says which).
"""
from __future__ import annotations

from pathlib import Path

#: This folder.
FOLDER = Path(__file__).resolve().parent
#: The English-French sentence pairs of the Tatoeba Project, ``English<TAB>French``
#: (chapter 12; :mod:`illustrated.translator.corpus` reads them).
PAIRS = FOLDER / "tatoeba" / "eng-fra.tsv"
#: The byte-level BPE tokenizer trained on the training split of :data:`PAIRS`.
TOKENIZER = FOLDER / "tatoeba" / "tokenizer.json"
#: The real French-to-English translator of chapter 12 (``make checkpoint-real``).
TRANSLATOR = FOLDER / "tatoeba" / "translator.pt"
#: The decoder-only model of chapter 13, the writer (``make checkpoint-lm``).
WRITER = FOLDER / "tatoeba" / "writer.pt"
#: The toy translator of chapters 10-11, trained on the toy grammar (``make checkpoint``).
TOY_TRANSLATOR = FOLDER / "toy_translator.pt"
#: The probe set of our own sentences (not Tatoeba's), ``kind<TAB>french<TAB>english``.
PROBE = FOLDER / "probe.tsv"
