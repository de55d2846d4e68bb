"""What every figure of :mod:`illustrated.draw` shares (introduced in chapter 1, The black box).

The figure Jupyter can show without pyplot (made by :func:`new_figure` or :func:`new_axes`),
input checks, the bundled CJK font, number formatting, alt sentences, the coloured boxes of
tensors and tables, and the two editions: every public function is decorated with
:func:`with_editions`, so that a figure shown in a notebook also carries its Chinese
rendering (same call, same numbers, words through :func:`illustrated.draw.words.tr`).

The figure modules import these names; they are not part of the drawing API
(``illustrated.draw.__all__``).
"""
from __future__ import annotations

import base64
import functools
import io
import re
from pathlib import Path

import matplotlib
import numpy as np
import torch
from matplotlib.collections import PolyCollection
from matplotlib.colors import Normalize, to_rgb
from matplotlib.font_manager import weight_dict
from matplotlib.patheffects import withStroke
from matplotlib.figure import Figure
from matplotlib.text import Text

from ..checks import check_tensor
from .palette import INK
from .words import BookWord, carried_editions, edition, in_edition, tr

_FONT_FILE = Path(__file__).parent / "fonts" / "wqy-microhei-subset.ttf"
_CJK = re.compile("[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")
CELL_INCHES = 0.5  # the side of one box in inches, when there is room
#: The bundled CJK font has one weight; a bold CJK text is drawn with an outline of its
#: own colour this wide (a share of its size in points), as bold as DejaVu Sans Bold.
BOLD_STROKE = 0.06


class _Figure(Figure):
    """A plain ``Figure`` that Jupyter can show by itself.

    IPython draws a bare ``Figure`` only once pyplot has set up its inline backend (e.g.
    ``%matplotlib inline``); until then the cell would print "<Figure size ...>". The
    inline backend's own printer, when active, takes precedence over this method, so a
    figure is never shown twice.

    Other modules make one with :func:`new_figure`. The class keeps its name, since the
    notebooks' text outputs show it ("<_Figure size 650x400 with 1 Axes>").
    """

    #: What the figure shows, in words, for readers who cannot see it (set by
    #: :func:`finish_figure`).
    alt_text: str | None = None
    #: The call that drew the figure, to draw it again in the other edition (set by
    #: :func:`with_editions`); None for a figure drawn into by hand.
    recipe = None

    def _png(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue()

    def _repr_png_(self):
        """The PNG, and with it as the output's metadata the alt text (``"alt"``) and the
        Chinese rendering (``"zh_CN": {"png": <base64>, "alt": ...}``), which the notebook
        keeps next to the image and the Chinese pages show (scripts/site_extras.py)."""
        png, metadata = self._png(), {}
        if self.alt_text is not None:
            metadata["alt"] = self.alt_text
        if self.recipe is not None and edition() == "en":
            for language in carried_editions()[1:]:  # ("en",) unless the book is executing
                metadata[language] = self.drawn_in(language)
        return (png, metadata) if metadata else png

    def drawn_in(self, language: str) -> dict:
        """This figure drawn again in ``language``: ``{"png": <base64 PNG>, "alt": ...}``,
        plus ``"untranslated"``, the figure words the catalogue lacked (empty when all were
        translated). Raises ValueError for a figure without a recipe (drawn by hand)."""
        if self.recipe is None:
            raise ValueError("this figure was not drawn by one illustrated.draw call, so it "
                             "cannot be drawn again in another edition")
        with in_edition(language) as missed:
            other = self.recipe()
            png = other._png()
        return {"png": base64.b64encode(png).decode("ascii"), "alt": other.alt_text or "",
                "untranslated": missed}


def new_figure(figsize=None, layout=None) -> Figure:
    """A new empty figure that Jupyter can show by itself (``figsize`` in inches, ``layout``
    as matplotlib's, e.g. ``"constrained"``)."""
    return _Figure(figsize=figsize, layout=layout)


def with_editions(draw):
    """Decorate a public draw function: the figure it returns remembers the call (its
    ``recipe``), so that it can be drawn again in the Chinese edition from the same inputs.

    A figure drawn into a caller's ``ax=`` belongs to the caller, who may draw more into
    it: it gets no recipe (it shows English only), and if it had one, that is dropped,
    since a rendering from the recipe would miss what was drawn into it since.
    """
    @functools.wraps(draw)
    def drawn(*args, **kwargs):
        fig = draw(*args, **kwargs)
        if isinstance(fig, _Figure):
            if kwargs.get("ax") is None:
                fig.recipe = functools.partial(draw, *args, **kwargs)
            else:
                fig.recipe = None
        return fig
    return drawn


def edition_words(*texts):
    """Words a caller gave (a title, axis labels) in the edition; None stays None."""
    return [None if text is None else tr(str(text)) for text in texts]


def edition_labels(labels):
    """Tick labels in the edition: the book's words (:class:`~.words.BookWord`, made by
    ``book_words``) are translated, and reported if the catalogue lacks them; every other
    label is data (a token, a number) and stays as it is, never looked up."""
    if labels is None or edition() == "en":
        return labels
    return [tr(label) if isinstance(label, BookWord) else label for label in labels]


def float_tensor(x, name: str) -> torch.Tensor:
    """``x`` as a detached floating-point CPU tensor (float tensors keep their dtype)."""
    if isinstance(x, (list, tuple, np.ndarray)):
        try:
            x = torch.as_tensor(np.asarray(x, dtype=np.float64))
        except (TypeError, ValueError) as err:
            raise TypeError(f"{name} must be numbers (a tensor, list or array): {err}") from None
    check_tensor(x, name)
    x = x.detach().cpu()
    return x if x.is_floating_point() else x.to(torch.float64)


def check_labels(labels, n: int, name: str, what: str):
    """``labels`` as a list of ``n`` strings, or None."""
    if labels is None:
        return None
    if isinstance(labels, str):
        raise TypeError(f"{name} must be a list of strings, got the single string {labels!r}")
    labels = [label if isinstance(label, str) else str(label) for label in labels]
    if len(labels) != n:
        raise ValueError(f"{name} has {len(labels)} labels but there are {n} {what}")
    return labels


def finish_figure(fig: Figure, alt: str | None = None) -> Figure:
    """Give every text with CJK characters the bundled font, keeping its size and weight,
    and record ``alt``, a sentence saying what the figure shows (which tensor, what its
    axes are), as the figure's ``alt_text``.

    Set per text (``FontProperties`` with a file), never through rcParams: DejaVu Sans,
    matplotlib's default, has no CJK glyphs and would warn "Glyph ... missing".
    """
    for text in fig.findobj(Text):
        if _CJK.search(text.get_text()):
            props = text.get_fontproperties().copy()  # keeps size, weight and style
            props.set_file(str(_FONT_FILE))
            text.set_fontproperties(props)
            if _is_bold(props):  # the font has no bold face: thicken the strokes
                width = BOLD_STROKE * props.get_size_in_points()
                text.set_path_effects([withStroke(linewidth=width,
                                                  foreground=text.get_color())])
    if alt is not None:
        fig.alt_text = str(alt) if edition() == "en" else _spaced(str(alt))
    return fig


def _is_bold(props) -> bool:
    weight = props.get_weight()  # a number or a name ("bold": 700)
    return weight_dict.get(weight, weight) >= 600


def _spaced(text: str) -> str:
    """A space between a Chinese character and a Latin letter, digit or half-width mark next
    to it ("头 1 位于", not "头 1位于"; the tokens "." and "," in "mine、, 和 ."; "LayerNorm(x)
    和", "2.04 % 和"), as Chinese text set with Latin words is written; the templates cannot
    know which of their fields will start or end with a letter."""
    latin = r"[A-Za-z0-9$<>÷√.,;:!?()\[\]%]"
    text = re.sub(rf"([\u4e00-\u9fff])({latin})", r"\1 \2", text)
    return re.sub(rf"({latin})([\u4e00-\u9fff])", r"\1 \2", text)


def listed(labels, limit: int = 8) -> str:
    """Labels for an alt text: "a, b and c", the first ``limit`` then "and N more"
    (in Chinese "a、b 和 c")."""
    labels, comma = [str(label) for label in labels], tr(", ")
    if len(labels) > limit:
        return tr("{items} and {n} more").format(items=comma.join(labels[:limit]),
                                                 n=len(labels) - limit)
    if len(labels) == 1:
        return labels[0]
    return tr("{items} and {last}").format(items=comma.join(labels[:-1]), last=labels[-1])


def alt_sentence(what: str, title=None, *details) -> str:
    """An alt sentence: ``what``, its title in quotes if any, then the non-empty details,
    e.g. 'Heat map "Weights" of a 4 × 4 tensor; rows: queries 人, 工, 智 and 能.'
    ``what``, ``title`` and ``details`` come in the edition's words already."""
    text = what
    if title:
        title = " ".join(str(title).split())
        if edition() != "en":  # quotes inside the quoted title: ‘’ inside “”
            title = title.replace("“", "‘").replace("”", "’")
        text = tr("{what} titled “{title}”").format(what=what, title=title)
    parts, semicolon = [d for d in details if d], tr("; ")
    return text + (semicolon + semicolon.join(parts) if parts else "") + tr(".")


def new_axes(figsize, ax=None):
    """A new constrained-layout figure with one axes, or ``ax`` and its figure."""
    if ax is not None:
        return ax.figure, ax
    fig = new_figure(figsize, layout="constrained")
    return fig, fig.add_subplot()


def as_math(name: str) -> str:
    """Wrap a symbol such as ``W^Q`` or ``d_k`` in mathtext so it prints as maths."""
    return f"${name}$" if ("^" in name or "_" in name) and "$" not in name else name


def axes_inches(ax) -> tuple[float, float]:
    """The size of ``ax`` in inches, as far as it is known before drawing."""
    return ax.bbox.width / ax.figure.dpi, ax.bbox.height / ax.figure.dpi


def ink_on(rgba) -> str:
    """White text on dark colours, ink on light ones."""
    r, g, b = to_rgb(rgba)
    return "white" if 0.299 * r + 0.587 * g + 0.114 * b < 0.5 else INK


def format_value(fmt: str, value: float) -> str:
    """``fmt.format(value)`` without a minus sign on zero ("-0.00" reads as a bug)."""
    text = fmt.format(value)
    return text[1:] if text.startswith("-") and text[1:].strip("0.") == "" else text


def value_fontsize(cell_inches: float, texts) -> float:
    """The font size (points) at which the longest text fits a cell; 0 (print nothing)
    if there are no texts or they would need less than 5 pt."""
    if not texts:
        return 0.0
    chars = max(len(t) for t in texts)
    size = min(9.0, 0.85 * cell_inches * 72 / (0.6 * max(chars, 3)))
    return size if size >= 5 else 0.0


def colour_scale(values: torch.Tensor, vmin, vmax) -> Normalize:
    """A colour scale symmetric around 0 unless the caller fixes an end."""
    if vmin is None and vmax is None:
        top = float(values.abs().max()) if values.numel() else 1.0
        top = top if top > 0 else 1.0
        return Normalize(-top, top)
    lo = float(values.min()) if vmin is None else vmin
    hi = float(values.max()) if vmax is None else vmax
    return Normalize(lo, hi)


def draw_cells(ax, values, x0=0.0, y0=0.0, *, cmap, norm, fmt, fontsize, gap=(0.1, 0.1),
               gid=None):
    """Boxes for a 2-D array: cell (i, j) fills [x0+j, x0+j+1] x [y0+i, y0+i+1] less a gap.

    The y axis points down (row 0 on top). Values are printed when ``fontsize`` > 0.
    """
    rows, cols = values.shape
    gx, gy = gap
    i, j = np.divmod(np.arange(rows * cols), cols)  # row and column of every box
    left, top = x0 + j + gx / 2, y0 + i + gy / 2
    right, bottom = left + 1 - gx, top + 1 - gy
    corners = np.stack([np.stack(c, axis=-1) for c in
                        ((left, top), (right, top), (right, bottom), (left, bottom))], axis=1)
    colours = matplotlib.colormaps.get_cmap(cmap)(norm(values.ravel()))
    # One polygon per box, all in one collection (fast even for 20 x 512 boxes). Boxes that
    # touch (no gap) are drawn without antialiasing, or hairline seams show between them.
    ax.add_collection(PolyCollection(corners, facecolors=colours, edgecolors="none", gid=gid,
                                     antialiased=gx > 0))
    if fontsize:
        for k, (i, j) in enumerate(np.ndindex(rows, cols)):
            ax.text(x0 + j + 0.5, y0 + i + 0.5, format_value(fmt, values[i, j]), ha="center",
                    va="center", fontsize=fontsize, color=ink_on(colours[k]), gid=gid)


def clean_axes(ax) -> None:
    """No spines, no tick marks: the boxes speak for themselves."""
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.tick_params(length=0, labelsize=10, labelcolor=INK)
