"""Tables in the edition's words (illustrated/draw/tables.py): the English output is pandas'
own, the Chinese one translates the book's words only, and every table of the committed
notebooks carries its Chinese rendering."""
from __future__ import annotations

import re

import pandas as pd
import pytest

from illustrated import draw
from illustrated.draw.words import CARRIED

from .helpers import notebook_outputs


def frame():
    return pd.DataFrame({"greedy": [1.5, 2.0], "copied": ["yes", "no"]},
                        index=pd.Index([".", "je suis étudiant"], name="French"))


def test_the_english_output_is_pandas_own(monkeypatch):
    monkeypatch.delenv(CARRIED, raising=False)
    f = frame()
    shown = draw.table(f, rows="data")
    assert shown.frame is f
    assert shown._repr_html_() == f._repr_html_()
    assert repr(shown) == repr(f)


def test_the_books_run_carries_the_chinese_table(monkeypatch):
    monkeypatch.setenv(CARRIED, "en,zh_CN")
    html, metadata = draw.table(frame(), rows="data", cells=["copied"])._repr_html_()
    assert html == frame()._repr_html_()
    assert set(metadata) == {"zh_CN"}
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", metadata["zh_CN"])
    assert "贪心" in heads and "法语" in heads, heads
    assert "是" in metadata["zh_CN"] and "je suis étudiant" in metadata["zh_CN"]


def test_only_the_books_words_are_translated():
    zh = draw.table(frame(), rows="data", cells=["copied"]).in_edition("zh_CN")
    assert list(zh.columns) == ["贪心", "照抄"], list(zh.columns)
    assert zh.index.name == "法语"
    assert list(zh.index) == [".", "je suis étudiant"]  # data: the token "." stays "."
    assert list(zh["照抄"]) == ["是", "否"]
    assert list(zh["贪心"]) == [1.5, 2.0]


def test_row_labels_are_words_unless_said():
    f = pd.DataFrame({"BLEU": [30.0, 31.0]}, index=["greedy", "beam"])
    assert list(draw.table(f).in_edition("zh_CN").index) == ["贪心", "束搜索"]
    assert list(draw.table(f, rows="data").in_edition("zh_CN").index) == ["greedy", "beam"]


def test_both_levels_of_a_multiindex_and_numbers_left_alone():
    columns = pd.MultiIndex.from_product([["milliseconds"], ["LSTM", "self-attention"]])
    f = pd.DataFrame([[1.0, 2.0]], columns=columns, index=pd.Index([8], name="L"))
    zh = draw.table(f).in_edition("zh_CN")
    assert list(zh.columns) == [("毫秒", "LSTM"), ("毫秒", "自注意力")], list(zh.columns)
    assert list(zh.index) == [8]


def test_a_series_is_a_one_column_table():
    s = pd.Series([1, 2], name="held-out rows", index=["a", "b"])
    assert list(draw.table(s, rows="data").in_edition("zh_CN").index) == ["a", "b"]


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="DataFrame or Series, got list"):
        draw.table([[1, 2]])
    with pytest.raises(ValueError, match="rows must be \"words\".*got 'tokens'"):
        draw.table(frame(), rows="tokens")
    with pytest.raises(TypeError, match=r"a list such as \['copied'\]"):
        draw.table(frame(), cells="copied")
    with pytest.raises(ValueError, match="does not have: \\['kind'\\]"):
        draw.table(frame(), cells=["kind"])


def notebook_tables():
    for where, output in notebook_outputs():
        html = "".join(output.get("data", {}).get("text/html", ""))
        if "<table" in html and "dataframe" in html:
            yield where, output


def test_every_table_of_the_notebooks_has_its_chinese_rendering():
    tables = dict(notebook_tables())
    assert len(tables) > 40
    missing = [where for where, output in tables.items()
               if "zh_CN" not in output.get("metadata", {}).get("text/html", {})]
    assert missing == [], "show these tables with draw.table() and re-execute (make notebooks)"
