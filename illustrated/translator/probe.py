"""The probe set of our own sentences (not Tatoeba's): its file, ``kind<TAB>french<TAB>english``
(:data:`illustrated.shipped.PROBE`), and its scores kind by kind, each kind a way a model
trained on short Tatoeba pairs fails. Introduced in the chapter Real sentences;
``python -m illustrated evaluate`` reports it.
"""
from __future__ import annotations

from pathlib import Path

from ..shipped import PROBE
from .inference import prepare, translate
from .scores import grouped_scores

#: The kinds of sentence the probe set holds, the control (``everyday``) first.
PROBE_KINDS = ("everyday", "long", "names", "topic", "register")


def load_probe(path=PROBE) -> list[tuple[str, str, str]]:
    """The probe set: ``(kind, french, english)`` rows of a ``kind<TAB>french<TAB>english``
    file with that header line; ``kind`` is one of :data:`PROBE_KINDS`."""
    rows = Path(path).read_text(encoding="utf-8").splitlines()
    if not rows or rows[0].split("\t") != ["kind", "french", "english"]:
        raise ValueError(f"{path}: the first line must be kind<TAB>french<TAB>english")
    out = []
    for n, line in enumerate(rows[1:], 2):
        cols = line.split("\t")
        if len(cols) != 3 or not all(c.strip() for c in cols):
            raise ValueError(f"{path}:{n}: expected kind<TAB>french<TAB>english, got "
                             f"{line!r:.80}")
        if cols[0] not in PROBE_KINDS:
            raise ValueError(f"{path}:{n}: kind must be one of {PROBE_KINDS}, got {cols[0]!r}")
        out.append(tuple(cols))
    return out


def probe_scores(model, tok, path=PROBE, beam: int = 0, resamples: int = 1000) -> dict:
    """Translate the probe set (:func:`load_probe`) and score it kind by kind.

    Returns:
        A dict whose ``kinds`` maps each kind to its
        :func:`~illustrated.translator.scores.grouped_scores` entry (sentences, share, BLEU,
        chrF and their intervals), ``translations`` lists the translations in the file's
        order. chrF is the one to read: a kind has about ten sentences, too few
        n-grams for a stable BLEU.
    """
    rows = load_probe(path)
    out = translate(model, tok, [prepare(f) for _, f, _ in rows], beam=beam)
    kinds = grouped_scores(out, [e for _, _, e in rows], [k for k, _, _ in rows], resamples)
    return {"kinds": kinds, "translations": out}
