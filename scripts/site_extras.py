"""What the website adds to Jupyter Book's defaults (a local Sphinx extension, see _config.yml).

1. Alt text of figures. A figure from ``illustrated.draw`` stores a sentence saying what it
   shows in its output's metadata (``{"image/png": {"alt": ...}}``). MyST-NB 1.x copies only
   ``width`` and ``height`` from that metadata to the image, so this wraps its
   ``NbElementRenderer.render_image`` to copy ``alt`` too (an explicit ``alt`` from the
   cell's ``render_image_options`` still wins).
2. Chinese text without CJK fonts: ``_static/cjk.css`` (the "WQY Web" font, see
   scripts/subset_font.py), and a preload of the font so that MathJax, which measures the
   characters it has no glyph for, measures them in the loaded font.
"""
from __future__ import annotations

from myst_nb.core.render import NbElementRenderer

WEB_FONT = "fonts/wqy-microhei-web.woff2"


def _with_alt(render_image):
    def render_image_with_alt(self, data):
        image_nodes = render_image(self, data)
        alt = data.output_metadata.get(data.mime_type, {}).get("alt")
        for node in image_nodes:
            if alt and not node.get("alt"):
                node["alt"] = str(alt)
        return image_nodes

    render_image_with_alt.keeps_alt = True
    return render_image_with_alt


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


def _launch_buttons_need_a_repository(app, config):
    """Launch buttons (Colab, Binder: ``launch_buttons`` in _config.yml) only once
    ``repository: url:`` is set, the single switch; sphinx-book-theme would otherwise
    fail on the empty URL."""
    options = config.html_theme_options
    if not options.get("repository_url"):
        launch = dict(options.get("launch_buttons") or {})
        launch.update(colab_url="", binderhub_url="", jupyterhub_url="", thebe=False)
        options["launch_buttons"] = launch


def setup(app):
    if not getattr(NbElementRenderer.render_image, "keeps_alt", False):
        NbElementRenderer.render_image = _with_alt(NbElementRenderer.render_image)
    app.connect("config-inited", _launch_buttons_need_a_repository, priority=900)
    app.add_css_file("cjk.css")
    app.connect("html-page-context", _preload_font)
    app.connect("html-page-context", _page_fixes)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
