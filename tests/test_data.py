import pytest
import torch

from illustrated.data import Vocab, all_pairs, make_batch, read_tsv, split_pairs


def test_source_sentences_and_grammar():
    pairs = dict(all_pairs())
    assert pairs["je suis étudiant"] == "i am a student"
    assert pairs["merci"] == "thanks"
    assert pairs["j'aime une pomme orange"] == "i like an orange apple"
    assert pairs["il ne voit pas le chat noir"] == "he does not see the black cat"


def test_split_deterministic_and_disjoint():
    a, b = split_pairs(seed=3)
    a2, b2 = split_pairs(seed=3)
    assert a == a2 and b == b2 and b
    assert not set(a) & set(b)
    assert split_pairs(seed=4)[1] != b


def test_vocab_unknown_and_limits():
    v = Vocab.build(["je suis"])
    with pytest.warns(UserWarning, match="zorglub"):
        ids = v.encode("je zorglub")
    assert ids[2] == v.unk_id
    with pytest.raises(ValueError, match="empty"):
        v.encode("  ")
    with pytest.raises(ValueError, match="limit is 3"):
        v.encode("je je je je", max_len=5)
    assert v.decode(v.encode("je suis")) == "je suis"


def test_batch_shift_and_masks():
    b = make_batch([[1, 5, 2], [1, 5, 6, 7, 2]], [[1, 8, 2], [1, 8, 9, 2]])
    assert b.src.shape == (2, 5) and b.tgt_in.shape == (2, 3)
    assert torch.equal(b.tgt_out[1], torch.tensor([8, 9, 2]))
    assert b.src_mask.shape == (2, 1, 5) and not b.src_mask[0, 0, 3]
    assert b.tgt_mask.shape == (2, 3, 3) and not b.tgt_mask[1, 0, 1]


def test_read_tsv(tmp_path):
    p = tmp_path / "pairs.tsv"
    p.write_text("Go.\tVa !\tCC-BY\nHi.\tSalut.\tCC-BY\n", encoding="utf-8")
    assert read_tsv(p, src_col=1, tgt_col=0) == [("Va !", "Go."), ("Salut.", "Hi.")]
    p.write_text("only one column\n", encoding="utf-8")
    with pytest.raises(ValueError, match="columns"):
        read_tsv(p)
