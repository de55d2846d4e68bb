"""The Chinese rendering of every figure (issue 31): one call draws both editions, the
Chinese one has no English word the catalogue knows, its CJK characters are in the bundled
font, and every figure of the committed notebooks carries it."""
from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
import torch
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font
from matplotlib.text import Text

from illustrated import draw
from illustrated.draw import words
from illustrated.draw.figure import _CJK, _FONT_FILE
from illustrated.draw.words import in_edition

from .helpers import CJK, gen, notebook_outputs, softmax_weights, thinking_machines

BEAM = [[(None, "<bos>", 0.0, "kept")],
        [(0, "i", -0.1, "kept"), (0, "we", -2.5, "dropped")],
        [(0, "am", -0.2, "kept"), (0, "<eos>", -3.0, "finished")]]
# Every public draw function, with the words a caller may give it (all in the catalogue).
FIGURES = {
    "tensor_cells": lambda: draw.tensor_cells(torch.randn(2, 4, generator=gen()),
                                              row_labels=draw.book_words(
                                                  ["position 0", "position 1"]),
                                              title="Self-attention: each output sees every input"),
    "tensor_cells_wide": lambda: draw.tensor_cells(torch.randn(20, 512), colorbar=True),
    "matmul_figure": lambda: draw.matmul_figure(torch.ones(2, 3), torch.ones(3, 2),
                                                row_labels=CJK[:2]),
    "multi_head_figure": lambda: draw.multi_head_figure(
        torch.randn(3, 4), torch.randn(2, 3, 2), torch.randn(4, 4),
        title="Multi-head attention in one picture"),
    "self_attention_table": lambda: draw.self_attention_table(*thinking_machines()),
    "attention_heatmap": lambda: draw.attention_heatmap(softmax_weights(3, 4), colorbar=True),
    "attention_heads": lambda: draw.attention_heads(softmax_weights(2, 3, 3)),
    "histograms": lambda: draw.histograms({"std 100": torch.randn(500) * 100,
                                           "std 1": torch.randn(500)}, xlabel="value"),
    "bar_values": lambda: draw.bar_values(softmax_weights(3), ylabel="weight"),
    "line_plot": lambda: draw.line_plot([1, 2, 4], {"keys": [1, 2, 3]}, xlabel="value",
                                        logx=True, marks={"head 1": 2}),
    "black_box": lambda: draw.black_box(),
    "stack_diagram": lambda: draw.stack_diagram(n_layers=2, highlight="decoder"),
    "stack_diagram_detail": lambda: draw.stack_diagram(highlight="masked self-attention"),
    "beam_tree": lambda: draw.beam_tree(BEAM),
    "encoding_heatmap": lambda: draw.encoding_heatmap(torch.randn(4, 6)),
    "encoding_waves": lambda: draw.encoding_waves(torch.randn(10, 4), [0, 2]),
    "decoder_only_figure": lambda: draw.decoder_only_figure(["<bos>", "<eos>"],
                                                            ["<eos>", "<bos>"]),
    "add_norm_figure": lambda: draw.add_norm_figure(
        torch.randn(3, 4), torch.randn(3, 4),
        row_labels=draw.book_words(["position 0", "position 1", "position 2"])),
}
# Words of the data (sentences, tokens) and names that read the same in both editions.
SAME = {"Transformer", "softmax", "Add & Norm", "Thinking", "Machines", "je suis étudiant",
        "I am a student", "std 100", "std 1", "<bos> I am a", "<bos>", "<eos>"}
ENGLISH = re.compile(r"[A-Za-z]{3,}")


def all_texts(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.findobj(Text) if t.get_text().strip()]


def english_left(text: str) -> list[str]:
    """English words of ``text`` once the shared words are taken out."""
    for same in sorted(SAME, key=len, reverse=True):
        text = text.replace(same, "")
    return ENGLISH.findall(re.sub(r"\$[^$]*\$", "", text))  # maths is not words


@pytest.mark.parametrize("name", FIGURES)
def test_the_chinese_rendering_has_no_english_words_left(name):
    fig = FIGURES[name]()
    with in_edition("zh_CN") as missed:
        zh = fig.recipe()
    assert [t for t in missed if t not in SAME] == [], "figure words missing from draw.po"
    left = {t: english_left(t) for t in all_texts(zh) if english_left(t)}
    assert left == {}, "English drawn in the Chinese figure"
    assert english_left(zh.alt_text) == [], zh.alt_text
    assert _CJK.search(zh.alt_text) and zh.alt_text.endswith("。"), zh.alt_text


@pytest.mark.parametrize("name", FIGURES)
def test_the_english_rendering_is_unchanged_by_the_catalogue(name):
    """Drawing the Chinese one leaves the English figure and its words as they were."""
    fig = FIGURES[name]()
    before = (all_texts(fig), fig.alt_text)
    fig.drawn_in("zh_CN")
    assert (all_texts(fig), fig.alt_text) == before
    assert not any(_CJK.search(t) for t in before[0] if t not in CJK)


def test_tokens_are_drawn_as_they_are_and_the_books_words_translated():
    """A label is data unless marked as the book's words: the tokens "." and "," stay as
    they are in the Chinese figure (the catalogue turns a sentence's full stop into "。"),
    while "position 1" becomes "位置 1"; the alt text says the same."""
    tokens = ["mine", ",", "."]
    fig = draw.attention_heatmap(softmax_weights(3, 3), query_labels=tokens,
                                 key_labels=tokens)
    rows = draw.book_words(["position 0", "position 1"]) + ["."]
    cells = draw.tensor_cells(torch.ones(3, 2), row_labels=rows)
    with in_edition("zh_CN"):
        zh, zh_cells = fig.recipe(), cells.recipe()
    ax = zh.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == tokens
    assert [t.get_text() for t in ax.get_xticklabels()] == tokens
    assert "查询 mine、, 和 .，" in zh.alt_text and "。" not in zh.alt_text[:-1], zh.alt_text
    labels = [t.get_text() for t in zh_cells.axes[0].get_yticklabels()]
    assert labels == ["位置 0", "位置 1", "."], labels


def test_book_words_wants_a_list_of_strings():
    assert draw.book_words(("a", "b")) == ["a", "b"]
    with pytest.raises(TypeError, match="single string 'others'"):
        draw.book_words("others")
    with pytest.raises(TypeError, match="takes strings, got 3 \\(int\\)"):
        draw.book_words(["a", 3])


def test_one_call_shows_both_editions():
    fig = draw.attention_heatmap(softmax_weights(2, 2), title="head 1")
    png, metadata = fig._repr_png_()
    zh = metadata["zh_CN"]
    assert base64.b64decode(zh["png"]).startswith(b"\x89PNG") and zh["png"] != png
    assert zh["alt"].startswith("注意力权重热力图，2 个查询 × 2 个键"), zh["alt"]
    assert "标题为“头 1”" in zh["alt"]
    assert zh["untranslated"] == []


def test_chinese_alt_texts_space_latin_words_and_bracket_in_full_width():
    fig = draw.interval_plot(["rope", "gqa"], [-0.9, 0.35], [-2.1, -0.2], [0.2, 0.9])
    zh = fig._repr_png_()[1]["zh_CN"]["alt"]
    assert "rope -0.90（-2.10 至 0.20）和 gqa 0.35（-0.20 至 0.90）" in zh, zh
    fig = draw.tensor_cells(torch.zeros(2, 2), row_labels=["LayerNorm(x)", "RMSNorm(x)"])
    assert "LayerNorm(x) 和 RMSNorm(x)" in fig._repr_png_()[1]["zh_CN"]["alt"]


def test_the_chinese_rendering_uses_the_same_numbers():
    fig = draw.bar_values([0.25, 0.75], labels=["a", "b"])
    with in_edition("zh_CN"):
        zh = fig.recipe()
    assert [t.get_text() for t in zh.axes[0].texts] == [t.get_text() for t in fig.axes[0].texts]


def test_chinese_texts_get_the_bundled_font():
    with in_edition("zh_CN"):
        zh = draw.attention_heads(softmax_weights(2, 2, 2))
    titles = [ax.get_title() for ax in zh.axes]
    assert titles == ["头 1", "头 2"]
    assert all(Path(ax.title.get_fontproperties().get_file()) == _FONT_FILE for ax in zh.axes)


def test_a_figure_drawn_into_a_callers_axes_has_no_chinese_rendering():
    """The caller may draw more into it: a rendering from the call alone would lose that."""
    own = draw.line_plot([0, 1], {"a": [0, 1]})
    again = draw.bar_values([1.0, 2.0], ax=own.axes[0])
    assert again is own and own.recipe is None
    assert set(own._repr_png_()[1]) == {"alt"}
    with pytest.raises(ValueError, match="not drawn by one illustrated.draw call"):
        own.drawn_in("zh_CN")


def test_every_character_of_the_translations_is_in_the_font():
    """A Chinese text is drawn in the bundled font alone, so its τ or √ must be there too."""
    from babel.messages.pofile import read_po

    have = set(map(chr, FT2Font(str(_FONT_FILE)).get_charmap()))
    drawn = ""  # draw.po: the words matplotlib draws (explorers.po's are the browser's)
    for path in words.LOCALE.glob("*/draw.po"):
        with path.open("rb") as po:
            drawn += "".join(m.string for m in read_po(po) if m.id and m.string)
    missing = sorted(set(drawn) - have - {"\n"})
    assert missing == [], f"run scripts/subset_font.py: {''.join(missing)}"


def notebook_figures():
    return ((where, output) for where, output in notebook_outputs()
            if "image/png" in output.get("data", {}))


def test_every_figure_of_the_notebooks_has_its_chinese_rendering():
    figures = dict(notebook_figures())
    assert len(figures) > 80
    problems = {}
    for where, output in figures.items():
        zh = output.get("metadata", {}).get("image/png", {}).get("zh_CN")
        if zh is None:
            problems[where] = "no Chinese rendering (re-execute: make notebooks)"
        elif not base64.b64decode(zh["png"]).startswith(b"\x89PNG"):
            problems[where] = "its Chinese PNG is not a PNG"
        elif not _CJK.search(zh["alt"]):
            problems[where] = f"its Chinese alt text is not Chinese: {zh['alt']!r}"
        elif zh["untranslated"]:
            problems[where] = f"words missing from draw.po: {zh['untranslated']}"
    assert problems == {}
