from illustrated.translate import main


def test_without_checkpoint_says_how(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["je suis étudiant"]) == 1
    assert "python -m illustrated.train" in capsys.readouterr().err
