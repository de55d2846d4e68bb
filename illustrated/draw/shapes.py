"""The shapes the diagrams are drawn with (chapter 1, The black box): a blank figure
sized to its drawing, rounded boxes, arrows and junction dots, and one encoder or decoder
layer seen inside, with its sublayers, residual connections and inputs, which
:func:`.stack_diagram` (chapter 1) and :func:`.decoder_only_figure` (chapter 13) both draw.

The diagram modules import these names; they are not part of the drawing API
(``illustrated.draw.__all__``).
"""
from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch
from matplotlib.path import Path as MplPath

from .figure import finish_figure, new_figure
from .palette import (ACCENT, ACCENT_LIGHT, ADD_NORM, ATTENTION, FEED_FORWARD, INK, MUTED, PAPER,
                      POSITIONAL)
from .words import tr


def finish_diagram(fig, bounds, alt: str, scale=0.75, max_w=9.5, max_h=8.5) -> Figure:
    """Size a diagram's figure to its drawing: ``bounds`` = (x0, x1, y0, y1) in data units."""
    x0, x1, y0, y1 = bounds
    scale = min(scale, max_w / (x1 - x0), max_h / (y1 - y0))  # inches per data unit
    fig.set_size_inches((x1 - x0) * scale, (y1 - y0) * scale)
    ax = fig.axes[0]
    ax.set(xlim=(x0, x1), ylim=(y0, y1), aspect="equal")
    ax.set_axis_off()
    return finish_figure(fig, alt=alt)


def blank_diagram():
    """A figure whose one axes fills it, for diagrams drawn in data units."""
    fig = new_figure()
    return fig, fig.add_axes((0, 0, 1, 1))


def draw_box(ax, x, y, w, h, text, face, accent=False, frame=False, fontsize=10, label_top=False):
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


def draw_arrow(ax, *points, head=True, colour=INK) -> None:
    """An arrow through ``points``, its head at the last one (no head: a plain line)."""
    ax.add_patch(FancyArrowPatch(path=MplPath(points), arrowstyle="-|>" if head else "-",
                                 mutation_scale=11, color=colour, linewidth=1.3, zorder=3,
                                 shrinkA=0, shrinkB=0))


def draw_dot(ax, x, y) -> None:
    """A junction: one line splits in two here."""
    ax.add_patch(Circle((x, y), 0.06, color=INK, zorder=4))


_ADD_NORM = ("Add & Norm", "add-norm", ADD_NORM)
ENCODER_LAYER = (("Self-attention", "self-attention", ATTENTION), _ADD_NORM,
                 ("Feed-forward", "feed-forward", FEED_FORWARD), _ADD_NORM)
DECODER_LAYER = (("Masked self-attention", "masked self-attention", ATTENTION), _ADD_NORM,
                 ("Encoder-decoder attention", "encoder-decoder attention", ATTENTION),
                 _ADD_NORM, ("Feed-forward", "feed-forward", FEED_FORWARD), _ADD_NORM)
LAYER_W, SUBLAYER_W, SUBLAYER_H = 3.8, 3.0, 0.55  # a layer seen inside, its sublayers' boxes
_SUB_GAP, _PAD = 0.5, 0.5  # between two sublayers, below the first


def draw_layer(ax, x, y, part, colour, sublayers, n, highlight, side):
    """One layer seen inside: its sublayers, their residual connections, and n - 1 cards
    behind it for the other layers. ``part`` is "encoder" or "decoder"; ``side`` (-1 left,
    1 right) is where residuals run."""
    height = _PAD + len(sublayers) * (SUBLAYER_H + _SUB_GAP) + 0.55
    for k in range(min(n - 1, 2), 0, -1):
        draw_box(ax, x + side * 0.14 * k, y + 0.14 * k, LAYER_W, height, None, colour, frame=True)
    draw_box(ax, x, y, LAYER_W, height, tr(part.capitalize()), colour, highlight == part,
             frame=True, fontsize=10, label_top=True)
    if n > 1:
        ax.text(x - 0.6 if side < 0 else x + LAYER_W + 0.6, y + height / 2, f"× {n}",
                ha="right" if side < 0 else "left", va="center", fontsize=13, color=INK,
                fontweight="bold")
    sx, cx = x + (LAYER_W - SUBLAYER_W) / 2, x + LAYER_W / 2
    bottoms = [y + _PAD + i * (SUBLAYER_H + _SUB_GAP) for i in range(len(sublayers))]
    for i, (label, part, face) in enumerate(sublayers):
        # Bold (highlighted) text is wider: long labels get a smaller size to stay inside.
        accent, label = highlight == part, tr(label)
        size = 10 if not accent or len(label) <= 21 else 8.5
        draw_box(ax, sx, bottoms[i], SUBLAYER_W, SUBLAYER_H, label, face, accent, fontsize=size)
        if i:
            draw_arrow(ax, (cx, bottoms[i - 1] + SUBLAYER_H), (cx, bottoms[i]))
        if part != "add-norm":  # a residual connection skips this sublayer into Add & Norm
            branch = bottoms[i] - (_SUB_GAP if i else _PAD) + 0.14  # below the arrow head
            side_x = sx - 0.22 if side < 0 else sx + SUBLAYER_W + 0.22
            edge = sx if side < 0 else sx + SUBLAYER_W
            norm_y = bottoms[i + 1] + SUBLAYER_H / 2
            draw_arrow(ax, (cx, branch), (side_x, branch), (side_x, norm_y), (edge, norm_y))
            draw_dot(ax, cx, branch)
    return {"cx": cx, "sub_x": sx, "top": y + height, "bottom": bottoms[0],
            "last": bottoms[-1] + SUBLAYER_H, "centres": [b + SUBLAYER_H / 2 for b in bottoms]}


def draw_layer_inputs(ax, layer, side, highlight, sentence, caption) -> None:
    """Below a layer: sentence → embedding → + positional encoding → the layer."""
    cx, y = layer["cx"], layer["bottom"] - _PAD
    draw_box(ax, cx - 1.1, y - 1.75, 2.2, 0.5, tr("Embedding"), PAPER)
    ax.add_patch(Circle((cx, y - 0.75), 0.2, facecolor="white", edgecolor=INK, zorder=3))
    ax.text(cx, y - 0.75, "+", ha="center", va="center", fontsize=13, color=INK, zorder=4)
    draw_arrow(ax, (cx, y - 1.25), (cx, y - 0.95))
    draw_arrow(ax, (cx, y - 0.55), (cx, layer["bottom"]))
    box_x = cx - 2.25 if side < 0 else cx + 0.7
    draw_box(ax, box_x, y - 1.06, 1.55, 0.62, tr("Positional\nencoding"), POSITIONAL,
             highlight == "positional", fontsize=8.5)
    draw_arrow(ax, (box_x + 1.55 if side < 0 else box_x, y - 0.75),
               (cx - 0.2 if side < 0 else cx + 0.2, y - 0.75))
    if sentence:
        draw_arrow(ax, (cx, y - 2.15), (cx, y - 1.75))
        ax.text(cx, y - 2.35, sentence, ha="center", va="center", fontsize=11.5, color=INK,
                style="italic")
        ax.text(cx, y - 2.72, caption, ha="center", va="center", fontsize=8.5, color=MUTED)

