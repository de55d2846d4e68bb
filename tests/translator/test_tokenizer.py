import pytest

from illustrated.shipped import TOKENIZER
from illustrated.translator.corpus import load_split
from illustrated.translator.tokenizer import SubwordTokenizer


@pytest.fixture(scope="module")
def tok():
    return SubwordTokenizer.load()


def test_round_trip_on_the_held_out_sentences(tok):
    assert TOKENIZER.exists()
    split = load_split()
    texts = [x for pair in split.dev + split.test for x in pair]
    assert len(texts) > 6000
    assert all(tok.decode(tok.encode(t)) == t for t in texts)


def test_specials_and_unknown_characters(tok):
    ids = tok.encode("je suis étudiant.")
    assert ids[0] == tok.bos_id == 1 and ids[-1] == tok.eos_id == 2
    assert tok.unk_id not in ids
    for odd in ["Слово 漢字 🙂", "naïveté œuvre"]:  # bytes never unknown
        ids = tok.encode(odd)
        assert tok.unk_id not in ids and tok.decode(ids) == odd
    assert tok.decode([1] + tok.encode("oui.")[1:] + [0, 0]) == "oui."
    with pytest.raises(ValueError, match="empty sentence"):
        tok.encode("  ")


def test_train_a_small_tokenizer():
    tok = SubwordTokenizer.train(["le chat noir.", "the black cat."] * 50, vocab_size=300)
    assert 260 <= len(tok) <= 300 and tok.decode(tok.encode("le chat.")) == "le chat."


def test_a_word_level_vocabulary_for_comparison():
    texts = ["c'est le chat noir.", "it is the black cat.", "le chat dort ?", "n'est-ce pas ?"]
    tok = SubwordTokenizer.train_words(texts, vocab_size=100)
    assert len(tok) == 4 + 14  # the specials, then every word and mark seen
    ids = tok.encode("c'est le chien noir.")
    assert ids.count(tok.unk_id) >= 1  # "chien" was never seen: <unk>, unlike byte-level BPE
    assert tok.decode(tok.encode("le chat noir.")) == "le chat noir."
    assert tok.pieces("n'est-ce pas ?") == ["n'est-ce", "pas", "?"]  # apostrophes kept
