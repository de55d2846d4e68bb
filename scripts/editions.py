"""The Chinese edition's needs from Sphinx (a local Sphinx extension, see _config.yml).

The book's Chinese edition is the same pages built with ``language: zh_CN`` from the
catalogues in locales/ (scripts/translations.py, scripts/build_book.py). Sphinx translates
each page's messages as it reads it; what it does not do on its own for this book:

1. Every page links to the same page in the other language: the English site's ``zh/``
   folder holds the Chinese edition, page for page (``edition_link``).
2. The Chinese edition uses many more characters than the English one: it gets a web font
   of its own, ``fonts/wqy-microhei-web-zh.woff2`` (scripts/subset_font.py), under the name
   cjk.css loads; the English site does not carry that file.
3. Glued numbers in translated prose. Sphinx parses each translated message as a small
   document of its own, which has none of the notebook's glue data, so MyST-NB's glue roles
   found no key there ("No key 'x' found in glue data"). A transform reads the page's glue
   data before Sphinx translates the page, and the roles look a translated message's keys up
   there, so the Chinese pastes the very numbers the English does.
4. Display formulas are not messages (``MathIsNotProse``); the sidebar's part captions
   (``TranslateTocCaptions``) and the exercises' titles (``ExerciseTitlesAreProse``) are,
   and the solutions' titles follow the translated exercises.
5. The search: Sphinx indexes Chinese words with jieba, which logs its progress: kept quiet.
6. Emphasis on Chinese text is set as Chinese books set it, not in italics, with no space
   between it and the Chinese around it (``ChineseEmphasis``); the exercises' and solutions'
   titles have full-width parentheses, and a solution's title reads 练习 N.M（…）的解答
   (``ChineseExerciseTitles``).
   The footer says the licence in Chinese (``ZH_FOOTER``; the English is _config.yml's
   ``html: extra_footer:``).
7. The nodes of a translated message (or of an ``eval-rst`` block, in both editions) belong
   to their page (``_one_document``): its saved doctree does not carry the build environment.

Every step but 7 only acts in the Chinese build, or, for the gettext builder, where it extracts
the messages; the English pages come out as before, with the link to their Chinese twin.
"""
from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path

from docutils import nodes
from docutils.transforms import Transform
from myst_nb.core.variables import VariableOutput
from myst_nb.ext.glue import directives as glue_directives
from myst_nb.ext.glue import roles as glue_roles
from sphinx import addnodes
from sphinx.locale import init as init_locale
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.i18n import docname_to_domain
from sphinx_exercise.nodes import exercise_subtitle, is_exercise_node, solution_node

from catalogue_check import caption_problem

WEB_FONT = "fonts/wqy-microhei-web.woff2"  # the name _static/cjk.css loads
ZH_WEB_FONT = "fonts/wqy-microhei-web-zh.woff2"  # scripts/subset_font.py writes both
ZH = "zh"  # the Chinese edition's folder in the site (scripts/build_book.py ZH)
#: The licence in the footer of every Chinese page: _config.yml's ``html: extra_footer:``
#: in Chinese, with the same links (the Creative Commons summary in Chinese). Its characters
#: are in the Chinese web font (scripts/subset_font.py reads them here).
ZH_FOOTER = ('代码采用 <a href="https://opensource.org/license/mit" rel="license">MIT 许可证</a>；'
             '正文与图采用 <a href="https://creativecommons.org/licenses/by-sa/4.0/deed.zh-hans" '
             'rel="license">CC BY-SA 4.0</a> 许可；Tatoeba 的句子采用 '
             '<a href="https://creativecommons.org/licenses/by/2.0/fr/">'
             'CC BY 2.0 FR</a> 许可。')


def is_chinese(app) -> bool:
    return (app.config.language or "en").startswith("zh")


def edition_link(pagename: str, chinese: bool) -> str:
    """The link to ``pagename`` in the other edition: the English site's ``zh/`` folder
    holds the Chinese one, page for page. In the browser, _static/edition-switch.js adds
    the section being read to its ``href`` (both editions give a section the same id)."""
    up = "../" * pagename.count("/")
    if chinese:
        return (f'<p class="edition-switch"><a href="{up}../{pagename}.html" hreflang="en" '
                f'lang="en">Read this page in English</a></p>\n')
    return (f'<p class="edition-switch"><a href="{up}{ZH}/{pagename}.html" hreflang="zh-CN" '
            f'lang="zh-CN">阅读本页的中文版</a></p>\n')


def _edition_switch(app, pagename, templatename, context, doctree):
    if doctree is not None and "body" in context:
        context["body"] = edition_link(pagename, is_chinese(app)) + context["body"]
        if is_chinese(app):
            context["body"] = tight_numbers(context["body"])


#: Sphinx's HTML writer ends a caption number with a space ("练习 13.1 </span>"); in Chinese
#: the full-width parenthesis of the exercise's title follows with no space.
_NUMBER_SPACE = re.compile(r'(<span class="caption-number">[^<]*?) </span>(?=（)')


def tight_numbers(body: str) -> str:
    """``body`` (a page's HTML) with no space between an exercise's number and the （ of
    its title: "练习 13.1（top-p 过滤）"."""
    return _NUMBER_SPACE.sub(r"\1</span>", body)


def _footer(app, config):
    """The Chinese edition's footer says the licence in Chinese (Jupyter Book puts
    _config.yml's ``html: extra_footer:`` into the theme's options)."""
    if is_chinese(app):
        config.html_theme_options = {**config.html_theme_options, "extra_footer": ZH_FOOTER}


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


_PAGE_GLUE = "editions_page_glue"


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
            caption_problem(self.app, self.env.docname, toctree["caption"])
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


_EXERCISE_TITLES = "editions_exercise_titles"


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


def setup(app):
    for module in (glue_roles, glue_directives):
        if not getattr(module.retrieve_glue_data, "reads_the_page", False):
            module.retrieve_glue_data = _glue_from_the_page(module.retrieve_glue_data)
    app.add_transform(KeepPageGlueAtHand)
    app.add_transform(MathIsNotProse)
    app.add_transform(TranslateTocCaptions)
    app.add_transform(ExerciseTitlesAreProse)
    app.add_transform(SolutionsFollowTranslatedExercises)
    app.add_transform(ChineseEmphasis)
    app.add_post_transform(ChineseExerciseTitles)
    app.connect("config-inited", _quiet_jieba)
    app.connect("config-inited", _footer)
    app.connect("config-inited", _search_terms)
    app.connect("html-page-context", _edition_switch)
    app.connect("doctree-resolved", _exercise_titles_for_gettext)
    app.connect("doctree-read", _one_document)
    app.connect("build-finished", _edition_font)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def _one_document(app, doctree):
    """Every node of a page names the page's document as its own. Sphinx's Locale transform
    parses each translated message as a small document of its own, and MyST's ``eval-rst``
    blocks (the API page) parse theirs likewise; the nodes moved into the page still named
    that small document, whose settings hold the build environment. So the saved doctree of
    each Chinese page and of the English API page carried a copy of the environment, with
    every page read before it (53 MB of Chinese doctrees where 9 MB hold the same pages;
    English: an API page of 5.2 MB), and every build, even with nothing changed, unpickled
    them all, as Sphinx numbers the figures across pages. Both editions, every page."""
    for node in doctree.findall():
        if node.document is not doctree:
            node.document = doctree


def _search_terms(app, config):
    """The Chinese edition's search index holds the words of every term of terminology.yml
    wherever a page holds them (scripts/zh_search.py, html_search_options from
    scripts/build_book.py's zh_config)."""
    if is_chinese(app):
        from zh_search import TermsChinese

        app.add_search_language(TermsChinese)


CJK_TEXT = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
ZH_EMPHASIS = "zh-emphasis"  # _static/editions.css; tests/site/html_rules.py counts the rest


class ChineseEmphasis(SphinxTransform):
    """Chinese fonts have no italic: the browser slants the glyphs ("这种*软*查找" came out
    as a sheared 软). In the Chinese edition, an emphasis whose text holds a CJK character
    gets the class ``zh-emphasis``, which _static/editions.css draws as Chinese books do:
    upright, with 着重号 (a dot under each character). An emphasis of Latin text only (a
    paper's title) stays in italics. After Sphinx's Locale transform (priority 20), so that
    it sees the translated text."""
    default_priority = 800

    def apply(self):
        if not is_chinese(self.app):
            return
        for node in self.document.findall(nodes.emphasis):
            if CJK_TEXT.search(node.astext()) and ZH_EMPHASIS not in node["classes"]:
                node["classes"].append(ZH_EMPHASIS)
        for node in list(self.document.findall(lambda n: isinstance(n, (nodes.emphasis, nodes.strong)))):
            close_up(node)


# A CJK character or full-width punctuation: what an emphasis sits against with no space.
_CJK_EDGE = re.compile("[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def close_up(node: nodes.Element) -> None:
    """Remove the space between Chinese and an emphasis (or strong) node whose edge is Chinese.

    Markdown reads ``*…*`` as emphasis only where the ``*`` is "flanking": ``即*{term}`头
    <head>`*`` is not emphasis (the ``*`` stands between a CJK character and ``{``), so a
    translation must write ``即 *{term}`头 <head>`*``, and the page showed "即 头". A
    Chinese book sets no space there: drop it, on either side."""
    parent, text = node.parent, node.astext()
    if parent is None or not text:
        return
    index = parent.index(node)
    before = parent[index - 1] if index else None
    if (isinstance(before, nodes.Text) and _CJK_EDGE.match(text[0])
            and re.search(f"{_CJK_EDGE.pattern} $", str(before))):
        parent.replace(before, nodes.Text(str(before)[:-1]))
    after = parent[index + 1] if index + 1 < len(parent) else None
    if (isinstance(after, nodes.Text) and _CJK_EDGE.match(text[-1])
            and re.match(f" {_CJK_EDGE.pattern}", str(after))):
        parent.replace(after, nodes.Text(str(after)[1:]))


class ChineseExerciseTitles(SphinxPostTransform):
    """The exercises' and solutions' titles as a Chinese book writes them. sphinx-exercise
    builds them in English typography: "练习 13.1" (the number, which the HTML writer adds
    with a space after it), then " (top-p 过滤)"; a solution's "解答 练习 13.1 (top-p 过滤)".
    In the Chinese edition: full-width parentheses with no space of their own, and the
    solution's title as 练习 13.1（top-p 过滤）的解答. After sphinx-exercise has built the
    titles (its post-transforms of priority 20 and 21)."""
    default_priority = 22

    def run(self, **kwargs):
        if not is_chinese(self.app):
            return
        for title in list(self.document.findall(nodes.title)):
            if isinstance(title.parent, solution_node):
                chinese_solution_title(title)
            elif is_exercise_node(title.parent):
                full_width_parentheses(title)


def full_width_parentheses(element: nodes.Element) -> None:
    """sphinx-exercise's " (" and ")" around a subtitle, among ``element``'s children, as
    （ and ）."""
    for child in list(element.children):
        if isinstance(child, nodes.Text) and str(child) in (" (", ")"):
            element.replace(child, nodes.Text("（" if str(child) == " (" else "）"))


def chinese_solution_title(title: nodes.title) -> None:
    """"解答 练习 13.1 (subtitle)" (the words, then a link to the exercise) as
    "练习 13.1（subtitle）的解答"; without a subtitle, "练习 13.1 的解答"."""
    if len(title) != 2 or not isinstance(title[0], nodes.Text):
        return
    words, link = str(title[0]).strip(), title[1]
    if link.children and isinstance(link[0], nodes.Text):
        link.replace(link[0], nodes.Text(str(link[0]).strip()))
    full_width_parentheses(link)
    title.remove(title[0])
    ends_latin = re.search(r"[A-Za-z0-9.]$", link.astext())
    title += nodes.Text((" " if ends_latin else "") + "的" + words)
    if title.parent is not None and "title" in title.parent:
        title.parent["title"] = title.astext()
