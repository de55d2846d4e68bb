"""The Chinese edition's build fails where its catalogues lag the English (a Sphinx extension).

Each page's English is cut into messages (Sphinx's ``extract_messages``, what its gettext
builder and its translating ``Locale`` transform both use); in a build of the Chinese
edition, every message of a page must have a translation in the page's catalogue
(``locales/zh_CN/LC_MESSAGES/<page>.po``) that is neither empty nor marked fuzzy. Else
the page would show that English sentence among the Chinese, and the build warns, once a
message (its page, why, its first words), which the strict build (``-W``) turns into a
failure. A catalogue of a page that no longer exists warns too. The sidebar's part
captions (_toc.yml) are messages of the first page, checked where ``editions`` translates
them. Messages that come only from the package's docstrings (the API page, autodoc) stay
English and are not checked, as ``scripts/translations.py`` leaves them out of the
catalogues.

``make translations`` (scripts/translations.py) extracts and merges the messages; this
check runs in every Chinese build, so ``make book`` and ``make test`` both catch an English
edit that was not carried over.
"""
from __future__ import annotations

from pathlib import Path

from babel.messages.pofile import read_po
from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.i18n import docname_to_domain
from sphinx.util.nodes import extract_messages

from zh_search import CJK

logger = logging.getLogger(__name__)
HINT = "run `make translations`, translate the message, remove 'fuzzy'"


def catalogue_path(app, docname: str) -> Path:
    """The page's catalogue: <locale_dir>/<language>/LC_MESSAGES/<page>.po (the first
    locale_dir)."""
    domain = docname_to_domain(docname, app.config.gettext_compact)
    return Path(app.srcdir, app.config.locale_dirs[0], app.config.language, "LC_MESSAGES",
                f"{domain}.po")


def problem(catalogue, message: str) -> str | None:
    """Why ``message`` is not translated in ``catalogue`` (a babel Catalog or None); None if
    it is."""
    entry = catalogue.get(message) if catalogue is not None else None
    if entry is None:
        return "missing"
    if entry.fuzzy:
        return "fuzzy (the English changed)"
    if not entry.string:
        return "untranslated"
    return None


def metadata(document: nodes.document) -> nodes.Element | None:
    """The page's metadata: the field list docutils turns into its docinfo (the first
    element, if a field list), which Sphinx then takes out of the page."""
    first = document.first_child_not_matching_class(nodes.PreBibliographic)
    if first is not None and isinstance(document[first], nodes.field_list):
        return document[first]
    return None


def english_of_a_page(node: nodes.Node, message: str) -> bool:
    """The message is English the reader would see: from a page's file, not from a
    docstring (autodoc writes its source as ``.../module.py:docstring of name``), nor Chinese
    already (the figures' Chinese alt text, an exercise's 练习, Sphinx's own 参数)."""
    source = (node.source or "").split(":docstring of")[0]
    if source and not source.endswith((".md", ".ipynb", ".rst")):
        return False
    return not CJK.search(message)


def excerpt(text: str, width: int = 70) -> str:
    """A message's first words, on one line (scripts/translations.py's reports too)."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


def warn(app, docname: str, why: str, message: str, node=None) -> None:
    page = catalogue_path(app, docname).relative_to(app.srcdir).as_posix()
    logger.warning(f"{page}: {why}: \"{excerpt(message)}\" ({HINT})",
                   location=node if node is not None else docname, type="catalogue",
                   subtype=why.split()[0])


def checking(app) -> bool:
    return bool(app.config.language) and app.config.language != "en" and \
        app.builder.name != "gettext"


def read_catalogue(app, docname: str):
    path = catalogue_path(app, docname)
    if not path.is_file():
        return None
    with path.open("rb") as f:
        return read_po(f)


class EveryMessageTranslated(SphinxTransform):
    """Just before Sphinx translates the page (its Locale transform, priority 20): each
    message of the page found in its catalogue, translated and not fuzzy."""
    default_priority = 19

    def apply(self):
        # Sphinx parses each translation as a small document of its own ("...:<translated>"),
        # which its transforms read too: that is Chinese, not the page.
        translated = str(self.document.get("source", "")).endswith("<translated>")
        if not checking(self.app) or translated:
            return
        catalogue = read_catalogue(self.app, self.env.docname)
        top = metadata(self.document)
        skipped = {id(n) for n in top.findall()} if top is not None else set()
        seen = set()
        for node, message in extract_messages(self.document):
            if message in seen or id(node) in skipped or not english_of_a_page(node, message):
                continue
            seen.add(message)
            if (why := problem(catalogue, message)) is not None:
                warn(self.app, self.env.docname, why, message, node)


def caption_problem(app, docname: str, caption: str) -> None:
    """For editions.TranslateTocCaptions: a part caption of the sidebar, checked as any
    message of ``docname``."""
    if checking(app) and (why := problem(read_catalogue(app, docname), caption)) is not None:
        warn(app, docname, why, caption)


def _no_catalogue_without_a_page(app, env):
    if not checking(app):
        return
    pages = {catalogue_path(app, d) for d in env.found_docs}
    folder = catalogue_path(app, "x").parent
    for po in sorted(folder.rglob("*.po")):
        if po not in pages:
            logger.warning(f"{po.relative_to(app.srcdir).as_posix()}: a catalogue of no page "
                           "(the page was renamed or removed): delete it, or rename it with "
                           "the page", type="catalogue", subtype="stale")


def setup(app):
    app.add_transform(EveryMessageTranslated)
    app.connect("env-updated", _no_catalogue_without_a_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
