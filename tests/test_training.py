import re

import pytest
import torch
from torch import nn

from illustrated.model import Transformer
from illustrated.train import TrainConfig, load_checkpoint, rate, save_checkpoint, train

TINY = TrainConfig(steps=20, batch_size=16, d_model=16, N=1, h=2, d_ff=32)


def test_rate_warmup_then_decay():
    assert rate(1, 64, 10) < rate(10, 64, 10) > rate(100, 64, 10)
    assert rate(40, 64, 10) == pytest.approx(rate(10, 64, 10) / 2)


def test_training_is_reproducible_and_checkpoint_round_trip(tmp_path):
    model, sv, tv, hist, _ = train(TINY, progress=False)
    _, _, _, hist2, _ = train(TINY, progress=False)
    assert hist == hist2 and len(hist) == 20
    path = save_checkpoint(tmp_path / "c.pt", model, sv, tv, hist)
    m2, sv2, tv2 = load_checkpoint(path)
    assert sv2.itos == sv.itos and tv2.itos == tv.itos
    for a, b in zip(model.state_dict().values(), m2.state_dict().values()):
        assert torch.equal(a, b)
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ValueError, match="damaged"):
        load_checkpoint(path)


def test_checkpoint_of_another_shape_is_refused(tmp_path):
    model, sv, tv, _, _ = train(TrainConfig(steps=1, batch_size=4, d_model=16, N=1, h=2,
                                            d_ff=32), progress=False)
    path = save_checkpoint(tmp_path / "c.pt", model, sv, tv)
    blob = torch.load(path, weights_only=True)
    blob["config"]["d_model"] = 32
    torch.save(blob, path)
    with pytest.raises(ValueError, match="do not fit"):
        load_checkpoint(path)


class Counted(Transformer):
    """The package's model under another name, counting its construction."""
    built = []

    def __init__(self, config, generator=None):
        super().__init__(config, generator)
        Counted.built.append(config)


def test_train_trains_the_class_model_factory_builds():
    short = TrainConfig(steps=3, batch_size=4, d_model=16, N=1, h=2, d_ff=32)
    model, _, tv, hist, _ = train(short, progress=False, model_factory=Counted)
    assert type(model) is Counted and len(Counted.built) == 1
    assert Counted.built[0].tgt_vocab == len(tv) and Counted.built[0].d_model == 16
    _, _, _, default_hist, _ = train(short, progress=False)
    assert hist == default_hist  # same generator, same weights, same batches


def test_train_refuses_a_bad_model_factory():
    short = TrainConfig(steps=1, batch_size=4, d_model=16, N=1, h=2, d_ff=32)
    with pytest.raises(TypeError, match="model_factory must be a callable"):
        train(short, progress=False, model_factory=42)
    with pytest.raises(TypeError, match="must return an nn.Module, got int"):
        train(short, progress=False, model_factory=lambda config, generator: 3)


# The command: python -m illustrated.train
def test_help_describes_every_option(capsys):
    from illustrated.train import _parser, main

    undescribed = [a.option_strings or a.dest for a in _parser()._actions
                   if not (a.help or "").strip()]
    assert undescribed == []
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    text = capsys.readouterr().out
    assert exit_.value.code == 0
    text = " ".join(text.split())
    assert "random seed of the initial weights" in text and "optimiser steps, each" in text


@pytest.mark.parametrize("argv, message", [
    (["--steps", "0"], "argument --steps: must be 1 or more, got 0"),
    (["--steps", "many"], "argument --steps: expected an integer, got 'many'"),
    (["--corpus", "wiki"], "argument --corpus: invalid choice: 'wiki' (choose from 'toy', 'tatoeba')"),
    (["--corpus", "tatoeba", "--max-tokens", "-5"], "argument --max-tokens: must be 1 or more, got -5"),
])
def test_bad_option_is_one_line(argv, message, capsys):
    from illustrated.train import main

    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        f"python -m illustrated.train: {message} (--help lists the options)"]


def test_command_says_what_it_read_and_wrote(tmp_path, capsys):
    """Two steps of the toy model: the corpus read, the checkpoint written, the scores; no
    progress bar in captured (not a terminal) output."""
    from illustrated.train import main

    out = tmp_path / "t.pt"
    assert main(["--steps", "2", "--out", str(out)]) == 0
    lines = capsys.readouterr()
    printed = lines.out.splitlines()
    assert printed[0].startswith("read: the toy grammar's sentence pairs (illustrated.data): ")
    assert re.search(r"held out; 2 steps on (1 CPU thread|\d+ CPU threads)$", printed[0])
    assert printed[1].startswith(f"wrote: {out} (translate with it: python -m "
                                 f"illustrated.translate --toy --checkpoint {out})")
    assert printed[2].startswith("held-out: exact_match=") and len(printed) == 3
    assert out.is_file() and lines.err == ""  # no progress bar, no warning


def test_command_takes_the_idle_cores_unless_told(tmp_path, monkeypatch, request):
    """The command trains on the cores the load average leaves idle (at most torch's
    default), on OMP_NUM_THREADS' threads when it is set, on --threads N when given; torch's
    setting is restored afterwards. (The training itself is replaced: only the threads it
    would run on are recorded.)"""
    from illustrated import train as command

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
    from illustrated.train import main

    (tmp_path / "file").write_text("")
    assert main(["--steps", "1", "--out", str(tmp_path / "file" / "t.pt")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("python -m illustrated.train: ")


def test_real_command_scores_with_sacrebleus_signatures(tmp_path, capsys, monkeypatch):
    """--corpus tatoeba ends with held-out BLEU and chrF by illustrated.evaluation
    (sacreBLEU's defaults) of the greedy and the beam translations, their signatures kept in
    the checkpoint."""
    import sacrebleu

    from illustrated import translator
    from illustrated.corpus import load_split
    from illustrated.train import main

    calls, real = [], translator.translate

    def recorded(model, tok, sentences, beam=0, **kwargs):
        calls.append((list(sentences), beam, real(model, tok, sentences, beam=beam, **kwargs)))
        return calls[-1][2]
    monkeypatch.setattr(translator, "translate", recorded)
    out = tmp_path / "t.pt"
    assert main(["--corpus", "tatoeba", "--tiny", "--limit", "100", "--steps", "1",
                 "--max-tokens", "300", "--eval-limit", "4", "--no-progress", "--no-amp",
                 "--device", "cpu", "--state", str(tmp_path / "s.pt"), "--out", str(out)]) == 0
    scores = torch.load(out, weights_only=True)["scores"]
    held = load_split().test[:4]
    refs = [[e for _, e in held]]
    assert scores["set"] == "test" and scores["sentences"] == 4
    # the first translations of the held-out sources: the averaged model's (the dev curve
    # translates the dev pairs before)
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


# python -m illustrated.train --corpus tatoeba: interrupted, then resumed
REAL = ["--corpus", "tatoeba", "--tiny", "--limit", "200", "--steps", "6", "--max-tokens",
        "300", "--eval", "none", "--no-progress", "--device", "cpu", "--save-every", "200",
        "--no-amp"]


@pytest.fixture(scope="module")
def split_once():
    from illustrated.corpus import load_split

    return load_split()


@pytest.fixture
def quick_split(split_once, monkeypatch):
    """The command splits the corpus at each call: the same split, computed once here."""
    monkeypatch.setattr("illustrated.corpus.load_split", lambda seed=0: split_once)


def test_stop_after_then_resume_equals_one_run(tmp_path, quick_split, capsys):
    from illustrated.train import main

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
    from illustrated.train import main

    state, out = tmp_path / "missing.pt", tmp_path / "t.pt"
    assert main([*REAL, "--state", str(state), "--out", str(out), "--resume"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [f"python -m illustrated.train: no training state to resume from: {state} "
                   f"does not exist (train without --resume to start anew)"]
    assert not state.exists() and not out.exists()  # no training happened


def test_vocabularies_come_from_the_training_pairs_only(monkeypatch):
    import illustrated.train as train_module
    from illustrated.data import split_pairs

    train_pairs, held = split_pairs(0)
    unseen = [("je vois un ornithorynque", "i see a platypus")]  # in no training pair
    monkeypatch.setattr(train_module, "split_pairs", lambda seed: (train_pairs, held + unseen))
    _, sv, tv, _, held_back = train(TrainConfig(steps=1, batch_size=4, d_model=16, N=1, h=2,
                                                d_ff=32), progress=False)
    assert unseen[0] in held_back
    assert "ornithorynque" not in sv.stoi and "platypus" not in tv.stoi
    assert "vois" in sv.stoi and "see" in tv.stoi
    with pytest.warns(UserWarning, match="platypus"):
        assert tv.encode("i see a platypus")[4] == tv.unk_id
