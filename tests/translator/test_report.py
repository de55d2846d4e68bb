"""illustrated.translator.report: the files a report names, from any folder, and the shipped
translator's committed report (chapters/data/tatoeba/evaluation.json), which names them as
``python -m illustrated evaluate`` would write them today. The report's contents are tested
through the command (tests/commands/test_evaluate.py)."""
import json
from pathlib import Path

from illustrated.shipped import PAIRS, PROBE, TRANSLATOR
from illustrated.translator.report import named_path

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "chapters" / "data" / "tatoeba" / "evaluation.json"


def test_the_package_files_are_named_from_the_package_wherever_it_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert named_path(PAIRS) == "illustrated/shipped/tatoeba/eng-fra.tsv"
    assert named_path(PROBE) == "illustrated/shipped/probe.tsv"
    elsewhere = tmp_path / "mine.pt"
    assert named_path(elsewhere) == str(elsewhere) and named_path("mine.pt") == str(elsewhere)


def test_the_committed_report_names_the_shipped_files():
    report = json.loads(REPORT.read_text(encoding="utf-8"))
    assert report["checkpoint"] == named_path(TRANSLATOR)
    assert report["test"]["corpus"] == named_path(PAIRS)
    assert report["probe"]["file"] == named_path(PROBE)
