"""Attention weights as heat maps: one map (chapter 2, Attention as a soft lookup), one
map per head (chapter 5, multi-head attention)."""
from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from ..checks import check_positive_int
from .figure import (CELL_INCHES, alt_sentence, axes_inches, check_labels, clean_axes,
                     edition_labels, edition_words, finish_figure, float_tensor, format_value,
                     ink_on, listed, new_axes, new_figure, value_fontsize, with_editions)
from .palette import INK, MUTED, SEQUENTIAL
from .words import tr


@with_editions
def attention_heatmap(weights, query_labels=None, key_labels=None, title=None,
                      show_values=True, fmt="{:.2f}", ax=None, colorbar=False) -> Figure:
    """Attention weights ``(L, S)`` as a heat map on a 0..1 scale.

    Queries are the rows (labels on the left), keys the columns (labels on top); the
    weights are printed in the cells when they fit.

    Args:
        weights: ``(L, S)``, e.g. ``MultiHeadAttention.attention_weights[0, h]``.
        query_labels, key_labels: ``L`` and ``S`` tokens.
        colorbar: add a colour bar.

    Returns:
        a Figure with one axes (two with the colour bar).
    """
    w = float_tensor(weights, "weights")
    if w.dim() != 2:
        hint = "; for several heads use attention_heads" if w.dim() in (3, 4) else ""
        raise ValueError(f"weights must be 2-D (L, S), got shape {tuple(w.shape)}{hint}")
    L, S = w.shape
    queries = edition_labels(check_labels(query_labels, L, "query_labels",
                                          "queries (rows of weights)"))
    keys = edition_labels(check_labels(key_labels, S, "key_labels", "keys (columns of weights)"))
    (title,) = edition_words(title)
    cell, own = min(CELL_INCHES, 7.0 / S, 6.0 / L), ax is None
    fig, ax = new_axes((S * cell + _label_inches(queries) + 0.5 + 0.9 * colorbar,
                        L * cell + _label_inches(keys) + 0.5 + 0.3 * bool(title)), ax)
    if not own:  # drawing into the caller's axes: fit the values to its cells
        cell = min(axes_inches(ax)[0] / S, axes_inches(ax)[1] / L)
    image = _heatmap(ax, w, queries, keys, fmt if show_values else None, cell)
    if title:
        ax.set_title(title, color=INK, fontsize=11)
    if colorbar:
        fig.colorbar(image, ax=ax, shrink=0.8, aspect=15, label=tr("weight"))
    return finish_figure(fig, alt=alt_sentence(
        tr("Heat map of attention weights, {L} queries × {S} keys on a 0 to 1 colour scale"
           ).format(L=L, S=S), title, _axes_alt(queries, keys),
        tr("each weight printed in its cell") if show_values else ""))


def _label_inches(labels) -> float:
    """Room that tick labels need, in inches (a rough guess from their length)."""
    return 0.3 + 0.08 * max(map(len, labels or ["00"]))


def _heatmap(ax, w, queries, keys, fmt, cell, ylabel=None):
    """Draw weights ``(L, S)`` into ``ax``; values printed with ``fmt`` when they fit; the
    rows titled ``ylabel``, else "queries"."""
    L, S = w.shape
    image = ax.imshow(w.double().numpy(), cmap=SEQUENTIAL, vmin=0, vmax=1)
    texts = [format_value(fmt, v) for v in w.flatten().tolist()] if fmt else []
    size = value_fontsize(cell, texts)
    for (i, j), text in zip(np.ndindex(L, S), texts if size else []):
        ax.text(j, i, text, ha="center", va="center", fontsize=size,
                color=ink_on(image.cmap(image.norm(w[i, j].item()))))
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xticks(range(S), keys or range(S))
    ax.set_yticks(range(L), queries or range(L))
    if keys and max(map(len, keys)) * 6 / 72 > 0.95 * cell:  # labels wider than a cell
        ax.tick_params(axis="x", labelrotation=45)
        for label in ax.get_xticklabels():
            label.set(ha="left", rotation_mode="anchor")
    ax.set_xlabel(tr("keys"), color=MUTED, fontsize=9)
    ax.set_ylabel(ylabel or tr("queries"), color=MUTED, fontsize=9)
    if max(L, S) <= 30:  # white gaps between the cells, as in tensor_cells
        ax.set_xticks(np.arange(S + 1) - 0.5, minor=True)
        ax.set_yticks(np.arange(L + 1) - 0.5, minor=True)
        ax.grid(which="minor", color="white", linewidth=2)
        ax.tick_params(which="minor", length=0)
    clean_axes(ax)
    return image


@with_editions
def attention_heads(weights, query_labels=None, key_labels=None, ncols=4, title=None,
                    ylabel=None) -> Figure:
    """One heat map per head, titled "head 1", "head 2", ...

    Args:
        weights: ``(H, L, S)``, or ``(1, H, L, S)`` as stored by ``MultiHeadAttention``
            for a batch of one.
        query_labels, key_labels: ``L`` and ``S`` tokens, written on the left column
            and the top row of heat maps.
        ncols: heat maps per row.
        ylabel: the rows' axis title, "queries" if None (a decoder's rows can be named
            by the token each step writes).

    Returns:
        a Figure with ``H`` axes.
    """
    w = _heads_weights(weights)  # (H, L, S)
    check_positive_int(ncols, "ncols")
    H, L, S = w.shape
    queries = edition_labels(check_labels(query_labels, L, "query_labels",
                                          "queries (rows of weights)"))
    keys = edition_labels(check_labels(key_labels, S, "key_labels", "keys (columns of weights)"))
    title, ylabel = edition_words(title, ylabel)
    ncols = min(ncols, H)
    nrows = math.ceil(H / ncols)
    margin_w, margin_h = _label_inches(queries) + 0.3, _label_inches(keys) + 0.3
    cell = min(CELL_INCHES, (9.5 - margin_w) / (ncols * (S + 0.6)), 7.0 / (nrows * (L + 1.5)))
    fig = new_figure(figsize=(ncols * (S + 0.6) * cell + margin_w,
                             nrows * (L + 1.5) * cell + margin_h + 0.35 * bool(title)),
                    layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for h, ax in enumerate(axes.flat):
        if h >= H:
            fig.delaxes(ax)
            continue
        _heatmap(ax, w[h], queries, keys, "{:.2f}", cell, ylabel)
        ax.set_title(tr("head {i}").format(i=h + 1), color=INK, fontsize=10)
        if h >= ncols:  # keys are labelled on the top row only, queries on the left column
            ax.tick_params(labeltop=False)
            ax.set_xlabel("")
        if h % ncols:
            ax.tick_params(labelleft=False)
            ax.set_ylabel("")
    if title:
        fig.suptitle(title, color=INK, fontsize=12)
    maps = (tr("1 heat map of attention weights for one head, {L} queries × {S} keys on a 0 "
               "to 1 scale") if H == 1 else
            tr("{H} heat maps of attention weights side by side, one per head (head 1 to head "
               "{H}), each {L} queries × {S} keys on a 0 to 1 scale"))
    return finish_figure(fig, alt=alt_sentence(maps.format(H=H, L=L, S=S), title,
                                               _axes_alt(queries, keys)))


def _axes_alt(queries, keys) -> str:
    """What the rows and columns of a heat map are, for its alt text."""
    rows = (tr("rows are the queries {labels}").format(labels=listed(queries)) if queries
            else tr("rows are the queries"))
    cols = (tr("columns the keys {labels}").format(labels=listed(keys)) if keys
            else tr("columns the keys"))
    return tr("{rows}, {cols}").format(rows=rows, cols=cols)


def _heads_weights(weights):
    """The weights of attention_heads as ``(H, L, S)``, from ``(H, L, S)`` or ``(1, H, L, S)``."""
    w = float_tensor(weights, "weights")
    if w.dim() == 4:
        if w.shape[0] != 1:
            raise ValueError(f"4-D weights must have a batch of 1, (1, H, L, S), got shape "
                             f"{tuple(w.shape)}; pick one example, e.g. weights[0]")
        w = w[0]  # (H, L, S)
    if w.dim() != 3:
        raise ValueError(f"weights must be 3-D (H, L, S) or 4-D (1, H, L, S), got shape "
                         f"{tuple(w.shape)}")
    return w
