"""Tables of position codes: one row per position, one column per dimension, as a heat
map, and chosen columns as waves along the positions (chapter 7, Embeddings and
positional encoding)."""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .figure import (axes_inches, check_labels, clean_axes, edition_labels, edition_words,
                     finish_figure, float_tensor, format_value, ink_on, new_axes, value_fontsize,
                     with_editions)
from .palette import DIVERGING, INK, MUTED, SERIES
from .words import tr

_VALUES_UP_TO = 16  # values are printed in the cells of tables at most this wide


def _table(table):
    t = float_tensor(table, "table")
    if t.dim() != 2:
        raise ValueError(f"table must be 2-D (positions, dimensions), got shape {tuple(t.shape)}")
    return t


@with_editions
def encoding_heatmap(table, title=None, row_labels=None, col_labels=None,
                     xlabel="dimension", ylabel="position", show_values=None,
                     fmt="{:.2f}", cmap=DIVERGING, vmin=None, vmax=None, ax=None) -> Figure:
    """A table ``(L, D)`` (e.g. positional encodings) as a heat map with a colour bar.

    Rows are positions (top to bottom), columns dimensions (left to right).

    Args:
        table: ``(L, D)``.
        row_labels, col_labels: ``L`` / ``D`` strings (default: the indices).
        xlabel, ylabel: what the columns and the rows are.
        show_values: print each value in its cell; by default only when the table is at
            most 16 columns wide and 24 rows high.
        cmap, vmin, vmax: colour scale; by default symmetric around 0.

    Returns:
        a Figure with two axes (the map and its colour bar); one when ``ax`` is given.
    """
    t = _table(table)
    L, D = t.shape
    rows = edition_labels(check_labels(row_labels, L, "row_labels", "rows (positions)"))
    cols = edition_labels(check_labels(col_labels, D, "col_labels", "columns (dimensions)"))
    title, xlabel, ylabel = edition_words(title, xlabel, ylabel)
    if show_values is None:
        show_values = D <= _VALUES_UP_TO and L <= 24
    bound = float(t.abs().max()) or 1.0
    vmin, vmax = (-bound if vmin is None else vmin), (bound if vmax is None else vmax)
    cell = min(0.5, 7.0 / D, 5.5 / L)
    own = ax is None
    equal = D <= 4 * L  # square cells; a wide table gets taller rows to stay readable
    height = L * cell if equal else min(4.0, 0.15 * L)
    fig, ax = new_axes((max(3.0, D * cell + 2.2), max(1.6, height + 1.0 + 0.3 * bool(title))),
                       ax)
    image = ax.imshow(t.double().numpy(), cmap=cmap, vmin=vmin, vmax=vmax,
                      aspect="equal" if equal else "auto", interpolation="nearest")
    if show_values:
        _print_values(ax, t, image, fmt)
    _ticks(ax, rows, cols, L, D)
    ax.set_xlabel(xlabel, color=MUTED, fontsize=9)
    ax.set_ylabel(ylabel, color=MUTED, fontsize=9)
    clean_axes(ax)
    if title:
        ax.set_title(title, color=INK, fontsize=11)
    if own:
        fig.colorbar(image, ax=ax, shrink=0.8, aspect=15)
    alt = tr("Heat map of {what}: {L} rows, one per {ylabel}, by {D} columns, one per "
             "{xlabel}; colour runs from blue ({vmin}) through white to red ({vmax}){values}."
             ).format(what=title or tr("a table"), L=L, D=D, ylabel=ylabel, xlabel=xlabel,
                      vmin=f"{vmin:g}", vmax=f"{vmax:g}",
                      values=tr(", with each value printed in its cell") if show_values else "")
    return finish_figure(fig, alt=alt)


def _print_values(ax, t, image, fmt) -> None:
    L, D = t.shape
    texts = [format_value(fmt, v) for v in t.flatten().tolist()]
    size = value_fontsize(min(axes_inches(ax)[0] / D, axes_inches(ax)[1] / L), texts)
    for (i, j), text in zip(np.ndindex(L, D), texts if size else []):
        ax.text(j, i, text, ha="center", va="center", fontsize=size,
                color=ink_on(image.cmap(image.norm(t[i, j].item()))))


def _ticks(ax, rows, cols, L, D) -> None:
    """Every index (or label) on small tables, matplotlib's choice on large ones."""
    if rows is not None or L <= 24:
        ax.set_yticks(range(L), rows or range(L))
    if cols is not None or D <= 24:
        ax.set_xticks(range(D), cols or range(D))
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")


@with_editions
def encoding_waves(table, columns, title=None, xlabel="position", ax=None) -> Figure:
    """Chosen columns of a table ``(L, D)`` drawn as curves along the positions: each
    column of a sinusoidal encoding is a wave of its own frequency.

    Args:
        table: ``(L, D)``.
        columns: the column indices to draw (up to six).

    Returns:
        a Figure with one axes, one line per column, labelled "dimension j".
    """
    t = _table(table)
    L, D = t.shape
    columns = [int(j) for j in columns]
    if not 1 <= len(columns) <= len(SERIES):
        raise ValueError(f"columns must name 1 to {len(SERIES)} columns, got {len(columns)}")
    bad = [j for j in columns if not 0 <= j < D]
    if bad:
        raise ValueError(f"columns must be in [0, {D}) for a table of shape {(L, D)}, got {bad}")
    title, xlabel = edition_words(title, xlabel)
    fig, ax = new_axes((6.5, 2.8 + 0.3 * bool(title)), ax)
    for j, color in zip(columns, SERIES):
        ax.plot(range(L), t[:, j].double().numpy(), color=color, marker="." if L <= 40 else None,
                label=tr("dimension {j}").format(j=j))
    ax.set_xlabel(xlabel, color=MUTED, fontsize=9)
    ax.set_ylabel(tr("value"), color=MUTED, fontsize=9)
    ax.legend(fontsize=8, loc="upper right", frameon=False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if title:
        ax.set_title(title, color=INK, fontsize=11)
    names = ", ".join(str(j) for j in columns)
    what = tr("Line plot of {title}").format(title=title) if title else tr("Line plot")
    alt = tr("{what}: the values of columns {names} of a table of {L} {xlabel}s by {D} "
             "dimensions, one curve per column, against the {xlabel} 0 to {last}.").format(
        what=what, names=names, L=L, xlabel=xlabel, D=D, last=L - 1)
    return finish_figure(fig, alt=alt)
