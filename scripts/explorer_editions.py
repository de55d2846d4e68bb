"""The explorers and tables in the words of the edition being built (a local Sphinx
extension, see _config.yml).

An explorer's Jupyter output (``illustrated.explorers.Explorer``), and a table's
(``illustrated.draw.table``), holds its English HTML in ``text/html`` and the same explorer
or table in the words of the book's other editions in that output's metadata, by language:
``metadata["text/html"] = {"zh_CN": "<div ..."}``, made by the same call on the same data. The Chinese build (``language: zh_CN``) renders that HTML in
place of the English; every other build, and every other output, renders as MyST-NB does.
"""
from __future__ import annotations

from myst_nb.core.render import MimeData, NbElementRenderer

_RENDER_TEXT_HTML = NbElementRenderer.render_text_html


def edition_html(data: MimeData, language: str | None) -> str | None:
    """The HTML of this output in ``language``'s words, or None if it has none."""
    editions = data.output_metadata.get("text/html")
    if not language or not isinstance(editions, dict):
        return None
    html = editions.get(language)
    return html if isinstance(html, str) else None


def _render_text_html(self: NbElementRenderer, data: MimeData):
    """MyST-NB's ``render_text_html``, with the edition's HTML where the output has it."""
    env = self.renderer.sphinx_env
    html = edition_html(data, env.config.language if env is not None else None)
    if html is not None:
        data = MimeData(data.mime_type, html, cell_metadata=data.cell_metadata,
                        output_metadata=data.output_metadata, cell_index=data.cell_index,
                        output_index=data.output_index, line=data.line)
    return _RENDER_TEXT_HTML(self, data)


def setup(app):
    # One method of MyST-NB's renderer class, replaced once per process; it looks at the
    # language of the build it renders for, so an English build is unchanged.
    NbElementRenderer.render_text_html = _render_text_html
    return {"parallel_read_safe": True, "parallel_write_safe": True}
