"""Blocks of the Transformer: multi-head attention split, concatenated and mixed by W^O
(chapter 5, Multi-head attention) and Add & Norm (chapter 8, Residual connections, layer
norm, dropout and the feed-forward network), drawn on real numbers; the translator's
decoder layer beside the decoder-only model's (chapter 13, The decoder alone)."""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..checks import check_positive_int
from .figure import (CELL_INCHES, alt_sentence, as_math, check_labels, clean_axes, colour_scale,
                     draw_cells, edition_labels, edition_words, finish_figure, float_tensor,
                     listed, new_axes, value_fontsize, with_editions)
from .palette import ACCENT, DECODER, DIVERGING, INK, MUTED, PAPER, SERIES
from .shapes import (DECODER_LAYER, SUBLAYER_H, SUBLAYER_W, blank_diagram, draw_arrow, draw_box,
                     draw_layer, draw_layer_inputs, finish_diagram)
from .words import tr


def _frame(ax, title) -> None:
    """No x ticks, no frame, the title if any: how both figures of this module end."""
    ax.set_xticks([])
    clean_axes(ax)
    if title:
        ax.set_title(title, color=INK, fontsize=11)


@with_editions
def add_norm_figure(x, sublayer_out, row_labels=None, title=None) -> Figure:
    """Draw Add & Norm (chapter 8) on real numbers: ``x``, the sub-layer's output, their
    sum, and the layer norm of each position (row) alone, each grid over its shape.

    The layer norm is drawn with gamma 1 and beta 0, as ``nn.LayerNorm`` starts, so each
    row of the last grid has mean 0 and standard deviation 1.

    Args:
        x: ``(L, D)``, one sentence's vectors; sublayer_out: ``(L, D)``, what the
            sub-layer made of them.
        row_labels: ``L`` strings, e.g. ``"position 0"``.

    Returns:
        a Figure with one axes; the grids are ``gid`` ``operand0`` to ``operand3``.
        Raises ValueError unless both inputs are 2-D of one shape.
    """
    x, sub = float_tensor(x, "x"), float_tensor(sublayer_out, "sublayer_out")
    if x.dim() != 2 or x.shape != sub.shape:
        raise ValueError(f"x and sublayer_out must both be (L, D), got x "
                         f"{tuple(x.shape)} and sublayer_out {tuple(sub.shape)}")
    total = x.double() + sub.double()  # (L, D)
    grids = (x, sub, total, F.layer_norm(total, total.shape[-1:]))  # each (L, D)
    L, D = x.shape
    names = ("$x$", tr("sub-layer($x$)"), tr("$x$ + sub-layer($x$)"),
             tr("layer norm\nof each row"))
    rows = edition_labels(check_labels(row_labels, L, "row_labels", "rows"))
    (title,) = edition_words(title)
    gap = 1.4  # room for the sign between two grids
    width, height = 4 * D + 3 * gap, L + 1.5  # + room for the names and shapes
    unit = min(CELL_INCHES, 8.5 / width, 5.5 / height)
    fig, ax = new_axes((width * unit + 0.6 + 0.1 * max(map(len, rows or [""])),
                        height * unit + 0.4 + 0.35 * bool(title)))
    for k, (t, name, sign) in enumerate(zip(grids, names, ("+", "=", "→", ""))):
        x0 = k * (D + gap)
        texts = [f"{v:.2f}" for v in t.flatten().tolist()]
        draw_cells(ax, t.double().numpy(), x0, 0.0, cmap=DIVERGING,
                   norm=colour_scale(t, None, None), fmt="{:.2f}",
                   fontsize=value_fontsize(unit, texts), gid=f"operand{k}")
        ax.text(x0 + D / 2, L + 0.25, f"{name}\n({L}×{D})", ha="center", va="top",
                fontsize=10, color=INK, linespacing=1.2)
        ax.text(x0 + D + gap / 2, L / 2, sign, ha="center", va="center", fontsize=20,
                color=INK)
    ax.set(xlim=(0, width), ylim=(height, -0.1), aspect="equal")
    ax.set_yticks(np.arange(L) + 0.5, rows or [])
    _frame(ax, title)
    return finish_figure(fig, alt=alt_sentence(
        tr("Add & Norm on {L} positions of {D} features: x, the sub-layer's output, "
           "their sum and the layer norm of each row, each drawn as coloured "
           "boxes").format(L=L, D=D),
        title, tr("rows: {labels}").format(labels=listed(rows)) if rows else "",
        tr("every value printed in its box")))


@with_editions
def multi_head_figure(q, heads, w_o, out=None, show_values=True, title=None) -> Figure:
    """Multi-head attention in one picture (chapter 5): the queries ``Q`` split into
    ``h`` heads, each head's output, their concatenation, and the product with ``W^O``,
    every tensor with its real values and its shape.

    Args:
        q: ``(L, D)``, the projected queries of one sentence; head ``i`` owns columns
            ``i*Dk`` to ``(i+1)*Dk``.
        heads: ``(H, L, Dk)``, each head's output, ``H * Dk = D``.
        w_o: ``(D, D)``, used as ``Concat @ w_o`` (``nn.Linear``'s ``weight.T``).
        out: ``(L, D)``, by default ``Concat @ w_o`` (pass it to include a bias).

    Returns:
        a Figure with one axes; the boxes of each tensor have ``gid`` ``"q"``,
        ``"q1"`` …, ``"head1"`` …, ``"concat"``, ``"w_o"``, ``"out"``.
    """
    q, heads, w_o, out = _multi_head_inputs(q, heads, w_o, out)
    H, L, Dk = heads.shape
    D, (title,) = H * Dk, edition_words(title)
    concat = torch.cat(list(heads), dim=-1)  # (L, D)
    arrow, op, label = 3.2, 1.4, 1.3  # widths of an arrow, of × or =, room for a label
    stack = H * L + (H - 1) * label  # the heads one under the other
    width = 3 * D + 2 * Dk + D + 3 * arrow + 2 * op
    height = max(stack + 2 * label, D + label)
    unit = min(CELL_INCHES, 9.5 / width, 6.0 / height)
    fig, ax = new_axes((width * unit + 0.3, height * unit + 0.3 + 0.35 * bool(title)))
    mid = height / 2  # the blocks are centred on this line
    size = value_fontsize(unit, ["-0.00"]) if show_values else 0.0
    colours = [SERIES[i % len(SERIES)] for i in range(H)]

    def block(t, x0, y0, name, gid, frames=(), above=False):
        draw_cells(ax, t.double().numpy(), x0, y0, cmap=DIVERGING, norm=colour_scale(t, None, None),
                   fmt="{:.2f}", fontsize=size, gid=gid)
        for i, colour in frames:  # the columns of head i, framed in its colour
            ax.add_patch(Rectangle((x0 + i * Dk, y0), Dk, t.shape[0], fill=False, lw=2,
                                   edgecolor=colour))
        ax.text(x0 + t.shape[1] / 2, y0 - 0.35 if above else y0 + t.shape[0] + 0.35,
                f"{as_math(name)} ({t.shape[0]}×{t.shape[1]})", ha="center",
                va="bottom" if above else "top", fontsize=10, color=INK)
        return x0 + t.shape[1]

    def between(x0, text, w):
        if w == arrow:
            ax.annotate("", (x0 + w - 0.2, mid), (x0 + 0.2, mid),
                        arrowprops={"arrowstyle": "->", "color": INK, "lw": 1.5})
        ax.text(x0 + w / 2, mid - (0.3 if w == arrow else 0), text, ha="center",
                va="bottom" if w == arrow else "center", fontsize=9 if w == arrow else 18,
                color=INK)
        return x0 + w

    x = block(q, 0, mid - L / 2, "Q", "q", enumerate(colours))
    x = between(x, tr("split"), arrow)
    for name, gid, parts in (("Q", "q", [q[:, i * Dk:(i + 1) * Dk] for i in range(H)]),
                             (r"\mathrm{head}", "head", list(heads))):
        for i, t in enumerate(parts):
            y0 = mid - stack / 2 + i * (L + label)
            block(t, x, y0, f"{name}_{i + 1}", f"{gid}{i + 1}", [(0, colours[i])],
                  above=i < H / 2)  # the labels away from the arrows
        x = between(x + Dk, tr("attend") if gid == "q" else tr("concatenate"), arrow)
    x = between(block(concat, x, mid - L / 2, r"$\mathrm{Concat}$", "concat",
                      enumerate(colours)), "×", op)
    x = between(block(w_o, x, mid - D / 2, "W^O", "w_o"), "=", op)
    block(out, x, mid - L / 2, r"$\mathrm{MultiHead}$", "out")
    ax.set(xlim=(-0.1, width + 0.1), ylim=(height, -0.1), aspect="equal")
    ax.set_yticks([])
    _frame(ax, title)
    return finish_figure(fig, alt=alt_sentence(
        tr("Multi-head attention: Q ({L} × {D}) split into {H} heads of {Dk} columns, each "
           "head's output ({L} × {Dk}), their concatenation ({L} × {D}) times W^O "
           "({D} × {D}), and the result ({L} × {D})").format(L=L, D=D, H=H, Dk=Dk), title,
        tr("every value printed in its box") if size else ""))


def _multi_head_inputs(q, heads, w_o, out):
    """Check the inputs of multi_head_figure; return them, ``out`` computed if None."""
    q, heads, w_o = float_tensor(q, "q"), float_tensor(heads, "heads"), float_tensor(w_o, "w_o")
    if q.dim() != 2 or heads.dim() != 3:
        raise ValueError(f"q must be (L, D) and heads (H, L, Dk), got q {tuple(q.shape)} "
                         f"and heads {tuple(heads.shape)}")
    H, L, Dk = heads.shape
    if tuple(q.shape) != (L, H * Dk):
        raise ValueError(f"q must be (L, H*Dk) = {(L, H * Dk)} for heads {tuple(heads.shape)}"
                         f", got {tuple(q.shape)}")
    if tuple(w_o.shape) != (H * Dk, H * Dk):
        raise ValueError(f"w_o must be (D, D) = {(H * Dk, H * Dk)}, got {tuple(w_o.shape)}")
    concat = torch.cat(list(heads), dim=-1)  # (L, D)
    out = concat @ w_o.to(concat.dtype) if out is None else float_tensor(out, "out")
    if tuple(out.shape) != (L, H * Dk):
        raise ValueError(f"out must be (L, D) = {(L, H * Dk)}, got {tuple(out.shape)}")
    return q, heads, w_o, out


@with_editions
def decoder_only_figure(tokens, predicted, n_layers=2) -> Figure:
    """The translator's decoder layer beside the decoder-only model's (chapter 13): the
    same layer less its encoder-decoder attention (crossed out), ``n_layers`` of them
    under the causal mask, reading ``tokens`` and predicting at every position the
    token after it (``predicted``, e.g. the model's most probable next tokens).

    Args:
        tokens: ``T`` strings, the tokens read (``<bos>`` first).
        predicted: ``T`` strings, what each position predicts.
        n_layers: ``N``, the number of layers.

    Returns:
        a Figure with one axes (axis hidden); the two lines crossing out the
        encoder-decoder attention have ``gid`` ``"removed"``. Raises TypeError unless
        ``tokens`` is a non-empty list, ValueError unless ``predicted`` is as long.
    """
    check_positive_int(n_layers, "n_layers")
    if isinstance(tokens, str) or not tokens:
        raise TypeError(f"tokens must be a non-empty list of strings (e.g. ['<bos>', "
                        f"'The']), got {tokens!r:.60}")
    tokens = [str(t) for t in tokens]
    predicted = check_labels(predicted, len(tokens), "predicted", "tokens")
    fig, ax = blank_diagram()
    dec = draw_layer(ax, 0.0, 2.9, "decoder", DECODER, DECODER_LAYER, n_layers, None, -1)
    only = (DECODER_LAYER[0], DECODER_LAYER[1]) + DECODER_LAYER[4:]
    right = draw_layer(ax, 6.0, 2.9, "decoder", DECODER, only, n_layers, None, 1)
    draw_layer_inputs(ax, dec, -1, None, None, None)
    draw_layer_inputs(ax, right, 1, None, " ".join(tokens), tr("the tokens read"))
    x, y = dec["sub_x"], dec["centres"][2] - SUBLAYER_H / 2  # the cross-attention box
    ax.plot([x, x + SUBLAYER_W], [y, y + SUBLAYER_H], color=ACCENT, lw=2.5, zorder=5, gid="removed")
    ax.plot([x, x + SUBLAYER_W], [y + SUBLAYER_H, y], color=ACCENT, lw=2.5, zorder=5, gid="removed")
    for layer, name, dx, ha in ((dec, tr("the translator's"), 0, "center"),
                                (right, tr("the decoder alone"), -0.2, "right")):
        ax.text(layer["cx"] + dx, layer["top"] + 0.35, name, ha=ha, va="center",
                fontsize=10.5, color=INK, fontweight="bold")
    top = right["top"] + 0.75
    draw_box(ax, right["cx"] - 1.1, top, 2.2, 0.5, tr("Linear + softmax"), PAPER)
    draw_arrow(ax, (right["cx"], right["last"]), (right["cx"], top))
    draw_arrow(ax, (right["cx"], top + 0.5), (right["cx"], top + 1.0))
    ax.text(right["cx"], top + 1.25, " ".join(predicted), ha="center", va="center",
            fontsize=11.5, color=INK, style="italic")
    ax.text(right["cx"], top + 1.62, tr("the next token, at every position"), ha="center",
            va="center", fontsize=8.5, color=MUTED)
    alt = tr("Two decoder layers side by side. Left, the translator's: masked "
             "self-attention, encoder-decoder attention (crossed out) and feed-forward, "
             "each followed by Add & Norm. Right, the decoder-only model's, {n} of them: "
             "the same layer without the encoder-decoder attention, reading “{tokens}” "
             "and predicting “{predicted}”.").format(
        n=n_layers, tokens=" ".join(tokens), predicted=" ".join(predicted))
    return finish_diagram(fig, (-1.3, 6.0 + 3.8 + 1.3, -0.1, top + 1.9), alt)
