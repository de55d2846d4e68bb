"""Explorers: interactive charts of the book's key experiments (introduced in chapter 2,
Attention as a soft lookup; also in chapters 4, 6, 7 and 10).

A static figure shows one setting; an explorer beside it lets a reader drag the setting.
Every value an explorer can show is computed here, by the package, over a grid of
settings and rounded to ``DIGITS`` decimals (the same digits on every CPU); the page only
picks the rows of the setting the reader chose (Vega-Lite parameters bound to a slider or a
drop-down, and filter transforms). The charts are built with altair, imported when an
explorer is made, so that importing the package stays quick.

An :class:`Explorer` shows itself in three ways:

* ``text/html``: a ``<div class="vl-explorer">`` holding the Vega-Lite spec as inert JSON and
  a one-line note for readers without JavaScript. The book's site script
  ``_static/explorers.js`` draws it with the site's own copy of vega-embed (no CDN).
* ``application/vnd.vegalite.v5+json``, which JupyterLab 4 draws itself (its renderer
  reads this v6 spec; altair's own v6 type cannot hold a dict in a notebook file);
* ``text/plain``: what it shows, in words.

Each spec carries its inputs and settings in ``usermeta["explorer"]``; the book's browser
check moves each control and compares what is drawn with the package's values, computed
again from those inputs (``scripts/browser_checks/explorers.py``).
"""
from __future__ import annotations

import json

import torch

from ._checks import check_positive_int, check_tensor
from .attention import scaled_dot_product_attention
from .draw.palette import ACCENT, INK, KEY, MUTED, QUERY, SERIES
from .model import make_std_masks
from .positional import sinusoidal_encoding

#: Decimals kept in an explorer's data, so that what nbval compares is equal on every CPU.
DIGITS = 3
#: The Vega-Lite MIME type JupyterLab 4 draws.
JUPYTERLAB_MIME = "application/vnd.vegalite.v5+json"
#: Text sizes close to the page's (Vega-Lite's defaults are 10 and 11 pixels).
FONTS = {"axis": {"labelFontSize": 12, "titleFontSize": 12},
         "legend": {"labelFontSize": 12, "titleFontSize": 12},
         "title": {"fontSize": 14, "anchor": "start", "offset": 8}}
#: Width and height of one panel, in pixels.
PANEL = (300, 200)


class Explorer:
    """A Vega-Lite chart with its controls, shown by Jupyter and by the book's pages.

    Args:
        spec: the Vega-Lite spec (a dict, as ``altair.Chart.to_dict()`` gives).
        alt_text: one sentence saying what the explorer shows and which control moves it.
    """

    def __init__(self, spec: dict, alt_text: str):
        if not isinstance(spec, dict) or "datasets" not in spec:
            raise TypeError("spec must be a Vega-Lite dict with its data in 'datasets', got "
                            f"{type(spec).__name__}")
        self.spec, self.alt_text = spec, str(alt_text)

    @property
    def data_bytes(self) -> int:
        """Size of the explorer's data, as JSON."""
        return len(json.dumps(self.spec["datasets"], separators=(",", ":")))

    def to_json(self) -> str:
        """The spec as compact JSON, safe inside an HTML ``<script>`` (no ``<``)."""
        text = json.dumps(self.spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return text.replace("<", "\\u003c")

    def to_html(self) -> str:
        """The ``<div>`` the book's site script draws; no script runs from it by itself."""
        kind = self.spec.get("usermeta", {}).get("explorer", {}).get("kind", "chart")
        label = self.alt_text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
        return (f'<div class="vl-explorer" data-explorer="{kind}" role="figure" '
                f'aria-label="{label}">'
                f'<script type="application/json">{self.to_json()}</script>'
                '<p class="vl-explorer-note">An interactive explorer is drawn here when '
                "the page runs JavaScript; the figure above shows the same experiment.</p></div>")

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": self.to_html(), JUPYTERLAB_MIME: self.spec,
                "text/plain": f"Explorer: {self.alt_text}"}


def _rounded(x: float) -> float:
    value = round(float(x), DIGITS)
    return 0.0 if value == 0 else value  # no "-0.0"


def _explorer(chart, kind: str, inputs: dict, alt_text: str) -> Explorer:
    """The spec of ``chart`` with its inputs recorded, sizes and fonts set."""
    spec = chart.to_dict()
    spec["config"] = {**spec.get("config", {}), **FONTS}
    spec["usermeta"] = {"explorer": {"kind": kind, **inputs}}
    return Explorer(spec, alt_text)


def _frame(rows: list[dict]):
    """The rows as a DataFrame: altair stores it once, under a name made from its content."""
    import pandas as pd

    return pd.DataFrame(rows)


def _check_grid(values, name: str, positive=True) -> list[float]:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a list of numbers, got {type(values).__name__}")
    values = [float(v) for v in values]
    if not values or len(set(values)) != len(values):
        raise ValueError(f"{name} must hold distinct numbers, got {values}")
    if positive and min(values) <= 0:
        raise ValueError(f"{name} must be positive, got {values}")
    return values


# ------------------------------------------------------------------ chapter 2: temperature
def temperature_weights(scores: torch.Tensor, tau: float) -> torch.Tensor:
    """The soft lookup's weights ``softmax(scores / tau)`` (chapter 2), rounded to
    ``DIGITS`` decimals. ``scores``: ``(S,)``; returns ``(S,)``."""
    check_tensor(scores, "scores", ndim=1, floating=True)
    if not isinstance(tau, (int, float)) or isinstance(tau, bool) or tau <= 0:
        raise ValueError(f"tau must be a positive number, got {tau!r}")
    weights = torch.softmax(scores.double() / tau, dim=-1)  # (S,)
    return weights.mul(10**DIGITS).round().div(10**DIGITS)


def temperature_explorer(scores: torch.Tensor, labels, log10_taus=None) -> Explorer:
    """Drag the temperature τ of a softmax and watch its weights (chapter 2).

    Args:
        scores: the scores ``(S,)`` of one query against ``S`` keys.
        labels: ``S`` distinct names of the keys.
        log10_taus: the grid of ``log10(τ)`` the slider moves over (default -2 to 2 by 0.1).

    Returns:
        an :class:`Explorer`: one bar per key, the weight ``softmax(scores / τ)``.
    """
    import altair as alt

    check_tensor(scores, "scores", ndim=1, floating=True)
    labels = [str(label) for label in labels]
    if len(labels) != scores.shape[0] or len(set(labels)) != len(labels):
        raise ValueError(f"labels must be {scores.shape[0]} distinct names, got {labels}")
    grid = _check_grid([round(x / 10, 1) for x in range(-20, 21)] if log10_taus is None
                       else log10_taus, "log10_taus", positive=False)
    rows = [{"log10_tau": round(g, 3), "key": label, "weight": float(w)}
            for g in grid
            for label, w in zip(labels, temperature_weights(scores, 10**g).tolist())]
    step = round(grid[1] - grid[0], 6) if len(grid) > 1 else 1
    tau = alt.param(name="log10_tau", value=0.0 if 0.0 in grid else grid[0],
                    bind=alt.binding_range(min=grid[0], max=grid[-1], step=step,
                                           name="log₁₀ τ "))
    base = alt.Chart(_frame(rows)).transform_filter(
        "abs(datum.log10_tau - log10_tau) < 1e-9")
    x = alt.X("key:N", sort=labels, title=None, axis=alt.Axis(labelAngle=0))
    bars = base.mark_bar(color=KEY).encode(
        x=x, y=alt.Y("weight:Q", scale=alt.Scale(domain=[0, 1]), title="weight"))
    text = base.mark_text(dy=-8, color=INK).encode(
        x=x, y="weight:Q", text=alt.Text("weight:Q", format=".3f"))
    title = alt.Title(alt.ExprRef("'Softmax weights at τ = ' + format(pow(10, log10_tau), '.3~g')"))
    chart = (bars + text).add_params(tau).properties(width=PANEL[0], height=PANEL[1],
                                                     title=title)
    inputs = {"scores": [float(s) for s in scores.tolist()], "labels": labels,
              "param": "log10_tau"}
    return _explorer(chart, "temperature", inputs,
                     f"Bars of the softmax weights of {len(labels)} keys "
                     f"({', '.join(labels)}); a slider sets the temperature τ from "
                     f"{10**grid[0]:g} to {10**grid[-1]:g}.")


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


def scaling_explorer(max_log2_d_k: int = 10, S: int = 16, seed: int = 0) -> Explorer:
    """Drag the key width d_k from 1 to ``2**max_log2_d_k`` and watch one row of softmax
    weights saturate without the √d_k scaling and stay spread with it (chapter 4).

    Returns an :class:`Explorer`: two bar charts of the ``S`` weights of
    :func:`scaling_weights`, side by side.
    """
    import altair as alt

    check_positive_int(max_log2_d_k, "max_log2_d_k")
    if max_log2_d_k > 14:
        raise ValueError(f"max_log2_d_k must be at most 14 (d_k = 16384), got {max_log2_d_k}")
    names = {"unscaled": "softmax(q·k), no scaling", "scaled": "softmax(q·k / √d_k)"}
    rows = []
    for n in range(max_log2_d_k + 1):
        for name, weights in zip(names, scaling_weights(2**n, S, seed)):
            rows += [{"log2_d_k": n, "scaling": name, "key": j + 1, "weight": w}
                     for j, w in enumerate(weights.tolist())]
    d_k = alt.param(name="log2_d_k", value=min(6, max_log2_d_k),
                    bind=alt.binding_range(min=0, max=max_log2_d_k, step=1, name="log₂ d_k "))
    base = alt.Chart(_frame(rows)).transform_filter("datum.log2_d_k == log2_d_k")
    panels = [base.transform_filter(f"datum.scaling == '{name}'")
              .mark_bar(color=color).encode(
                  x=alt.X("key:O", title="key", axis=alt.Axis(labelAngle=0)),
                  y=alt.Y("weight:Q", scale=alt.Scale(domain=[0, 1]), title="weight"))
              .properties(width=PANEL[0] * 0.8, height=PANEL[1], title=title)
              for (name, title), color in zip(names.items(), [ACCENT, QUERY])]
    title = alt.Title(alt.ExprRef(f"'One query, {S} random keys of width d_k = ' + "
                                  "pow(2, log2_d_k)"))
    chart = alt.hconcat(*panels).add_params(d_k).properties(title=title)
    return _explorer(chart, "scaling", {"S": S, "seed": seed, "param": "log2_d_k"},
                     f"Two bar charts of the softmax weights of one query over {S} random "
                     "keys, without and with the division by √d_k; a slider sets d_k from 1 "
                     f"to {2**max_log2_d_k}.")


# ------------------------------------------------------------------ chapter 6: masks
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


def mask_explorer(width: int = 8) -> Explorer:
    """Pick the lengths of a source and a target sentence padded to ``width`` tokens and
    see which cells each of the model's three masks blocks, and why (chapter 6).

    Returns an :class:`Explorer`: three grids (queries × keys) of :func:`mask_cells`.
    The encoder's and the cross-attention's masks depend on the source length only, the
    decoder's on the target length only, so the data holds one grid per length and panel.
    """
    import altair as alt

    check_positive_int(width, "width")
    if width > 12:
        raise ValueError(f"width must be at most 12 tokens, got {width}")
    src = alt.param(name="src_len", value=min(5, width),
                    bind=alt.binding_range(min=1, max=width, step=1, name="source length "))
    tgt = alt.param(name="tgt_len", value=min(3, width),
                    bind=alt.binding_range(min=1, max=width, step=1, name="target length "))
    base = alt.Chart(_frame(_mask_rows(width)))
    color = alt.Color("cell:N", title=None, legend=alt.Legend(orient="bottom"),
                      scale=alt.Scale(domain=MASK_CELLS, range=[KEY, MUTED, INK]))
    panels = []
    for panel, title in MASK_PANELS.items():
        length = "tgt_len" if panel == "decoder" else "src_len"
        queries = "src_len" if panel == "encoder" else "tgt_len"
        panels.append(
            base.transform_filter(f"datum.panel == '{panel}' && datum.n == {length}")
            .mark_rect(stroke="white", strokeWidth=1).encode(
                x=alt.X("k:O", title="key position"), y=alt.Y("q:O", title="query position"),
                color=color,
                # A padding query still attends (its output is never used): drawn paler.
                opacity=alt.condition(f"datum.q >= {queries}", alt.value(0.35), alt.value(1)))
            .properties(width=PANEL[1] * 0.8, height=PANEL[1] * 0.8, title=title))
    chart = alt.hconcat(*panels).add_params(src, tgt).properties(
        title=f"Masks of one sentence pair padded to {width} tokens (pale rows: padding queries)")
    return _explorer(chart, "masks", {"width": width, "params": ["src_len", "tgt_len"]},
                     "Three grids of queries by keys, the encoder's, the decoder's and the "
                     "cross-attention's masks, each cell coloured by whether the query may "
                     "attend or is blocked by padding or by the future; two sliders set the "
                     f"source and target lengths from 1 to {width}.")


# ------------------------------------------------------------------ chapter 7: positions
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


def positional_explorer(d_models=(16, 64, 512), length: int = 60, columns=(0, 2, 4, 6),
                        positions=(0, 10, 20, 30, 40, 50)) -> Explorer:
    """Pick d_model and a position p: see the encoding's waves and how similar p's
    encoding is to every other position's (chapter 7).

    Returns an :class:`Explorer` with two panels: the ``columns`` of
    :func:`illustrated.positional.sinusoidal_encoding` over ``length`` positions (a rule at
    p), and :func:`position_similarity` of p with each position.
    """
    import altair as alt

    d_models = [int(d) for d in _check_grid(d_models, "d_models")]
    positions = [int(p) for p in _check_grid(positions, "positions", positive=False)]
    if min(positions) < 0 or max(positions) >= length or any(c >= min(d_models) for c in columns):
        raise ValueError(f"positions must lie from 0 to below length={length} and columns below the "
                         f"smallest d_model={min(d_models)}")
    waves, dots = [], []
    for d in d_models:
        pe = sinusoidal_encoding(length, d)  # (L, D)
        waves += [{"d_model": d, "column": c, "pos": pos,
                   "value": _rounded(pe[pos, c])} for c in columns for pos in range(length)]
        for p in positions:
            dots += [{"d_model": d, "p": p, "pos": pos, "similarity": s}
                     for pos, s in enumerate(position_similarity(d, p, length).tolist())]
    d_model = alt.param(name="d_model", value=d_models[0],
                        bind=alt.binding_select(options=d_models, name="d_model "))
    p = alt.param(name="p", value=positions[len(positions) // 2],
                  bind=alt.binding_range(min=positions[0], max=positions[-1],
                                         step=positions[1] - positions[0] if len(positions) > 1
                                         else 1, name="position p "))
    x = alt.X("pos:Q", title="position", scale=alt.Scale(domain=[0, length - 1]))
    rule = alt.Chart(_frame([{"one": 1}])).mark_rule(color=INK, strokeDash=[4, 3]).encode(
        x=alt.X("p:Q", scale=alt.Scale(domain=[0, length - 1]))).transform_calculate(p="p")
    wave = (alt.Chart(_frame(waves)).transform_filter("datum.d_model == d_model")
            .mark_line().encode(x=x, y=alt.Y("value:Q", title="PE(pos, column)",
                                             scale=alt.Scale(domain=[-1, 1])),
                                color=alt.Color("column:N", title="column",
                                                scale=alt.Scale(range=list(SERIES)),
                                                legend=alt.Legend(orient="bottom"))))
    sim = (alt.Chart(_frame(dots)).transform_filter("datum.d_model == d_model && datum.p == p")
           .mark_line(color=ACCENT, point=alt.OverlayMarkDef(color=ACCENT, size=16)).encode(
               x=x, y=alt.Y("similarity:Q", title="PE(p) · PE(pos) / (d_model / 2)",
                            scale=alt.Scale(domain=[-1, 1]))))
    size = dict(width=PANEL[0] - 50, height=PANEL[1])  # two panels in the page's column
    chart = alt.hconcat((wave + rule).properties(title="The first sin/cos columns", **size),
                        (sim + rule).properties(title="Similarity of p to every position",
                                                **size)).add_params(d_model, p)
    return _explorer(chart, "positional",
                     {"length": length, "columns": list(columns), "params": ["d_model", "p"]},
                     f"Two line charts: columns {', '.join(map(str, columns))} of the "
                     f"sinusoidal encoding over {length} positions, and the normalised dot "
                     "product of position p's encoding with every position's; a drop-down "
                     f"sets d_model ({', '.join(map(str, d_models))}) and a slider sets p.")


# ------------------------------------------------------------------ chapter 10: the beam
BEAM_STATES = ("kept", "dropped", "finished")


def beam_nodes(levels, step: int) -> list[dict]:
    """The nodes of a beam search tree up to ``step`` (chapter 10), as drawn by
    :func:`beam_explorer`: one dict per node with its ``level``, its row ``y`` (centred, as
    in :func:`illustrated.draw.beam_tree`), its parent's row ``parent_y``, the ``word``, the
    prefix's summed log-probability ``score`` (2 decimals) and its ``state``.

    Args:
        levels: the tree, as :func:`illustrated.draw.beam_tree` takes it: one list per step
            of nodes ``(parent, word, score, state)``.
        step: the last step to include (0 is the ``<bos>`` root).

    Returns:
        a list of dicts, level by level.
    """
    if not isinstance(levels, (list, tuple)) or not levels or not all(
            isinstance(level, (list, tuple)) and level for level in levels):
        raise ValueError(f"levels must be a non-empty list of non-empty lists of nodes, "
                         f"got {levels!r:.80}")
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step < len(levels):
        raise ValueError(f"step must be an int from 0 to {len(levels) - 1}, got {step!r}")
    rows = [[(len(level) - 1) / 2 - i for i in range(len(level))] for level in levels]
    nodes = []
    for depth, level in enumerate(levels[:step + 1]):
        for i, node in enumerate(level):
            if not (isinstance(node, (list, tuple)) and len(node) == 4
                    and node[3] in BEAM_STATES):
                raise ValueError(f"each node is (parent, word, score, state) with a state in "
                                 f"{BEAM_STATES}, got {node!r}")
            parent, word, score, state = node
            nodes.append({"level": depth, "y": rows[depth][i], "word": str(word),
                          "parent_y": None if parent is None else rows[depth - 1][parent],
                          "score": round(float(score), 2) + 0.0, "state": state})
    return nodes


def beam_explorer(levels, title: str | None = None) -> Explorer:
    """Step through a beam search: a slider adds the tree's levels one decoding step at a
    time (chapter 10).

    Args:
        levels: the tree, as :func:`illustrated.draw.beam_tree` takes it.
        title: a title in words.

    Returns:
        an :class:`Explorer`: the nodes of :func:`beam_nodes` up to the chosen step, each a
        word with its prefix's score, linked to the prefix it extends.
    """
    import altair as alt

    last = len(levels) - 1 if isinstance(levels, (list, tuple)) else 0
    nodes = beam_nodes(levels, last)
    step = alt.param(name="step", value=1 if last >= 1 else 0,
                     bind=alt.binding_range(min=0, max=last, step=1, name="step "))
    base = alt.Chart(_frame(nodes)).transform_filter("datum.level <= step")
    x = alt.X("level:Q", axis=None, scale=alt.Scale(domain=[-0.4, last + 0.4]))
    half = (max(len(level) for level in levels) - 1) / 2 + 0.5
    y = alt.Y("y:Q", axis=None, scale=alt.Scale(domain=[-half, half]))
    links = base.transform_filter("isValid(datum.parent_y)").mark_rule(color=MUTED).encode(
        x=alt.X("parent_x:Q", scale=alt.Scale(domain=[-0.4, last + 0.4]), axis=None),
        x2="level:Q", y=alt.Y("parent_y:Q", axis=None, scale=alt.Scale(domain=[-half, half])),
        y2="y:Q").transform_calculate(
        parent_x="datum.level - 1 + 0.3")
    color = alt.Color("state:N", title=None,
                      legend=alt.Legend(orient="bottom", symbolType="square"),
                      scale=alt.Scale(domain=list(BEAM_STATES), range=[KEY, MUTED, INK]))
    box = "M-1.8,-0.85H1.8V0.85H-1.8Z"  # about 70 by 33 pixels at size 1500
    boxes = base.mark_point(shape=box, size=1500, filled=True, opacity=1).encode(
        x=x, y=y, color=color)
    words = base.mark_text(color="white", fontSize=11, dy=-6).encode(x=x, y=y, text="word:N")
    scores = base.mark_text(color="white", fontSize=10, dy=7).encode(
        x=x, y=y, text=alt.Text("score:Q", format=".2f"))
    height = 60 * max(len(level) for level in levels)
    chart = (links + boxes + words + scores).add_params(step).properties(
        width=80 * (last + 1), height=height, title=title or "Beam search, step by step"
    ).configure_view(stroke=None)
    rounded = [[[parent, word, round(float(score), 2) + 0.0, state]  # as shown, on any CPU
                for parent, word, score, state in level] for level in levels]
    return _explorer(chart, "beam", {"levels": rounded, "param": "step"},
                     f"A tree of beam search hypotheses over {last} decoding steps, each a "
                     "word with its prefix's summed log-probability, coloured kept, dropped "
                     "or finished; a slider adds one step at a time.")
