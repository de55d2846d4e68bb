"""The masks explorer (chapter 6, Masking): which query may attend to which key in the
model's three masks of one sentence pair."""
from __future__ import annotations

import torch

from ..checks import check_positive_int
from ..draw.palette import INK, KEY, MUTED
from ..draw.words import tr
from ..model import make_std_masks
from .explorer import PANEL, Explorer, data_frame, in_every_edition, label_expr, make_explorer

MASK_PANELS = {"encoder": "encoder self-attention", "decoder": "decoder self-attention",
               "cross": "decoder → encoder (cross)"}
#: What a cell of a mask explorer says (the mask lets the query attend, or why not).
MASK_CELLS = ["may attend", "blocked: padding", "blocked: future"]


def mask_cells(src_len: int, tgt_len: int, width: int = 8) -> dict[str, torch.Tensor]:
    """The three masks of one sentence pair padded to ``width`` tokens (chapter 6), as
    the model builds them: ``{"encoder": (W, W), "decoder": (W, W), "cross": (W, W)}``
    bool tensors, ``True`` = may attend (rows are queries, columns keys)."""
    for value, name in [(src_len, "src_len"), (tgt_len, "tgt_len"), (width, "width")]:
        check_positive_int(value, name)
    if max(src_len, tgt_len) > width:
        raise ValueError(f"src_len={src_len} and tgt_len={tgt_len} must be at most "
                         f"width={width}")
    src = (torch.arange(width) < src_len).long().unsqueeze(0)  # (1, W): 1 = word, 0 = pad
    tgt = (torch.arange(width) < tgt_len).long().unsqueeze(0)  # (1, W)
    src_mask, tgt_mask = make_std_masks(src, tgt, pad_id=0)  # (1, 1, W), (1, W, W)
    return {"encoder": src_mask.expand(1, width, width)[0],  # (W, W): keys = source
            "decoder": tgt_mask[0],  # (W, W): keys = target
            "cross": src_mask.expand(1, width, width)[0]}  # (W, W): target queries, source keys


def _mask_rows(width: int) -> list[dict]:
    rows = []
    for n in range(1, width + 1):
        for panel, mask in mask_cells(n, n, width).items():
            for q in range(width):
                for k in range(width):
                    cell = (MASK_CELLS[0] if mask[q, k] else
                            MASK_CELLS[2] if panel == "decoder" and k > q else MASK_CELLS[1])
                    rows.append({"panel": panel, "n": n, "q": q, "k": k, "cell": cell})
    return rows


@in_every_edition
def mask_explorer(width: int = 8) -> Explorer:
    """Pick the lengths of a source and a target sentence padded to ``width`` tokens and
    see which cells each of the model's three masks blocks, and why (chapter 6).

    Returns an :class:`.Explorer`: three grids (queries × keys) of :func:`mask_cells`.
    The encoder's and the cross-attention's masks depend on the source length only, the
    decoder's on the target length only, so the data holds one grid per length and panel.
    """
    import altair as alt

    check_positive_int(width, "width")
    if width > 12:
        raise ValueError(f"width must be at most 12 tokens, got {width}")
    src = alt.param(name="src_len", value=min(5, width),
                    bind=alt.binding_range(min=1, max=width, step=1,
                                           name=tr("source length") + " "))
    tgt = alt.param(name="tgt_len", value=min(3, width),
                    bind=alt.binding_range(min=1, max=width, step=1,
                                           name=tr("target length") + " "))
    base = alt.Chart(data_frame(_mask_rows(width)))
    color = alt.Color("cell:N", title=None,
                      legend=alt.Legend(orient="bottom", **label_expr(MASK_CELLS)),
                      scale=alt.Scale(domain=MASK_CELLS, range=[KEY, MUTED, INK]))
    panels = []
    for panel, title in MASK_PANELS.items():
        length = "tgt_len" if panel == "decoder" else "src_len"
        queries = "src_len" if panel == "encoder" else "tgt_len"
        panels.append(
            base.transform_filter(f"datum.panel == '{panel}' && datum.n == {length}")
            .mark_rect(stroke="white", strokeWidth=1).encode(
                x=alt.X("k:O", title=tr("key position")),
                y=alt.Y("q:O", title=tr("query position")),
                color=color,
                # A padding query still attends (its output is never used): drawn paler.
                opacity=alt.condition(f"datum.q >= {queries}", alt.value(0.35), alt.value(1)))
            .properties(width=PANEL[1] * 0.8, height=PANEL[1] * 0.8, title=tr(title)))
    chart = alt.hconcat(*panels).add_params(src, tgt).properties(
        title=tr("Masks of one sentence pair padded to {width} tokens (pale rows: padding "
                 "queries)").format(width=width))
    return make_explorer(chart, "masks", {"width": width, "params": ["src_len", "tgt_len"]}, tr(
        "Three grids of queries by keys, the encoder's, the decoder's and the "
        "cross-attention's masks, each cell coloured by whether the query may attend or is "
        "blocked by padding or by the future; two sliders set the source and target lengths "
        "from 1 to {width}.").format(width=width))


