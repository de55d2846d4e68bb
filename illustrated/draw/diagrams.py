"""Diagrams of the architecture: the black box and the stacks of encoders and decoders
(chapter 1, The black box), later chapters highlighting their part; the per-position
flow of one layer beside a recurrent chain (chapter 1)."""
from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch
import torch

from ..checks import check_positive_int
from .figure import check_labels, colour_scale, draw_cells, float_tensor, with_editions
from .palette import (ACCENT, ACCENT_LIGHT, DECODER, DIVERGING, ENCODER, FEED_FORWARD, INK, MUTED,
                      PAPER)
from .shapes import (DECODER_LAYER, ENCODER_LAYER, LAYER_W, blank_diagram, draw_arrow, draw_box,
                     draw_dot, draw_layer, draw_layer_inputs, finish_diagram)
from .words import tr

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


def _approx_width(text: str, fontsize: float, scale: float) -> float:
    """About how wide ``text`` is in data units, at ``scale`` inches per unit."""
    return len(text) * fontsize * 0.56 / 72 / scale


@with_editions
def black_box(source="je suis étudiant", target="I am a student") -> Figure:
    """The first, coarsest picture: a sentence goes into one box, its translation comes out.

    Returns:
        a Figure with one axes (axis hidden).
    """
    if not isinstance(source, str) or not isinstance(target, str):
        raise TypeError("source and target must be strings (the two sentences)")
    fig, ax = blank_diagram()
    size, scale = 13, 0.8
    w_src, w_tgt = (_approx_width(s, size, scale) for s in (source, target))
    x = 0.3 + w_src  # right end of the source sentence
    ax.text(x, 0, source, ha="right", va="center", fontsize=size, color=INK, style="italic")
    ax.text(x - w_src / 2, 0.45, tr("input"), ha="center", fontsize=9, color=MUTED)
    draw_arrow(ax, (x + 0.2, 0), (x + 1.3, 0))
    box_x = x + 1.3
    ax.add_patch(FancyBboxPatch((box_x, -0.6), 2.6, 1.2, facecolor=INK, edgecolor=INK,
                                boxstyle="round,pad=0,rounding_size=0.15"))
    ax.text(box_x + 1.3, 0, "Transformer", ha="center", va="center", fontsize=14,
            color="white", fontweight="bold")
    draw_arrow(ax, (box_x + 2.6, 0), (box_x + 3.7, 0))
    ax.text(box_x + 3.9, 0, target, ha="left", va="center", fontsize=size, color=INK,
            style="italic")
    ax.text(box_x + 3.9 + w_tgt / 2, 0.45, tr("output"), ha="center", fontsize=9, color=MUTED)
    alt = tr("Diagram: the input sentence “{source}” goes into one black box labelled "
             "Transformer, which outputs “{target}”.").format(source=source, target=target)
    return finish_diagram(fig, (0, box_x + 4.2 + w_tgt, -0.9, 0.9), alt, scale=scale, max_w=10)


@with_editions
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
    fig, ax = blank_diagram()
    detailed = detail or highlight not in (None, "encoder", "decoder")
    if detailed:
        bounds = _detailed_layers(ax, n_layers, highlight, show_io, source, target)
    else:
        bounds = _stacks(ax, n_layers, highlight, show_io, source, target)
    return finish_diagram(fig, bounds, _stack_alt(n_layers, detailed, highlight, show_io, source,
                                                  target))


def _stack_alt(n, detailed, highlight, show_io, source, target) -> str:
    """The alt text of stack_diagram()."""
    inside = tr(" One encoder layer is opened: self-attention then feed-forward, each followed "
                "by Add & Norm; one decoder layer: masked self-attention, encoder-decoder "
                "attention and feed-forward; with embeddings, positional encoding and a final "
                "linear layer and softmax.") if detailed else ""
    return (tr("Diagram of the Transformer: a stack of {n} encoder layers on the left feeding "
               "a stack of {n} decoder layers on the right.").format(n=n) + inside
            + (tr(" The {part} part is highlighted.").format(part=tr(highlight))
               if highlight else "")
            + (tr(" Input: “{source}”; output: “{target}”.").format(source=source,
                                                                    target=target)
               if show_io else "")
            + (tr(" The decoder reads its output so far, shifted right: “{shifted}”.").format(
                shifted=_shifted(target)) if show_io and detailed else ""))


def _shifted(target) -> str:
    """The decoder's input while training: ``<bos>`` and the target without its last word."""
    return " ".join(["<bos>"] + target.split()[:-1])


def _stacks(ax, n, highlight, show_io, source, target):
    """n encoder boxes, n decoder boxes, the top encoder feeding every decoder."""
    W, H, GAP, DEC_X = 3.0, 0.72, 0.42, 5.4
    base = 1.6 if show_io else 0.7
    centres = [base + i * (H + GAP) + H / 2 for i in range(n)]
    for i, yc in enumerate(centres):
        draw_box(ax, 0, yc - H / 2, W, H, tr("Encoder {i}").format(i=i + 1), ENCODER,
                 highlight == "encoder")
        draw_box(ax, DEC_X, yc - H / 2, W, H, tr("Decoder {i}").format(i=i + 1), DECODER,
                 highlight == "decoder")
        if i:
            for cx in (W / 2, DEC_X + W / 2):
                draw_arrow(ax, (cx, yc - H / 2 - GAP), (cx, yc - H / 2))
    bus = (W + DEC_X) / 2  # the top encoder's output runs down this line to every decoder
    draw_arrow(ax, (W, centres[-1]), (bus, centres[-1]), (bus, centres[0]), head=False)
    for yc in centres:
        draw_arrow(ax, (bus, yc), (DEC_X, yc))
        draw_dot(ax, bus, yc)
    top = centres[-1] + H / 2
    ax.add_patch(FancyBboxPatch((-0.45, base - 0.45), DEC_X + W + 0.9, top - base + 1.15,
                                boxstyle="round,pad=0,rounding_size=0.2", facecolor=PAPER,
                                edgecolor=MUTED, linewidth=1.0, zorder=0))
    ax.text(-0.25, top + 0.55, "Transformer", fontsize=10, color=MUTED, fontweight="bold",
            va="center")
    if show_io:
        ax.text(W / 2, base - 1.2, source, ha="center", va="center", fontsize=11.5, color=INK,
                style="italic")
        draw_arrow(ax, (W / 2, base - 0.95), (W / 2, base))
        draw_arrow(ax, (DEC_X + W / 2, top), (DEC_X + W / 2, top + 1.05))
        ax.text(DEC_X + W / 2, top + 1.3, target, ha="center", va="center", fontsize=11.5,
                color=INK, style="italic")
    margin = (1.6, 1.7) if show_io else (0.7, 0.95)  # below, above: room for the sentences
    return (-0.7, DEC_X + W + 0.7, base - margin[0], top + margin[1])


def _detailed_layers(ax, n, highlight, show_io, source, target):
    """One encoder layer and one decoder layer drawn inside, with inputs and outputs."""
    DEC_X, y = 6.0, (2.9 if show_io else 2.0)
    enc = draw_layer(ax, 0.0, y, "encoder", ENCODER, ENCODER_LAYER, n, highlight, side=-1)
    dec = draw_layer(ax, DEC_X, y, "decoder", DECODER, DECODER_LAYER, n, highlight, side=1)
    draw_layer_inputs(ax, enc, -1, highlight, show_io and source, tr("input"))
    draw_layer_inputs(ax, dec, 1, highlight, show_io and _shifted(target),
                      tr("output so far (shifted right)"))
    # The encoder's output feeds the encoder-decoder attention of every decoder layer.
    route_y, mid = enc["top"] + 0.6, (LAYER_W + DEC_X) / 2
    target_y = dec["centres"][2]
    draw_arrow(ax, (enc["cx"], enc["last"]), (enc["cx"], route_y), (mid, route_y), (mid, target_y),
               (dec["sub_x"], target_y))
    # The decoder's output becomes word probabilities.
    top = dec["top"] + 0.75
    draw_box(ax, dec["cx"] - 1.1, top, 2.2, 0.5, tr("Linear + softmax"), PAPER)
    draw_arrow(ax, (dec["cx"], dec["last"]), (dec["cx"], top))
    if show_io:
        draw_arrow(ax, (dec["cx"], top + 0.5), (dec["cx"], top + 1.0))
        ax.text(dec["cx"], top + 1.25, target, ha="center", va="center", fontsize=11.5,
                color=INK, style="italic")
    y0 = -0.1 if show_io else y - 1.95
    return (-1.3, DEC_X + LAYER_W + 1.3, y0, top + (1.6 if show_io else 0.7))


_BEAM_STATES = ("kept", "dropped", "finished")


@with_editions
def beam_tree(levels, title=None) -> Figure:
    """The hypotheses of a beam search as a tree, one column per decoding step (chapter 10).

    Args:
        levels: a list, one entry per step, of lists of nodes ``(parent, word, score, state)``:
            ``parent`` the index of the node in the previous level it extends (``None`` in
            the first level), ``score`` the prefix's summed log-probability, ``state`` one
            of ``"kept"`` (stays in the beam), ``"dropped"`` or ``"finished"`` (ended
            with ``<eos>``).
        title: a title in words.

    Returns:
        a Figure with one axes (axis hidden).
    """
    if not isinstance(levels, (list, tuple)) or not levels or not all(
            isinstance(level, (list, tuple)) and level for level in levels):
        raise ValueError(f"levels must be a non-empty list of non-empty lists of nodes, "
                         f"got {levels!r:.80}")
    for depth, level in enumerate(levels):
        for node in level:
            if not (isinstance(node, (list, tuple)) and len(node) == 4):
                raise ValueError(f"each node is (parent, word, score, state), got {node!r}")
            parent, _, _, state = node
            if state not in _BEAM_STATES:
                raise ValueError(f"state must be one of {_BEAM_STATES}, got {state!r}")
            ok = parent is None if depth == 0 else (
                isinstance(parent, int) and 0 <= parent < len(levels[depth - 1]))
            if not ok:
                raise ValueError(f"node {node!r} at step {depth}: parent must be "
                                 f"{'None' if depth == 0 else 'an index into the step before'}")
    fig, ax = blank_diagram()
    (title,) = [tr(title)] if title else [title]
    rows = max(len(level) for level in levels)
    w, h, dx, dy = 1.7, 0.62, 2.4, 0.85
    face = {"kept": ACCENT_LIGHT, "dropped": PAPER, "finished": ACCENT}
    y = [[-(i - (len(level) - 1) / 2) * dy for i in range(len(level))] for level in levels]
    for depth, level in enumerate(levels):
        for i, (parent, word, score, state) in enumerate(level):
            x = depth * dx
            draw_box(ax, x, y[depth][i] - h / 2, w, h, f"{word}\n{score:.2f}", face[state],
                     accent=state == "finished", fontsize=8)
            if parent is not None:
                draw_arrow(ax, ((depth - 1) * dx + w, y[depth - 1][parent]), (x, y[depth][i]),
                           colour=INK if state != "dropped" else MUTED)
    if title:
        ax.text(0, rows * dy / 2 + 0.35, title, fontsize=11, color=INK, fontweight="bold")
    counts = {s: sum(n[3] == s for level in levels for n in level) for s in _BEAM_STATES}
    what = (tr("Tree diagram of a beam search: {title}").format(title=title) if title
            else tr("Tree diagram of a beam search"))
    alt = tr("{what}: from left to right the start and {steps} steps, each box a word and its "
             "prefix's summed log-probability; {kept} kept, {dropped} dropped, {finished} "
             "finished hypotheses.").format(what=what, steps=len(levels) - 1, **counts)
    top = rows * dy / 2 + (0.8 if title else 0.2)
    return finish_diagram(fig, (-0.2, (len(levels) - 1) * dx + w + 0.2, -rows * dy / 2 - 0.2, top),
                          alt, scale=0.7, max_w=10, max_h=9)


@with_editions
def position_flow(tokens, inputs, attended, outputs, states) -> Figure:
    """Alammar's per-position flow (chapter 1): a short sentence's real vectors through
    one layer, all positions in the same step, beside a recurrent network's chain.

    Args:
        tokens: the L words; inputs, attended, outputs: the layer's vectors ``(L, d)``
            before it, after self-attention, after the feed-forward network; states: a
            recurrent network's hidden states ``(L, d)`` on the same inputs.

    Returns:
        a Figure with one axes (axis hidden).
    """
    names = ("inputs", "attended", "outputs", "states")
    vectors = [float_tensor(t, n) for t, n in zip((inputs, attended, outputs, states), names)]
    x, z, r, h = vectors
    if x.dim() != 2 or any(v.shape != x.shape for v in vectors):
        raise ValueError(f"inputs, attended, outputs and states must all be (L, d), got "
                         f"shapes {', '.join(str(tuple(v.shape)) for v in vectors)}")
    tokens = check_labels(tokens, len(x), "tokens", "vectors")
    (L, d), step, top = x.shape, x.shape[1] + 1.5, 11.0
    norm = colour_scale(torch.cat(vectors), None, None)
    fig, ax = blank_diagram()

    def strip(v, x0, y0):  # one vector, d cells from (x0, y0)
        draw_cells(ax, v[None].numpy(), x0, y0, cmap=DIVERGING, norm=norm,
                   fmt="{:.1f}", fontsize=7)

    rnn_x = L * step + 2.5  # where the recurrent network's panel starts
    for i, word in enumerate(tokens):
        for x0, v in ((i * step, z), (rnn_x + i * step, h)):
            ax.text(x0 + d / 2, -0.5, word, ha="center", va="top", style="italic")
            strip(x[i], x0, 0)
            strip(v[i], x0, 4)
        left, mid = i * step, i * step + d / 2
        for j in range(L):  # attention: every input reaches every position
            draw_arrow(ax, (j * step + d / 2, 1.1), (mid, 3.9), colour=MUTED)
        draw_arrow(ax, (mid, 5.1), (mid, 6))
        draw_box(ax, left, 6, d, 1, tr("feed-forward"), FEED_FORWARD, fontsize=8)
        draw_arrow(ax, (mid, 7), (mid, 7.9))
        strip(r[i], left, 8)
        mid = rnn_x + mid  # the recurrent network: x_t and h_{t-1} give h_t
        draw_arrow(ax, (mid, 1.1), (mid, 3.9))
        if i:
            draw_arrow(ax, (mid - step + d / 2 + 0.1, 4.5), (mid - d / 2 - 0.1, 4.5))
        ax.text(mid, 5.4, tr("step {i}").format(i=i + 1), ha="center", fontsize=8)
    for x0, y, label in ((-0.3, 0.5, "x"), (-0.3, 2.5, tr("self-attention")),
                         (-0.3, 4.5, "z"), (-0.3, 8.5, "r"), (rnn_x - 0.3, 4.5, "h")):
        ax.text(x0, y, label, ha="right", va="center", fontsize=8, color=INK)
    for x0, title in ((0, tr("One layer: every position in the same step")),
                      (rnn_x, tr("Recurrent network: one position after another"))):
        ax.text(x0, top - 0.6, title, fontsize=10, fontweight="bold", color=INK)
    alt = tr("Diagram: the vectors of “{words}” through one Transformer layer, all "
             "{L} positions in the same step, beside a recurrent network that computes "
             "its {L} states one after another.").format(words=" ".join(tokens), L=L)
    return finish_diagram(fig, (-3.2, rnn_x + L * step, -1.6, top), alt, scale=0.3, max_w=10)
