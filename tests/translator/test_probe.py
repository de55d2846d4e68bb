"""illustrated.translator.probe: our probe set is our own and probes what it says, a bad line
is named, and the scores come kind by kind."""
import re

import pytest

from illustrated.translator import probe
from illustrated.translator.scores import corpus_scores


def test_probe_set_is_our_own_and_probes_what_it_says():
    from illustrated.translator.corpus import load_pairs
    from illustrated.translator.limits import words

    rows = probe.load_probe()
    kinds = [k for k, _, _ in rows]
    assert 40 <= len(rows) <= 60 and all(kinds.count(k) >= 8 for k in probe.PROBE_KINDS)
    pairs = load_pairs()
    french, english = {f for f, _ in pairs}, {e for _, e in pairs}
    assert not [f for _, f, _ in rows if f in french]  # none copied from the corpus
    assert not [e for _, _, e in rows if e in english]
    longest = max(len(words(f)) for f, _ in pairs)
    assert all(len(words(f)) > max(15, longest) for k, f, _ in rows if k == "long")
    assert all(len(words(f)) <= 10 for k, f, _ in rows if k == "everyday")
    corpus = {w for pair in pairs for side in pair for w in re.findall(r"\w+", side)}
    for kind, f, e in rows:
        if kind == "names":  # names: the capitalised words both sides write the same
            names = set(re.findall(r"\b[A-Z]\w+", f)) & set(re.findall(r"\b[A-Z]\w+", e))
            assert names, f
            for name in names:
                assert name not in corpus, f"{name} is in the corpus"


@pytest.mark.parametrize("text, message", [
    ("french\tenglish\n", "the first line must be kind<TAB>french<TAB>english"),
    ("kind\tfrench\tenglish\nlong\tUne phrase.\n", ":2: expected kind<TAB>french<TAB>english"),
    ("kind\tfrench\tenglish\nslang\tUne phrase.\tA sentence.\n", ":2: kind must be one of"),
])
def test_load_probe_names_the_bad_line(tmp_path, text, message):
    path = tmp_path / "p.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(message)):
        probe.load_probe(path)


def test_probe_scores_per_kind(tmp_path):
    import torch

    from illustrated.model import Transformer
    from illustrated.translator.tokenizer import SubwordTokenizer
    from illustrated.translator.training import RealConfig, model_config

    tok = SubwordTokenizer.load()
    cfg = RealConfig(d_model=16, N=1, h=2, d_ff=32, dropout=0.0)
    model = Transformer(model_config(cfg, len(tok)), torch.Generator().manual_seed(0)).eval()
    path = tmp_path / "p.tsv"
    path.write_text("kind\tfrench\tenglish\nnames\tIngrid est là.\tIngrid is here.\n"
                    "long\tJe pense.\tI think.\nnames\tMerci.\tThanks.\n", encoding="utf-8")
    got = probe.probe_scores(model, tok, path, resamples=20)
    assert list(got["kinds"]) == ["names", "long"] and len(got["translations"]) == 3
    names = got["kinds"]["names"]
    assert names["sentences"] == 2
    assert names["chrf"] == corpus_scores([got["translations"][i] for i in (0, 2)],
                                             ["Ingrid is here.", "Thanks."])["chrf"]
