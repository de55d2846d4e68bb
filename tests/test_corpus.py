import pytest

from illustrated.corpus import (TSV, load_pairs, normalize_english, normalize_french,
                                split_by_english)


@pytest.fixture(scope="module")
def pairs():
    return load_pairs()


def test_normalisation():
    assert normalize_french("Je suis\u202fétudiant\u00a0!") == "je suis étudiant !"
    assert normalize_french("C’est   ça.") == "c'est ça."
    assert normalize_english("I'm sure you're right, don't worry.") == \
        "I am sure you are right, do not worry."
    assert normalize_english("Can't. Won't.") == "Cannot. Will not."
    assert normalize_english("It's Tom's.") == "It's Tom's."  # 's is ambiguous: kept
    with pytest.raises(TypeError, match="must be a str"):
        normalize_french(3)


def test_the_shipped_corpus(pairs):
    assert TSV.exists() and (TSV.parent / "LICENSE").exists()
    assert ("je suis étudiant.", "I am a student.") in pairs
    assert len(pairs) == len(set(pairs)) > 70_000


def test_split_is_disjoint_by_english_and_deterministic(pairs):
    s = split_by_english(pairs)
    assert sorted(s.train + s.dev + s.test) == sorted(pairs)
    sides = [{e for _, e in part} for part in (s.train, s.dev, s.test)]
    assert not sides[0] & sides[1] and not sides[0] & sides[2] and not sides[1] & sides[2]
    assert len(sides[1]) == len(sides[2]) == 1000
    assert split_by_english(pairs) == s
    assert split_by_english(pairs, seed=1).test != s.test


def test_split_refuses_sizes_that_leave_nothing():
    with pytest.raises(ValueError, match="no training sentence"):
        split_by_english([("a.", "A."), ("b.", "B.")], n_dev=1, n_test=1)
