"""Explorers of attention's weights: the temperature of a softmax (chapter 2, Attention as a
soft lookup) and the scaling by √d_k (chapter 4, Scaled scores)."""
from __future__ import annotations

import torch

from ..checks import check_positive_int, check_tensor
from ..attention import scaled_dot_product_attention
from ..draw.palette import ACCENT, INK, KEY, QUERY
from ..draw.words import tr
from .explorer import (DIGITS, PANEL, Explorer, check_grid, data_frame, edition_list,
                       in_every_edition, label_expr, make_explorer, text_expr)

# ------------------------------------------------------------------ chapter 2: temperature
def temperature_weights(scores: torch.Tensor, tau: float) -> torch.Tensor:
    """The soft lookup's weights ``softmax(scores / tau)`` (chapter 2), rounded to
    ``DIGITS`` decimals. ``scores``: ``(S,)``; returns ``(S,)``."""
    check_tensor(scores, "scores", ndim=1, floating=True)
    if not isinstance(tau, (int, float)) or isinstance(tau, bool) or tau <= 0:
        raise ValueError(f"tau must be a positive number, got {tau!r}")
    weights = torch.softmax(scores.double() / tau, dim=-1)  # (S,)
    return weights.mul(10**DIGITS).round().div(10**DIGITS)


@in_every_edition
def temperature_explorer(scores: torch.Tensor, labels, log10_taus=None) -> Explorer:
    """Drag the temperature τ of a softmax and watch its weights (chapter 2).

    Args:
        scores: the scores ``(S,)`` of one query against ``S`` keys.
        labels: ``S`` distinct names of the keys.
        log10_taus: the grid of ``log10(τ)`` the slider moves over (default -2 to 2 by 0.1).

    Returns:
        an :class:`.Explorer`: one bar per key, the weight ``softmax(scores / τ)``.
    """
    import altair as alt

    check_tensor(scores, "scores", ndim=1, floating=True)
    labels = [str(label) for label in labels]
    if len(labels) != scores.shape[0] or len(set(labels)) != len(labels):
        raise ValueError(f"labels must be {scores.shape[0]} distinct names, got {labels}")
    grid = check_grid([round(x / 10, 1) for x in range(-20, 21)] if log10_taus is None
                      else log10_taus, "log10_taus", positive=False)
    rows = [{"log10_tau": round(g, 3), "key": label, "weight": float(w)}
            for g in grid
            for label, w in zip(labels, temperature_weights(scores, 10**g).tolist())]
    step = round(grid[1] - grid[0], 6) if len(grid) > 1 else 1
    tau = alt.param(name="log10_tau", value=0.0 if 0.0 in grid else grid[0],
                    bind=alt.binding_range(min=grid[0], max=grid[-1], step=step,
                                           name=tr("log₁₀ τ") + " "))
    base = alt.Chart(data_frame(rows)).transform_filter(
        "abs(datum.log10_tau - log10_tau) < 1e-9")
    x = alt.X("key:N", sort=labels, title=None, axis=alt.Axis(labelAngle=0, **label_expr(labels)))
    bars = base.mark_bar(color=KEY).encode(
        x=x, y=alt.Y("weight:Q", scale=alt.Scale(domain=[0, 1]), title=tr("weight")))
    text = base.mark_text(dy=-8, color=INK).encode(
        x=x, y="weight:Q", text=alt.Text("weight:Q", format=".3f"))
    title = alt.Title(alt.ExprRef(text_expr(
        "Softmax weights at τ = {tau}", {"tau": "format(pow(10, log10_tau), '.3~g')"})))
    chart = (bars + text).add_params(tau).properties(width=PANEL[0], height=PANEL[1],
                                                     title=title)
    inputs = {"scores": [float(s) for s in scores.tolist()], "labels": labels,
              "param": "log10_tau"}
    return make_explorer(chart, "temperature", inputs, tr(
        "Bars of the softmax weights of {n} keys ({keys}); a slider sets the temperature τ "
        "from {low:g} to {high:g}.").format(n=len(labels), keys=edition_list(map(tr, labels)),
                                            low=10**grid[0], high=10**grid[-1]))


# ------------------------------------------------------------------ chapter 4: √d_k
def scaling_weights(d_k: int, S: int = 16, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """One row of attention weights over ``S`` random keys of width ``d_k`` (chapter 4),
    without and with the division by √d_k, rounded to ``DIGITS`` decimals.

    The query ``(1, d_k)`` and keys ``(S, d_k)`` are drawn in float64 from a generator
    seeded with ``seed``. Returns ``(unscaled, scaled)``, each ``(S,)``: ``softmax(q·k)``
    and the weights of :func:`illustrated.attention.scaled_dot_product_attention`.
    """
    check_positive_int(d_k, "d_k")
    check_positive_int(S, "S")
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(1, d_k, generator=gen, dtype=torch.float64)  # (1, Dk)
    k = torch.randn(S, d_k, generator=gen, dtype=torch.float64)  # (S, Dk)
    unscaled = torch.softmax(q @ k.T, dim=-1)  # (1, S)
    _, scaled = scaled_dot_product_attention(q, k, k)  # (1, S)
    scale = 10**DIGITS
    return unscaled[0].mul(scale).round().div(scale), scaled[0].mul(scale).round().div(scale)


@in_every_edition
def scaling_explorer(max_log2_d_k: int = 10, S: int = 16, seed: int = 0) -> Explorer:
    """Drag the key width d_k from 1 to ``2**max_log2_d_k`` and watch one row of softmax
    weights saturate without the √d_k scaling and stay spread with it (chapter 4).

    Returns an :class:`.Explorer`: two bar charts of the ``S`` weights of
    :func:`scaling_weights`, side by side.
    """
    import altair as alt

    check_positive_int(max_log2_d_k, "max_log2_d_k")
    if max_log2_d_k > 14:
        raise ValueError(f"max_log2_d_k must be at most 14 (d_k = 16384), got {max_log2_d_k}")
    names = {"unscaled": tr("softmax(q·k), no scaling"), "scaled": tr("softmax(q·k / √d_k)")}
    rows = []
    for n in range(max_log2_d_k + 1):
        for name, weights in zip(names, scaling_weights(2**n, S, seed)):
            rows += [{"log2_d_k": n, "scaling": name, "key": j + 1, "weight": w}
                     for j, w in enumerate(weights.tolist())]
    d_k = alt.param(name="log2_d_k", value=min(6, max_log2_d_k),
                    bind=alt.binding_range(min=0, max=max_log2_d_k, step=1,
                                           name=tr("log₂ d_k") + " "))
    base = alt.Chart(data_frame(rows)).transform_filter("datum.log2_d_k == log2_d_k")
    panels = [base.transform_filter(f"datum.scaling == '{name}'")
              .mark_bar(color=color).encode(
                  x=alt.X("key:O", title=tr("key"), axis=alt.Axis(labelAngle=0)),
                  y=alt.Y("weight:Q", scale=alt.Scale(domain=[0, 1]), title=tr("weight")))
              .properties(width=PANEL[0] * 0.8, height=PANEL[1], title=title)
              for (name, title), color in zip(names.items(), [ACCENT, QUERY])]
    title = alt.Title(alt.ExprRef(text_expr(
        "One query, {S} random keys of width d_k = {d_k}", {"d_k": "pow(2, log2_d_k)"}, S=S)))
    chart = alt.hconcat(*panels).add_params(d_k).properties(title=title)
    return make_explorer(chart, "scaling", {"S": S, "seed": seed, "param": "log2_d_k"}, tr(
        "Two bar charts of the softmax weights of one query over {S} random keys, without "
        "and with the division by √d_k; a slider sets d_k from 1 to {high}.").format(
            S=S, high=2**max_log2_d_k))


