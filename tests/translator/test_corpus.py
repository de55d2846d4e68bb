import pytest

from illustrated.shipped import PAIRS
from illustrated.translator.corpus import clean, english_key, load_pairs, split_by_english


@pytest.fixture(scope="module")
def pairs():
    return load_pairs()


def test_cleaning_keeps_case_and_words():
    assert clean("Je suis\u202fétudiant\u00a0!") == "Je suis étudiant !"
    assert clean("  C’est   ça. ") == "C'est ça."
    assert clean("I’m here.") == "I'm here."
    with pytest.raises(TypeError, match="must be a str"):
        clean(3)


def test_english_key_writes_contractions_out():
    assert english_key("I'm sure you're right, don't worry.") == \
        "i am sure you are right, do not worry"
    assert english_key("Can't. Won't!") == "cannot. will not"
    assert english_key("It's Tom's.") == "it's tom's"  # 's is ambiguous: kept
    assert english_key("I'm here!") == english_key("I am here.") == "i am here"


def test_the_shipped_corpus_as_written(pairs):
    assert PAIRS.exists() and (PAIRS.parent / "LICENSE").exists()
    assert ("Je suis étudiant.", "I am a student.") in pairs
    assert ("J'ai faim !", "I'm hungry!") in pairs  # contractions and case kept
    assert len(pairs) == len(set(pairs)) > 70_000


def test_split_is_disjoint_by_english_and_deterministic(pairs):
    s = split_by_english(pairs)
    assert sorted(s.train + s.dev + s.test) == sorted(pairs)
    sides = [{english_key(e) for _, e in part} for part in (s.train, s.dev, s.test)]
    assert not sides[0] & sides[1] and not sides[0] & sides[2] and not sides[1] & sides[2]
    assert len(sides[1]) == len(sides[2]) == 1000
    assert split_by_english(pairs) == s
    assert split_by_english(pairs, seed=1).test != s.test


def test_both_wordings_of_a_sentence_stay_on_one_side(pairs):
    s = split_by_english(pairs)
    wordings = {}
    for _, e in s.test:
        wordings.setdefault(english_key(e), set()).add(e)
    both = {k for k, ws in wordings.items() if len(ws) > 1}
    assert both  # e.g. "I'm fat." and "I am fat." are both test references
    assert not {english_key(e) for _, e in s.train} & both


def test_split_refuses_sizes_that_leave_nothing():
    with pytest.raises(ValueError, match="no training sentence"):
        split_by_english([("a.", "A."), ("b.", "B.")], n_dev=1, n_test=1)
