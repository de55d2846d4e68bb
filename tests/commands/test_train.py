"""``python -m illustrated train``: its options, its messages, the threads it takes, the toy
translator's run, and the real translator's (scored, interrupted and resumed)."""
import re

import pytest
import torch

from illustrated.commands.train import main


def test_help_says_what_the_seed_and_the_steps_are(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    text = capsys.readouterr().out
    assert exit_.value.code == 0
    text = " ".join(text.split())
    assert "random seed of the initial weights" in text and "optimiser steps, each" in text


def test_command_says_what_it_read_and_wrote(tmp_path, capsys):
    """Two steps of the toy model: the corpus read, the checkpoint written, the scores; no
    progress bar in captured (not a terminal) output."""
    out = tmp_path / "t.pt"
    assert main(["--steps", "2", "--out", str(out)]) == 0
    lines = capsys.readouterr()
    printed = lines.out.splitlines()
    assert printed[0].startswith("read: the toy grammar's sentence pairs (illustrated.data): ")
    assert re.search(r"held out; 2 steps on (1 CPU thread|\d+ CPU threads)$", printed[0])
    assert printed[1].startswith(f"wrote: {out} (translate with it: python -m "
                                 f"illustrated translate --toy --checkpoint {out})")
    assert printed[2].startswith("held-out: exact_match=") and len(printed) == 3
    assert out.is_file() and lines.err == ""  # no progress bar, no warning


def test_command_takes_the_idle_cores_unless_told(tmp_path, monkeypatch, request):
    """The command trains on the cores the load average leaves idle (at most torch's
    default), on OMP_NUM_THREADS' threads when it is set, on --threads N when given; torch's
    setting is restored afterwards. (The training itself is replaced: only the threads it
    would run on are recorded.)"""
    from illustrated.commands import train as command

    saved = torch.get_num_threads()
    torch.set_num_threads(2)  # a default that the idle cores' 1 can be told from
    request.addfinalizer(lambda: torch.set_num_threads(saved))
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(command, "idle_cores", lambda: 1)  # a busy machine
    seen = []
    monkeypatch.setattr(command, "_main_toy", lambda args: seen.append(torch.get_num_threads()))
    monkeypatch.setattr(command, "_main_real", lambda args: seen.append(torch.get_num_threads()))
    for argv, env in [([], None), (["--threads", "3"], None), (["--corpus", "tatoeba"], None),
                      ([], "2"), (["--threads", "0"], None)]:
        if env:
            monkeypatch.setenv("OMP_NUM_THREADS", env)
        command.main(argv)
        assert torch.get_num_threads() == 2
    assert seen == [1, 3, 1, 2, 2]


def test_command_cannot_write_is_one_line(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert main(["--steps", "1", "--out", str(tmp_path / "file" / "t.pt")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("python -m illustrated train: ")


def test_real_command_scores_with_sacrebleus_signatures(tmp_path, capsys, monkeypatch):
    """--corpus tatoeba ends with held-out BLEU and chrF by illustrated.translator.scores
    (sacreBLEU's defaults) of the greedy and the beam translations
    (illustrated.translator.report.held_out_scores), their signatures kept in the
    checkpoint."""
    import sacrebleu

    from illustrated.translator import report
    from illustrated.translator.corpus import load_split
    calls, real = [], report.translate

    def recorded(model, tok, sentences, beam=0, **kwargs):
        calls.append((list(sentences), beam, real(model, tok, sentences, beam=beam, **kwargs)))
        return calls[-1][2]
    monkeypatch.setattr(report, "translate", recorded)
    out = tmp_path / "t.pt"
    assert main(["--corpus", "tatoeba", "--tiny", "--limit", "100", "--steps", "1",
                 "--max-tokens", "300", "--eval-limit", "4", "--no-progress", "--no-amp",
                 "--device", "cpu", "--state", str(tmp_path / "s.pt"), "--out", str(out)]) == 0
    scores = torch.load(out, weights_only=True)["scores"]
    held = load_split().test[:4]
    refs = [[e for _, e in held]]
    assert scores["set"] == "test" and scores["sentences"] == 4
    # the first translations of the held-out sources: the averaged model's
    src = [f for f, _ in held]
    greedy = next(c for c in calls if c[:2] == (src, 0))
    beam = next(c for c in calls if c[:2] == (src, 4))
    assert scores["bleu"] == sacrebleu.corpus_bleu(greedy[2], refs).score
    assert scores["chrf"] == sacrebleu.corpus_chrf(greedy[2], refs).score
    assert scores["beam_bleu"] == sacrebleu.corpus_bleu(beam[2], refs).score
    assert scores["beam_chrf"] == sacrebleu.corpus_chrf(beam[2], refs).score
    assert scores["bleu_signature"] == ("nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|"
                                        "version:2.6.0")
    assert scores["chrf_signature"] == ("nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|"
                                        "version:2.6.0")
    assert 0 <= scores["unaveraged_bleu"] <= 100 and 0 <= scores["unaveraged_beam_bleu"] <= 100
    assert "held-out: " in capsys.readouterr().out


# python -m illustrated train --corpus tatoeba: interrupted, then resumed
REAL = ["--corpus", "tatoeba", "--tiny", "--limit", "200", "--steps", "6", "--max-tokens",
        "300", "--eval", "none", "--no-progress", "--device", "cpu", "--save-every", "200",
        "--no-amp"]


@pytest.fixture(scope="module")
def split_once():
    from illustrated.translator.corpus import load_split

    return load_split()


@pytest.fixture
def quick_split(split_once, monkeypatch):
    """The command splits the corpus at each call: the same split, computed once here."""
    monkeypatch.setattr("illustrated.translator.corpus.load_split", lambda seed=0: split_once)


def test_stop_after_then_resume_equals_one_run(tmp_path, quick_split, capsys):
    whole, part = tmp_path / "whole.pt", tmp_path / "part.pt"
    state = tmp_path / "state.pt"
    assert main([*REAL, "--state", str(tmp_path / "w-state.pt"), "--out", str(whole)]) == 0
    assert main([*REAL, "--state", str(state), "--out", str(part), "--stop-after", "3"]) == 0
    out = capsys.readouterr().out
    assert f"stopped after 3 of 6 steps; the training state is in {state}" in out
    assert not part.exists()  # nothing written but the state
    assert torch.load(state, weights_only=True)["step"] == 3  # saved at the stop, not at 200
    assert main([*REAL, "--state", str(state), "--out", str(part), "--resume"]) == 0
    a, b = (torch.load(p, weights_only=True) for p in (whole, part))
    assert len(a["history"]) == 6 and b["history"] == a["history"]
    assert a["state_dict"].keys() == b["state_dict"].keys()
    for k, v in a["state_dict"].items():
        assert torch.equal(v, b["state_dict"][k]), k


def test_resume_without_a_state_says_so_and_does_not_start_over(tmp_path, quick_split,
                                                               capsys):
    state, out = tmp_path / "missing.pt", tmp_path / "t.pt"
    assert main([*REAL, "--state", str(state), "--out", str(out), "--resume"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [f"python -m illustrated train: no training state to resume from: {state} "
                   f"does not exist (train without --resume to start anew)"]
    assert not state.exists() and not out.exists()  # no training happened
