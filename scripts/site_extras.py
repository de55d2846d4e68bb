"""What the website adds to Jupyter Book's defaults (a local Sphinx extension, see _config.yml).

1. Alt text of figures. A figure from ``illustrated.draw`` stores a sentence saying what it
   shows in its output's metadata (``{"image/png": {"alt": ...}}``). MyST-NB 1.x copies only
   ``width`` and ``height`` from that metadata to the image, so this wraps its
   ``NbElementRenderer.render_image`` to copy ``alt`` too (an explicit ``alt`` from the
   cell's ``render_image_options`` still wins).
2. Chinese text without CJK fonts: ``_static/cjk.css`` (the "WQY Web" font, see
   scripts/subset_font.py), and a preload of the font so that MathJax, which measures the
   characters it has no glyph for, measures them in the loaded font.
3. Explorers (``illustrated.explorers``): on a page that has one, and only there, the
   site's copies of vega, vega-lite and vega-embed (``_static/vendor/``, scripts/vendor.py)
   and ``_static/explorers.js``, which draws them. Without the vendor files the page loads
   only explorers.js, which says in one line what is missing. An explorer's output also
   holds a Vega-Lite MIME type for JupyterLab, which MyST-NB does not know: the page skips
   it quietly (the output's ``text/html`` is the page's version).
4. Two editions (issue 22): every page links to the same page in the other language, the
   English site's ``zh/`` folder (scripts/build_book.py). The Chinese edition uses many
   more characters than the English one: it gets a web font of its own,
   ``fonts/wqy-microhei-web-zh.woff2``, under the name cjk.css loads, and the English
   site does not carry that file.
5. Glued numbers in translated prose. Sphinx parses each translated message as a small
   document of its own, which has none of the notebook's glue data, so MyST-NB's glue roles
   found no key there ("No key 'x' found in glue data"). A transform keeps the page being
   read at hand, and the roles look a translated message's keys up in that page, so the
   Chinese pastes the very numbers the English does. Display formulas are not messages
   (``MathIsNotProse``), and the sidebar's part captions are translated too
   (``TranslateTocCaptions``), and so are the exercises' titles (``ExerciseTitlesAreProse``).
"""
from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path

from docutils import nodes
from docutils.transforms import Transform
from myst_nb.core.render import NbElementRenderer
from myst_nb.core.variables import VariableOutput
from myst_nb.ext.glue import directives as glue_directives
from myst_nb.ext.glue import roles as glue_roles
from sphinx import addnodes
from sphinx_exercise.nodes import exercise_subtitle, is_exercise_node
from sphinx.locale import init as init_locale
from sphinx.transforms import SphinxTransform
from sphinx.util.i18n import docname_to_domain

WEB_FONT = "fonts/wqy-microhei-web.woff2"
ZH_WEB_FONT = "fonts/wqy-microhei-web-zh.woff2"  # scripts/subset_font.py writes both
ZH = "zh"  # the Chinese edition's folder in the site (scripts/build_book.py ZH)
VEGALITE_MIME = "application/vnd.vegalite.v5+json"  # illustrated.explorers.JUPYTERLAB_MIME
EXPLORER_MARK = 'class="vl-explorer"'
VEGA = ["vendor/vega.min.js", "vendor/vega-lite.min.js", "vendor/vega-embed.min.js"]


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


def is_chinese(app) -> bool:
    return (app.config.language or "en").startswith("zh")


def edition_link(pagename: str, chinese: bool) -> str:
    """The link to ``pagename`` in the other edition: the English site's ``zh/`` folder
    holds the Chinese one, page for page."""
    up = "../" * pagename.count("/")
    if chinese:
        return (f'<p class="edition-switch"><a href="{up}../{pagename}.html" hreflang="en" '
                f'lang="en">Read this page in English</a></p>\n')
    return (f'<p class="edition-switch"><a href="{up}{ZH}/{pagename}.html" hreflang="zh-CN" '
            f'lang="zh-CN">阅读本页的中文版</a></p>\n')


def _edition_switch(app, pagename, templatename, context, doctree):
    if doctree is not None and "body" in context:
        context["body"] = edition_link(pagename, is_chinese(app)) + context["body"]


def _quiet_jieba(app, config):
    """The Chinese edition's search index cuts Chinese into words with jieba (Sphinx's
    zh search), which logs three lines of its own progress on every build: keep them
    out of the build's output."""
    if is_chinese(app):
        try:
            import jieba
        except ImportError:  # Sphinx then indexes no Chinese word; requirements.txt pins it
            return
        jieba.setLogLevel(logging.WARNING)


def _edition_font(app, exception):
    """The Chinese edition's web font under the name cjk.css loads; the English site
    without it."""
    if exception is not None or app.builder.format != "html":
        return
    fonts = Path(app.outdir) / "_static"
    if is_chinese(app) and (fonts / ZH_WEB_FONT).is_file():
        shutil.copyfile(fonts / ZH_WEB_FONT, fonts / WEB_FONT)
    (fonts / ZH_WEB_FONT).unlink(missing_ok=True)


_PAGE_GLUE = "site_extras_page_glue"


class MathIsNotProse(Transform):
    """A display formula is not a message: Sphinx would hand its translation to the parser
    as an rST literal block (``::``), which MyST does not read, and the Chinese page showed
    "::" in its place. Formulas stay as they are in both editions."""
    default_priority = 10

    def apply(self):
        for node in self.document.findall(nodes.math_block):
            node["translatable"] = False


class TranslateTocCaptions(SphinxTransform):
    """The sidebar's part captions ("The big picture", "Attention" ...) come from _toc.yml:
    sphinx-external-toc inserts its toctrees (priority 100) after Sphinx has translated the
    page (priority 20), so they stayed English in the Chinese edition. Translate them from
    the page's catalogue, as Sphinx's Locale transform would have."""
    default_priority = 101

    def apply(self):
        toctrees = [t for t in self.document.findall(addnodes.toctree) if t.get("caption")]
        if not toctrees or not self.config.language or self.config.language == "en":
            return
        domain = docname_to_domain(self.env.docname, self.config.gettext_compact)
        dirs = [str(Path(self.env.srcdir, d)) for d in self.config.locale_dirs]
        catalog, found = init_locale(dirs, self.config.language, domain)
        if not found:
            return
        for toctree in toctrees:
            caption = catalog.gettext(toctree["caption"])
            toctree["caption"] = toctree["rawcaption"] = caption


class ExerciseTitlesAreProse(Transform):
    """An exercise's title ("Exercise 6.1 (Blocking with +inf)": the directive's argument)
    reached no catalogue: sphinx-exercise builds it without a source, and Sphinx skips such
    nodes. Give it its place and its markup back (``$maths$``, ```code```), so that it is
    translated like any other message; the solution's title, built from it later, follows.
    sphinx-exercise rebuilds these titles after reading, so the gettext builder would no
    longer find them: the page keeps them (``_EXERCISE_TITLES``) for
    :func:`_exercise_titles_for_gettext`."""
    default_priority = 10

    def apply(self):
        titles = []
        for node in self.document.findall(exercise_subtitle):
            if not node.source:
                node.source, node.line = self.document["source"], node.parent.line or 1
                node.rawsource = "".join(
                    f"${child.astext()}$" if isinstance(child, nodes.math)
                    else f"`{child.astext()}`" if isinstance(child, nodes.literal)
                    else child.astext() for child in node.children)
            titles.append((node.rawsource, node.source, node.line))
        self.document[_EXERCISE_TITLES] = titles


_EXERCISE_TITLES = "site_extras_exercise_titles"


class SolutionsFollowTranslatedExercises(SphinxTransform):
    """A solution's title ("Solution to Exercise 6.1 (title)") is built from the copy of
    the exercise that sphinx-exercise keeps from before the page was translated: refresh
    that copy once Sphinx has translated the page (its Locale transform, priority 20)."""
    default_priority = 25

    def apply(self):
        registry = getattr(self.env, "sphinx_exercise_registry", {})
        for node in self.document.findall(is_exercise_node):
            entry = registry.get(node.get("label"))
            if entry is not None and entry.get("docname") == self.env.docname:
                entry["node"] = node.deepcopy()


def _exercise_titles_for_gettext(app, doctree, docname):
    """For the gettext builder: the exercises' titles as messages of their page."""
    if app.builder.name != "gettext":
        return
    for text, source, line in doctree.get(_EXERCISE_TITLES, []):
        paragraph = nodes.paragraph(text, text)
        paragraph.source, paragraph.line = source, line
        paragraph.uid = ""  # the gettext builder takes only nodes with one (as for toctrees)
        doctree += paragraph


class KeepPageGlueAtHand(Transform):
    """Before Sphinx translates a page's messages (its Locale transform, priority 20), read
    the glue data MyST-NB has just written for the page (``<docname>.glue.json`` in its
    output folder), which the translated messages need."""
    default_priority = 10

    def apply(self):
        env = getattr(self.document.settings, "env", None)
        if env is None or not hasattr(env, "mystnb_config"):
            return
        path = Path(env.mystnb_config.output_folder, *env.docname.split("/"))
        path = path.with_name(path.name + ".glue.json")
        env.temp_data[_PAGE_GLUE] = (json.loads(path.read_text(encoding="utf-8"))
                                     if path.is_file() else {})


def _glue_from_the_page(retrieve):
    def retrieve_glue_data(document, key):
        env = getattr(document.settings, "env", None)
        glue = env.temp_data.get(_PAGE_GLUE, {}) if env is not None else {}
        if ("nb_renderer" not in document and document.current_source.endswith("<translated>")
                and key in glue):
            return VariableOutput(data=glue[key]["data"], metadata=glue[key].get("metadata", {}),
                                  nb_renderer=None, vtype="glue")
        return retrieve(document, key)

    retrieve_glue_data.reads_the_page = True
    return retrieve_glue_data


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
        for name in VEGA:  # deferred: they run in this order, before the module below
            app.add_js_file(name, priority=900, loading_method="defer")
    app.add_js_file("explorers.js", priority=901, type="module")


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
_CHINESE = re.compile(r"^中文\s*")
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


def glossary_titles(doctree) -> dict[str, str]:
    """Map each glossary term's node id to its tooltip: the definition, then the Chinese
    (one line: HTML attributes turn newlines into spaces anyway)."""
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
        lines += [_CHINESE.sub("中文: ", p) for p in chinese]
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
    titles = glossary_titles(doctree)
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


def setup(app):
    if not getattr(NbElementRenderer.render_image, "keeps_alt", False):
        NbElementRenderer.render_image = _with_alt(NbElementRenderer.render_image)
    if not getattr(NbElementRenderer.render_mime_type, "skips_vegalite", False):
        NbElementRenderer.render_mime_type = _without_vegalite(NbElementRenderer.render_mime_type)
    for module in (glue_roles, glue_directives):
        if not getattr(module.retrieve_glue_data, "reads_the_page", False):
            module.retrieve_glue_data = _glue_from_the_page(module.retrieve_glue_data)
    app.add_transform(KeepPageGlueAtHand)
    app.add_transform(MathIsNotProse)
    app.add_transform(TranslateTocCaptions)
    app.add_transform(ExerciseTitlesAreProse)
    app.add_transform(SolutionsFollowTranslatedExercises)
    app.connect("config-inited", _launch_buttons_need_a_repository, priority=900)
    app.connect("config-inited", _not_on_every_page, priority=700)
    app.add_css_file("cjk.css")
    app.connect("html-page-context", _preload_font)
    app.connect("html-page-context", _page_fixes)
    app.connect("html-page-context", _explorer_scripts)
    app.connect("html-page-context", _edition_switch)
    app.connect("build-finished", _edition_font)
    app.connect("config-inited", _quiet_jieba)
    app.connect("doctree-read", _collect_glossary)
    app.connect("env-purge-doc", _purge_glossary)
    app.connect("env-merge-info", _merge_glossary)
    app.connect("doctree-resolved", _term_tooltips)
    app.connect("doctree-resolved", _exercise_titles_for_gettext)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
