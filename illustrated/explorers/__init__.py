"""Explorers: interactive charts of the book's key experiments (introduced in chapter 2,
Attention as a soft lookup; also in chapters 4, 6, 7 and 10).

A static figure shows one setting; an explorer beside it lets a reader drag the setting.
Every value an explorer can show is computed here, by the package, over a grid of
settings and rounded to ``DIGITS`` decimals (the same digits on every CPU); the page only
picks the rows of the setting the reader chose (Vega-Lite parameters bound to a slider or a
drop-down, and filter transforms). The charts are built with altair, imported when an
explorer is made, so that importing the package stays quick.

An :class:`.Explorer` shows itself in three ways:

* ``text/html``: a ``<div class="vl-explorer">`` holding the Vega-Lite spec as inert JSON and
  a one-line note for readers without JavaScript. The book's site script
  ``_static/explorers.js`` draws it with the site's own copy of vega-embed (no CDN).
* ``application/vnd.vegalite.v5+json``, which JupyterLab 4 draws itself with its Vega-Lite 5:
  the same spec, naming the v5 schema (``JUPYTERLAB_SCHEMA``). JupyterLab prefers HTML to
  it; the book's lab extension (``labextension/``, installed by ``make install``) ranks it
  first, so that ``make lab`` draws the chart where the page draws it;
* ``text/plain``: what it shows, in words.

Each spec carries its inputs and settings in ``usermeta["explorer"]``; the book's browser
check moves each control and compares what is drawn with the package's values, computed
again from those inputs (``tests/site/browser/test_explorers.py``).

One module per chapter's experiment; import the names from here
(``from illustrated import explorers``):

================  =========================================================================
module            explorers
================  =========================================================================
``attention``     ``temperature_explorer`` (chapter 2), ``scaling_explorer`` (chapter 4)
``masks``         ``mask_explorer`` (chapter 6)
``positional``    ``positional_explorer`` (chapter 7)
``beam``          ``beam_explorer`` (chapter 10)
``explorer``      the :class:`.Explorer` they return, the rounding to ``DIGITS``, and the
                  helpers the modules above share
================  =========================================================================
"""
from .explorer import DIGITS, FONTS, JUPYTERLAB_MIME, JUPYTERLAB_SCHEMA, PANEL, Explorer
from .attention import scaling_explorer, scaling_weights, temperature_explorer, temperature_weights
from .beam import BEAM_STATES, beam_explorer, beam_nodes
from .masks import MASK_CELLS, MASK_PANELS, mask_cells, mask_explorer
from .positional import position_similarity, positional_explorer

__all__ = [
    "Explorer", "DIGITS", "JUPYTERLAB_MIME", "JUPYTERLAB_SCHEMA", "FONTS", "PANEL",
    "temperature_weights", "temperature_explorer", "scaling_weights", "scaling_explorer",
    "MASK_PANELS", "MASK_CELLS", "mask_cells", "mask_explorer",
    "position_similarity", "positional_explorer",
    "BEAM_STATES", "beam_nodes", "beam_explorer",
]
