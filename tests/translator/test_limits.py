import dataclasses
import json
import re

import pytest

from illustrated.translator import limits
from illustrated.translator.corpus import Split
from illustrated.translator.limits import (DIGITS, FRENCH_PROMPT, LONGER_THAN_TRAINING,
                                           MOSTLY_UNKNOWN, NO_WORDS, NOT_ENGLISH, NOT_LATIN,
                                           PROFILE_KEYS, TOO_LONG, UNKNOWN_WORDS, UNSEEN_SYMBOLS,
                                           UNSEEN_PROMPT_SYMBOLS,
                                           TrainingProfile, Verdict, check_prompt,
                                           check_sentence, non_latin, numbers,
                                           split_sentences, symbols, training_profile, words)


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


# split_sentences: cut after . ! ? … followed by white space, or after 。！？
@pytest.mark.parametrize("line, expected", [
    ("Je suis étudiant. 我是学生。 Tu es professeur.",
     ["Je suis étudiant.", "我是学生。", "Tu es professeur."]),  # the issue's text
    ("你好。我是学生！你呢？好", ["你好。", "我是学生！", "你呢？", "好"]),  # no space needed
    ("Quoi‼ Non⁉ Bon.", ["Quoi‼", "Non⁉", "Bon."]),
    ("J'ai faim. Allons manger.", ["J'ai faim.", "Allons manger."]),
    ("Quoi ?! Non… Si ! Bon.", ["Quoi ?!", "Non…", "Si !", "Bon."]),
    ("  je suis là   ", ["je suis là"]),  # trailing spaces stripped, no mark needed
    ("Il pèse 3.5 kg. Voilà.", ["Il pèse 3.5 kg.", "Voilà."]),  # no space: no cut
    ("Un.\tDeux.  Trois.", ["Un.", "Deux.", "Trois."]),
    ("Eh bien… je pars.", ["Eh bien…", "je pars."]),
    ("", []),
    ("   \t ", []),
    ("…", ["…"]),
    ("M. Dupont est là.", ["M. Dupont est là."]),  # a title before a name ends no sentence
    ("J'ai vu Mme. Martin et Dr. Roy. Allons-y.", ["J'ai vu Mme. Martin et Dr. Roy.",
                                                   "Allons-y."]),
    ("FM. Oui. m. Non. éM. Si. Voici M.",  # whole runs of letters, case as written
     ["FM.", "Oui.", "m.", "Non.", "éM.", "Si.", "Voici M."]),
    ("Il pleut... Oui", ["Il pleut...", "Oui"]),  # the training French's ellipsis
])
def test_split_sentences(line, expected):
    assert split_sentences(line) == expected


def test_the_training_french_writes_no_title_and_three_dots():
    """What the live translator page says: the training French writes none of the titles
    after which no sentence ends (M., Mme ...), and an ellipsis as ``...``, never ``…``."""
    from illustrated.translator.corpus import load_split

    french = [f for f, _ in load_split().train]
    titles = [f for f in french if any(w in limits.ABBREVIATIONS for w in re.findall(
        r"(\w+)\.", f))]
    assert titles == [], titles[:3]
    assert {"monsieur", "madame", "docteur"} <= {w for f in french for w in words(f)}
    assert sum("..." in f for f in french) > 0 and sum("…" in f for f in french) == 0


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
    assert p.symbols == {".", "!"} and p.digits == 0 and {"i", "m", "thanks"} <= p.english_words
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


def test_the_shipped_translator_keeps_its_whole_profile():
    """The command reads the profile from the checkpoint, not from the corpus (seconds at
    every run): every key of it, equal to the profile of the split it was trained on."""
    import torch

    from illustrated.shipped import TRANSLATOR

    blob = torch.load(TRANSLATOR, weights_only=True)
    assert PROFILE_KEYS <= set(blob["profile"]), sorted(PROFILE_KEYS - set(blob["profile"]))
    cfg = blob["train_config"]
    assert blob["profile"] == limits._profile(cfg["seed"], cfg["limit"]).to_json()


# check_sentence: one verdict, the exact words of the messages
PROFILE = TrainingProfile(pairs=3, max_words=4, max_english_words=4,
                          words=frozenset({"je", "suis", "là", "le", "chat"}),
                          symbols=frozenset(".!?'…,«»"))


def check(sentence, pieces=5, max_len=10):
    return check_sentence(sentence, pieces, PROFILE, max_len)


def test_the_messages_words():
    assert NO_WORDS == "nothing to translate: no words in it"
    assert NOT_LATIN.format(letters="Пр") == (
        "not French: it has letters outside the Latin alphabet (Пр); the model has only "
        "read French")
    assert TOO_LONG.format(n=83, max_len=64) == (
        "too long: 83 tokens, the model reads at most 64; split it into shorter sentences")
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
    ("Καλημέρα.", "Κ α λ η μ έ ρ"),  # every letter named, each once, in order
    ("Привет.", "П р и в е т"),
    ("Привет, мир.", "П р и в е т м"),
    ("абвгдежзийклмнопрстуфхцчшщ.", " ".join("абвгдежзийклмнопрсту") + " and 6 more"),
    ("Je suis 猫.", "猫"),
    ("Je suis là \u2c2e.", "\u2c2e"),
])
def test_other_scripts_are_refused(sentence, letters):
    assert check(sentence, pieces=99) == Verdict(NOT_LATIN.format(letters=letters))


def test_too_many_pieces_is_refused_at_max_len_plus_one():
    assert check("Je suis là.", pieces=10) == Verdict(None)
    assert check("Je suis là.", pieces=11) == Verdict(TOO_LONG.format(n=11, max_len=10))


@pytest.mark.parametrize("sentence", ["Je suis là.", "Je suis le chat !", "JE SUIS LÀ…",
                                      "  je suis là  ", "Je suis « le chat » ?"])
def test_french_is_accepted_without_warning(sentence):
    assert check(sentence) == Verdict(None, ())


def test_longer_than_training_warns_after_max_words():
    assert check("je suis le chat").warnings == ()  # 4 words: the longest trained on
    assert check("je suis le chat là").warnings == (
        LONGER_THAN_TRAINING.format(n=5, max_words=4),)


def test_mostly_unknown_warns_above_half_and_some_unknown_are_named():
    assert check("je suis hungry now").warnings == (  # 2 of 4: not most, named
        UNKNOWN_WORDS.format(words="hungry, now"),)
    assert check("I am le chat").warnings == (UNKNOWN_WORDS.format(words="i, am"),)
    assert check("je am hungry").warnings == (MOSTLY_UNKNOWN.format(unknown=2, n=3),)
    assert check("The weather is nice today.").warnings == (
        LONGER_THAN_TRAINING.format(n=5, max_words=4), MOSTLY_UNKNOWN.format(unknown=5, n=5))


def test_words_are_compared_in_lower_case():
    assert check("JE SUIS LÀ").warnings == ()


def test_the_new_messages_words():
    assert UNKNOWN_WORDS.format(words="étienne") == (
        "words that occur in no French training sentence (étienne): a name or a rare word "
        "the model never read may come out wrong")
    assert DIGITS.format(numbers="25, 3", n=160, pairs="70,489") == (
        "numbers (25, 3): only 160 of the 70,489 French training sentences have a digit, "
        "and the model often writes other digits: check them in the translation")
    assert UNSEEN_SYMBOLS.format(symbols="🐱") == (
        "symbols that occur in no French training sentence (🐱): the model never read them "
        "and may write anything in their place")


@pytest.mark.parametrize("text, expected", [
    ("J'ai 25 ans et 3 chats, 25 !", ["25", "3"]), ("Il pèse 3.5 kg.", ["3", "5"]),
    ("sans chiffre", []), ("١٢ et ²", ["١٢"]),  # Arabic-Indic digits are Nd, ² is No
])
def test_numbers(text, expected):
    assert numbers(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("J'aime les chats 🐱 !", ["'", "🐱", "!"]), ("l’homme", ["'"]),  # as clean writes it
    ("x² ½ Ⅻ", ["²", "½", "Ⅻ"]), ("é́", []), ("«oui»", ["«", "»"]),
])
def test_symbols(text, expected):
    assert symbols(text) == expected


SEEN = dataclasses.replace(PROFILE, digits=7)


def test_the_issues_sentences_are_warned_about():
    """Numbers, a word never read and a symbol never read: each warned about, named."""
    def warned(s):
        return check_sentence(s, 5, SEEN, 10).warnings
    assert warned("Je suis 25 chat.") == (DIGITS.format(numbers="25", n=7, pairs="3"),)
    assert warned("Je suis là 🐱 !") == (UNSEEN_SYMBOLS.format(symbols="🐱"),)
    assert warned("Je suis Étienne.") == (UNKNOWN_WORDS.format(words="étienne"),)
    assert warned("Je suis là.") == ()
    big = dataclasses.replace(SEEN, pairs=70489)
    assert check_sentence("Le 3 !", 5, big, 10).warnings[-1] == DIGITS.format(
        numbers="3", n=7, pairs="70,489")


# check_prompt: the writer's prompt
PROMPTS = dataclasses.replace(PROFILE, words=frozenset({"je", "suis", "le", "chat", "tom",
                                                          "marie"}),
                              english_words=frozenset({"i", "would", "like", "the", "cat",
                                                       "tom", "chat"}))


@pytest.mark.parametrize("prompt", ["", "Tom", "I would like", "The cat", "Alice",
                                    "Tom and Marie", "I like le chat", "Sakura"])
def test_an_english_prompt_gets_no_warning(prompt):
    assert check_prompt(prompt, PROMPTS) == Verdict(None)


def test_a_french_prompt_is_warned_about():
    assert check_prompt("Je suis", PROMPTS) == Verdict(None, (
        FRENCH_PROMPT.format(k=2, n=2, words="je, suis"),))
    assert check_prompt("je suis le chat", PROMPTS).warnings == (  # chat is English too
        FRENCH_PROMPT.format(k=3, n=4, words="je, suis, le"),)
    assert FRENCH_PROMPT.format(k=2, n=2, words="je, suis") == (
        "French? 2 of its 2 words occur in French training sentences and in no English one "
        "(je, suis); the writer was trained on English sentences only")


def test_a_prompt_with_symbols_no_english_sentence_has_is_warned_about():
    seen = dataclasses.replace(PROMPTS, english_symbols=frozenset({".", "'", "!"}))
    assert check_prompt("I like the cat.", seen) == Verdict(None)
    assert check_prompt("I like the cat 🐱 !", seen) == Verdict(None, (
        UNSEEN_PROMPT_SYMBOLS.format(symbols="🐱"),))
    assert check_prompt("Tom’s cat", seen) == Verdict(None)  # ’ is cleaned to '
    assert check_prompt("Je suis 🐱 ; ©", seen).warnings == (
        FRENCH_PROMPT.format(k=2, n=2, words="je, suis"),
        UNSEEN_PROMPT_SYMBOLS.format(symbols="🐱 ; ©"))
    assert UNSEEN_PROMPT_SYMBOLS.format(symbols="🐱") == (
        "symbols that occur in no English training sentence (🐱): the writer never read them "
        "and may write anything after them")


def test_a_prompt_in_another_script_is_refused():
    assert check_prompt("我是学生", PROMPTS) == Verdict(NOT_ENGLISH.format(letters="我 是 学 生"))
    assert NOT_ENGLISH.format(letters="我 是 学 生") == (
        "not English: it has letters outside the Latin alphabet (我 是 学 生); the writer has "
        "only read English")
    with pytest.raises(TypeError, match="prompt must be a str, got int"):
        check_prompt(3, PROMPTS)


def test_the_shipped_profile_tells_french_from_english_prompts():
    limits._profile.cache_clear()
    p = training_profile({})
    assert check_prompt("Je suis", p).warnings and check_prompt("Le chat est noir", p).warnings
    for prompt in ["Tom", "I would like", "Mary", "John", "Alice", "Ken", "The cat",
                   "I think", "Boston is", "Tom and Mary"]:
        assert check_prompt(prompt, p) == Verdict(None), prompt
    assert p.digits < p.pairs / 100 and "🐱" not in p.symbols and "!" in p.symbols
    assert "🐱" not in p.english_symbols and {".", "?", "!", "'", ","} <= p.english_symbols
    assert check_prompt("I like 🐱", p).warnings == (UNSEEN_PROMPT_SYMBOLS.format(symbols="🐱"),)
