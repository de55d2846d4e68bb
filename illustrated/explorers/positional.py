"""The positional-encoding explorer (chapter 7, Positional encoding): the waves of a few
columns and the similarity of one position's encoding to every other's."""
from __future__ import annotations

import torch

from ..checks import check_positive_int
from ..draw.palette import ACCENT, INK, SERIES
from ..draw.words import tr
from ..positional import sinusoidal_encoding
from .explorer import (DIGITS, PANEL, Explorer, check_grid, data_frame, edition_list,
                       in_every_edition, make_explorer, rounded)

def position_similarity(d_model: int, p: int, length: int) -> torch.Tensor:
    """``PE(p) · PE(q) / (d_model / 2)`` for every position ``q < length`` (chapter 7),
    rounded to ``DIGITS`` decimals: 1 at ``q = p``, a function of ``|p − q|`` only.
    Returns ``(length,)``."""
    check_positive_int(length, "length")
    if not isinstance(p, int) or not 0 <= p < length:
        raise ValueError(f"p must be a position from 0 to {length - 1}, got {p!r}")
    pe = sinusoidal_encoding(length, d_model).double()  # (L, D)
    dots = pe @ pe[p] / (d_model / 2)  # (L,)
    return dots.mul(10**DIGITS).round().div(10**DIGITS)


@in_every_edition
def positional_explorer(d_models=(16, 64, 512), length: int = 60, columns=(0, 2, 4, 6),
                        positions=(0, 10, 20, 30, 40, 50)) -> Explorer:
    """Pick d_model and a position p: see the encoding's waves and how similar p's
    encoding is to every other position's (chapter 7).

    Returns an :class:`.Explorer` with two panels: the ``columns`` of
    :func:`illustrated.positional.sinusoidal_encoding` over ``length`` positions (a rule at
    p), and :func:`position_similarity` of p with each position.
    """
    import altair as alt

    d_models = [int(d) for d in check_grid(d_models, "d_models")]
    positions = [int(p) for p in check_grid(positions, "positions", positive=False)]
    if min(positions) < 0 or max(positions) >= length or any(c >= min(d_models) for c in columns):
        raise ValueError(f"positions must lie from 0 to below length={length} and columns below the "
                         f"smallest d_model={min(d_models)}")
    waves, dots = [], []
    for d in d_models:
        pe = sinusoidal_encoding(length, d)  # (L, D)
        waves += [{"d_model": d, "column": c, "pos": pos,
                   "value": rounded(pe[pos, c])} for c in columns for pos in range(length)]
        for p in positions:
            dots += [{"d_model": d, "p": p, "pos": pos, "similarity": s}
                     for pos, s in enumerate(position_similarity(d, p, length).tolist())]
    d_model = alt.param(name="d_model", value=d_models[0],
                        bind=alt.binding_select(options=d_models, name=tr("d_model") + " "))
    p = alt.param(name="p", value=positions[len(positions) // 2],
                  bind=alt.binding_range(min=positions[0], max=positions[-1],
                                         step=positions[1] - positions[0] if len(positions) > 1
                                         else 1, name=tr("position p") + " "))
    x = alt.X("pos:Q", title=tr("position"), scale=alt.Scale(domain=[0, length - 1]))
    rule = alt.Chart(data_frame([{"one": 1}])).mark_rule(color=INK, strokeDash=[4, 3]).encode(
        x=alt.X("p:Q", scale=alt.Scale(domain=[0, length - 1]))).transform_calculate(p="p")
    wave = (alt.Chart(data_frame(waves)).transform_filter("datum.d_model == d_model")
            .mark_line().encode(x=x, y=alt.Y("value:Q", title=tr("PE(pos, column)"),
                                             scale=alt.Scale(domain=[-1, 1])),
                                color=alt.Color("column:N", title=tr("column"),
                                                scale=alt.Scale(range=list(SERIES)),
                                                legend=alt.Legend(orient="bottom"))))
    sim = (alt.Chart(data_frame(dots)).transform_filter("datum.d_model == d_model && datum.p == p")
           .mark_line(color=ACCENT, point=alt.OverlayMarkDef(color=ACCENT, size=16)).encode(
               x=x, y=alt.Y("similarity:Q", title="PE(p) · PE(pos) / (d_model / 2)",
                            scale=alt.Scale(domain=[-1, 1]))))
    size = dict(width=PANEL[0] - 50, height=PANEL[1])  # two panels in the page's column
    chart = alt.hconcat((wave + rule).properties(title=tr("The first sin/cos columns"), **size),
                        (sim + rule).properties(title=tr("Similarity of p to every position"),
                                                **size)).add_params(d_model, p)
    return make_explorer(chart, "positional",
                         {"length": length, "columns": list(columns), "params": ["d_model", "p"]},
                         tr("Two line charts: columns {columns} of the sinusoidal encoding over "
                            "{length} positions, and the normalised dot product of position p's "
                            "encoding with every position's; a drop-down sets d_model ({d_models}) "
                            "and a slider sets p.").format(columns=edition_list(columns),
                                                           length=length,
                                                           d_models=edition_list(d_models)))


