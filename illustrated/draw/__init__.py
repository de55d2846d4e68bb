"""Figures computed from tensors; used in every chapter (started in chapter 1, The black box).

Every function takes tensors (lists and NumPy arrays work too), checks their shapes and
returns a :class:`matplotlib.figure.Figure`. Figures are made with ``Figure(...)``, not
``pyplot``: nothing enters pyplot's registry, so Jupyter shows each figure once (as the
cell's value, with or without ``%matplotlib inline``), and importing this module neither
imports pyplot nor changes matplotlib's settings. Pass ``ax=`` (where offered) to draw
into an axes of your own; the function then returns ``ax.figure``.

All colours come from the palette constants of :mod:`illustrated.draw.palette`,
re-exported here (``draw.QUERY``). Texts containing Chinese characters
(chapter 3 labels rows with 人, 工, 智, 能) are drawn, text by text, with a small subset of
WenQuanYi Micro Hei shipped in ``illustrated/draw/fonts/``; ``scripts/subset_font.py`` adds
characters to it.

Two editions from one call: every word a figure draws (titles, axis labels, legends, alt
text, and the words a caller passes in) goes through ``illustrated.draw.words.tr``, and a
figure shown in a notebook also stores its Chinese rendering, drawn again from the same call
inside ``in_edition("zh_CN")``, in the output's metadata
(``{"zh_CN": {"png", "alt", "untranslated"}}``); the Chinese pages show it. Labels a caller
passes are data (tokens, numbers), drawn as they are, unless marked as the book's words with
``book_words``. Tables work the same way (``table``). New figure and table words go into
``illustrated/draw/locale/zh_CN/draw.po``; a figure drawn into a caller's ``ax=`` has English
only.

One module per kind of figure; import the functions from here
(``from illustrated import draw``, or ``from illustrated.draw import attention_heatmap``):

==================  ==============================================================
module              figures
==================  ==============================================================
``tensors``         ``tensor_cells``, ``matmul_figure``, ``self_attention_table``
``blocks``          ``multi_head_figure``, ``add_norm_figure``, ``decoder_only_figure``
``heatmaps``        ``attention_heatmap``, ``attention_heads``
``plots``           ``histograms``, ``bar_values``, ``line_plot``, ``interval_plot``
``diagrams``        ``black_box``, ``stack_diagram``, ``beam_tree``, ``position_flow``
                    (and the names of ``PARTS``)
``encodings``       ``encoding_heatmap``, ``encoding_waves``
``tables``          ``table``: a pandas table in the edition's words
``palette``         the colour constants
``words``           ``book_words``: labels that are the book's words (translated), not data
``figure``          no figures: what the modules above share (the figure Jupyter
                    shows, input checks, alt sentences, the two editions)
``shapes``          no figures: the boxes and arrows the diagrams are drawn with,
                    and one layer seen inside
==================  ==============================================================
"""
from .blocks import add_norm_figure, decoder_only_figure, multi_head_figure
from .diagrams import PARTS, beam_tree, black_box, position_flow, stack_diagram
from .encodings import encoding_heatmap, encoding_waves
from .heatmaps import attention_heads, attention_heatmap
from .palette import (ACCENT, ACCENT_LIGHT, ADD_NORM, ATTENTION, DECODER, DIVERGING, EMBEDDING,
                      ENCODER, FEED_FORWARD, INK, KEY, MUTED, OUTPUT, PAPER, POSITIONAL, QUERY,
                      SEQUENTIAL, SERIES, VALUE)
from .plots import bar_values, histograms, interval_plot, line_plot
from .tables import table
from .tensors import matmul_figure, self_attention_table, tensor_cells
from .words import book_words

# In the order of the former single module, which the API page follows (bysource).
__all__ = [
    # the palette
    "INK", "MUTED", "PAPER", "ACCENT", "ACCENT_LIGHT", "ENCODER", "DECODER", "ATTENTION",
    "FEED_FORWARD", "ADD_NORM", "POSITIONAL", "EMBEDDING", "QUERY", "KEY", "VALUE", "OUTPUT",
    "SERIES", "DIVERGING", "SEQUENTIAL",
    # what stack_diagram can highlight
    "PARTS",
    # tensors
    "tensor_cells", "matmul_figure", "self_attention_table", "add_norm_figure",
    "multi_head_figure",
    # heat maps
    "attention_heatmap", "attention_heads",
    # plots
    "histograms", "bar_values", "line_plot", "interval_plot",
    # diagrams
    "black_box", "stack_diagram", "beam_tree", "position_flow", "decoder_only_figure",
    # position tables
    "encoding_heatmap", "encoding_waves",
    # the book's words among a figure's labels, and tables in the edition's words
    "book_words", "table",
]
