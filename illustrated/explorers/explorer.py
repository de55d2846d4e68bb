"""What every explorer shares: the :class:`Explorer` that shows a
Vega-Lite spec in Jupyter and in the book's pages, the rounding that keeps its data equal on
every CPU, and the checks of a grid of settings."""
from __future__ import annotations

import json

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

