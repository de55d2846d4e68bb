"""_static/live/limits.mjs, the live page's copy of :mod:`illustrated.translator.limits`, run
under Node: its sentences, words, non-Latin letters, numbers, symbols and verdicts (refusals
and warnings, word for word; the writer's prompts too) are Python's on odd inputs, and its idea of a Latin letter is Python's on every
code point.
One Node process answers them all (tests/js/live_limits.mjs); the same comparison runs in
Chromium in tests/site/browser/test_limits.py, which takes its job from here
(tests/js/limits_answers.mjs asks the module, under Node and in Chromium alike)."""
from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from illustrated.translator import limits

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "tests" / "js" / "live_limits.mjs"

# Letters at the edge of "Latin": ordinals, ß œ æ ı, modifier letters, the Kelvin and
# Ångström signs, Glagolitic's LATINATE, Greek, Cyrillic, CJK, Arabic, Hebrew, fullwidth and
# mathematical letters; and no letters at all (emoji, digits, a superscript, punctuation).
EDGE_LETTERS = ("ª", "º", "ß", "œ", "æ", "Œ", "ı", "İ", "ĳ", "ŉ", "ʰ", "ᵃ", "ⁿ", "ₐ", "\u212a",
                "\u212b", "Ⅎ", "ⅎ", "Ↄ", "ⅽ", "Ⱞ", "ⱞ", "α", "Ω", "ж", "Ѣ", "中", "々", "ア", "한", "ب",
                "א", "ａ", "Ａ", "𝒶", "𝐀", "😀", "7", "٣", "²", "½", "'", "-", "ǅ", "ﬁ", "\u0301")
# Odd texts: several sentences on a line or on several lines (and Python's other line
# breaks, which the command's stdin does not cut at), spaces of every kind, no words, other scripts, curly apostrophes, accents.
TEXTS = [
    "Je suis étudiant. Il fait beau ! Tu viens ? Oui… Bien sûr.",
    "Je suis étudiant.\nIl fait beau.", "un\r\ndeux\rtrois\x0bquatre\x0cfin",
    "a.\x1cb.\x1dc\x1ed\x85e\u2028f\u2029g", "  Déjà.   Vu !  ", "Fin.\u202fSuite.\u3000Et.",
    "Point.Sans espace. M. Dupont est là.", "Quoi ?! Vraiment ?!Oui.", "...", "…", " ", "",
    "\n\n", "42", "3,14 €", "Je suis ici, toi là-bas.", "😀 👍🏽", "l’homme qu‘il m`a dit",
    "C'est l'été, n'est-ce pas ?",
    "Ça va, Élodie ? Où ça ?", "e\u0301te\u0301", "你好。我是学生。", "Привет, мир.",
    "Καλημέρα.", "Je suis Иван.", "I am a student.", "The cat is on the table.",
    "ªº", "Straße", "İstanbul", "ǅemal", "ﬁn", "𝒶𝒷𝒸", "\u212a et \u212b (Kelvin, Ångström)", "Ⱞ",
    "x\u200by", "Un.\x1fDeux.", "Un.\ufeffDeux.", "Un.\xa0Deux.",
    "\ufeffFin.\ufeff", "Je mange.", "Le chien dort sur la table.",
    "mot " * 20, "le chat " * 12 + ".", "Bonjour\tmonde", *EDGE_LETTERS,
    # the inputs: numbers, names, an emoji, Chinese sentence ends, all of a word
    "J'ai 25 ans et 3 chats.", "Jean-Pierre habite à Saint-Étienne depuis 2019.",
    "J'aime les chats 🐱 !", "Tu viens ?", "Je suis étudiant. 我是学生。 Tu es professeur.",
    "Привет", "你好。我是学生！你呢？好", "Quoi‼ Non⁉ Bon⁇ Si⁈ Fin.", "Je suis ١٢ et x² ½ Ⅻ.",
    "Il fait beau €, $ et % ?", "абвгдежзийклмнопрстуфхцчшщ.", "Je suis étudiant, Élodie.",
    "Il fait beau, Tom !", "C'est l'été 2020, « Ça va ? »",
    # titles before a name end no sentence; letters before them, another case, a last one
    "J'ai vu M. Dupont. Allons manger.", "Mme. Martin, MM. Roy et Dr. Lenoir. Fin.",
    "FM. Oui. éM. Non. m. Non. Voici M.", "Mlle.\tMartin\u3000St. Jean. Ste. Anne !",
    # an ellipsis as the training French writes it, and as one mark
    "Il pleut... Oui", "Il pleut… Oui",
]
# Prompts of the writer (check_prompt): English, names, French, other scripts.
PROMPTS = ["", "Tom", "I would like", "The cat", "Je suis", "je suis étudiant", "Il fait beau",
           "Tom est là", "我是学生", "Привет мир", "Καλημέρα", "It is nice, Élodie", "😀", "42",
           " ", "Where is the station", "Ça va", "sleeps", "\u2c2e", "ǅemal",
           # symbols no English sentence of PAIRS has: alone, with French, many of them
           "I like 🐱 !", "Je suis 🐱", "The cat (sleeps) ; 100 % ok & $ ⁉ « » ½ ™ © ® ° ± § ¶ † ‡ • ← →"]
# A small profile: what a model trained on these pairs has read.
PAIRS = [("Je suis étudiant.", "I am a student."), ("Il fait beau.", "It is nice."),
         ("C'est l'été.", "It is summer."), ("Le chat dort sur la table.", "The cat sleeps."),
         ("Où est la gare ?", "Where is the station?"), ("Ça va ?", "How are you?")]
MAX_LEN = 12


def make_job() -> dict:
    """Every comparison: sentences, words and non-Latin letters of TEXTS, split_sentences of
    each line, and check_sentence of every sentence, with piece counts on both sides of
    MAX_LEN."""
    sentences = [s for t in TEXTS for s in python_sentences(t)]
    checks = [[s, 3 + len(s) // 4] for s in sentences]
    return {"texts": TEXTS, "lines": [line for t in TEXTS for line in t.split("\n")],
            # as many pairs as the real corpus's order of size: 12,345 has a separator
            "profile": {**limits.TrainingProfile.from_pairs(PAIRS).to_json(), "pairs": 12345},
            "maxLen": MAX_LEN,
            "checks": checks, "prompts": PROMPTS}


def python_sentences(text: str) -> list[str]:
    """The command's sentences of ``text`` on stdin: each line (cut at ``\n`` only, as
    ``illustrated.commands.common.input_lines`` cuts it), then ``split_sentences``."""
    return [s for line in text.split("\n") for s in limits.split_sentences(line)]


def letter_class(c: str) -> int:
    """0 not a letter, 1 a letter named LATIN (limits.non_latin keeps it out), 2 another."""
    if not unicodedata.category(c).startswith("L"):
        return 0
    return 2 if limits.non_latin(c) else 1


def python_answers(job: dict) -> dict:
    profile = limits.TrainingProfile.from_json(job["profile"])
    verdicts = [limits.check_sentence(s, n, profile, job["maxLen"]) for s, n in job["checks"]]
    return {"sentencesOf": [python_sentences(t) for t in job["texts"]],
            "splitSentences": [limits.split_sentences(line) for line in job["lines"]],
            "words": [limits.words(t) for t in job["texts"]],
            "nonLatin": [limits.non_latin(t) for t in job["texts"]],
            "numbers": [limits.numbers(t) for t in job["texts"]],
            "symbols": [limits.symbols(t) for t in job["texts"]],
            "verdicts": [{"refusal": v.refusal, "warnings": list(v.warnings)} for v in verdicts],
            "prompts": [{"refusal": v.refusal, "warnings": list(v.warnings)} for v in (
                limits.check_prompt(p, profile) for p in job["prompts"])],
            "templates": {name: getattr(limits, name) for name in TEMPLATES}}


# The messages of limits.py, which messages.mjs's `limits` says in both editions.
TEMPLATES = ("NO_WORDS", "NOT_LATIN", "TOO_LONG", "LONGER_THAN_TRAINING", "MOSTLY_UNKNOWN",
             "MORE", "UNKNOWN_WORDS", "DIGITS", "UNSEEN_SYMBOLS", "NOT_ENGLISH",
             "FRENCH_PROMPT", "UNSEEN_PROMPT_SYMBOLS")


def class_mismatches(runs: list) -> tuple[list[str], int]:
    """Code points where JavaScript's class (run-length coded, ``[first, class]``) is not
    Python's, and how many letters JavaScript knows that this Python's Unicode has not
    assigned yet (those cannot be compared: Python calls them unassigned, category Cn)."""
    out, newer = [], 0
    bounds = [first for first, _ in runs[1:]] + [0x110000]
    for (first, js), end in zip(runs, bounds):
        for cp in range(first, end):
            c = chr(cp)
            py = letter_class(c)
            if js == py:
                continue
            if unicodedata.category(c) == "Cn":
                newer += 1
            else:
                out.append(f"U+{cp:04X} {unicodedata.name(c, '?')}: python {py}, javascript {js}")
    return out, newer


def mismatches(job: dict, expected: dict, got: dict, limit: int = 10) -> list[str]:
    """``function(input): python X, javascript Y`` for each difference; the English verdicts
    and templates must be Python's word for word, the Chinese ones in Chinese, refusing and
    warning exactly where the English does."""
    out = []
    for name, inputs in (("sentencesOf", job["texts"]), ("splitSentences", job["lines"]),
                         ("words", job["texts"]), ("nonLatin", job["texts"]),
                         ("numbers", job["texts"]), ("symbols", job["texts"]),
                         ("verdicts", job["checks"]), ("prompts", job["prompts"])):
        js = got[name]["en"] if name in ("verdicts", "prompts") else got[name]
        for x, want, have in zip(inputs, expected[name], js):
            if want != have:
                out.append(f"{name}({x!r:.60}): python {want!r:.160}, javascript {have!r:.160}")
    if got["templates"]["en"] != expected["templates"]:
        out.append(f"templates: python {expected['templates']}, javascript "
                   f"{got['templates']['en']}")
    both = [*zip(job["checks"], got["verdicts"]["en"], got["verdicts"]["zh"]),
            *zip(([p] for p in job["prompts"]), got["prompts"]["en"], got["prompts"]["zh"])]
    for x, en, zh in both:
        if (en["refusal"] is None) != (zh["refusal"] is None) or (
                len(en["warnings"]) != len(zh["warnings"])) or not all(
                map(_chinese, [zh["refusal"] or "中", *zh["warnings"]])):
            out.append(f"verdicts({x[0]!r:.60}): English {en}, Chinese {zh}")
    classes, _ = class_mismatches(got["classes"])
    out += [f"letter class: {m}" for m in classes]
    return out[:limit] + ([f"... {len(out) - limit} more"] if len(out) > limit else [])


def _chinese(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


@pytest.fixture(scope="module")
def compared(answers_of):
    job = make_job()
    return job, python_answers(job), answers_of(RUNNER, job)


def test_the_page_applies_the_commands_rule(compared):
    job, expected, got = compared
    assert mismatches(job, expected, got) == []


def test_the_inputs_try_every_verdict(compared):
    """Each refusal and each warning happens, and so does a clean translation."""
    _, expected, _ = compared
    refusals = {v["refusal"].split(":")[0] for v in expected["verdicts"] if v["refusal"]}
    assert refusals == {"nothing to translate", "not French", "too long"}
    warnings = {w.split(" (")[0] for v in expected["verdicts"] for w in v["warnings"]}
    assert warnings == {"longer than any sentence the model was trained on",
                        "mostly unknown words", "words that occur in no French training sentence",
                        "numbers", "symbols that occur in no French training sentence"}
    assert any(v == {"refusal": None, "warnings": []} for v in expected["verdicts"])
    assert any(" more)" in v["refusal"] for v in expected["verdicts"] if v["refusal"])
    prompts = [[v["refusal"]] if v["refusal"] else v["warnings"] or ["none"]
               for v in expected["prompts"]]
    assert {p.split(":")[0].split("?")[0].split(" (")[0] for ps in prompts for p in ps} == {
        "none", "not English", "French", "symbols that occur in no English training sentence"}
    assert any(len(ps) == 2 for ps in prompts)  # French and an unseen symbol
    assert any(" more)" in p for ps in prompts for p in ps)


def test_edge_letters_are_where_python_puts_them(compared):
    """The letters the JavaScript rule spells out, and a few plain ones, as Python classes
    them: the two rules are not the same idea (script vs name), only the same answers."""
    _, _, got = compared
    runs = got["classes"]
    js = {c: next(k for first, k in reversed(runs) if first <= ord(c)) for c in EDGE_LETTERS}
    assert {c: letter_class(c) for c in EDGE_LETTERS} == js
    assert js["ʰ"] == js["\u212a"] == js["α"] == js["中"] == js["Ⱞ"] == 2  # no word LATIN
    assert js["ª"] == js["ß"] == js["ı"] == js["ａ"] == 1 and js["😀"] == js["7"] == 0


def test_the_comparison_sees_a_difference(compared):
    """mismatches() reports a changed sentence, a changed word of a message, a Chinese
    message in English and a letter put in the other class."""
    job, expected, got = compared
    bad = json.loads(json.dumps(got))
    bad["sentencesOf"][0] = bad["sentencesOf"][0][:1]
    i = next(i for i, v in enumerate(expected["verdicts"]) if v["refusal"])
    bad["verdicts"]["en"][i]["refusal"] += "!"
    bad["verdicts"]["zh"][i] = bad["verdicts"]["en"][i]
    at = next(j for j, (first, _) in enumerate(bad["classes"]) if first == 0xAA)
    bad["classes"][at][1] = 2  # ª, a Latin letter to Python
    found = mismatches(job, expected, bad)
    assert [m.split("(")[0].split(":")[0] for m in found] == [
        "sentencesOf", "verdicts", "verdicts", "letter class"], found


def test_letters_newer_than_pythons_unicode_are_few(compared):
    """Letters JavaScript knows and this Python's Unicode does not (their verdicts can
    differ: Python reads them as no letter at all), printed for the record."""
    _, _, got = compared
    _, newer = class_mismatches(got["classes"])
    print(f"{newer} letters newer than Python's Unicode {unicodedata.unidata_version}")
    assert newer < 30_000
