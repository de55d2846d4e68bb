"""What the website adds to Jupyter Book's defaults (a local Sphinx extension, see _config.yml).

1. Alt text of figures. A figure from ``illustrated.draw`` stores a sentence saying what it
   shows in its output's metadata (``{"image/png": {"alt": ...}}``). MyST-NB 1.x copies only
   ``width`` and ``height`` from that metadata to the image, so this wraps its
   ``NbElementRenderer.render_image`` to copy ``alt`` too (an explicit ``alt`` from the
   cell's ``render_image_options`` still wins). In the Chinese edition (``language: zh_CN``)
   the page shows the figure's Chinese rendering instead, which ``illustrated.draw`` stores
   in the same metadata by language (``{"zh_CN": {"png": <base64>, "alt": ...}}``).
2. Chinese text without CJK fonts: ``_static/cjk.css`` (the "WQY Web" font, see
   scripts/subset_font.py), and a preload of the font so that MathJax, which measures the
   characters it has no glyph for, measures them in the loaded font.
3. Explorers (``illustrated.explorers``): on a page that has one, and only there, the
   site's copies of vega, vega-lite and vega-embed (``_static/vendor/``, scripts/vendor.py)
   and ``_static/explorers.js``, which draws them. Without the vendor files the page loads
   only explorers.js, which says in one line what is missing. An explorer's output also
   holds a Vega-Lite MIME type for JupyterLab, which MyST-NB does not know: the page skips
   it quietly (the output's ``text/html`` is the page's version).
4. The Chinese edition's needs from Sphinx live in scripts/editions.py, a local extension of
   their own.
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from docutils import nodes
from myst_nb.core.render import NbElementRenderer
from sphinx import addnodes

WEB_FONT = "fonts/wqy-microhei-web.woff2"
VEGALITE_MIME = "application/vnd.vegalite.v5+json"  # illustrated.explorers.JUPYTERLAB_MIME
EXPLORER_MARK = 'class="vl-explorer"'
VEGA = ["vendor/vega.min.js", "vendor/vega-lite.min.js", "vendor/vega-embed.min.js"]


def _with_alt(render_image):
    def render_image_with_alt(self, data):
        data = _in_edition(self, data)
        image_nodes = render_image(self, data)
        alt = data.output_metadata.get(data.mime_type, {}).get("alt")
        for node in image_nodes:
            if alt and not node.get("alt"):
                node["alt"] = str(alt)
        return image_nodes

    render_image_with_alt.keeps_alt = True
    return render_image_with_alt


def _in_edition(element_renderer, data):
    """``data`` as the page's edition shows it: the figure's rendering in the build's
    language (base64 PNG, like ``data.content``, and alt text) when its metadata has one,
    keyed by language as the explorers' are (scripts/explorer_editions.py)."""
    env = getattr(element_renderer.renderer.document.settings, "env", None)
    language = env.config.language if env is not None else None
    metadata = data.output_metadata.get(data.mime_type, {})
    edition = metadata.get(language) if language else None
    if not isinstance(edition, dict) or "png" not in edition:
        return data
    alt = edition.get("alt") or metadata.get("alt")
    return dataclasses.replace(data, content=edition["png"], output_metadata={
        **data.output_metadata, data.mime_type: {**metadata, "alt": alt}})


def _without_vegalite(render_mime_type):
    def render_mime_type_but_vegalite(self, data):
        if data.mime_type == VEGALITE_MIME:
            return []
        return render_mime_type(self, data)

    render_mime_type_but_vegalite.skips_vegalite = True
    return render_mime_type_but_vegalite


def _preload_font(app, pagename, templatename, context, doctree):
    href = context["pathto"]("_static/" + WEB_FONT, 1)
    context["metatags"] = context.get("metatags", "") + (
        f'<link rel="preload" href="{href}" as="font" type="font/woff2" crossorigin>\n')


def _page_fixes(app, pagename, templatename, context, doctree):
    """The theme's light/dark mode is empty ("Got invalid theme mode" in the console): say
    "auto", the theme's own default. sphinx-thebe's inline configuration ends up twice in
    each page's <head> and declares its names with ``const`` ("Identifier 'THEBE_JS_URL'
    has already been declared"): declare them with ``var``, which may be repeated."""
    for script in context.get("script_files", []):
        attributes = getattr(script, "attributes", {})
        if "THEBE_JS_URL" in attributes.get("body", ""):
            attributes["body"] = attributes["body"].replace("const ", "var ")
    if not context.get("default_mode"):
        context["default_mode"] = "auto"


def _not_on_every_page(app, config):
    """Jupyter Book adds every ``*.js`` and ``*.css`` under ``_static/`` to every page, as
    classic scripts. Keep off them: the 840 KB of vega in ``_static/vendor/`` and
    explorers.js (for the pages with an explorer, :func:`_explorer_scripts`), and
    ``_static/live/`` (ES modules, where ``export`` is a syntax error in a classic script,
    loaded by the live translator's page itself)."""
    def per_page(entry):
        name = str(entry if isinstance(entry, str) else entry[0])
        return name == "explorers.js" or name.startswith(("vendor/", "live/"))
    config.html_js_files = [e for e in config.html_js_files if not per_page(e)]
    config.html_css_files = [e for e in config.html_css_files if not per_page(e)]


def _explorer_scripts(app, pagename, templatename, context, doctree):
    """The explorers' scripts on the pages that have one. Sphinx keeps a script added
    during ``html-page-context`` for that page only."""
    if EXPLORER_MARK not in context.get("body", ""):
        return
    vendor = Path(app.srcdir) / "_static"
    if all((vendor / name).is_file() for name in VEGA):
        for name in VEGA:  # deferred: they run in this order, before explorers.js
            app.add_js_file(name, priority=900, loading_method="defer")
    # A classic script: a page opened from file:// fetches no module (_static/explorers.js).
    app.add_js_file("explorers.js", priority=901, loading_method="defer")


def _launch_buttons_need_a_repository(app, config):
    """Launch buttons (Colab, Binder: ``launch_buttons`` in _config.yml) only once
    ``repository: url:`` is set, the single switch; sphinx-book-theme would otherwise
    fail on the empty URL."""
    options = config.html_theme_options
    if not options.get("repository_url"):
        launch = dict(options.get("launch_buttons") or {})
        launch.update(colab_url="", binderhub_url="", jupyterhub_url="", thebe=False)
        options["launch_buttons"] = launch


# The glossary's convention: "**中文** <the sources' terms>", then "<definition> Introduced
# in {ref}`...`." The tooltip keeps the definition without the pointer to the section.
_INTRODUCED = re.compile(r"\s*Introduced in\b.*$", re.S)
_CHINESE = re.compile(r"^中文[\s：:]*")  # "中文 ..." (English page) or "中文：..." (Chinese)
# The few LaTeX commands of the glossary's definitions, as plain text for a tooltip.
_LATEX = [(r"\\(?:operatorname|text|mathrm)\{([^{}]*)\}", r"\1"), (r"\\sqrt\{([^{}]*)\}", r"√\1"),
          (r"\^\\top", "ᵀ"), (r"\\dots", "…"), (r"\\sum_?\w?", "Σ"), (r"\\log", "log"),
          (r"\\tau", "τ"), (r"\\varepsilon", "ε"), (r"\\gamma", "γ"), (r"\\beta", "β"),
          (r"\\[,;!]", " "), (r"[{}]", "")]


def plain_math(latex: str) -> str:
    """A tooltip cannot typeset: the few LaTeX commands of the glossary as plain text."""
    for pattern, repl in _LATEX:
        latex = re.sub(pattern, repl, latex)
    return " ".join(latex.split())


def _plain_text(paragraph) -> str:
    parts = []
    for node in paragraph.findall(lambda n: isinstance(n, (nodes.Text, nodes.math))):
        if isinstance(node, nodes.math):
            parts.append(plain_math(node.astext()))
        elif not isinstance(node.parent, nodes.math):
            parts.append(str(node))
    return " ".join("".join(parts).split())


def glossary_titles(doctree, chinese_page: bool = False) -> dict[str, str]:
    """Map each glossary term's node id to its tooltip: the definition, then the Chinese
    (one line: HTML attributes turn newlines into spaces anyway), after "中文: " on an
    English page and "中文：" on a Chinese one (``chinese_page``)."""
    titles = {}
    items = (item for glossary in doctree.findall(addnodes.glossary)
             for item in glossary.findall(nodes.definition_list_item))
    for item in items:
        ids = [i for term in item.findall(nodes.term) for i in term["ids"]]
        paragraphs = [_plain_text(p) for p in item.findall(nodes.paragraph)]
        if not ids or not paragraphs:
            continue
        chinese = [p for p in paragraphs if p.startswith("中文")]
        others = [_INTRODUCED.sub("", p) for p in paragraphs if not p.startswith("中文")]
        lines = [p for p in others if p]
        label = "中文：" if chinese_page else "中文: "
        lines += [_CHINESE.sub(label, p) for p in chinese]
        for node_id in ids:
            titles[node_id] = " ".join(lines)
    return titles


def add_term_titles(doctree, titles: dict[str, str]) -> int:
    """Give every resolved {term} link of ``doctree`` its entry as ``reftitle``; the count."""
    count = 0
    for ref in doctree.findall(nodes.reference):
        if not any("std-term" in child.get("classes", []) for child in ref.children
                   if isinstance(child, nodes.Element)):
            continue
        target = ref.get("refid") or ref.get("refuri", "").rpartition("#")[2]
        if target in titles and "reftitle" not in ref:
            ref["reftitle"] = titles[target]
            count += 1
    return count


def _collect_glossary(app, doctree):
    store = getattr(app.env, "site_extras_glossary", {})
    store.pop(app.env.docname, None)
    titles = glossary_titles(doctree, (app.config.language or "en").startswith("zh"))
    if titles:
        store[app.env.docname] = titles
    app.env.site_extras_glossary = store


def _purge_glossary(app, env, docname):
    getattr(env, "site_extras_glossary", {}).pop(docname, None)


def _merge_glossary(app, env, docnames, other):
    store = getattr(env, "site_extras_glossary", {})
    store.update(getattr(other, "site_extras_glossary", {}))
    env.site_extras_glossary = store


def _term_tooltips(app, doctree, docname):
    titles = {}
    for per_doc in getattr(app.env, "site_extras_glossary", {}).values():
        titles.update(per_doc)
    add_term_titles(doctree, titles)


def _redirect_with_icon(app, exception) -> None:
    """``index.html``, the page a reader who types the site's address gets, forwards to the
    first chapter. sphinx-external-toc writes it as one ``<meta>`` line when it is missing;
    without a ``<link rel="icon">`` the browser then asks for ``/favicon.ico``, which the site
    does not have: a 404 in the console (the browser stage saw it, now and then, from the
    tokenizer check that opens index.html). Written here first, with the book's icon; the
    extension then leaves it alone."""
    if exception is not None or app.builder.format != "html" or app.config.root_doc == "index":
        return
    icon = Path(app.config.html_favicon or "").name
    link = f'<link rel="icon" href="_static/{icon}" />\n' if icon else ""
    (Path(app.outdir) / "index.html").write_text(
        f'<meta http-equiv="Refresh" content="0; url={app.config.root_doc}.html" />\n{link}',
        encoding="utf-8")


def setup(app):
    if not getattr(NbElementRenderer.render_image, "keeps_alt", False):
        NbElementRenderer.render_image = _with_alt(NbElementRenderer.render_image)
    if not getattr(NbElementRenderer.render_mime_type, "skips_vegalite", False):
        NbElementRenderer.render_mime_type = _without_vegalite(NbElementRenderer.render_mime_type)
    app.connect("config-inited", _launch_buttons_need_a_repository, priority=900)
    app.connect("config-inited", _not_on_every_page, priority=700)
    app.add_css_file("cjk.css")
    app.connect("html-page-context", _preload_font)
    app.connect("html-page-context", _page_fixes)
    app.connect("html-page-context", _explorer_scripts)
    app.connect("doctree-read", _collect_glossary)
    app.connect("env-purge-doc", _purge_glossary)
    app.connect("env-merge-info", _merge_glossary)
    app.connect("doctree-resolved", _term_tooltips)
    app.connect("build-finished", _redirect_with_icon, priority=400)  # before etoc's
    return {"parallel_read_safe": True, "parallel_write_safe": True}
