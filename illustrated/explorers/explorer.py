"""What every explorer shares: the :class:`Explorer` that shows a
Vega-Lite spec in Jupyter and in the book's pages, the rounding that keeps its data equal on
every CPU, the words of each edition of the book, and the checks of a grid of settings.

The explorer modules import the helpers below :func:`in_every_edition` (``make_explorer``,
``data_frame``, ``label_expr``, ``text_expr``, ``edition_list``, ``rounded``,
``check_grid``); they are not part of the explorers' API (``illustrated.explorers.__all__``).
"""
from __future__ import annotations

import functools
import json
import string

from ..draw.words import carried_editions, in_edition, tr

#: Decimals kept in an explorer's data, so that what nbval compares is equal on every CPU.
DIGITS = 3
#: The Vega-Lite MIME type JupyterLab 4 draws, with Vega-Lite 5 (5.6.1 in JupyterLab 4.6).
JUPYTERLAB_MIME = "application/vnd.vegalite.v5+json"
#: The schema the spec under that MIME type names: JupyterLab's Vega-Lite 5 draws the
#: explorers' specs as they are (the lab tests open them), and a spec naming v6 made it warn.
JUPYTERLAB_SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"
#: Text sizes close to the page's (Vega-Lite's defaults are 10 and 11 pixels).
FONTS = {"axis": {"labelFontSize": 12, "titleFontSize": 12},
         "legend": {"labelFontSize": 12, "titleFontSize": 12},
         "title": {"fontSize": 14, "anchor": "start", "offset": 8}}
#: Width and height of one panel, in pixels.
PANEL = (300, 200)
#: What a reader without JavaScript sees in place of the explorer, followed by its alt text
#: (no figure of the page need show what the explorer shows).
NOTE = "An interactive explorer is drawn here when the page runs JavaScript. It shows: "


class Explorer:
    """A Vega-Lite chart with its controls, shown by Jupyter and by the book's pages.

    Its words are the edition's that was current when it was made (``illustrated.draw.words``);
    ``editions`` holds the same explorer in the words of the book's other editions (the
    explorer functions fill it, ``in_every_edition``), which its Jupyter output carries
    in its metadata for the Chinese build (scripts/explorer_editions.py).

    Args:
        spec: the Vega-Lite spec (a dict, as ``altair.Chart.to_dict()`` gives).
        alt_text: one sentence saying what the explorer shows and which control moves it.
    """

    def __init__(self, spec: dict, alt_text: str):
        if not isinstance(spec, dict) or "datasets" not in spec:
            raise TypeError("spec must be a Vega-Lite dict with its data in 'datasets', got "
                            f"{type(spec).__name__}")
        self.spec, self.alt_text = spec, str(alt_text)
        self.note = tr(NOTE) + self.alt_text
        self.editions: dict[str, Explorer] = {}

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
        note = self.note.replace("&", "&amp;").replace("<", "&lt;")
        return (f'<div class="vl-explorer" data-explorer="{kind}" role="figure" '
                f'aria-label="{label}">'
                f'<script type="application/json">{self.to_json()}</script>'
                f'<p class="vl-explorer-note">{note}</p></div>')

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The outputs, and in the metadata of ``text/html`` the HTML of every other edition
        by its language (``{"zh_CN": "<div ..."}``): nbval compares no metadata.

        The book's pages show the HTML, which ``_static/explorers.js`` draws with Vega-Lite 6;
        JupyterLab draws the spec under ``JUPYTERLAB_MIME`` with its own Vega-Lite 5, which
        the book's lab extension ranks before the HTML (labextension/static/plugin.mjs)."""
        bundle = {"text/html": self.to_html(),
                  JUPYTERLAB_MIME: {**self.spec, "$schema": JUPYTERLAB_SCHEMA},
                  "text/plain": f"Explorer: {self.alt_text}"}
        if not self.editions:
            return bundle
        return bundle, {"text/html": {language: explorer.to_html()
                                      for language, explorer in self.editions.items()}}


def in_every_edition(build):
    """Make ``build`` (an explorer function) return its explorer with the same explorer in
    the words of every other edition the outputs carry (``carried_editions()``: none for a
    reader running a chapter, Chinese when the book executes its chapters) in ``editions``.

    Each edition's explorer is built again by the same call inside ``in_edition``: the
    computation is deterministic and cheap (well under a second), and building again keeps
    every word where the chart is made (a template and its numbers, an expression and its
    text) instead of a second walk over the finished spec. ``tests/test_explorers.py``
    checks that the editions hold the same data.
    """
    @functools.wraps(build)
    def build_all(*args, **kwargs) -> Explorer:
        explorer = build(*args, **kwargs)
        for language in carried_editions()[1:]:  # none unless the book is executing
            with in_edition(language):
                explorer.editions[language] = build(*args, **kwargs)
        return explorer
    return build_all


def _quote(text: str) -> str:
    """``text`` as a string literal of a Vega expression."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def text_expr(template: str, exprs: dict[str, str], **values) -> str:
    """A title that changes with the controls: the edition's words of ``template``, its
    ``values`` filled in, each field of ``exprs`` a Vega expression (e.g. ``{"tau":
    "format(pow(10, log10_tau), '.3~g')"}``). Returns the Vega expression."""
    text = tr(template).format(**values, **{name: "{" + name + "}" for name in exprs})
    parts = []
    for literal, field, _, _ in string.Formatter().parse(text):
        parts += [_quote(literal)] if literal else []
        parts += [exprs[field]] if field is not None else []
    return " + ".join(parts)


def label_expr(values) -> dict:
    """Labels of a legend or axis in the edition's words for data values kept in English
    (every edition holds the same data): ``{"labelExpr": ...}``, or nothing where no label
    changes (the English spec stays as it was)."""
    expr = "datum.label"
    for value in reversed([v for v in values if tr(v) != v]):
        expr = f"datum.label == {_quote(value)} ? {_quote(tr(value))} : {expr}"
    return {} if expr == "datum.label" else {"labelExpr": expr}


def edition_list(items) -> str:
    """Items as a list in the edition's words ("a, b, c"; in Chinese "a、b、c")."""
    return tr(", ").join(str(item) for item in items)


def rounded(x: float) -> float:
    """``x`` rounded to ``DIGITS`` decimals, as an explorer's data keeps it."""
    value = round(float(x), DIGITS)
    return 0.0 if value == 0 else value  # no "-0.0"


def make_explorer(chart, kind: str, inputs: dict, alt_text: str) -> Explorer:
    """The spec of ``chart`` with its inputs recorded, sizes and fonts set."""
    spec = chart.to_dict()
    spec["config"] = {**spec.get("config", {}), **FONTS}
    spec["usermeta"] = {"explorer": {"kind": kind, **inputs}}
    return Explorer(spec, alt_text)


def data_frame(rows: list[dict]):
    """The rows as a DataFrame: altair stores it once, under a name made from its content."""
    import pandas as pd

    return pd.DataFrame(rows)


def check_grid(values, name: str, positive=True) -> list[float]:
    """``values``, the settings an explorer computes, as a list of distinct floats (positive
    unless ``positive`` is False); TypeError or ValueError naming ``name`` otherwise."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a list of numbers, got {type(values).__name__}")
    values = [float(v) for v in values]
    if not values or len(set(values)) != len(values):
        raise ValueError(f"{name} must hold distinct numbers, got {values}")
    if positive and min(values) <= 0:
        raise ValueError(f"{name} must be positive, got {values}")
    return values

