"""Tests for illustrated.draw.plots: histograms, bar_values, line_plot, interval_plot."""
from __future__ import annotations

import pytest
import torch

from illustrated import draw

from .helpers import gen, softmax_weights, texts


def test_histograms_layouts():
    wide, narrow = torch.randn(1000, generator=gen()) * 100, torch.randn(1000, generator=gen(1))
    assert len(draw.histograms({"std 100": wide, "std 1": narrow}).axes) == 2  # > 10x apart
    assert len(draw.histograms({"a": narrow, "b": narrow * 2}).axes) == 1
    assert len(draw.histograms({"a": wide, "b": narrow}, layout="overlay").axes) == 1
    with pytest.raises(ValueError, match="layout must be"):
        draw.histograms({"a": narrow}, layout="grid")
    with pytest.raises(ValueError, match=r"must be 1-D, got shape \(2, 3\)"):
        draw.histograms({"a": torch.zeros(2, 3)})
    with pytest.raises(TypeError, match="dict"):
        draw.histograms([narrow])


def test_bar_values_writes_each_value_on_its_bar():
    p = softmax_weights(10)
    ax = draw.bar_values(p, labels=[str(i) for i in range(10)]).axes[0]
    assert len(ax.patches) == 10
    assert texts(ax) == [f"{v:.3f}" for v in p.tolist()]
    with pytest.raises(ValueError, match="labels has 2 labels but there are 10 values"):
        draw.bar_values(p, labels=["a", "b"])


def test_line_plot_draws_each_series():
    d_k = torch.tensor([1.0, 2, 4, 8, 16])
    ax = draw.line_plot(d_k, {"unscaled": d_k, "scaled": torch.ones(5)}, logx=True).axes[0]
    assert [line.get_label() for line in ax.lines] == ["unscaled", "scaled"]
    assert list(ax.lines[0].get_ydata()) == d_k.tolist()
    assert ax.get_xscale() == "log"
    with pytest.raises(ValueError, match="has 2 values but x has 5"):
        draw.line_plot(d_k, {"short": [1, 2]})
    with pytest.raises(ValueError, match="logy=True needs positive values"):
        draw.line_plot(d_k, {"zero": torch.zeros(5)}, logy=True)


def test_line_plot_marks_draw_dashed_lines_named_in_alt():
    L = torch.tensor([64.0, 128, 256, 512])
    fig = draw.line_plot(L, {"a": L, "b": L * L / 256}, marks={"crossover": 256})
    ax = fig.axes[0]
    assert len(ax.lines) == 3 and list(ax.lines[2].get_xdata()) == [256, 256]
    assert "crossover" in texts(ax)
    assert "marked: crossover at x = 256" in fig.alt_text
    with pytest.raises(TypeError, match="marks must be a dict"):
        draw.line_plot(L, {"a": L}, marks=[256])
    with pytest.raises(TypeError, match=r"marks\['x'\] must be a number"):
        draw.line_plot(L, {"a": L}, marks={"x": "256"})
    with pytest.raises(ValueError, match="logx=True needs positive marks"):
        draw.line_plot(L, {"a": L}, logx=True, marks={"x": 0})


def test_line_plot_log_ticks_label_more_than_one_tick_on_a_short_log_axis():
    """y from 2e5 to 8e6 holds one power of ten: by default 10^6 is its only label."""
    x, ys = [2, 4, 8, 16], {"work": [2e5, 5e5, 2e6, 8e6]}

    def labels(fig):
        fig.canvas.draw()
        ax = fig.axes[0]
        lo, hi = ax.get_ylim()
        return [t.get_text() for t, v in zip(ax.get_yticklabels(), ax.get_yticks())
                if t.get_text() and lo <= v <= hi]

    assert labels(draw.line_plot(x, ys, logx=True, logy=True)) == ["$\\mathdefault{10^{6}}$"]
    assert labels(draw.line_plot(x, ys, logx=True, logy=True, log_ticks=(1, 2, 5))) == [
        f"$\\mathdefault{{{t}}}$" for t in ("2\\times10^{5}", "5\\times10^{5}", "10^{6}",
                                          "2\\times10^{6}", "5\\times10^{6}")]


def test_interval_plot_draws_each_interval_from_low_to_high_and_a_line_at_zero():
    labels, c = ["rope", "swiglu", "gqa"], [-0.9, -0.7, 0.35]
    lo, hi = [-2.1, -1.9, -0.2], [0.2, 0.6, 0.9]
    fig = draw.interval_plot(labels, c, lo, hi, xlabel="difference")
    ax = fig.axes[0]
    for i, line in enumerate(ax.lines[:3]):  # the first label on top
        assert list(line.get_xdata()) == [lo[i], hi[i]]
        assert list(line.get_ydata()) == [2 - i, 2 - i]
    assert list(ax.lines[3].get_xdata()) == c  # the centres
    assert list(ax.lines[4].get_xdata()) == [0, 0]  # the line at 0
    ticks = {round(y): t.get_text() for y, t in zip(ax.get_yticks(), ax.get_yticklabels())}
    assert ticks == {2: "rope", 1: "swiglu", 0: "gqa"}
    assert "rope -0.90 (-2.10 to 0.20)" in fig.alt_text
    with pytest.raises(ValueError, match="must hold its centre"):
        draw.interval_plot(["a"], [1.0], [0.0], [0.5])
    with pytest.raises(ValueError, match="one entry per centre"):
        draw.interval_plot(["a", "b"], [1.0, 2.0], [0.0], [3.0, 3.0])
