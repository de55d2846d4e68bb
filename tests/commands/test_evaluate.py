"""python -m illustrated evaluate: the JSON it writes (on a tiny untrained translator and a few
test pairs), the same file twice, and one-line messages for what cannot be done."""
import contextlib
import io
import json

import pytest
import sacrebleu

from illustrated.commands import evaluate
from illustrated.commands.evaluate import main

ARGS = ["--limit", "8", "--resamples", "20"]  # and a probe set of 3 sentences, below
KEYS = ["checkpoint", "test", "signatures", "scores", "beam_vs_greedy", "near_neighbours",
        "by_length", "names_probe", "probe", "translations"]


@pytest.fixture(scope="module")
def tiny_real(tmp_path_factory):
    import torch

    from illustrated.model import Transformer
    from illustrated.translator.inference import save_translator
    from illustrated.translator.tokenizer import SubwordTokenizer
    from illustrated.translator.training import RealConfig, model_config

    tok = SubwordTokenizer.load()
    cfg = RealConfig(d_model=16, N=1, h=2, d_ff=32, dropout=0.0)
    model = Transformer(model_config(cfg, len(tok)), torch.Generator().manual_seed(0))
    return str(save_translator(tmp_path_factory.mktemp("real") / "t.pt", model, tok))


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    path = tmp_path_factory.mktemp("probe") / "p.tsv"
    path.write_text("kind\tfrench\tenglish\neveryday\tMerci.\tThanks.\n"
                    "names\tIngrid est là.\tIngrid is here.\nlong\tJe pense.\tI think.\n",
                    encoding="utf-8")
    return ["--probe", str(path)]


@pytest.fixture(scope="module")
def written(tiny_real, probe, tmp_path_factory):
    """One run of the command: (exit status, stdout, the file's text)."""
    out = tmp_path_factory.mktemp("eval") / "e.json"
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        status = main(["--checkpoint", tiny_real, "--out", str(out), *ARGS, *probe])
    return status, stdout.getvalue(), out.read_text(encoding="utf-8")


def test_writes_every_part(written, tiny_real):
    from illustrated.translator.corpus import load_split
    from illustrated.translator.inference import load_translator, translate

    status, _, text = written
    report = json.loads(text)
    assert status == 0 and list(report) == KEYS
    assert report["test"]["pairs"] == 8 and report["test"]["split_seed"] == 0
    test = load_split().test[:8]
    refs = [e for _, e in test]
    model, tok, _ = load_translator(tiny_real)
    for decoder, beam in (("greedy", 0), ("beam", 4)):
        assert report["translations"][decoder] == translate(model, tok, [f for f, _ in test],
                                                            beam=beam)
    for decoder in ("greedy", "beam"):
        hyps = report["translations"][decoder]
        assert len(hyps) == 8
        assert report["scores"][decoder]["bleu"] == sacrebleu.corpus_bleu(hyps, [refs]).score
        assert report["scores"][decoder]["chrf"] == sacrebleu.corpus_chrf(hyps, [refs]).score
    assert report["signatures"]["bleu"].startswith("nrefs:1|case:mixed|eff:no|tok:13a|")
    boot = report["beam_vs_greedy"]["paired_bootstrap"]
    assert boot["resamples"] == 20 and boot["low"] <= boot["delta"] <= boot["high"]
    sentences = report["beam_vs_greedy"]["sentences"]
    assert sentences["wins"] + sentences["losses"] + sentences["ties"] == 8
    near = report["near_neighbours"]
    assert sum(near["distance_counts"].values()) == len(near["distances"]) == 8
    assert sum(g["sentences"] for g in near["beam"].values()) == 8
    near_count = sum(d <= 1 for d in near["distances"])
    counts = {"near": near_count, "rest": 8 - near_count}  # the first 8: all near today
    for decoder in ("greedy", "beam"):
        assert {k: g["sentences"] for k, g in near[decoder].items()} == {
            k: n for k, n in counts.items() if n}
    assert list(report["probe"]["beam"]) == ["everyday", "names", "long"]
    assert [row["french"] for row in report["probe"]["translations"]] == [
        "Merci.", "Ingrid est là.", "Je pense."]


def test_prints_a_summary(written):
    _, out, _ = written
    lines = out.splitlines()
    assert lines[0].startswith("read: ") and lines[-1].startswith("wrote: ")
    assert any(line.startswith("beam - greedy: ") and "95 % interval" in line for line in lines)
    assert "signature bleu: nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0" in lines


def test_same_file_twice(written, tiny_real, probe, tmp_path, capsys):
    again = tmp_path / "again.json"
    assert main(["--checkpoint", tiny_real, "--out", str(again), *ARGS, *probe]) == 0
    assert again.read_text(encoding="utf-8") == written[2]


def test_missing_checkpoint_is_one_line(tmp_path, capsys):
    assert main(["--checkpoint", str(tmp_path / "nope.pt"), *ARGS]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "no checkpoint at" in err[0] and "nope.pt" in err[0]


def test_foreign_checkpoint_is_one_line(tmp_path, capsys):
    import torch

    path = tmp_path / "toy.pt"
    torch.save({"format": "illustrated-translator-1"}, path)
    assert main(["--checkpoint", str(path), *ARGS]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [f"python -m illustrated evaluate: cannot evaluate: {path} is not a "
                   "real-translator checkpoint (format illustrated-real-translator-1)"]


def test_unwritable_output_is_one_line(tiny_real, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("illustrated.translator.report.evaluation_report",
                        lambda *a, **k: {"scores": {}})  # no work
    (tmp_path / "file").write_text("")
    out = tmp_path / "file" / "e.json"
    assert main(["--checkpoint", tiny_real, "--out", str(out)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"python -m illustrated evaluate: cannot write {out}")


def test_default_probe_is_ours():
    assert evaluate.parser().parse_args([]).probe == str(evaluate.PROBE)
    assert evaluate.PROBE.name == "probe.tsv" and evaluate.PROBE.is_file()
