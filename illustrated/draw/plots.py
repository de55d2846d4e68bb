"""Plots of numbers: histograms, bars and curves (chapter 1, The black box; chapter 2,
Attention as a soft lookup; chapter 4, Scaled scores and the softmax experiment)."""
from __future__ import annotations

import numpy as np
import torch
from matplotlib.figure import Figure
from matplotlib.ticker import LogFormatterSciNotation, LogLocator, NullFormatter

from .figure import (alt_sentence, axes_inches, check_labels, edition_labels, edition_words,
                     finish_figure, float_tensor, format_value, listed, new_axes, new_figure,
                     value_fontsize, with_editions)
from .palette import INK, MUTED, SERIES, VALUE
from .words import tr


def _vector(x, name: str) -> torch.Tensor:
    t = float_tensor(x, name)
    if t.dim() != 1:
        raise ValueError(f"{name} must be 1-D, got shape {tuple(t.shape)}")
    return t.double()


def _style(ax, title=None, xlabel=None, ylabel=None) -> None:
    """Light axes: no top/right spines, a faint grid, muted ticks."""
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color(MUTED)
    ax.tick_params(colors=INK, labelsize=9)
    ax.grid(alpha=0.25, color=MUTED)
    ax.set_axisbelow(True)
    ax.set_title(title or "", color=INK, fontsize=11)
    ax.set_xlabel(xlabel or "", color=INK)
    ax.set_ylabel(ylabel or "", color=INK)


@with_editions
def histograms(samples: dict, bins=50, title=None, xlabel=None, ax=None, layout="auto") -> Figure:
    """Histograms of named 1-D samples, overlaid or side by side.

    Args:
        samples: ``{name: (N,) tensor}``, e.g. ``{"std 100": a, "std 1": b}``.
        layout: ``"overlay"`` (one axes), ``"side"`` (one axes per sample, each with its
            own x scale) or ``"auto"``: side by side when the standard deviations differ
            by more than 10x, since the narrow one would be a spike on a shared axis.
        ax: draw into this axes (overlay only).

    Returns:
        a Figure with one axes (overlay) or one per sample (side by side).
    """
    if not isinstance(samples, dict) or not samples:
        raise TypeError("samples must be a non-empty dict {name: 1-D tensor}")
    data = {tr(str(k)): _vector(v, f"samples[{k!r}]") for k, v in samples.items()}
    title, xlabel = edition_words(title, xlabel)
    if layout not in ("auto", "overlay", "side"):
        raise ValueError(f"layout must be 'auto', 'overlay' or 'side', got {layout!r}")
    stds = {k: float(v.std()) if v.numel() > 1 else 0.0 for k, v in data.items()}
    if layout == "auto":
        spread = max(stds.values()) / max(min(stds.values()), 1e-300)
        layout = "side" if spread > 10 and ax is None and len(data) > 1 else "overlay"
    if layout == "side" and ax is not None:
        raise ValueError("layout='side' draws one axes per sample, so it needs its own "
                         "figure: leave ax=None")
    if layout == "overlay":
        fig, ax = new_axes((6.5, 3.8), ax)
        _overlaid_histograms(ax, data, stds, bins)
        _style(ax, title, xlabel, tr("count"))
        return finish_figure(fig, alt=_histograms_alt(data, stds, tr("overlaid on one axes"),
                                                      title, xlabel))
    fig = new_figure(figsize=(min(10.0, 3.4 * len(data) + 0.4), 3.6), layout="constrained")
    axes = fig.subplots(1, len(data), squeeze=False).flat
    for i, (ax, (name, v)) in enumerate(zip(axes, data.items())):
        ax.hist(v.numpy(), bins=bins, color=SERIES[i % len(SERIES)], alpha=0.8,
                edgecolor="white", linewidth=0.4)
        _style(ax, tr("{name}\n(std {std})").format(name=name, std=f"{stds[name]:.3g}"), xlabel,
               tr("count") if i == 0 else None)
    if title:
        fig.suptitle(title, color=INK, fontsize=12)
    return finish_figure(fig, alt=_histograms_alt(
        data, stds, tr("side by side, each with its own x scale"), title, xlabel))


def _histograms_alt(data, stds, layout, title, xlabel) -> str:
    """The alt text of histograms(): which samples, how many values, their spreads."""
    samples = listed([tr("{name} ({n} values, std {std})").format(
        name=name, n=v.numel(), std=f"{stds[name]:.3g}") for name, v in data.items()])
    what = (tr("1 histogram {layout}") if len(data) == 1 else tr("{n} histograms {layout}"))
    return alt_sentence(what.format(n=len(data), layout=layout), title,
                        tr("samples: {samples}").format(samples=samples),
                        tr("x axis: {label}").format(label=xlabel) if xlabel else "",
                        tr("y axis: count"))


def _overlaid_histograms(ax, data, stds, bins) -> None:
    """All samples on one axes, with shared bins so the bars are comparable."""
    edges = np.histogram_bin_edges(torch.cat(list(data.values())).numpy(), bins=bins)
    for i, (name, v) in enumerate(data.items()):
        ax.hist(v.numpy(), bins=edges, color=SERIES[i % len(SERIES)], alpha=0.55,
                label=tr("{name} (std {std})").format(name=name, std=f"{stds[name]:.3g}"),
                edgecolor="white", linewidth=0.4)
    ax.legend(frameon=False, fontsize=9)


@with_editions
def bar_values(values, labels=None, title=None, ylabel=None, ax=None, fmt="{:.3f}",
               show_values=True) -> Figure:
    """A bar per number of a 1-D tensor, its value written on the bar (e.g. a softmax).

    Args:
        values: ``(N,)``.
        labels: ``N`` strings under the bars (by default 0 .. N-1).
        show_values: write the values; left out when the bars are too narrow.

    Returns:
        a Figure with one axes.
    """
    v = _vector(values, "values")
    n = v.numel()
    names = (edition_labels(check_labels(labels, n, "labels", "values"))
             or [str(i) for i in range(n)])
    title, ylabel = edition_words(title, ylabel)
    fig, ax = new_axes((min(10.0, max(4.5, 0.6 * n + 1.5)), 3.6), ax)
    bars = ax.bar(range(n), v.numpy(), color=VALUE, width=0.7)
    texts = [format_value(fmt, x) for x in v.tolist()]
    size = value_fontsize(0.9 * axes_inches(ax)[0] / max(n, 1), texts) if show_values else 0
    if size:
        ax.bar_label(bars, texts, padding=2, fontsize=size, color=INK)
    lo, hi = min(0.0, float(v.min())), max(0.0, float(v.max()))
    pad = 0.12 * ((hi - lo) or 1.0)
    ax.set_ylim(lo - (pad if lo < 0 else 0), hi + pad)
    ax.set_xticks(range(n), names)
    if sum(map(len, names)) > 60:
        ax.tick_params(axis="x", labelrotation=45)
        for label in ax.get_xticklabels():
            label.set(ha="right", rotation_mode="anchor")
    _style(ax, title, None, ylabel)
    ax.grid(axis="x", visible=False)
    ax.axhline(0, color=MUTED, linewidth=0.8)
    bars_alt = [f"{name} {text}" for name, text in zip(names, texts)]
    limit = 12  # bars listed in the alt text; past it, the largest is named on its own
    largest = (tr("largest: {bar}").format(bar=bars_alt[int(v.argmax())])
               if n > limit else "")  # it may be one of the bars left out of the list
    return finish_figure(fig, alt=alt_sentence(
        tr("Bar chart of {n} values").format(n=n), title,
        tr("bars: {bars}").format(bars=listed(bars_alt, limit=limit)), largest,
        tr("y axis: {label}").format(label=ylabel) if ylabel else ""))


@with_editions
def line_plot(x, series: dict, xlabel=None, ylabel=None, title=None, logx=False, logy=False,
              ax=None, marks: dict | None = None, log_ticks=(1,)) -> Figure:
    """Several named curves against the same ``x``.

    Args:
        x: ``(N,)`` positions, e.g. the values of ``d_k``.
        series: ``{name: (N,) values}``; a name becomes the curve's legend entry.
        logx, logy: logarithmic axes (``x`` / the values must then be positive); when
            every ``x`` is a power of 2 (``d_k = 1, 2, 4, ...``) the x ticks are those.
        marks: optional ``{label: x position}``; each becomes a dashed vertical line with
            its label, e.g. where two curves cross (chapter on cost).
        log_ticks: the multiples of each power of ten labelled on a logarithmic axis;
            ``(1, 2, 5)`` makes an axis readable whose data span few powers of ten.

    Returns:
        a Figure with one axes.
    """
    xs = _vector(x, "x")
    if not isinstance(series, dict) or not series:
        raise TypeError("series must be a non-empty dict {name: 1-D values}")
    curves = {tr(str(k)): _vector(v, f"series[{k!r}]") for k, v in series.items()}
    title, xlabel, ylabel = edition_words(title, xlabel, ylabel)
    for name, ys in curves.items():
        if ys.numel() != xs.numel():
            raise ValueError(f"series[{name!r}] has {ys.numel()} values but x has {xs.numel()}")
        if logy and bool((ys <= 0).any()):
            raise ValueError(f"logy=True needs positive values, series[{name!r}] has some <= 0")
    if logx and bool((xs <= 0).any()):
        raise ValueError("logx=True needs positive x values")
    fig, ax = new_axes((6.5, 4.0), ax)
    marker = "o" if xs.numel() <= 25 else None
    for i, (name, ys) in enumerate(curves.items()):
        ax.plot(xs.numpy(), ys.numpy(), color=SERIES[i % len(SERIES)], marker=marker,
                markersize=4, linewidth=2, label=name)
    _log_axes(ax, xs, torch.cat(list(curves.values())), logx, logy, log_ticks)
    marked = _marks(ax, marks, logx)
    _style(ax, title, xlabel, ylabel)
    ax.legend(frameon=False, fontsize=9)
    scales = {(True, False): "logarithmic x scale", (False, True): "logarithmic y scale",
              (True, True): "logarithmic x and logarithmic y scale"}.get((bool(logx),
                                                                         bool(logy)))
    what = (tr("Line plot of 1 curve over {n} points") if len(curves) == 1 else
            tr("Line plot of {k} curves over {n} points"))
    return finish_figure(fig, alt=alt_sentence(
        what.format(k=len(curves), n=xs.numel()), title,
        tr("curves: {names}").format(names=listed(list(curves))),
        tr("x axis: {label} from {lo} to {hi}").format(
            label=xlabel or "x", lo=format_value("{:.3g}", float(xs.min())),
            hi=format_value("{:.3g}", float(xs.max()))),
        tr("y axis: {label}").format(label=ylabel) if ylabel else "",
        tr(scales) if scales else "", tr("marked: {marks}").format(marks=marked) if marked else ""))


def _marks(ax, marks, logx) -> str:
    """Dashed vertical lines at ``marks`` ``{label: x}``; returns them in words for alt."""
    if marks is None:
        return ""
    if not isinstance(marks, dict):
        raise TypeError(f"marks must be a dict {{label: x position}} or None, got "
                        f"{type(marks).__name__}")
    words = []
    for label, pos in marks.items():
        if isinstance(pos, bool) or not isinstance(pos, (int, float)):
            raise TypeError(f"marks[{label!r}] must be a number, got {pos!r}")
        if logx and pos <= 0:
            raise ValueError(f"logx=True needs positive marks, marks[{label!r}] = {pos}")
        ax.axvline(pos, color=MUTED, linestyle="--", linewidth=1)
        label = tr(str(label))
        ax.annotate(label, (pos, 1), xycoords=("data", "axes fraction"),
                    xytext=(4, -12), textcoords="offset points", color=INK, fontsize=9)
        words.append(tr("{label} at x = {x}").format(label=label,
                                                     x=format_value("{:.3g}", float(pos))))
    return listed(words)


def _log_axes(ax, xs, ys, logx, logy, log_ticks=(1,)) -> None:
    """Logarithmic axes labelled at ``log_ticks`` times each power of ten, with plain
    numbers where they are short."""
    ax.set(xscale="log" if logx else "linear", yscale="log" if logy else "linear")
    for axis, log, data in ((ax.xaxis, logx, xs), (ax.yaxis, logy, ys)):
        if log and tuple(log_ticks) != (1,):  # e.g. 10^5, 2 x 10^5, 5 x 10^5, 10^6 ...
            axis.set_major_locator(LogLocator(subs=[float(m) for m in log_ticks]))
            axis.set_minor_formatter(NullFormatter())
            axis.set_major_formatter(LogFormatterSciNotation(  # every multiple labelled
                labelOnlyBase=False, minor_thresholds=(np.inf, np.inf)))
        if log and 1e-3 <= float(data.min()) and float(data.max()) < 1e5:
            axis.set_major_formatter(lambda v, _: f"{v:g}")  # 100 reads faster than 10^2
    if logx and bool((torch.log2(xs) % 1 == 0).all()):  # e.g. d_k = 1, 2, 4, ..., 512
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs.tolist(), [f"{v:g}" for v in xs.tolist()])
        ax.minorticks_off()



@with_editions
def interval_plot(labels, centres, lows, highs, title=None, xlabel=None, ax=None,
                  fmt="{:.2f}") -> Figure:
    """One row per label: a dot at its centre and a line from its low to its high end, with
    a dashed line at 0, e.g. differences from a baseline with their 95 % intervals (the
    decoders chapter after chapter 13). A row whose line crosses 0 shows no measurable
    difference.

    Args:
        labels: ``N`` names, drawn from top to bottom.
        centres, lows, highs: ``(N,)`` each, ``lows <= centres <= highs``.
        fmt: how the centres are written in the alt text.

    Returns:
        a Figure with one axes; the intervals are its ``ax.lines[:N]``.
    """
    c, lo, hi = (_vector(v, name) for v, name in
                 ((centres, "centres"), (lows, "lows"), (highs, "highs")))
    n = c.numel()
    names = edition_labels(check_labels(labels, n, "labels", "centres"))
    if names is None or lo.numel() != n or hi.numel() != n:
        raise ValueError(f"labels, lows and highs must have one entry per centre ({n})")
    if bool((lo > c).any() or (c > hi).any()):
        raise ValueError("each interval must hold its centre: lows <= centres <= highs")
    title, xlabel = edition_words(title, xlabel)
    fig, ax = new_axes((6.5, 0.45 * n + 1.4), ax)
    for i in range(n):
        y = n - 1 - i  # the first label on top
        ax.plot([lo[i].item(), hi[i].item()], [y, y], color=VALUE, linewidth=2.5)
    ax.plot(c.numpy(), list(range(n - 1, -1, -1)), "o", color=INK, markersize=5)
    ax.axvline(0, color=MUTED, linestyle="--", linewidth=1)
    ax.set_yticks(range(n - 1, -1, -1), names)
    ax.set_ylim(-0.7, n - 0.3)
    _style(ax, title, xlabel, None)
    ax.grid(axis="y", visible=False)
    row = tr("{name} {centre} ({lo} to {hi})")  # in Chinese, full-width brackets
    shown = listed([row.format(name=name, centre=format_value(fmt, m),
                               lo=format_value(fmt, a), hi=format_value(fmt, b))
                    for name, m, a, b in zip(names, c.tolist(), lo.tolist(), hi.tolist())],
                   limit=12)
    return finish_figure(fig, alt=alt_sentence(
        tr("Interval plot of {n} rows").format(n=n), title,
        tr("rows: {labels}").format(labels=shown),
        tr("x axis: {label}").format(label=xlabel) if xlabel else ""))
