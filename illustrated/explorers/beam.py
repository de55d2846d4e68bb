"""The beam-tree explorer (chapter 10, From vectors to words: decoding): a beam search's
tree, one decoding step at a time."""
from __future__ import annotations

from ..draw.palette import INK, KEY, MUTED
from ..draw.words import tr
from .explorer import Explorer, data_frame, in_every_edition, label_expr, make_explorer

BEAM_STATES = ("kept", "dropped", "finished")


def _title(title: str | None, fields: dict | None) -> str:
    """The title in the edition's words, its fields filled in."""
    text = tr(title or "Beam search, step by step")
    return text.format(**fields) if fields else text


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


@in_every_edition
def beam_explorer(levels, title: str | None = None, title_fields: dict | None = None
                  ) -> Explorer:
    """Step through a beam search: a slider adds the tree's levels one decoding step at a
    time (chapter 10).

    Args:
        levels: the tree, as :func:`illustrated.draw.beam_tree` takes it.
        title: a title in words, a template whose ``{fields}`` ``title_fields`` fills in
            after it is put in the edition's words (``illustrated/draw/locale``), e.g.
            ``"Beam search on “{sentence}”"`` with ``{"sentence": sentence}``.
        title_fields: the values of the title's fields.

    Returns:
        an :class:`.Explorer`: the nodes of :func:`beam_nodes` up to the chosen step, each a
        word with its prefix's score, linked to the prefix it extends.
    """
    import altair as alt

    last = len(levels) - 1 if isinstance(levels, (list, tuple)) else 0
    nodes = beam_nodes(levels, last)
    step = alt.param(name="step", value=1 if last >= 1 else 0,
                     bind=alt.binding_range(min=0, max=last, step=1, name=tr("step") + " "))
    base = alt.Chart(data_frame(nodes)).transform_filter("datum.level <= step")
    x = alt.X("level:Q", axis=None, scale=alt.Scale(domain=[-0.4, last + 0.4]))
    half = (max(len(level) for level in levels) - 1) / 2 + 0.5
    y = alt.Y("y:Q", axis=None, scale=alt.Scale(domain=[-half, half]))
    links = base.transform_filter("isValid(datum.parent_y)").mark_rule(color=MUTED).encode(
        x=alt.X("parent_x:Q", scale=alt.Scale(domain=[-0.4, last + 0.4]), axis=None),
        x2="level:Q", y=alt.Y("parent_y:Q", axis=None, scale=alt.Scale(domain=[-half, half])),
        y2="y:Q").transform_calculate(
        parent_x="datum.level - 1 + 0.3")
    color = alt.Color("state:N", title=None,
                      legend=alt.Legend(orient="bottom", symbolType="square",
                                        **label_expr(BEAM_STATES)),
                      scale=alt.Scale(domain=list(BEAM_STATES), range=[KEY, MUTED, INK]))
    box = "M-1.8,-0.85H1.8V0.85H-1.8Z"  # about 70 by 33 pixels at size 1500
    boxes = base.mark_point(shape=box, size=1500, filled=True, opacity=1).encode(
        x=x, y=y, color=color)
    words = base.mark_text(color="white", fontSize=11, dy=-6).encode(x=x, y=y, text="word:N")
    scores = base.mark_text(color="white", fontSize=10, dy=7).encode(
        x=x, y=y, text=alt.Text("score:Q", format=".2f"))
    height = 60 * max(len(level) for level in levels)
    chart = (links + boxes + words + scores).add_params(step).properties(
        width=80 * (last + 1), height=height, title=_title(title, title_fields)
    ).configure_view(stroke=None)
    rounded = [[[parent, word, round(float(score), 2) + 0.0, state]  # as shown, on any CPU
                for parent, word, score, state in level] for level in levels]
    return make_explorer(chart, "beam", {"levels": rounded, "param": "step"}, tr(
        "A tree of beam search hypotheses over {last} decoding steps, each a word with its "
        "prefix's summed log-probability, coloured kept, dropped or finished; a slider adds "
        "one step at a time.").format(last=last))
