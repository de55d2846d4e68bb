"""scripts/bib_styles.py: entries with a shorthand are labelled by it, others alpha-style."""
import sys
from pathlib import Path

from pybtex.database import parse_file
from pybtex.style.sorting.author_year_title import SortingStyle

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from bib_styles import ShorthandLabelStyle  # noqa: E402


def test_sources_are_labelled_by_their_shorthand():
    bib = parse_file(ROOT / "references.bib")
    entries = SortingStyle().sort(bib.entries.values())
    labels = dict(zip((e.key for e in entries), ShorthandLabelStyle().format_labels(entries)))
    for n in range(5):
        assert labels[f"source00{n}"] == f"Source 00{n}"
    assert labels["vaswani2017attention"] == "VSP+17"
    assert len(set(labels.values())) == len(labels), "two entries share a label"
