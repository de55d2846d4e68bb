import io

import pytest

from illustrated import translate
from illustrated.translate import SHIPPED, main


def test_without_checkpoint_says_how(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(translate, "SHIPPED", tmp_path / "absent.pt")
    assert main(["je suis étudiant"]) == 1
    assert "python -m illustrated.train" in capsys.readouterr().err


def test_missing_file_named(tmp_path, capsys):
    assert main(["merci", "--checkpoint", str(tmp_path / "nope.pt")]) == 1
    assert "nope.pt" in capsys.readouterr().err


needs_shipped = pytest.mark.skipif(not SHIPPED.exists(), reason="no shipped checkpoint")


@needs_shipped
@pytest.mark.parametrize("beam", [[], ["--beam", "3"]], ids=["greedy", "beam"])
def test_shipped_translator(tmp_path, monkeypatch, capsys, beam):
    monkeypatch.chdir(tmp_path)  # no checkpoints/ here: falls back to the shipped file
    assert main(["je suis étudiant", "merci", *beam]) == 0
    assert capsys.readouterr().out.splitlines() == ["i am a student", "thanks"]


@needs_shipped
def test_sentences_from_stdin(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("je vois un chat noir\n\nbonjour\n"))
    assert main([]) == 0
    assert capsys.readouterr().out.splitlines() == ["i see a black cat", "hello"]
