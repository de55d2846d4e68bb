"""Tables in the edition's words: a pandas ``DataFrame`` shown the way figures are (every
chapter shows its measurements as tables; the first in chapter 1, The black box).

A notebook ends a cell with ``draw.table(frame)`` instead of ``frame``. The English output is
exactly pandas' own (``text/html`` and ``text/plain``); when the book executes its chapters
(``$ILLUSTRATED_EDITIONS``, see :func:`~illustrated.draw.words.carried_editions`) the output
also carries the same table in the words of the other editions, in the metadata of
``text/html`` (``{"zh_CN": "<table ..."}``), which the Chinese pages show
(scripts/explorer_editions.py). Only the book's words are translated, through
:func:`~illustrated.draw.words.tr`; the numbers and the data stay as computed:

- the column labels and the names of the two axes are the book's words;
- the row labels are the book's words ("greedy", "beam") unless ``rows="data"`` (tokens,
  sentences, numbers: ``"I"``, ``"."`` and ``"je suis étudiant"`` are shown as they are);
- the cells are data, except in the columns named in ``cells`` ("yes", "kept").

A label without a letter (``0``, ``"1-5"``, ``"-inf"``) is never looked up.
"""
from __future__ import annotations

import re

from .words import carried_editions, edition, in_edition, tr

_LETTER = re.compile(r"[^\W\d_]")


class _Table:
    """A ``DataFrame`` that Jupyter shows with its renderings in every carried edition.

    ``frame`` is the English table itself; :meth:`in_edition` gives the table in another
    edition's words. Made by :func:`table`.
    """

    def __init__(self, frame: "pandas.DataFrame", rows: str, cells: tuple):
        self.frame, self.rows, self.cells = frame, rows, cells

    def __repr__(self) -> str:
        return repr(self.frame)

    def _repr_html_(self):
        """pandas' HTML and, while the book executes its chapters, the metadata
        ``{"zh_CN": <the table's HTML in Chinese>}`` (nbval compares no metadata)."""
        html = self.frame._repr_html_()
        others = carried_editions()[1:] if edition() == "en" else ()
        if not others:
            return html
        return html, {language: self.in_edition(language)._repr_html_() for language in others}

    def in_edition(self, language: str):
        """The table with the book's words in ``language`` (one of ``EDITIONS``)."""
        with in_edition(language):
            frame = self.frame.copy()
            for column in self.cells:
                frame[column] = frame[column].map(_word)
            frame.columns = _words(frame.columns)
            if self.rows == "words":
                frame.index = _words(frame.index)
            else:
                frame.index = frame.index.set_names([_word(n) for n in frame.index.names])
        return frame


def table(frame, *, rows: str = "words", cells=()):
    """``frame`` (a ``DataFrame`` or ``Series``) to show as a table in the edition's words.

    Args:
        frame: the table, as computed; a ``Series`` is shown as a one-column table.
        rows: ``"words"`` if the row labels are the book's words (translated), ``"data"``
            if they are data (tokens, sentences, numbers: shown as they are).
        cells: the columns whose cells are the book's words (translated); every other
            cell is data.

    Returns:
        a ``_Table``; its ``frame`` is ``frame``.
    """
    import pandas as pd  # an extra of the package ("pages"): only where a table is shown

    if isinstance(frame, pd.Series):
        frame = frame.to_frame()
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"table() shows a pandas DataFrame or Series, got "
                        f"{type(frame).__name__}")
    if rows not in ("words", "data"):
        raise ValueError(f'rows must be "words" (row labels are the book\'s words) or "data" '
                         f"(tokens, sentences, numbers), got {rows!r}")
    if isinstance(cells, str):
        raise TypeError(f"cells names columns: a list such as [{cells!r}], got the single "
                        f"string {cells!r}")
    unknown = [c for c in cells if c not in frame.columns]
    if unknown:
        raise ValueError(f"cells names columns the table does not have: {unknown}; its "
                         f"columns are {list(frame.columns)}")
    return _Table(frame, rows, tuple(cells))


def _word(label):
    """``label`` in the current edition if it is a text with a letter, else as it is."""
    if isinstance(label, str) and _LETTER.search(label):
        return tr(label)
    return label


def _words(index):
    """Every label of ``index`` (a pandas ``Index``; every level of a ``MultiIndex``) and its
    names, in the edition."""
    import pandas as pd

    names = [_word(name) for name in index.names]
    if isinstance(index, pd.MultiIndex):
        levels = [level.map(_word) for level in index.levels]
        return index.set_levels(levels).set_names(names)
    return index.map(_word).set_names(names)
