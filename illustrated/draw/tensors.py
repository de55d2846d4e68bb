"""Tensors drawn as grids of numbered boxes: one tensor (chapter 2, Attention as a soft
lookup), a matrix product and self-attention step by step (chapter 3, Self-attention and
Q, K, V)."""
from __future__ import annotations

import math

import matplotlib
import numpy as np
import torch
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .figure import (CELL_INCHES, alt_sentence, as_math, axes_inches, check_labels, clean_axes,
                     colour_scale, draw_cells, edition_labels, edition_words, finish_figure,
                     float_tensor, format_value, ink_on, listed, new_axes, new_figure,
                     value_fontsize, with_editions)
from .palette import (DIVERGING, EMBEDDING, INK, KEY, MUTED, OUTPUT, PAPER, QUERY,
                      SEQUENTIAL, VALUE)
from .words import tr

_WIDE = 48  # tensors with more columns are drawn as thin stripes, without values


@with_editions
def tensor_cells(x, row_labels=None, col_labels=None, title=None, show_values=True,
                 fmt="{:.2f}", cmap=DIVERGING, vmin=None, vmax=None, ax=None,
                 colorbar=False) -> Figure:
    """Draw a vector or matrix as a grid of coloured boxes, one box per number.

    Args:
        x: ``(C,)`` (one row) or ``(R, C)``, e.g. word vectors ``(L, D)``.
        row_labels, col_labels: ``R`` / ``C`` strings, e.g. the words of the rows.
        show_values: print each number in its box; turned off when the boxes are too
            small (wide tensors, e.g. 512 columns, become thin stripes).
        cmap, vmin, vmax: colour scale; by default symmetric around 0.
        colorbar: add a colour bar (useful when values are not printed).

    Returns:
        a Figure with one axes (two with the colour bar); the boxes are one
        ``PolyCollection`` with ``gid="cells"``, the printed values its ``ax.texts``.
    """
    t = float_tensor(x, "x")
    if t.dim() not in (1, 2):
        raise ValueError(f"x must be 1-D (C,) or 2-D (R, C), got shape {tuple(t.shape)}")
    values = t.reshape(1, -1) if t.dim() == 1 else t  # (R, C)
    R, C = values.shape
    rows = edition_labels(check_labels(row_labels, R, "row_labels", "rows"))
    cols = edition_labels(check_labels(col_labels, C, "col_labels", "columns"))
    (title,) = edition_words(title)
    wide = C > _WIDE
    cell_w, cell_h = min(CELL_INCHES, (7.0 if colorbar else 8.0) / C), min(CELL_INCHES, 6.0 / R)
    label_w = 0.4 + 0.09 * max((len(r) for r in rows or ["00"]), default=2)
    fig, ax = new_axes((C * cell_w + label_w + 0.3 + 1.2 * colorbar,
                        R * cell_h + 0.5 + 0.35 * bool(title) + 0.3 * (wide or bool(cols))), ax)
    norm = colour_scale(values, vmin, vmax)
    texts = [format_value(fmt, v) for v in values.flatten().tolist()] if show_values else []
    size = value_fontsize(min(axes_inches(ax)[0] / C, axes_inches(ax)[1] / R), texts)
    draw_cells(ax, values.double().numpy(), cmap=cmap, norm=norm, fmt=fmt, fontsize=size,
               gap=(0.0 if wide else 0.1, 0.1), gid="cells")
    ax.set(xlim=(0, C), ylim=(R, 0))
    if not wide:
        ax.set_aspect("equal")
    _cell_ticks(ax, rows, cols, R, C, wide)
    clean_axes(ax)
    if title:
        ax.set_title(title, color=INK, fontsize=11)
    if colorbar:
        fig.colorbar(ScalarMappable(norm, cmap), ax=ax, shrink=0.8, aspect=15)
    what = (tr("Grid of coloured boxes, one per number of a vector of {C} numbers (colour "
               "shows the value)") if t.dim() == 1 else
            tr("Grid of coloured boxes, one per number of a {R} × {C} matrix (colour shows "
               "the value)"))
    return finish_figure(fig, alt=alt_sentence(
        what.format(R=R, C=C), title,
        tr("rows: {labels}").format(labels=listed(rows)) if rows else "",
        tr("columns: {labels}").format(labels=listed(cols)) if cols else "",
        tr("each value printed in its box") if size else ""))


def _cell_ticks(ax, rows, cols, R, C, wide) -> None:
    """Row labels on the left; column labels on top, or every 16th / 64th column index
    when the tensor is wide, or none."""
    ax.set_yticks(np.arange(R) + 0.5, rows or ([] if R == 1 else range(R)))
    ax.xaxis.tick_top()
    if cols is not None:
        ax.set_xticks(np.arange(C) + 0.5, cols)
    elif wide:
        ax.set_xticks([s + 0.5 for s in range(0, C, 64 if C > 256 else 16)] + [C - 0.5])
        ax.xaxis.set_major_formatter(lambda v, _: f"{int(v)}")
    else:
        ax.set_xticks([])


@with_editions
def matmul_figure(a, b, c=None, names=("X", "W^Q", "Q"), row_labels=None, show_values=True,
                  title=None) -> Figure:
    """Draw ``A x B = C`` with every operand's real values and its shape below it.

    Args:
        a: ``(n, m)``; b: ``(m, p)``; c: ``(n, p)``, by default ``a @ b``.
        names: the three names, mathtext-ready (``"W^Q"`` prints as W with a raised Q).
        row_labels: ``n`` strings for the rows of ``a`` and ``c``, e.g. words.

    Returns:
        a Figure with one axes. Raises ValueError if the shapes do not chain.
    """
    a, b, c, rows = _matmul_inputs(a, b, c, names, row_labels)
    rows, (title,) = edition_labels(rows), edition_words(title)
    operands, gap = (a, b, c), 1.4  # gap: room for the operator between two matrices
    width = sum(t.shape[1] for t in operands) + 2 * gap
    height = max(t.shape[0] for t in operands) + 1.2  # + room for the shape label
    unit = min(CELL_INCHES, 8.5 / width, 5.5 / height)
    fig, ax = new_axes((width * unit + 0.6 + 0.1 * max(map(len, rows or [""])),
                        height * unit + 0.4 + 0.35 * bool(title)))
    top = (height - 1.2) / 2  # operands are centred vertically around this line
    x0 = 0.0
    for k, (t, name) in enumerate(zip(operands, names)):
        y0 = top - t.shape[0] / 2
        texts = [f"{v:.2f}" for v in t.flatten().tolist()] if show_values else []
        draw_cells(ax, t.double().numpy(), x0, y0, cmap=DIVERGING, norm=colour_scale(t, None, None),
                   fmt="{:.2f}", fontsize=value_fontsize(unit, texts), gid=f"operand{k}")
        shape = f"{as_math(name)} ({t.shape[0]}×{t.shape[1]})"
        ax.text(x0 + t.shape[1] / 2, y0 + t.shape[0] + 0.45, shape, ha="center", va="top",
                fontsize=11, color=INK)
        if k < 2:
            ax.text(x0 + t.shape[1] + gap / 2, top, "×" if k == 0 else "=", ha="center",
                    va="center", fontsize=20, color=INK)
        x0 += t.shape[1] + gap
    ax.set(xlim=(0, width), ylim=(height, -0.1), aspect="equal")
    ax.set_xticks([])
    ax.set_yticks(np.arange(a.shape[0]) + top - a.shape[0] / 2 + 0.5, rows or [])
    clean_axes(ax)
    if title:
        ax.set_title(title, color=INK, fontsize=11)
    a_, b_, c_ = (f"{n} ({t.shape[0]} × {t.shape[1]})" for n, t in zip(names, operands))
    return finish_figure(fig, alt=alt_sentence(
        tr("Matrix product {a} × {b} = {c}, each matrix drawn as coloured boxes").format(
            a=a_, b=b_, c=c_), title,
        tr("rows: {labels}").format(labels=listed(rows)) if rows else "",
        tr("every value printed in its box") if show_values else ""))


def _matmul_inputs(a, b, c, names, row_labels):
    """Check the inputs of matmul_figure; return a, b, c (by default a @ b) and the labels."""
    a, b = float_tensor(a, "a"), float_tensor(b, "b")
    for name, t in (("a", a), ("b", b)):
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D, got shape {tuple(t.shape)}")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"cannot multiply a {tuple(a.shape)} by b {tuple(b.shape)}: the columns "
                         f"of a ({a.shape[1]}) must equal the rows of b ({b.shape[0]})")
    dtype = torch.promote_types(a.dtype, b.dtype)
    c = a.to(dtype) @ b.to(dtype) if c is None else float_tensor(c, "c")  # (n, p)
    if tuple(c.shape) != (a.shape[0], b.shape[1]):
        raise ValueError(f"c must have shape {(a.shape[0], b.shape[1])} (rows of a, columns "
                         f"of b), got {tuple(c.shape)}")
    if len(names) != 3:
        raise ValueError(f"names must hold 3 names (A, B, C), got {len(names)}")
    return a, b, c, check_labels(row_labels, a.shape[0], "row_labels", "rows in a")


def _attention_inputs(words, x, w_q, w_k, w_v, position):
    """Check the inputs of self_attention_table; return x and the weights in one dtype."""
    x = float_tensor(x, "x")
    if x.dim() != 2:
        raise ValueError(f"x must be 2-D (L, D), one row per word, got shape {tuple(x.shape)}")
    L, D = x.shape
    words = check_labels(words, L, "words", "rows in x")
    ws = [float_tensor(w, n) for w, n in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v"))]
    for w, n in zip(ws, ("w_q", "w_k", "w_v")):
        if w.dim() != 2 or w.shape[0] != D:
            raise ValueError(f"{n} must be 2-D (D, Dk) with D={D} rows to match x "
                             f"{tuple(x.shape)}, got shape {tuple(w.shape)}")
    if ws[0].shape[1] != ws[1].shape[1]:
        raise ValueError(f"w_q and w_k must have the same width Dk (q·k needs it), got "
                         f"{tuple(ws[0].shape)} and {tuple(ws[1].shape)}")
    if isinstance(position, bool) or not isinstance(position, int) or not -L <= position < L:
        raise ValueError(f"position must be an int in [0, {L}), the index of the query word, "
                         f"got {position!r}")
    dtype = x.dtype
    for w in ws:
        dtype = torch.promote_types(dtype, w.dtype)
    return words, x.to(dtype), [w.to(dtype) for w in ws], position % L


@with_editions
def self_attention_table(words, x, w_q, w_k, w_v, position=0, title=None) -> Figure:
    """Self-attention for one query word, step by step, as in The Illustrated Transformer.

    One row per input word; sections from left to right: the embedding ``x``, the query
    ``q`` (of the query word only), the key ``k`` and value ``v``, the score ``q·k``, the
    score divided by ``√d_k``, its softmax, ``softmax × v``, and their sum ``z`` (on the
    query word's row). Softmax and ``z`` come from
    :func:`illustrated.attention.scaled_dot_product_attention`.

    Args:
        words: the ``L`` input words.
        x: word vectors ``(L, D)``.
        w_q, w_k: ``(D, Dk)``; w_v: ``(D, Dv)``.
        position: the index of the query word in ``words``.
        title: by default 'Self-attention for “<word>”'.

    Returns:
        a Figure with one axes; each printed number carries the ``gid`` of its section
        (``"x"``, ``"q"``, ``"k"``, ``"v"``, ``"score"``, ``"scaled"``, ``"softmax"``,
        ``"weighted"``, ``"z"``).
    """
    from ..attention import scaled_dot_product_attention

    words, x, (w_q, w_k, w_v), position = _attention_inputs(words, x, w_q, w_k, w_v, position)
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # (L, Dk), (L, Dk), (L, Dv)
    z, weights = scaled_dot_product_attention(q[position:position + 1], k, v)  # (1, Dv), (1, L)
    d_k = q.shape[1]
    scores = k @ q[position]  # (L,)
    weighted = weights[0][:, None] * v  # (L, Dv): each value scaled by its weight
    # v, softmax × v and z share one scale
    value_norm = colour_scale(torch.cat([v, z]), None, None)
    scalar = scores[:, None]  # (L, 1): one number per word
    sections = [  # name, header, colour, values (rows x columns), first row, colour scale
        ("x", tr("embedding\nx"), EMBEDDING, x, 0, colour_scale(x, None, None)),
        ("q", tr("query\nq"), QUERY, q[position:position + 1], position,
         colour_scale(q, None, None)),
        ("k", tr("key\nk"), KEY, k, 0, colour_scale(k, None, None)),
        ("v", tr("value\nv"), VALUE, v, 0, value_norm),
        ("score", tr("score\nq·k"), INK, scalar, 0, None),  # None: numbers in grey boxes
        ("scaled", tr("score\n÷ √{d_k}").format(d_k=d_k), INK, scalar / math.sqrt(d_k), 0, None),
        ("softmax", "softmax\n", INK, weights[0][:, None], 0, "softmax"),
        ("weighted", "softmax\n× v", VALUE, weighted, 0, value_norm),
        ("z", tr("sum\nz"), OUTPUT, z, position, value_norm),
    ]
    bands = [(tr("1) project each word into q, k and v"), sections[:4]),
             (tr("2) score the keys, softmax, weigh the values, sum"), sections[4:])]
    title = (tr(title) if title else
             tr("Self-attention for “{word}”").format(word=words[position]))
    return _draw_table(bands, edition_labels(words), title)


def _draw_table(bands, words, title) -> Figure:
    """Draw each band of sections side by side, one row per word; bands one under another."""
    L, gap, scalar_w, band_h = len(words), 0.7, 2.0, len(words) + 1.9
    widths = [[vals.shape[1] if isinstance(norm, Normalize) else scalar_w
               for _, _, _, vals, _, norm in sections] for _, sections in bands]
    width = max(sum(w) + gap * (len(w) - 1) for w in widths)
    unit = min(CELL_INCHES, 8.5 / width)
    fig = new_figure(figsize=(width * unit + 0.4 + 0.08 * max(map(len, words)),
                             len(bands) * band_h * unit + 0.5), layout="constrained")
    ax = fig.add_subplot()
    for b, ((name, sections), band_widths) in enumerate(zip(bands, widths)):
        top, x0 = b * band_h + 1.7, 0.0  # the band's first row; headers sit above it
        ax.text(0, top - 1.45, name, fontsize=9.5, color=MUTED, va="center", style="italic")
        for (gid, head, colour, vals, row, norm), w in zip(sections, band_widths):
            if isinstance(norm, Normalize):
                size = value_fontsize(unit, [f"{v:.2f}" for v in vals.flatten().tolist()])
                draw_cells(ax, vals.double().numpy(), x0, top + row, cmap=DIVERGING,
                           norm=norm, fmt="{:.2f}", fontsize=size, gid=gid)
            else:
                _draw_scalars(ax, vals[:, 0].tolist(), x0, top, w, norm == "softmax", unit, gid)
            ax.text(x0 + w / 2, top - 0.12, head, ha="center", va="bottom", fontsize=9.5,
                    color=colour, fontweight="bold", linespacing=1.1)
            x0 += w + gap
    ax.set(xlim=(-0.05, width + 0.05), ylim=(len(bands) * band_h - 0.15, 0), aspect="equal")
    ax.set_xticks([])
    ax.set_yticks([b * band_h + 2.2 + i for b in range(len(bands)) for i in range(L)],
                  words * len(bands))
    clean_axes(ax)
    ax.set_title(title, color=INK, fontsize=11)
    steps = [head.replace("\n", " ").strip() for _, sections in bands
             for _, head, *_ in sections]
    return finish_figure(fig, alt=alt_sentence(
        tr("Table of self-attention, one row per word ({words})").format(words=listed(words)),
        title, tr("columns from left to right: {steps}").format(
            steps=listed(steps, limit=len(steps)))))


def _draw_scalars(ax, numbers, x0, y0, width, probabilities, unit, gid) -> None:
    """One number per row in a box: grey, or shaded like a heat map for probabilities."""
    size = value_fontsize(unit * width / 1.4, [f"{n:.2f}" for n in numbers])
    for i, n in enumerate(numbers):
        face = matplotlib.colormaps[SEQUENTIAL](n) if probabilities else PAPER
        ax.add_patch(Rectangle((x0 + 0.05, y0 + i + 0.05), width - 0.1, 0.9, facecolor=face,
                               edgecolor="none", gid=gid))
        ax.text(x0 + width / 2, y0 + i + 0.5, format_value("{:.2f}", n), ha="center", va="center",
                fontsize=size, color=ink_on(face), gid=gid)
