import json

import pytest

from illustrated.translator import limits
from illustrated.translator.corpus import Split
from illustrated.translator.limits import (LONGER_THAN_TRAINING, MOSTLY_UNKNOWN, NO_WORDS,
                                           NOT_LATIN, TOO_LONG, TrainingProfile, Verdict,
                                           check_sentence, non_latin, split_sentences,
                                           training_profile, words)


# words: runs of letters (Unicode L*), lower case
@pytest.mark.parametrize("text, expected", [
    ("Je m'appelle Jean.", ["je", "m", "appelle", "jean"]),
    ("Élève à l'ÉCOLE, où ça ?", ["élève", "à", "l", "école", "où", "ça"]),
    ("", []),
    ("   ", []),
    ("1234 56,7 !", []),
    ("abc123def_ghi", ["abc", "def", "ghi"]),
    ("Καλημέρα κόσμε", ["καλημέρα", "κόσμε"]),
    ("Привет, мир", ["привет", "мир"]),
    ("你好世界", ["你好世界"]),  # no spaces in Chinese: one run of letters
    ("chat 😀 noir", ["chat", "noir"]),  # an emoji is a symbol, not a letter
    ("le nº 5, la 1ª", ["le", "nº", "la", "ª"]),  # ª º are letters (category Lo)
    ("Eh bien… non", ["eh", "bien", "non"]),
])
def test_words(text, expected):
    assert words(text) == expected


# split_sentences: cut after . ! ? … followed by white space
@pytest.mark.parametrize("line, expected", [
    ("J'ai faim. Allons manger.", ["J'ai faim.", "Allons manger."]),
    ("Quoi ?! Non… Si ! Bon.", ["Quoi ?!", "Non…", "Si !", "Bon."]),
    ("  je suis là   ", ["je suis là"]),  # trailing spaces stripped, no mark needed
    ("Il pèse 3.5 kg. Voilà.", ["Il pèse 3.5 kg.", "Voilà."]),  # no space: no cut
    ("Un.\tDeux.  Trois.", ["Un.", "Deux.", "Trois."]),
    ("Eh bien… je pars.", ["Eh bien…", "je pars."]),
    ("", []),
    ("   \t ", []),
    ("…", ["…"]),
])
def test_split_sentences(line, expected):
    assert split_sentences(line) == expected


def test_split_sentences_refuses_a_non_string():
    with pytest.raises(TypeError, match="line must be a str, got list"):
        split_sentences(["un.", "deux."])


# non_latin: letters outside the Latin script, each once, in order
@pytest.mark.parametrize("text, expected", [
    ("Élève, garçon, cœur, naïve, Ærø, straße", []),
    ("le nº 5, la 1ª", []),  # the ordinal indicators are Latin letters
    ("1234 😀 ?!", []),  # digits, emoji and marks are no letters
    ("Καλημέρα", ["Κ", "α", "λ", "η", "μ", "έ", "ρ"]),
    ("Привет Пр", ["П", "р", "и", "в", "е", "т"]),
    ("chat 猫 chien 狗 猫", ["猫", "狗"]),
    ("\u2c2e", ["\u2c2e"]),  # GLAGOLITIC CAPITAL LETTER LATINATE MYSLITE is not Latin
])
def test_non_latin(text, expected):
    assert non_latin(text) == expected


# The profile
PAIRS = [("Je suis là.", "I'm here."),
         ("Il ne voit pas le chat noir.", "He can't see the black cat."),
         ("Merci !", "Thanks!")]


def test_profile_from_pairs_and_json_round_trip():
    p = TrainingProfile.from_pairs(PAIRS)
    assert p.pairs == 3 and p.max_words == 7 and p.max_english_words == 7  # can, t: two
    assert p.words == {"je", "suis", "là", "il", "ne", "voit", "pas", "le", "chat", "noir",
                       "merci"}
    data = p.to_json()
    assert data["words"] == sorted(data["words"])
    assert TrainingProfile.from_json(json.loads(json.dumps(data))) == p


@pytest.fixture
def fake_corpus(monkeypatch):
    """load_split replaced by a small split that records its seed; limits' cache cleared
    before and after."""
    seeds = []

    def load_split(seed=0):
        seeds.append(seed)
        return Split(train=PAIRS, dev=[], test=[])

    monkeypatch.setattr("illustrated.translator.corpus.load_split", load_split)
    limits._profile.cache_clear()
    yield seeds
    limits._profile.cache_clear()


def test_training_profile_kept_in_the_checkpoint_or_computed(fake_corpus):
    kept = TrainingProfile.from_pairs(PAIRS[1:])
    assert training_profile({"profile": kept.to_json(), "train_config": {"seed": 3}}) == kept
    assert fake_corpus == []  # read from the checkpoint, the corpus untouched
    # an older checkpoint without one: computed from its split, seed and limit
    assert training_profile({"train_config": {"seed": 3, "limit": 1}}) == \
        TrainingProfile.from_pairs(PAIRS[:1])
    assert training_profile({}) == TrainingProfile.from_pairs(PAIRS)  # limit 0: all
    assert training_profile({"train_config": {"seed": 3, "limit": 0, "steps": 9}}).pairs == 3
    assert fake_corpus == [3, 0, 3]


def test_training_profile_of_the_shipped_corpus():
    from illustrated.translator.corpus import load_split

    train = load_split().train
    limits._profile.cache_clear()
    p = training_profile({})
    assert p.pairs == len(train) and p.max_words == max(len(words(f)) for f, _ in train)
    assert {"je", "suis", "étudiant", "m", "appelle"} <= p.words and "the" not in p.words


# check_sentence: one verdict, the exact words of the messages
PROFILE = TrainingProfile(pairs=3, max_words=4, max_english_words=4,
                          words=frozenset({"je", "suis", "là", "le", "chat"}))


def check(sentence, pieces=5, max_len=10):
    return check_sentence(sentence, pieces, PROFILE, max_len)


def test_the_messages_words():
    assert NO_WORDS == "nothing to translate: no words in it"
    assert NOT_LATIN.format(letters="Пр") == (
        "not French: it has letters outside the Latin alphabet (Пр); the model has only "
        "read French")
    assert TOO_LONG.format(n=83, max_len=64) == (
        "too long: 83 pieces, the model reads at most 64; split it into shorter sentences")
    assert LONGER_THAN_TRAINING.format(n=20, max_words=15) == (
        "longer than any sentence the model was trained on (20 words; the longest French "
        "training sentence has 15): expect a poor translation")
    assert MOSTLY_UNKNOWN.format(unknown=3, n=4) == (
        "mostly unknown words (3 of 4 words occur in no French training sentence): is it "
        "French? The translation is a guess")


@pytest.mark.parametrize("sentence", ["", "   ", "1234.", "…", "😀 !", "?!"])
def test_no_words_is_refused(sentence):
    assert check(sentence, pieces=99) == Verdict(NO_WORDS)  # before the length


@pytest.mark.parametrize("sentence, letters", [
    ("Καλημέρα.", "Καλημ"),  # at most five letters named
    ("Привет, мир.", "Приве"),
    ("Je suis 猫.", "猫"),
    ("Je suis là \u2c2e.", "\u2c2e"),
])
def test_other_scripts_are_refused(sentence, letters):
    assert check(sentence, pieces=99) == Verdict(NOT_LATIN.format(letters=letters))


def test_too_many_pieces_is_refused_at_max_len_plus_one():
    assert check("Je suis là.", pieces=10) == Verdict(None)
    assert check("Je suis là.", pieces=11) == Verdict(TOO_LONG.format(n=11, max_len=10))


@pytest.mark.parametrize("sentence", ["Je suis là.", "Je suis le nº 5.",
                                      "Je suis là 😀 !", "JE SUIS LÀ…", "  je suis là  "])
def test_french_is_accepted_without_warning(sentence):
    assert check(sentence) == Verdict(None, ())


def test_longer_than_training_warns_after_max_words():
    assert check("je suis le chat").warnings == ()  # 4 words: the longest trained on
    assert check("je suis le chat là").warnings == (
        LONGER_THAN_TRAINING.format(n=5, max_words=4),)


def test_mostly_unknown_warns_above_half():
    assert check("je suis hungry now").warnings == ()  # 2 of 4: not most
    assert check("I am le chat").warnings == ()
    assert check("je am hungry").warnings == (MOSTLY_UNKNOWN.format(unknown=2, n=3),)
    assert check("The weather is nice today.").warnings == (
        LONGER_THAN_TRAINING.format(n=5, max_words=4), MOSTLY_UNKNOWN.format(unknown=5, n=5))


def test_words_are_compared_in_lower_case():
    assert check("JE SUIS LÀ").warnings == ()
