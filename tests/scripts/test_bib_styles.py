"""scripts/bib_styles.py: entries with a shorthand are labelled by it, others alpha-style."""
from pathlib import Path

from bib_styles import ShorthandLabelStyle
from pybtex.database import parse_file
from pybtex.style.sorting.author_year_title import SortingStyle

ROOT = Path(__file__).resolve().parents[2]


def test_sources_are_labelled_by_their_shorthand():
    bib = parse_file(ROOT / "references.bib")
    entries = SortingStyle().sort(bib.entries.values())
    labels = dict(zip((e.key for e in entries), ShorthandLabelStyle().format_labels(entries)))
    for n in range(5):
        assert labels[f"source00{n}"] == f"Source 00{n}"
    assert labels["vaswani2017attention"] == "VSP+17"
    assert len(set(labels.values())) == len(labels), "two entries share a label"


def test_the_chinese_edition_labels_sources_in_its_own_word():
    import types

    import bib_styles

    bib = parse_file(ROOT / "references.bib")
    entries = SortingStyle().sort(bib.entries.values())
    try:
        bib_styles._language(None, types.SimpleNamespace(language="zh_CN"))
        labels = dict(zip((e.key for e in entries), ShorthandLabelStyle().format_labels(entries)))
        assert labels["source004"] == "资料 004" and labels["vaswani2017attention"] == "VSP+17"
    finally:
        bib_styles._language(None, types.SimpleNamespace(language="en"))
    assert bib_styles.shorthand("Source 004") == "Source 004"
