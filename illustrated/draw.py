"""Figures computed from tensors; used in every chapter (started in chapter 1, The black box).

Every function takes tensors (lists and NumPy arrays work too), checks their shapes and
returns a :class:`matplotlib.figure.Figure`. Figures are made with ``Figure(...)``, not
``pyplot``: nothing enters pyplot's registry, so Jupyter shows each figure once (as the
cell's value, with or without ``%matplotlib inline``), and importing this module neither
imports pyplot nor changes matplotlib's settings. Pass ``ax=`` (where offered) to draw
into an axes of your own; the function then returns ``ax.figure``.

All colours come from the palette constants below. Texts containing Chinese characters
(chapter 3 labels rows with 人, 工, 智, 能) are drawn, text by text, with a small subset of
WenQuanYi Micro Hei shipped in ``illustrated/fonts/``; ``scripts/subset_font.py`` adds
characters to it.
"""
from __future__ import annotations

import io
import math
import re
from pathlib import Path

import matplotlib
import numpy as np
import torch
from matplotlib.cm import ScalarMappable
from matplotlib.collections import PolyCollection
from matplotlib.colors import Normalize, to_rgb
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch, Rectangle
from matplotlib.path import Path as MplPath
from matplotlib.text import Text

from ._checks import check_positive_int, check_tensor

# The palette: every figure takes its colours from here.
INK = "#2E3440"  # text, outlines, arrows
MUTED = "#7B8794"  # secondary text, faint outlines
PAPER = "#F1F3F5"  # frames and boxes holding a single number
ACCENT = "#E4572E"  # the part a chapter is about (stack_diagram's highlight)
ACCENT_LIGHT = "#FBD9CF"  # a highlighted frame that contains other boxes
ENCODER = "#B7E4C7"
DECODER = "#F8C8D4"
ATTENTION = "#FFD8A8"  # every kind of attention sublayer
FEED_FORWARD = "#BFDBFE"
ADD_NORM = "#FFF3B0"
POSITIONAL = "#DCCBF2"
EMBEDDING = "#2F9E44"  # x, the word vectors
QUERY = "#9C36B5"  # q
KEY = "#E8590C"  # k
VALUE = "#1C7ED6"  # v
OUTPUT = "#D6336C"  # z
SERIES = (VALUE, KEY, EMBEDDING, QUERY, OUTPUT, MUTED)  # curves and histograms, in order
DIVERGING = "RdBu_r"  # signed values: blue < 0 < red, white at 0
SEQUENTIAL = "Blues"  # probabilities in [0, 1]

# Every part stack_diagram can highlight.
PARTS = (
    "self-attention",
    "feed-forward",
    "encoder-decoder attention",
    "masked self-attention",
    "add-norm",
    "encoder",
    "decoder",
    "positional",
)

_FONT_FILE = Path(__file__).parent / "fonts" / "wqy-microhei-subset.ttf"
_CJK = re.compile("[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")
_CELL_IN = 0.5  # the side of one box in inches, when there is room
_WIDE = 48  # tensors with more columns are drawn as thin stripes, without values


# ---------------------------------------------------------------------------- helpers
class _Figure(Figure):
    """A plain ``Figure`` that Jupyter can show by itself.

    IPython draws a bare ``Figure`` only once pyplot has set up its inline backend (e.g.
    ``%matplotlib inline``); until then the cell would print "<Figure size ...>". The
    inline backend's own printer, when active, takes precedence over this method, so a
    figure is never shown twice.
    """

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue()


def _as_tensor(x, name: str) -> torch.Tensor:
    """``x`` as a detached floating-point CPU tensor (float tensors keep their dtype)."""
    if isinstance(x, (list, tuple, np.ndarray)):
        try:
            x = torch.as_tensor(np.asarray(x, dtype=np.float64))
        except (TypeError, ValueError) as err:
            raise TypeError(f"{name} must be numbers (a tensor, list or array): {err}") from None
    check_tensor(x, name)
    x = x.detach().cpu()
    return x if x.is_floating_point() else x.to(torch.float64)


def _check_labels(labels, n: int, name: str, what: str):
    """``labels`` as a list of ``n`` strings, or None."""
    if labels is None:
        return None
    if isinstance(labels, str):
        raise TypeError(f"{name} must be a list of strings, got the single string {labels!r}")
    labels = [str(label) for label in labels]
    if len(labels) != n:
        raise ValueError(f"{name} has {len(labels)} labels but there are {n} {what}")
    return labels


def _math(name: str) -> str:
    """Wrap a symbol such as ``W^Q`` or ``d_k`` in mathtext so it prints as maths."""
    return f"${name}$" if ("^" in name or "_" in name) and "$" not in name else name


def _finish(fig: Figure) -> Figure:
    """Give every text with CJK characters the bundled font, keeping its size and weight.

    Set per text (``FontProperties`` with a file), never through rcParams: DejaVu Sans,
    matplotlib's default, has no CJK glyphs and would warn "Glyph ... missing".
    """
    for text in fig.findobj(Text):
        if _CJK.search(text.get_text()):
            props = text.get_fontproperties().copy()  # keeps size, weight and style
            props.set_file(str(_FONT_FILE))
            text.set_fontproperties(props)
    return fig


def _new_axes(figsize, ax=None):
    """A new constrained-layout figure with one axes, or ``ax`` and its figure."""
    if ax is not None:
        return ax.figure, ax
    fig = _Figure(figsize=figsize, layout="constrained")
    return fig, fig.add_subplot()


def _axes_inches(ax) -> tuple[float, float]:
    """The size of ``ax`` in inches, as far as it is known before drawing."""
    return ax.bbox.width / ax.figure.dpi, ax.bbox.height / ax.figure.dpi


def _ink_on(rgba) -> str:
    """White text on dark colours, ink on light ones."""
    r, g, b = to_rgb(rgba)
    return "white" if 0.299 * r + 0.587 * g + 0.114 * b < 0.5 else INK


def _fmt(fmt: str, value: float) -> str:
    """``fmt.format(value)`` without a minus sign on zero ("-0.00" reads as a bug)."""
    text = fmt.format(value)
    return text[1:] if text.startswith("-") and text[1:].strip("0.") == "" else text


def _value_fontsize(cell_inches: float, texts) -> float:
    """The font size (points) at which the longest text fits a cell; 0 (print nothing)
    if there are no texts or they would need less than 5 pt."""
    if not texts:
        return 0.0
    chars = max(len(t) for t in texts)
    size = min(9.0, 0.85 * cell_inches * 72 / (0.6 * max(chars, 3)))
    return size if size >= 5 else 0.0


def _norm(values: torch.Tensor, vmin, vmax) -> Normalize:
    """A colour scale symmetric around 0 unless the caller fixes an end."""
    if vmin is None and vmax is None:
        top = float(values.abs().max()) if values.numel() else 1.0
        top = top if top > 0 else 1.0
        return Normalize(-top, top)
    lo = float(values.min()) if vmin is None else vmin
    hi = float(values.max()) if vmax is None else vmax
    return Normalize(lo, hi)


def _draw_cells(ax, values, x0=0.0, y0=0.0, *, cmap, norm, fmt, fontsize, gap=(0.1, 0.1),
                gid=None):
    """Boxes for a 2-D array: cell (i, j) fills [x0+j, x0+j+1] x [y0+i, y0+i+1] less a gap.

    The y axis points down (row 0 on top). Values are printed when ``fontsize`` > 0.
    """
    rows, cols = values.shape
    gx, gy = gap
    i, j = np.divmod(np.arange(rows * cols), cols)  # row and column of every box
    left, top = x0 + j + gx / 2, y0 + i + gy / 2
    right, bottom = left + 1 - gx, top + 1 - gy
    corners = np.stack([np.stack(c, axis=-1) for c in
                        ((left, top), (right, top), (right, bottom), (left, bottom))], axis=1)
    colours = matplotlib.colormaps.get_cmap(cmap)(norm(values.ravel()))
    # One polygon per box, all in one collection (fast even for 20 x 512 boxes). Boxes that
    # touch (no gap) are drawn without antialiasing, or hairline seams show between them.
    ax.add_collection(PolyCollection(corners, facecolors=colours, edgecolors="none", gid=gid,
                                     antialiased=gx > 0))
    if fontsize:
        for k, (i, j) in enumerate(np.ndindex(rows, cols)):
            ax.text(x0 + j + 0.5, y0 + i + 0.5, _fmt(fmt, values[i, j]), ha="center",
                    va="center", fontsize=fontsize, color=_ink_on(colours[k]), gid=gid)


def _clean(ax) -> None:
    """No spines, no tick marks: the boxes speak for themselves."""
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.tick_params(length=0, labelsize=10, labelcolor=INK)


# ---------------------------------------------------------------------------- tensors
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
    t = _as_tensor(x, "x")
    if t.dim() not in (1, 2):
        raise ValueError(f"x must be 1-D (C,) or 2-D (R, C), got shape {tuple(t.shape)}")
    values = t.reshape(1, -1) if t.dim() == 1 else t  # (R, C)
    R, C = values.shape
    rows = _check_labels(row_labels, R, "row_labels", "rows")
    cols = _check_labels(col_labels, C, "col_labels", "columns")
    wide = C > _WIDE
    cell_w, cell_h = min(_CELL_IN, (7.0 if colorbar else 8.0) / C), min(_CELL_IN, 6.0 / R)
    label_w = 0.4 + 0.09 * max((len(r) for r in rows or ["00"]), default=2)
    fig, ax = _new_axes((C * cell_w + label_w + 0.3 + 1.2 * colorbar,
                         R * cell_h + 0.5 + 0.35 * bool(title) + 0.3 * (wide or bool(cols))), ax)
    norm = _norm(values, vmin, vmax)
    texts = [_fmt(fmt, v) for v in values.flatten().tolist()] if show_values else []
    size = _value_fontsize(min(_axes_inches(ax)[0] / C, _axes_inches(ax)[1] / R), texts)
    _draw_cells(ax, values.double().numpy(), cmap=cmap, norm=norm, fmt=fmt, fontsize=size,
                gap=(0.0 if wide else 0.1, 0.1), gid="cells")
    ax.set(xlim=(0, C), ylim=(R, 0))
    if not wide:
        ax.set_aspect("equal")
    ax.set_yticks(np.arange(R) + 0.5, rows or ([] if R == 1 else range(R)))
    ax.xaxis.tick_top()
    if cols is not None:
        ax.set_xticks(np.arange(C) + 0.5, cols)
    elif wide:
        ax.set_xticks([s + 0.5 for s in range(0, C, 64 if C > 256 else 16)] + [C - 0.5])
        ax.xaxis.set_major_formatter(lambda v, _: f"{int(v)}")
    else:
        ax.set_xticks([])
    _clean(ax)
    if title:
        ax.set_title(title, color=INK, fontsize=11)
    if colorbar:
        fig.colorbar(ScalarMappable(norm, cmap), ax=ax, shrink=0.8, aspect=15)
    return _finish(fig)


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
    a, b = _as_tensor(a, "a"), _as_tensor(b, "b")
    for name, t in (("a", a), ("b", b)):
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D, got shape {tuple(t.shape)}")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"cannot multiply a {tuple(a.shape)} by b {tuple(b.shape)}: the columns "
                         f"of a ({a.shape[1]}) must equal the rows of b ({b.shape[0]})")
    dtype = torch.promote_types(a.dtype, b.dtype)
    c = a.to(dtype) @ b.to(dtype) if c is None else _as_tensor(c, "c")  # (n, p)
    if tuple(c.shape) != (a.shape[0], b.shape[1]):
        raise ValueError(f"c must have shape {(a.shape[0], b.shape[1])} (rows of a, columns "
                         f"of b), got {tuple(c.shape)}")
    if len(names) != 3:
        raise ValueError(f"names must hold 3 names (A, B, C), got {len(names)}")
    rows = _check_labels(row_labels, a.shape[0], "row_labels", "rows in a")
    operands, gap = (a, b, c), 1.4  # gap: room for the operator between two matrices
    width = sum(t.shape[1] for t in operands) + 2 * gap
    height = max(t.shape[0] for t in operands) + 1.2  # + room for the shape label
    unit = min(_CELL_IN, 8.5 / width, 5.5 / height)
    fig, ax = _new_axes((width * unit + 0.6 + 0.1 * max(map(len, rows or [""])),
                         height * unit + 0.4 + 0.35 * bool(title)))
    top = (height - 1.2) / 2  # operands are centred vertically around this line
    x0 = 0.0
    for k, (t, name) in enumerate(zip(operands, names)):
        y0 = top - t.shape[0] / 2
        texts = [f"{v:.2f}" for v in t.flatten().tolist()] if show_values else []
        _draw_cells(ax, t.double().numpy(), x0, y0, cmap=DIVERGING, norm=_norm(t, None, None),
                    fmt="{:.2f}", fontsize=_value_fontsize(unit, texts), gid=f"operand{k}")
        shape = f"{_math(name)} ({t.shape[0]}×{t.shape[1]})"
        ax.text(x0 + t.shape[1] / 2, y0 + t.shape[0] + 0.45, shape, ha="center", va="top",
                fontsize=11, color=INK)
        if k < 2:
            ax.text(x0 + t.shape[1] + gap / 2, top, "×" if k == 0 else "=", ha="center",
                    va="center", fontsize=20, color=INK)
        x0 += t.shape[1] + gap
    ax.set(xlim=(0, width), ylim=(height, -0.1), aspect="equal")
    ax.set_xticks([])
    ax.set_yticks(np.arange(a.shape[0]) + top - a.shape[0] / 2 + 0.5, rows or [])
    _clean(ax)
    if title:
        ax.set_title(title, color=INK, fontsize=11)
    return _finish(fig)


def _attention_inputs(words, x, w_q, w_k, w_v, position):
    """Check the inputs of self_attention_table; return x and the weights in one dtype."""
    x = _as_tensor(x, "x")
    if x.dim() != 2:
        raise ValueError(f"x must be 2-D (L, D), one row per word, got shape {tuple(x.shape)}")
    L, D = x.shape
    words = _check_labels(words, L, "words", "rows in x")
    ws = [_as_tensor(w, n) for w, n in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v"))]
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
    from .attention import scaled_dot_product_attention

    words, x, (w_q, w_k, w_v), position = _attention_inputs(words, x, w_q, w_k, w_v, position)
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # (L, Dk), (L, Dk), (L, Dv)
    z, weights = scaled_dot_product_attention(q[position:position + 1], k, v)  # (1, Dv), (1, L)
    d_k = q.shape[1]
    scores = k @ q[position]  # (L,)
    weighted = weights[0][:, None] * v  # (L, Dv): each value scaled by its weight
    value_norm = _norm(torch.cat([v, z]), None, None)  # v, softmax × v and z share one scale
    scalar = scores[:, None]  # (L, 1): one number per word
    sections = [  # name, header, colour, values (rows x columns), first row, colour scale
        ("x", "embedding\nx", EMBEDDING, x, 0, _norm(x, None, None)),
        ("q", "query\nq", QUERY, q[position:position + 1], position, _norm(q, None, None)),
        ("k", "key\nk", KEY, k, 0, _norm(k, None, None)),
        ("v", "value\nv", VALUE, v, 0, value_norm),
        ("score", "score\nq·k", INK, scalar, 0, None),  # None: numbers in grey boxes
        ("scaled", f"score\n÷ √{d_k}", INK, scalar / math.sqrt(d_k), 0, None),
        ("softmax", "softmax\n", INK, weights[0][:, None], 0, "softmax"),
        ("weighted", "softmax\n× v", VALUE, weighted, 0, value_norm),
        ("z", "sum\nz", OUTPUT, z, position, value_norm),
    ]
    bands = [("1) project each word into q, k and v", sections[:4]),
             ("2) score the keys, softmax, weigh the values, sum", sections[4:])]
    return _draw_table(bands, words, title or f"Self-attention for “{words[position]}”")


def _draw_table(bands, words, title) -> Figure:
    """Draw each band of sections side by side, one row per word; bands one under another."""
    L, gap, scalar_w, band_h = len(words), 0.7, 2.0, len(words) + 1.9
    widths = [[vals.shape[1] if isinstance(norm, Normalize) else scalar_w
               for _, _, _, vals, _, norm in sections] for _, sections in bands]
    width = max(sum(w) + gap * (len(w) - 1) for w in widths)
    unit = min(_CELL_IN, 8.5 / width)
    fig = _Figure(figsize=(width * unit + 0.4 + 0.08 * max(map(len, words)),
                          len(bands) * band_h * unit + 0.5), layout="constrained")
    ax = fig.add_subplot()
    for b, ((name, sections), band_widths) in enumerate(zip(bands, widths)):
        top, x0 = b * band_h + 1.7, 0.0  # the band's first row; headers sit above it
        ax.text(0, top - 1.45, name, fontsize=9.5, color=MUTED, va="center", style="italic")
        for (gid, head, colour, vals, row, norm), w in zip(sections, band_widths):
            if isinstance(norm, Normalize):
                size = _value_fontsize(unit, [f"{v:.2f}" for v in vals.flatten().tolist()])
                _draw_cells(ax, vals.double().numpy(), x0, top + row, cmap=DIVERGING,
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
    _clean(ax)
    ax.set_title(title, color=INK, fontsize=11)
    return _finish(fig)


def _draw_scalars(ax, numbers, x0, y0, width, probabilities, unit, gid) -> None:
    """One number per row in a box: grey, or shaded like a heat map for probabilities."""
    size = _value_fontsize(unit * width / 1.4, [f"{n:.2f}" for n in numbers])
    for i, n in enumerate(numbers):
        face = matplotlib.colormaps[SEQUENTIAL](n) if probabilities else PAPER
        ax.add_patch(Rectangle((x0 + 0.05, y0 + i + 0.05), width - 0.1, 0.9, facecolor=face,
                               edgecolor="none", gid=gid))
        ax.text(x0 + width / 2, y0 + i + 0.5, _fmt("{:.2f}", n), ha="center", va="center",
                fontsize=size, color=_ink_on(face), gid=gid)


# ---------------------------------------------------------------------------- attention
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
    w = _as_tensor(weights, "weights")
    if w.dim() != 2:
        hint = "; for several heads use attention_heads" if w.dim() in (3, 4) else ""
        raise ValueError(f"weights must be 2-D (L, S), got shape {tuple(w.shape)}{hint}")
    L, S = w.shape
    queries = _check_labels(query_labels, L, "query_labels", "queries (rows of weights)")
    keys = _check_labels(key_labels, S, "key_labels", "keys (columns of weights)")
    cell, own = min(_CELL_IN, 7.0 / S, 6.0 / L), ax is None
    fig, ax = _new_axes((S * cell + _label_inches(queries) + 0.5 + 0.9 * colorbar,
                         L * cell + _label_inches(keys) + 0.5 + 0.3 * bool(title)), ax)
    if not own:  # drawing into the caller's axes: fit the values to its cells
        cell = min(_axes_inches(ax)[0] / S, _axes_inches(ax)[1] / L)
    image = _heatmap(ax, w, queries, keys, fmt if show_values else None, cell)
    if title:
        ax.set_title(title, color=INK, fontsize=11)
    if colorbar:
        fig.colorbar(image, ax=ax, shrink=0.8, aspect=15, label="weight")
    return _finish(fig)


def _label_inches(labels) -> float:
    """Room that tick labels need, in inches (a rough guess from their length)."""
    return 0.3 + 0.08 * max(map(len, labels or ["00"]))


def _heatmap(ax, w, queries, keys, fmt, cell):
    """Draw weights ``(L, S)`` into ``ax``; values printed with ``fmt`` when they fit."""
    L, S = w.shape
    image = ax.imshow(w.double().numpy(), cmap=SEQUENTIAL, vmin=0, vmax=1)
    texts = [_fmt(fmt, v) for v in w.flatten().tolist()] if fmt else []
    size = _value_fontsize(cell, texts)
    for (i, j), text in zip(np.ndindex(L, S), texts if size else []):
        ax.text(j, i, text, ha="center", va="center", fontsize=size,
                color=_ink_on(image.cmap(image.norm(w[i, j].item()))))
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xticks(range(S), keys or range(S))
    ax.set_yticks(range(L), queries or range(L))
    if keys and max(map(len, keys)) * 6 / 72 > 0.95 * cell:  # labels wider than a cell
        ax.tick_params(axis="x", labelrotation=45)
        for label in ax.get_xticklabels():
            label.set(ha="left", rotation_mode="anchor")
    ax.set_xlabel("keys", color=MUTED, fontsize=9)
    ax.set_ylabel("queries", color=MUTED, fontsize=9)
    if max(L, S) <= 30:  # white gaps between the cells, as in tensor_cells
        ax.set_xticks(np.arange(S + 1) - 0.5, minor=True)
        ax.set_yticks(np.arange(L + 1) - 0.5, minor=True)
        ax.grid(which="minor", color="white", linewidth=2)
        ax.tick_params(which="minor", length=0)
    _clean(ax)
    return image


def attention_heads(weights, query_labels=None, key_labels=None, ncols=4, title=None) -> Figure:
    """One heat map per head, titled "head 1", "head 2", ...

    Args:
        weights: ``(H, L, S)``, or ``(1, H, L, S)`` as stored by ``MultiHeadAttention``
            for a batch of one.
        query_labels, key_labels: ``L`` and ``S`` tokens, written on the left column
            and the top row of heat maps.
        ncols: heat maps per row.

    Returns:
        a Figure with ``H`` axes.
    """
    w = _as_tensor(weights, "weights")
    if w.dim() == 4:
        if w.shape[0] != 1:
            raise ValueError(f"4-D weights must have a batch of 1, (1, H, L, S), got shape "
                             f"{tuple(w.shape)}; pick one example, e.g. weights[0]")
        w = w[0]  # (H, L, S)
    if w.dim() != 3:
        raise ValueError(f"weights must be 3-D (H, L, S) or 4-D (1, H, L, S), got shape "
                         f"{tuple(w.shape)}")
    check_positive_int(ncols, "ncols")
    H, L, S = w.shape
    queries = _check_labels(query_labels, L, "query_labels", "queries (rows of weights)")
    keys = _check_labels(key_labels, S, "key_labels", "keys (columns of weights)")
    ncols = min(ncols, H)
    nrows = math.ceil(H / ncols)
    margin_w, margin_h = _label_inches(queries) + 0.3, _label_inches(keys) + 0.3
    cell = min(_CELL_IN, (9.5 - margin_w) / (ncols * (S + 0.6)), 7.0 / (nrows * (L + 1.5)))
    fig = _Figure(figsize=(ncols * (S + 0.6) * cell + margin_w,
                          nrows * (L + 1.5) * cell + margin_h + 0.35 * bool(title)),
                 layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for h, ax in enumerate(axes.flat):
        if h >= H:
            fig.delaxes(ax)
            continue
        _heatmap(ax, w[h], queries, keys, "{:.2f}", cell)
        ax.set_title(f"head {h + 1}", color=INK, fontsize=10)
        if h >= ncols:  # keys are labelled on the top row only, queries on the left column
            ax.tick_params(labeltop=False)
            ax.set_xlabel("")
        if h % ncols:
            ax.tick_params(labelleft=False)
            ax.set_ylabel("")
    if title:
        fig.suptitle(title, color=INK, fontsize=12)
    return _finish(fig)


# ---------------------------------------------------------------------------- plots
def _vector(x, name: str) -> torch.Tensor:
    t = _as_tensor(x, name)
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
    data = {str(k): _vector(v, f"samples[{k!r}]") for k, v in samples.items()}
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
        fig, ax = _new_axes((6.5, 3.8), ax)
        _overlaid_histograms(ax, data, stds, bins)
        _style(ax, title, xlabel, "count")
        return _finish(fig)
    fig = _Figure(figsize=(min(10.0, 3.4 * len(data) + 0.4), 3.6), layout="constrained")
    axes = fig.subplots(1, len(data), squeeze=False).flat
    for i, (ax, (name, v)) in enumerate(zip(axes, data.items())):
        ax.hist(v.numpy(), bins=bins, color=SERIES[i % len(SERIES)], alpha=0.8,
                edgecolor="white", linewidth=0.4)
        _style(ax, f"{name}\n(std {stds[name]:.3g})", xlabel, "count" if i == 0 else None)
    if title:
        fig.suptitle(title, color=INK, fontsize=12)
    return _finish(fig)


def _overlaid_histograms(ax, data, stds, bins) -> None:
    """All samples on one axes, with shared bins so the bars are comparable."""
    edges = np.histogram_bin_edges(torch.cat(list(data.values())).numpy(), bins=bins)
    for i, (name, v) in enumerate(data.items()):
        ax.hist(v.numpy(), bins=edges, color=SERIES[i % len(SERIES)], alpha=0.55,
                label=f"{name} (std {stds[name]:.3g})", edgecolor="white", linewidth=0.4)
    ax.legend(frameon=False, fontsize=9)


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
    names = _check_labels(labels, n, "labels", "values") or [str(i) for i in range(n)]
    fig, ax = _new_axes((min(10.0, max(4.5, 0.6 * n + 1.5)), 3.6), ax)
    bars = ax.bar(range(n), v.numpy(), color=VALUE, width=0.7)
    texts = [_fmt(fmt, x) for x in v.tolist()]
    size = _value_fontsize(0.9 * _axes_inches(ax)[0] / max(n, 1), texts) if show_values else 0
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
    return _finish(fig)


def line_plot(x, series: dict, xlabel=None, ylabel=None, title=None, logx=False, logy=False,
              ax=None) -> Figure:
    """Several named curves against the same ``x``.

    Args:
        x: ``(N,)`` positions, e.g. the values of ``d_k``.
        series: ``{name: (N,) values}``; a name becomes the curve's legend entry.
        logx, logy: logarithmic axes (``x`` / the values must then be positive); when
            every ``x`` is a power of 2 (``d_k = 1, 2, 4, ...``) the x ticks are those.

    Returns:
        a Figure with one axes.
    """
    xs = _vector(x, "x")
    if not isinstance(series, dict) or not series:
        raise TypeError("series must be a non-empty dict {name: 1-D values}")
    curves = {str(k): _vector(v, f"series[{k!r}]") for k, v in series.items()}
    for name, ys in curves.items():
        if ys.numel() != xs.numel():
            raise ValueError(f"series[{name!r}] has {ys.numel()} values but x has {xs.numel()}")
        if logy and bool((ys <= 0).any()):
            raise ValueError(f"logy=True needs positive values, series[{name!r}] has some <= 0")
    if logx and bool((xs <= 0).any()):
        raise ValueError("logx=True needs positive x values")
    fig, ax = _new_axes((6.5, 4.0), ax)
    marker = "o" if xs.numel() <= 25 else None
    for i, (name, ys) in enumerate(curves.items()):
        ax.plot(xs.numpy(), ys.numpy(), color=SERIES[i % len(SERIES)], marker=marker,
                markersize=4, linewidth=2, label=name)
    _log_axes(ax, xs, torch.cat(list(curves.values())), logx, logy)
    _style(ax, title, xlabel, ylabel)
    ax.legend(frameon=False, fontsize=9)
    return _finish(fig)


def _log_axes(ax, xs, ys, logx, logy) -> None:
    """Logarithmic axes labelled with plain numbers where they are short."""
    ax.set(xscale="log" if logx else "linear", yscale="log" if logy else "linear")
    for axis, log, data in ((ax.xaxis, logx, xs), (ax.yaxis, logy, ys)):
        if log and 1e-3 <= float(data.min()) and float(data.max()) < 1e5:
            axis.set_major_formatter(lambda v, _: f"{v:g}")  # 100 reads faster than 10^2
    if logx and bool((torch.log2(xs) % 1 == 0).all()):  # e.g. d_k = 1, 2, 4, ..., 512
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs.tolist(), [f"{v:g}" for v in xs.tolist()])
        ax.minorticks_off()


# ---------------------------------------------------------------------------- diagrams
def _diagram(fig, bounds, scale=0.75, max_w=9.5, max_h=8.5) -> Figure:
    """Size a diagram's figure to its drawing: ``bounds`` = (x0, x1, y0, y1) in data units."""
    x0, x1, y0, y1 = bounds
    scale = min(scale, max_w / (x1 - x0), max_h / (y1 - y0))  # inches per data unit
    fig.set_size_inches((x1 - x0) * scale, (y1 - y0) * scale)
    ax = fig.axes[0]
    ax.set(xlim=(x0, x1), ylim=(y0, y1), aspect="equal")
    ax.set_axis_off()
    return _finish(fig)


def _blank():
    """A figure whose one axes fills it, for diagrams drawn in data units."""
    fig = _Figure()
    return fig, fig.add_axes((0, 0, 1, 1))


def _box(ax, x, y, w, h, text, face, accent=False, frame=False, fontsize=10, label_top=False):
    """A rounded box (lower-left corner x, y) with its text centred, or on top for frames."""
    edge, width, ink = (INK, 0.8, INK) if not frame else (MUTED, 1.0, INK)
    if accent:
        face, edge, width = (ACCENT_LIGHT if frame else ACCENT), ACCENT, 2.0
        ink = INK if frame else "white"
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0,rounding_size=0.12",
                                facecolor=face, edgecolor=edge, linewidth=width,
                                zorder=1 if frame else 2))
    if text:
        ty, va = (y + h - 0.12, "top") if label_top else (y + h / 2, "center")
        tx, ha = (x + 0.15, "left") if label_top else (x + w / 2, "center")
        ax.text(tx, ty, text, ha=ha, va=va, fontsize=fontsize, color=ink, zorder=4,
                fontweight="bold" if (accent or frame) else "normal")


def _arrow(ax, *points, head=True, colour=INK) -> None:
    """An arrow through ``points``, its head at the last one (no head: a plain line)."""
    ax.add_patch(FancyArrowPatch(path=MplPath(points), arrowstyle="-|>" if head else "-",
                                 mutation_scale=11, color=colour, linewidth=1.3, zorder=3,
                                 shrinkA=0, shrinkB=0))


def _dot(ax, x, y) -> None:
    """A junction: one line splits in two here."""
    ax.add_patch(Circle((x, y), 0.06, color=INK, zorder=4))


def _approx_width(text: str, fontsize: float, scale: float) -> float:
    """About how wide ``text`` is in data units, at ``scale`` inches per unit."""
    return len(text) * fontsize * 0.56 / 72 / scale


def black_box(source="je suis étudiant", target="I am a student") -> Figure:
    """The first, coarsest picture: a sentence goes into one box, its translation comes out.

    Returns:
        a Figure with one axes (axis hidden).
    """
    if not isinstance(source, str) or not isinstance(target, str):
        raise TypeError("source and target must be strings (the two sentences)")
    fig, ax = _blank()
    size, scale = 13, 0.8
    w_src, w_tgt = (_approx_width(s, size, scale) for s in (source, target))
    x = 0.3 + w_src  # right end of the source sentence
    ax.text(x, 0, source, ha="right", va="center", fontsize=size, color=INK, style="italic")
    ax.text(x - w_src / 2, 0.45, "input", ha="center", fontsize=9, color=MUTED)
    _arrow(ax, (x + 0.2, 0), (x + 1.3, 0))
    box_x = x + 1.3
    ax.add_patch(FancyBboxPatch((box_x, -0.6), 2.6, 1.2, facecolor=INK, edgecolor=INK,
                                boxstyle="round,pad=0,rounding_size=0.15"))
    ax.text(box_x + 1.3, 0, "Transformer", ha="center", va="center", fontsize=14,
            color="white", fontweight="bold")
    _arrow(ax, (box_x + 2.6, 0), (box_x + 3.7, 0))
    ax.text(box_x + 3.9, 0, target, ha="left", va="center", fontsize=size, color=INK,
            style="italic")
    ax.text(box_x + 3.9 + w_tgt / 2, 0.45, "output", ha="center", fontsize=9, color=MUTED)
    return _diagram(fig, (0, box_x + 4.2 + w_tgt, -0.9, 0.9), scale=scale, max_w=10)


def stack_diagram(n_layers=6, detail=False, highlight=None, show_io=True,
                  source="je suis étudiant", target="I am a student") -> Figure:
    """The Transformer opened up: a stack of encoders, a stack of decoders.

    Args:
        n_layers: ``N``, the number of encoder (and of decoder) layers.
        detail: draw the inside of one encoder layer (self-attention and feed-forward,
            each followed by Add & Norm) and one decoder layer (masked self-attention,
            encoder-decoder attention, feed-forward), with embeddings, positional encoding
            and the final linear + softmax; the other ``N - 1`` layers appear as cards
            behind, marked "× N".
        highlight: one name of :data:`PARTS`, drawn in the accent colour. Parts that are
            only visible in the detailed drawing (all but "encoder" and "decoder") turn
            ``detail`` on.
        show_io: write the input sentence below and the output sentence above.
        source, target: the two sentences.

    Returns:
        a Figure with one axes (axis hidden). Raises ValueError for a ``highlight`` not
        in ``PARTS``, naming the valid ones.
    """
    check_positive_int(n_layers, "n_layers")
    if highlight is not None and highlight not in PARTS:
        raise ValueError(f"unknown part highlight={highlight!r}; valid parts are: "
                         + ", ".join(repr(p) for p in PARTS))
    fig, ax = _blank()
    if detail or highlight not in (None, "encoder", "decoder"):
        bounds = _detailed_layers(ax, n_layers, highlight, show_io, source, target)
    else:
        bounds = _stacks(ax, n_layers, highlight, show_io, source, target)
    return _diagram(fig, bounds)


def _stacks(ax, n, highlight, show_io, source, target):
    """n encoder boxes, n decoder boxes, the top encoder feeding every decoder."""
    W, H, GAP, DEC_X = 3.0, 0.72, 0.42, 5.4
    base = 1.6 if show_io else 0.7
    centres = [base + i * (H + GAP) + H / 2 for i in range(n)]
    for i, yc in enumerate(centres):
        _box(ax, 0, yc - H / 2, W, H, f"Encoder {i + 1}", ENCODER, highlight == "encoder")
        _box(ax, DEC_X, yc - H / 2, W, H, f"Decoder {i + 1}", DECODER, highlight == "decoder")
        if i:
            for cx in (W / 2, DEC_X + W / 2):
                _arrow(ax, (cx, yc - H / 2 - GAP), (cx, yc - H / 2))
    bus = (W + DEC_X) / 2  # the top encoder's output runs down this line to every decoder
    _arrow(ax, (W, centres[-1]), (bus, centres[-1]), (bus, centres[0]), head=False)
    for yc in centres:
        _arrow(ax, (bus, yc), (DEC_X, yc))
        _dot(ax, bus, yc)
    top = centres[-1] + H / 2
    ax.add_patch(FancyBboxPatch((-0.45, base - 0.45), DEC_X + W + 0.9, top - base + 1.15,
                                boxstyle="round,pad=0,rounding_size=0.2", facecolor=PAPER,
                                edgecolor=MUTED, linewidth=1.0, zorder=0))
    ax.text(-0.25, top + 0.55, "Transformer", fontsize=10, color=MUTED, fontweight="bold",
            va="center")
    if show_io:
        ax.text(W / 2, base - 1.2, source, ha="center", va="center", fontsize=11.5, color=INK,
                style="italic")
        _arrow(ax, (W / 2, base - 0.95), (W / 2, base))
        _arrow(ax, (DEC_X + W / 2, top), (DEC_X + W / 2, top + 1.05))
        ax.text(DEC_X + W / 2, top + 1.3, target, ha="center", va="center", fontsize=11.5,
                color=INK, style="italic")
    margin = (1.6, 1.7) if show_io else (0.7, 0.95)  # below, above: room for the sentences
    return (-0.7, DEC_X + W + 0.7, base - margin[0], top + margin[1])


_ADD_NORM = ("Add & Norm", "add-norm", ADD_NORM)
_ENCODER_LAYER = (("Self-attention", "self-attention", ATTENTION), _ADD_NORM,
                  ("Feed-forward", "feed-forward", FEED_FORWARD), _ADD_NORM)
_DECODER_LAYER = (("Masked self-attention", "masked self-attention", ATTENTION), _ADD_NORM,
                  ("Encoder-decoder attention", "encoder-decoder attention", ATTENTION),
                  _ADD_NORM, ("Feed-forward", "feed-forward", FEED_FORWARD), _ADD_NORM)
_OUT_W, _SUB_W, _SUB_H, _SUB_GAP, _PAD = 3.8, 3.0, 0.55, 0.5, 0.5  # detailed layer sizes


def _detailed_layers(ax, n, highlight, show_io, source, target):
    """One encoder layer and one decoder layer drawn inside, with inputs and outputs."""
    DEC_X, y = 6.0, (2.9 if show_io else 2.0)
    enc = _layer(ax, 0.0, y, "Encoder", ENCODER, _ENCODER_LAYER, n, highlight, side=-1)
    dec = _layer(ax, DEC_X, y, "Decoder", DECODER, _DECODER_LAYER, n, highlight, side=1)
    shifted = " ".join(["<s>"] + target.split()[:-1])  # the decoder reads its output so far
    _layer_inputs(ax, enc, -1, highlight, show_io and source, "input")
    _layer_inputs(ax, dec, 1, highlight, show_io and shifted, "output so far (shifted right)")
    # The encoder's output feeds the encoder-decoder attention of every decoder layer.
    route_y, mid = enc["top"] + 0.6, (_OUT_W + DEC_X) / 2
    target_y = dec["centres"][2]
    _arrow(ax, (enc["cx"], enc["last"]), (enc["cx"], route_y), (mid, route_y), (mid, target_y),
           (dec["sub_x"], target_y))
    # The decoder's output becomes word probabilities.
    top = dec["top"] + 0.75
    _box(ax, dec["cx"] - 1.1, top, 2.2, 0.5, "Linear + softmax", PAPER)
    _arrow(ax, (dec["cx"], dec["last"]), (dec["cx"], top))
    if show_io:
        _arrow(ax, (dec["cx"], top + 0.5), (dec["cx"], top + 1.0))
        ax.text(dec["cx"], top + 1.25, target, ha="center", va="center", fontsize=11.5,
                color=INK, style="italic")
    y0 = -0.1 if show_io else y - 1.95
    return (-1.3, DEC_X + _OUT_W + 1.3, y0, top + (1.6 if show_io else 0.7))


def _layer(ax, x, y, name, colour, sublayers, n, highlight, side):
    """One layer seen inside: its sublayers, their residual connections, and n - 1 cards
    behind it for the other layers. ``side`` (-1 left, 1 right) is where residuals run."""
    height = _PAD + len(sublayers) * (_SUB_H + _SUB_GAP) + 0.55
    for k in range(min(n - 1, 2), 0, -1):
        _box(ax, x + side * 0.14 * k, y + 0.14 * k, _OUT_W, height, None, colour, frame=True)
    _box(ax, x, y, _OUT_W, height, name, colour, highlight == name.lower(), frame=True,
         fontsize=10, label_top=True)
    if n > 1:
        ax.text(x - 0.6 if side < 0 else x + _OUT_W + 0.6, y + height / 2, f"× {n}",
                ha="right" if side < 0 else "left", va="center", fontsize=13, color=INK,
                fontweight="bold")
    sx, cx = x + (_OUT_W - _SUB_W) / 2, x + _OUT_W / 2
    bottoms = [y + _PAD + i * (_SUB_H + _SUB_GAP) for i in range(len(sublayers))]
    for i, (label, part, face) in enumerate(sublayers):
        _box(ax, sx, bottoms[i], _SUB_W, _SUB_H, label, face, highlight == part)
        if i:
            _arrow(ax, (cx, bottoms[i - 1] + _SUB_H), (cx, bottoms[i]))
        if part != "add-norm":  # a residual connection skips this sublayer into Add & Norm
            branch = bottoms[i] - (_SUB_GAP if i else _PAD) + 0.14  # below the arrow head
            side_x = sx - 0.22 if side < 0 else sx + _SUB_W + 0.22
            edge = sx if side < 0 else sx + _SUB_W
            norm_y = bottoms[i + 1] + _SUB_H / 2
            _arrow(ax, (cx, branch), (side_x, branch), (side_x, norm_y), (edge, norm_y))
            _dot(ax, cx, branch)
    return {"cx": cx, "sub_x": sx, "top": y + height, "bottom": bottoms[0],
            "last": bottoms[-1] + _SUB_H, "centres": [b + _SUB_H / 2 for b in bottoms]}


def _layer_inputs(ax, layer, side, highlight, sentence, caption) -> None:
    """Below a layer: sentence → embedding → + positional encoding → the layer."""
    cx, y = layer["cx"], layer["bottom"] - _PAD
    _box(ax, cx - 1.1, y - 1.75, 2.2, 0.5, "Embedding", PAPER)
    ax.add_patch(Circle((cx, y - 0.75), 0.2, facecolor="white", edgecolor=INK, zorder=3))
    ax.text(cx, y - 0.75, "+", ha="center", va="center", fontsize=13, color=INK, zorder=4)
    _arrow(ax, (cx, y - 1.25), (cx, y - 0.95))
    _arrow(ax, (cx, y - 0.55), (cx, layer["bottom"]))
    box_x = cx - 2.25 if side < 0 else cx + 0.7
    _box(ax, box_x, y - 1.06, 1.55, 0.62, "Positional\nencoding", POSITIONAL,
         highlight == "positional", fontsize=8.5)
    _arrow(ax, (box_x + 1.55 if side < 0 else box_x, y - 0.75),
           (cx - 0.2 if side < 0 else cx + 0.2, y - 0.75))
    if sentence:
        _arrow(ax, (cx, y - 2.15), (cx, y - 1.75))
        ax.text(cx, y - 2.35, sentence, ha="center", va="center", fontsize=11.5, color=INK,
                style="italic")
        ax.text(cx, y - 2.72, caption, ha="center", va="center", fontsize=8.5, color=MUTED)
