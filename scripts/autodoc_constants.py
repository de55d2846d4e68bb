"""Sphinx extension: a module constant documented with ``autodata`` shows its value only.

A constant such as ``illustrated.draw.INK = "#2E3440"`` has no docstring of its own, so
autodoc falls back on its type's: the API page would print the help text of ``str``
under every colour. This drops a data docstring that is just its type's docstring.
A constant that is a path inside the repository (``illustrated.shipped.PROBE``) shows
it from the repository's root, not from wherever the book was built: the page would print
``PosixPath('/home/someone/clone/chapters/...')``. Loaded by _config.yml
(``sphinx.local_extensions``).
"""
from pathlib import Path, PurePath

from sphinx.ext.autodoc import DataDocumenter

ROOT = Path(__file__).resolve().parent.parent  # the repository


class _RepositoryPaths(DataDocumenter):
    """autodata, with a path under the repository shown relative to its root."""

    def add_directive_header(self, sig: str) -> None:
        value = self.object
        if isinstance(value, PurePath) and value.is_relative_to(ROOT):
            self.object = type(value)(value.relative_to(ROOT))
        try:
            super().add_directive_header(sig)
        finally:
            self.object = value


def _drop_type_docstring(app, what, name, obj, options, lines):
    doc = type(obj).__doc__
    if what == "data" and doc and "\n".join(lines).strip() == _prepared(doc):
        lines.clear()


def _prepared(doc: str) -> str:
    from sphinx.util.docstrings import prepare_docstring

    return "\n".join(prepare_docstring(doc)).strip()


def setup(app):
    app.setup_extension("sphinx.ext.autodoc")
    app.add_autodocumenter(_RepositoryPaths, override=True)
    # Before napoleon (default priority 500) rewrites the lines.
    app.connect("autodoc-process-docstring", _drop_type_docstring, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
