"""illustrated.draw.words: the figure words of each edition (issue 31)."""
import contextvars
import re

import pytest

from illustrated.draw import words
from illustrated.draw.words import EDITIONS, edition, in_edition, tr


def test_english_is_the_default_and_answers_unchanged():
    assert edition() == "en"
    assert tr("keys") == "keys"
    with in_edition("en") as missed:
        assert tr("keys") == "keys" and tr("no such words") == "no such words"
    assert missed == []


def test_chinese_inside_the_block_only():
    with in_edition("zh_CN"):
        assert edition() == "zh_CN"
        assert tr("keys") == "键"
    assert edition() == "en" and tr("keys") == "keys"


def test_the_edition_is_restored_after_an_error():
    with pytest.raises(RuntimeError), in_edition("zh_CN"):
        raise RuntimeError("boom")
    assert edition() == "en"


def test_unknown_text_comes_back_unchanged_and_is_reported():
    with in_edition("zh_CN") as missed:
        assert tr("je suis étudiant") == "je suis étudiant"
        tr("je suis étudiant")
        assert tr("  ") == "  "  # blank: nothing to translate, nothing to report
    assert missed == ["je suis étudiant"]


def test_templates_are_formatted_after_translation():
    with in_edition("zh_CN"):
        assert tr("head {i}").format(i=3) == "头 3"


def test_a_finished_text_with_numbers_matches_its_template():
    with in_edition("zh_CN"):
        assert tr("head 12") == "头 12"
        assert tr("dimension -1.5") == "维度 -1.5" and tr("head 4,000") == "头 4,000"
        # Only numbers fill a template: a token that merely starts alike stays as it is.
        assert tr("head tail") == "head tail"


def test_a_bad_edition_names_the_editions():
    with pytest.raises(ValueError, match=re.escape("unknown edition 'zh'; the editions are: "
                                                   "'en', 'zh_CN'")):
        with in_edition("zh"):
            pass
    assert EDITIONS == ("en", "zh_CN")


def test_tr_wants_a_string():
    with pytest.raises(TypeError, match="tr\\(\\) translates a string, got int 3"):
        tr(3)


def test_an_unnamed_field_in_a_template_is_refused():
    with pytest.raises(ValueError, match="empty field"):
        words._template("position {}")


def test_each_context_has_its_own_edition():
    """contextvars: a thread or task started elsewhere does not see another's edition."""
    outside = contextvars.copy_context()
    with in_edition("zh_CN"):
        assert outside.run(edition) == "en"


def test_every_message_of_the_catalogues_is_translated():
    """An empty or fuzzy msgstr would leave English in a Chinese figure without a word."""
    from babel.messages.pofile import read_po

    paths = sorted((words.LOCALE / "zh_CN").glob("*.po"))
    assert paths, "no catalogue in illustrated/draw/locale/zh_CN"
    for path in paths:
        with path.open("rb") as handle:
            for message in read_po(handle):
                if message.id:
                    assert message.string and not message.fuzzy, (path.name, message.id)


def test_templates_keep_their_fields():
    """A translation must place every {field} of its template, and no other (braces in
    maths, $\\sqrt{d_k}$, are not fields)."""
    def fields(text):
        return set(words._FIELD.findall(re.sub(r"\$[^$]*\$", "", text)))

    messages, _ = words._catalogue("zh_CN")
    for msgid, msgstr in messages.items():
        assert fields(msgid) == fields(msgstr), msgid


def test_a_readers_run_carries_english_only_and_the_books_run_both(monkeypatch):
    from illustrated import draw

    monkeypatch.delenv(words.CARRIED, raising=False)
    assert words.carried_editions() == ("en",)
    png, metadata = draw.bar_values([1.0, 2.0], labels=["a", "b"])._repr_png_()
    assert "zh_CN" not in metadata  # no second drawing to wait for
    monkeypatch.setenv(words.CARRIED, "zh_CN, en")
    assert words.carried_editions() == ("en", "zh_CN")
    assert "zh_CN" in draw.bar_values([1.0, 2.0], labels=["a", "b"])._repr_png_()[1]


def test_an_unknown_carried_edition_is_named(monkeypatch):
    import pytest

    monkeypatch.setenv(words.CARRIED, "en,fr")
    with pytest.raises(ValueError, match=r"ILLUSTRATED_EDITIONS names 'fr'; the editions are: "
                                         r"'en', 'zh_CN'"):
        words.carried_editions()
