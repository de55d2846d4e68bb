"""Tests for illustrated.draw.encodings (chapter 7): heat maps and waves of position tables."""
import pytest
import torch
from matplotlib.figure import Figure

from illustrated import draw
from illustrated.positional import sinusoidal_encoding

from .helpers import render, texts


def test_heatmap_of_a_small_table_prints_its_values():
    pe = sinusoidal_encoding(4, 4, base=100)
    fig = draw.encoding_heatmap(pe, title="I am a robot", row_labels=["I", "am", "a", "robot"])
    assert isinstance(fig, Figure) and len(fig.axes) == 2  # the map and its colour bar
    ax = fig.axes[0]
    assert texts(ax)[:4] == ["0.00", "1.00", "0.00", "1.00"]  # row 0: sin 0, cos 0, ...
    assert texts(ax)[4] == f"{pe[1, 0].item():.2f}"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["I", "am", "a", "robot"]
    torch.testing.assert_close(torch.as_tensor(ax.images[0].get_array()), pe.double())
    assert fig.alt_text == ("Heat map of I am a robot: 4 rows, one per position, by 4 columns, "
                            "one per dimension; colour runs from blue (-1) through white to "
                            "red (1), with each value printed in its cell.")
    render(fig)


def test_heatmap_of_a_wide_table_has_no_values_and_says_its_shape():
    fig = draw.encoding_heatmap(sinusoidal_encoding(20, 512), title="paper layout")
    ax = fig.axes[0]
    assert texts(ax) == []
    assert ax.images[0].get_array().shape == (20, 512)
    assert "20 rows, one per position, by 512 columns" in fig.alt_text
    assert "printed" not in fig.alt_text
    width, height = fig.get_size_inches()
    assert 2.5 <= width <= 10.5 and 1.0 <= height <= 10.5
    render(fig)


def test_heatmap_colour_scale_and_labels():
    bits = torch.tensor([[0, 1], [1, 0], [1, 1]])
    fig = draw.encoding_heatmap(bits, vmin=0, vmax=1, xlabel="bit", ylabel="number",
                                fmt="{:.0f}")
    assert fig.axes[0].images[0].get_clim() == (0, 1)
    assert texts(fig.axes[0]) == ["0", "1", "1", "0", "1", "1"]
    assert "one per number, by 2 columns, one per bit; colour runs from blue (0)" in fig.alt_text


def test_heatmap_draws_into_a_given_axes():
    host = Figure()
    ax = host.add_subplot()
    assert draw.encoding_heatmap(torch.rand(3, 4), ax=ax) is host
    assert len(host.axes) == 1


@pytest.mark.parametrize("table, kwargs, error, match", [
    (torch.zeros(2, 3, 4), {}, ValueError, r"table must be 2-D \(positions, dimensions\), "
                                           r"got shape \(2, 3, 4\)"),
    (torch.zeros(3, 4), {"row_labels": ["a"]}, ValueError, r"row_labels has 1 labels but "
                                                           r"there are 3 rows"),
    ("abc", {}, TypeError, r"table must be"),
])
def test_heatmap_refuses_bad_input(table, kwargs, error, match):
    with pytest.raises(error, match=match):
        draw.encoding_heatmap(table, **kwargs)


def test_waves_draw_one_curve_per_column():
    pe = sinusoidal_encoding(30, 8)
    fig = draw.encoding_waves(pe, [0, 2, 6], title="three frequencies")
    (ax,) = fig.axes
    assert len(ax.lines) == 3
    for line, j in zip(ax.lines, [0, 2, 6]):
        assert line.get_label() == f"dimension {j}"
        torch.testing.assert_close(torch.as_tensor(line.get_ydata()), pe[:, j].double())
    assert fig.alt_text == ("Line plot of three frequencies: the values of columns 0, 2, 6 of "
                            "a table of 30 positions by 8 dimensions, one curve per column, "
                            "against the position 0 to 29.")
    render(fig)


@pytest.mark.parametrize("columns, match", [
    ([], r"columns must name 1 to 6 columns, got 0"),
    ([0, 8], r"columns must be in \[0, 8\) for a table of shape \(30, 8\), got \[8\]"),
    ([-1], r"got \[-1\]"),
])
def test_waves_refuse_bad_columns(columns, match):
    with pytest.raises(ValueError, match=match):
        draw.encoding_waves(sinusoidal_encoding(30, 8), columns)
