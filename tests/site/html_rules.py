"""The rules tests/site/test_pages.py applies to each built page, as functions of its parsed
HTML that return what they find (one line a finding; an empty list when all is well).
tests/site/test_html_rules.py shows each finding on a small page shaped like the real ones.

A strict Sphinx build catches broken references, not pages that build cleanly and read
wrongly. The rules:

api          The API page renders, for every module its source lists with `automodule`, a
             signature (a `dt.sig` with the object's full name as id) for each public name:
             the module's `__all__`, or else every function and class it defines whose name
             has no leading underscore.
raw-rst      No page shows reStructuredText as text (`.. py:class::`, `:param x:`, ...), what
             autodoc output looks like when it is parsed as Markdown; on the API page, no
             `=====` table borders either.
glue-quotes  No glued value reads as a quoted string (‘7’, '44,304'): gluing a Python str
             pastes its repr. Glue the number, or format it in the markdown.
solutions    After a page's "Exercises" heading every code cell sits inside a solution, and
             every solution is a dropdown, so a closed solution hides its code and output
             (the gated form, `{solution-start}` ... `{solution-end}`).
code-width   No line of a code cell's source is longer than CODE_LINE (100) characters, the
             package's own line length. The column holds COLUMN (107) characters at the
             browser tests' 1280-px window (a 906-px code box inside its padding, 8.43 px per
             character of the 14-px monospace; _static/layout.css makes the page's contents
             a drawer below 1600 px, the theme's sidebar left 75), 99 at 1200 px, the
             narrowest window with the wide column: a line within the limit never wraps on a
             laptop. On a phone every longer line wraps, its indentation kept
             (_static/code.css). Split the line, or put a trailing comment on the line above.
edition      Every page links to the same page in the other edition (scripts/editions.py,
             edition_link), and that page exists. A page of the Chinese edition (zh/) says
             lang="zh-CN", and its title, its exercises' and solutions' titles and the
             sidebar's part captions are Chinese: each holds a CJK character. Every section
             of a page has the same id in both editions, so that the switch link's #hash
             (_static/edition-switch.js) leads to it.
emphasis     On a page of the Chinese edition, every emphasis (<em>) holding a CJK character
             has the class zh-emphasis (scripts/editions.py, ChineseEmphasis), which
             _static/editions.css sets upright with 着重号: Chinese fonts have no italic.
icon         Each edition's index.html, which only forwards the reader to the first page,
             names the book's icon (<link rel="icon">, scripts/site_extras.py): without it
             the browser asks for a /favicon.ico the site lacks, a 404 in the console.
machine-path No page shows where the book was built: the repository's own absolute path
             (an API signature's default `path=PosixPath('/home/…/chapters/data/…')`).
link         Every link of a page to another page of the site (or to a file in it) leads to
             a page that exists, and a link with a #fragment to an element with that id
             (or an <a name>) on that page.
struck       No page's article holds an <s> element: the book never strikes text through,
             and a token such as <s> written bare in markdown becomes one, hiding the token
             and striking out the text after it. Write the token as inline code (`<s>`).
table-words  On a page of the Chinese edition, every column header of a table
             (``illustrated.draw.table``: the column labels and the axes' names, the
             <thead> of a pandas table) is in Chinese: no English word of three letters or
             more but names and symbols that read the same in both editions
             (``SAME_IN_TABLES``), code (with ``_``, ``.`` or a leading ``--``) and maths.
licence      Every page's footer says the licence, linking to each: the code's (MIT), the
             text's and figures' (CC BY-SA 4.0), as _config.yml's `html: extra_footer:`
             writes it; on a page of the Chinese edition, in Chinese (scripts/editions.py,
             ZH_FOOTER).
theme-words  On a page of the Chinese edition, no tooltip or placeholder of the theme's
             (outside the article) is English: "Toggle primary sidebar", "Color mode",
             "Search this book...", nor the headings' "Link to this heading"
             (scripts/theme_words.py).
"""
from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlparse

import lxml.html

from tests.site.built import ROOT, ZH

API_PAGE = "appendix/api.html"
API_SOURCE = ROOT / "appendix" / "api.md"
QUOTES = "'\"‘’“”"
RAW_RST = re.compile(r"\.\. (?:py:\w+|auto\w+)::|:param \w|:returns?:|:rtype:")
TABLE_BORDER = re.compile(r"={5,}")
AUTOMODULE = re.compile(r"^\s*(?:\.\. automodule::|```\{automodule\})\s*(\S+)", re.M)
EXERCISES = re.compile(r"^(?:[\d.]+\s*)?Exercises$")
COLUMN = 107  # characters of code in the article's column at a 1280-px window
CODE_LINE = 100  # the longest source line allowed: no wrap from 1200 px up (layout.css)
CJK = re.compile("[\u4e00-\u9fff]")
ZH_EMPHASIS = "zh-emphasis"  # scripts/editions.py, ChineseEmphasis
GENERATED = {"genindex.html", "py-modindex.html", "search.html"}  # Sphinx's, no article
# The licences every page's footer links to (rel="license"), by a part of their address.
LICENCES = {"MIT": "opensource.org/license/mit",
            "CC BY-SA 4.0": "creativecommons.org/licenses/by-sa/4.0/"}
# A section's id, in the HTML Sphinx writes (<section id="the-padding-mask">).
SECTION_ID = re.compile(r'<section id="([^"]+)"')


def parse(html: str):
    """A page as lxml's tree (its <html> element): read with XPath, as the rules do."""
    return lxml.html.document_fromstring(html)


def has(name: str) -> str:
    """An XPath test: the element's class attribute holds ``name``."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


def words(el) -> str:
    """An element's text, its runs of white space one space."""
    return " ".join(el.text_content().split())


def page_text(doc) -> str:
    """The text a reader sees: no scripts or styles (comments are never text)."""
    return "\n".join(doc.xpath("//body//text()[not(ancestor::script) and not(ancestor::style)]"))


def first_lines(lines: list[str], shown: int = 5) -> list[str]:
    """The first ``shown`` of ``lines``, then how many more there are."""
    more = [f"... and {len(lines) - shown} more"] if len(lines) > shown else []
    return lines[:shown] + more


# ---------------------------------------------------------------- raw-rst
def raw_rst(page: str, doc) -> list[str]:
    return first_lines([line.strip()[:100] for line in page_text(doc).splitlines()
                        if RAW_RST.search(line)
                        or (page == API_PAGE and TABLE_BORDER.search(line))])


# ---------------------------------------------------------------- api
def api_modules(source: str) -> list[str]:
    """Modules the API page's source documents with automodule, in order."""
    return AUTOMODULE.findall(source)


def public_names(module) -> list[str]:
    """``__all__`` if the module has one, else the functions and classes it defines."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [name for name, obj in vars(module).items()
            if not name.startswith("_") and (inspect.isfunction(obj) or inspect.isclass(obj))
            and obj.__module__ == module.__name__]


def expected_api(source: str) -> list[str]:
    """``module.name`` for every public name of every module the page's ``source`` lists."""
    return [f"{module}.{name}" for module in api_modules(source)
            for name in public_names(importlib.import_module(module))]


def rendered_signatures(doc) -> set[str]:
    return set(doc.xpath(f"//dt[{has('sig')}]/@id"))


# ---------------------------------------------------------------- glue
def pasted_values(doc) -> list:
    """Elements MyST-NB pasted from a `glue`: inline roles (`{glue}`, `{glue:text}`) render
    as span.output / span.pasted-text; a `{glue}` block renders as .output outside a cell."""
    return doc.xpath(f"//span[{has('pasted-text')} or {has('output')}]"
                     f" | //div[{has('output')} and not(ancestor::div[{has('cell')}])]")


def shorten(context: str, text: str, width: int = 40) -> str:
    """``context`` cut to ``width`` characters either side of ``text``."""
    context = " ".join(context.split())
    at = context.find(text)
    if at < 0:
        return context[: 2 * width]
    start, end = max(0, at - width), at + len(text) + width
    return ("…" if start else "") + context[start:end] + ("…" if end < len(context) else "")


def glue_quotes(doc) -> list[str]:
    found = []
    for el in pasted_values(doc):
        text = el.text_content().strip()
        if len(text) >= 2 and text[0] in QUOTES and text[-1] in QUOTES:
            context = words(el.getparent()) if el.getparent() is not None else ""
            found.append(f"pasted {text} in \"{shorten(context, text)}\"")
    return found


# ---------------------------------------------------------------- solutions
def first_source_line(cell) -> str:
    code = cell.xpath(f".//div[{has('cell_input')}]//pre")
    lines = [line for line in (code[0].text_content() if code else "").splitlines()
             if line.strip()]
    return lines[0].strip() if lines else "(a cell whose source is not shown)"


def open_solutions(doc) -> list[str]:
    found = []
    for solution in doc.xpath(f"//div[{has('solution')} and not({has('dropdown')})]"):
        title = solution.xpath(f".//*[{has('admonition-title')}]")
        name = words(title[0]) if title else "a solution"
        found.append(f"\"{name}\" is not a dropdown (add `:class: dropdown`)")
    headings = [h for h in doc.xpath("//h1 | //h2 | //h3")
                if EXERCISES.match(" ".join(words(h).replace("#", " ").split()))]
    cells = headings[0].xpath(f"following::div[{has('cell')}]") if headings else []
    for cell in cells:
        if not cell.xpath(f"ancestor::div[{has('solution')} and {has('dropdown')}]"):
            found.append("code cell after Exercises outside a closed solution: "
                         f"{first_source_line(cell)}")
    return found


# ---------------------------------------------------------------- code width
def long_code_lines(doc, limit: int = CODE_LINE) -> list[str]:
    """Source lines of code cells longer than ``limit`` characters."""
    return first_lines([f"{len(line)} characters (the limit is {limit}): {line.strip()[:70]}…"
                        for pre in doc.xpath(f"//div[{has('cell_input')}]//pre")
                        for line in pre.text_content().splitlines() if len(line) > limit])


def empty_outputs(doc) -> list[str]:
    """Output boxes of code cells that show nothing (a printed piece that is only a newline:
    a kernel can flush a cell's lines in pieces; ``nb_merge_streams`` joins them)."""
    return first_lines([f"an empty output box after the cell starting {first_source_line(cell)!r}"
                        for cell in doc.xpath(f"//div[{has('cell')}]")
                        for pre in cell.xpath(f".//div[{has('cell_output')}]//pre")
                        if not pre.text_content().strip()])


# ---------------------------------------------------------------- editions
def edition_switch(page: str, doc, site: Path) -> list[str]:
    """The link to the same page in the other edition, and that page."""
    if page.removeprefix(ZH) in GENERATED:
        return []
    switch = doc.xpath(f"//p[{has('edition-switch')}]//a/@href")
    if not switch:
        return ["no link to the other edition"]
    if not ((site / page).parent / switch[0]).resolve().is_file():
        return [f"its link {switch[0]} leads to no page"]
    return []


def untranslated(doc) -> list[str]:
    """What a page of the Chinese edition shows in English: its language, its title, its
    exercises' and solutions' titles, the sidebar's captions."""
    found = [] if doc.get("lang") == "zh-CN" else [f"lang={doc.get('lang')!r}, not 'zh-CN'"]
    texts = [("title", words(h1)) for h1 in doc.xpath("//article//h1")[:1]]
    texts += [("exercise title", words(t)) for t in doc.xpath(
        f"//*[{has('exercise')} or {has('solution')}]//p[{has('admonition-title')}]")]
    texts += [("sidebar caption", words(c)) for c in doc.xpath(
        f"//*[{has('bd-sidebar-primary')}]//p[{has('caption')}]")]
    return found + [f"{what} not translated: {text[:60]!r}"
                    for what, text in texts if not CJK.search(text)]


def italic_chinese(doc) -> list[str]:
    """Emphases on Chinese text left in italics (without ``ZH_EMPHASIS``)."""
    return first_lines([f"<em>{words(em)[:40]}</em> is set in italics, not as {ZH_EMPHASIS} "
                        "(着重号)" for em in doc.xpath(f"//em[not({has(ZH_EMPHASIS)})]")
                        if CJK.search(em.text_content())])


def section_ids(html: str) -> list[str]:
    """The ids of the sections of one built page, in order."""
    return SECTION_ID.findall(html)


# ---------------------------------------------------------------- machine-path
def machine_path(html: str, root: Path = ROOT) -> list[str]:
    """The repository's absolute path, where the page's HTML holds it."""
    where = html.find(str(root))
    if where < 0:
        return []
    context = re.sub(r"<[^>]+>", "", html[max(0, where - 120):where + 60])
    return [f"the build machine's path {root} is on the page ({html.count(str(root))} "
            f"time(s)): …{' '.join(context.split())[-110:]}"]


# ---------------------------------------------------------------- link
def link_target(href: str, page: str) -> tuple[str, str] | None:
    """(path, fragment) an internal ``href`` on ``page`` leads to, relative to the site's
    root; None for links off the site (another scheme or host, mail, javascript)."""
    parsed = urlparse(href)
    if parsed.scheme or parsed.netloc or href.startswith(("mailto:", "javascript:")):
        return None
    url, fragment = urldefrag(urljoin("/" + page, href))
    path = unquote(urlparse(url).path).lstrip("/") or "index.html"
    return (path + "index.html" if path.endswith("/") else path), unquote(fragment)


def anchors(doc) -> set[str]:
    """What a #fragment may name on a page: ids, and the names of <a name>."""
    return set(doc.xpath("//@id")) | set(doc.xpath("//a/@name"))


def broken_links(page: str, doc, site: Path, anchors_of) -> list[str]:
    """Links of ``page`` to a missing page or file, or to a fragment its page lacks;
    ``anchors_of(path)`` gives the anchors of another page of the site."""
    found = []
    for href in sorted(set(doc.xpath("//a/@href"))):
        target = link_target(href, page)
        if target is None:
            continue
        path, fragment = target
        if not (site / path).is_file():
            found.append(f"{href} -> no file {path}")
        elif fragment and path.endswith(".html") and fragment not in anchors_of(path):
            found.append(f"{href} -> {path} has no anchor #{fragment}")
    return found


# ---------------------------------------------------------------- struck
def struck_text(doc) -> list[str]:
    """<s> elements of the page's article, each with the text it strikes through."""
    found = []
    for el in doc.xpath("//article//s"):
        text = words(el)
        found.append(f"<s> strikes through \"{text[:50]}{'…' if len(text) > 50 else ''}\": "
                     "a token such as <s> written bare in markdown? Write it as inline code")
    return first_lines(found)


# ---------------------------------------------------------------- table-words
#: Words a Chinese table header keeps as they are: names of metrics, models, functions and
#: people, and maths.
SAME_IN_TABLES = {"BLEU", "chrF", "sacreBLEU", "RNN", "LSTM", "tanh", "addmm", "bmm", "True",
                  "Bob", "Cesus", "Bylan", "Xavier", "sin", "cos", "Var", "dropout", "FLOPs",
                  "GPT-2 small", "CPU", "RoPE", "RMSNorm", "SwiGLU", "GQA"}
_CODE = re.compile(r"--\S+(?: \w+)?|\S*[_.]\S*")  # --preset laptop, d_model, nn.RNN
_ENGLISH = re.compile(r"[A-Za-z]{3,}")


def english_table_headers(page: str, doc) -> list[str]:
    """Column headers of the tables on a Chinese ``page`` that are English words."""
    if not page.startswith(ZH):
        return []
    found = []
    for table in doc.xpath(f"//article//table[{has('dataframe')}]"):
        for th in table.xpath("./thead//th"):
            text = words(th)
            for same in sorted(SAME_IN_TABLES, key=len, reverse=True):
                text = text.replace(same, "")
            left = _ENGLISH.findall(_CODE.sub("", text))
            if left:
                found.append(f"table header {words(th)!r} is English on a Chinese page: "
                             "show the table with draw.table() and put its words in "
                             "illustrated/draw/locale/zh_CN/tables.po")
    return first_lines(found)


# ---------------------------------------------------------------- licence
def licence_footer(page: str, doc) -> list[str]:
    """What the footer's licence (the theme's extra_footer) lacks on ``page``."""
    footer = doc.xpath(f"//footer//*[{has('extra_footer')}]")
    if not footer:
        return ["no licence in the footer (_config.yml, html: extra_footer:)"]
    links = footer[0].xpath(".//a[@rel='license']/@href")
    found = [f"the footer does not link to the {name} licence ({address})"
             for name, address in LICENCES.items() if not any(address in h for h in links)]
    if page.startswith(ZH) and not CJK.search(words(footer[0])):
        found.append(f"the footer says the licence in English: {words(footer[0])[:60]!r}")
    return found


# ---------------------------------------------------------------- theme-words
# What the theme writes around the article: its buttons' tooltips, the search box's text.
THEME_WORDS = ("title", "data-bs-title", "placeholder")


def english_theme_words(doc) -> list[str]:
    """On a page of the Chinese edition, the tooltips (``title``, ``data-bs-title``) and
    placeholders outside the article, and the tooltips of its headings' links (¶), that are
    English: Latin letters and no CJK character (scripts/theme_words.py translates them)."""
    found = []
    for attribute in THEME_WORDS:
        for el in doc.xpath(f"//body//*[@{attribute}][not(ancestor-or-self::article) "
                            f"or self::a[{has('headerlink')}]]"):  # ¶ of a heading, term, ...
            value = el.get(attribute)
            if re.search("[A-Za-z]", value) and not CJK.search(value):
                found.append(f'<{el.tag} {attribute}="{value}">')
    return first_lines(sorted(set(found)), shown=10)
