import random
import re

import pytest

from illustrated.translator.names import (PROBE_NAMES, copy_probe, copy_rate, invented_name,
                                          name_pieces, name_words, shared_names, substitute,
                                          with_invented_names)

PAIRS = [("Tom est là.", "Tom is here."),
         ("Je vois Mary et Tom.", "I see Mary and Tom."),
         ("Oh, il pleut.", "Oh, it's raining."),  # Oh starts a sentence only: not a name
         ("Va à Boston avec Tom.", "Go to Boston with Tom."),
         ("Je suis étudiant.", "I'm a student.")]
NAMES = name_words(PAIRS)


@pytest.fixture(scope="module")
def pieces():
    from illustrated.translator.tokenizer import SubwordTokenizer

    return name_pieces(SubwordTokenizer.load())


def test_names_are_the_words_capitalised_inside_a_sentence():
    assert NAMES == {"Mary", "Tom", "Boston"}
    assert shared_names(*PAIRS[1], NAMES) == ["Mary", "Tom"]  # in the French order
    assert shared_names(*PAIRS[0], NAMES) == ["Tom"]  # first word, but a name elsewhere
    assert shared_names(*PAIRS[2], NAMES) == []
    assert shared_names("Tom part.", "He leaves.", NAMES) == []  # on one side only


def test_substitute_replaces_whole_words_on_both_sides():
    assert substitute("Tom et Tommy.", "Tom and Tommy.", "Tom", "Zoé") == \
        ("Zoé et Tommy.", "Zoé and Tommy.")


def test_invented_names_are_pieces_of_the_tokenizer(pieces):
    first, inner = pieces
    assert "étudiant" not in first and all(p.isalpha() and p.islower() for p in first + inner)
    rng = random.Random(0)
    made = [invented_name(rng, pieces) for _ in range(200)]
    assert all(n[0].isupper() and n[1:].islower() and n.isalpha() for n in made)
    assert len(set(made)) > 190  # hardly ever the same name twice
    # made of a word-start piece and one or two inner pieces
    assert all(any(n.lower().startswith(p) for p in first) for n in made[:20])


def test_with_invented_names_adds_copies_of_the_pairs_with_names(pieces):
    out = with_invented_names(PAIRS, 2, seed=0, pieces=pieces)
    assert out[:len(PAIRS)] == PAIRS and len(out) == len(PAIRS) + 2 * 3
    originals = [pair for pair in PAIRS if shared_names(*pair, NAMES) for _ in range(2)]
    for (french, english), (f0, e0) in zip(out[len(PAIRS):], originals, strict=True):
        assert "Tom" not in french and "Mary" not in french and "Boston" not in french
        invented = set(re.findall(r"\w+", french)) - set(re.findall(r"\w+", f0))
        assert len(invented) == len(shared_names(f0, e0, NAMES))  # one name for each
        assert all(re.search(rf"\b{name}\b", english) for name in invented)  # both sides
    assert with_invented_names(PAIRS, 2, seed=0, pieces=pieces) == out  # seeded
    assert with_invented_names(PAIRS, 2, seed=1, pieces=pieces) != out
    assert with_invented_names(PAIRS, 0, seed=0, pieces=pieces) == PAIRS
    with pytest.raises(ValueError, match="copies must be an int >= 0, got -1"):
        with_invented_names(PAIRS, -1, seed=0, pieces=pieces)


def test_the_probe_puts_unseen_names_in_held_out_sentences():
    held = [("Tom a oublié.", "Tom forgot."), ("Il pleut.", "It's raining."),
            ("Mary a vu Tom.", "Mary saw Tom.")]
    probe = copy_probe(held, PAIRS, probe_names=("Sophie", "Pierre", "Hugo"))
    assert probe == [("Sophie a oublié.", "Sophie forgot.", ["Sophie"]),
                     ("Pierre a vu Hugo.", "Pierre saw Hugo.", ["Pierre", "Hugo"])]
    assert copy_rate(["Sophie forgot.", "Pierre saw Hugh."], probe) == pytest.approx(2 / 3)
    assert copy_rate(["Sophy forgot.", "Pierre saw Hugo."], probe) == pytest.approx(2 / 3)
    with pytest.raises(ValueError):
        copy_rate(["one output"], probe)  # one output per probe sentence


def test_probe_names_appear_nowhere_in_the_corpus():
    from illustrated.translator.corpus import load_pairs

    text = {w for pair in load_pairs() for side in pair for w in re.findall(r"\w+", side)}
    assert not set(PROBE_NAMES) & text
