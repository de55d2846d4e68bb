"""Static checks of the built website, run by `make book-check` after the strict build.

    python scripts/check_site.py [HTML_DIR]    # default: _build/check/html, the strict build's

A strict Sphinx build catches broken references, not pages that build cleanly and read
wrongly. Rules, each named in its messages:

api          The API page (appendix/api.html) renders, for every module it lists with
             `automodule`, a signature (a `dt.sig` with the object's full name as id) for
             each public name: the module's `__all__`, or else every function and class it
             defines whose name has no leading underscore.
raw-rst      No page shows reStructuredText as text (`.. py:class::`, `:param x:`, ...),
             which is what autodoc output looks like when it is parsed as Markdown; on the
             API page, no `=====` table borders either.
glue-quotes  No glued value reads as a quoted string (‘7’, '44,304'): gluing a Python str
             pastes its repr. Glue the number, or format it in the markdown.
solutions    After a page's "Exercises" heading every code cell sits inside a solution,
             and every solution is a dropdown, so a closed solution hides its code and
             output (the gated form, `{solution-start}` ... `{solution-end}`).
code-width   No line of a code cell's source is longer than CODE_LINE (100) characters,
             the package's own line length. The column holds COLUMN (107) characters at
             the browser check's 1280-px window (a 906-px code box inside its padding,
             8.43 px per character of the 14-px monospace; _static/layout.css makes the
             page's contents a drawer below 1600 px, the theme's sidebar left 75), 99 at
             1200 px, the narrowest window with the wide column: a line within the limit
             never wraps on a laptop. On a phone every longer line wraps, its indentation
             kept (_static/code.css). Split the line, or put a trailing comment on the
             line above.
edition      Every page links to the same page in the other edition (scripts/editions.py,
             edition_link), and that page exists. A page of the Chinese edition (zh/) says
             lang="zh-CN", and its title, its exercises' and solutions' titles and the
             sidebar's part captions are Chinese: each holds a CJK character (the ways the
             English once came through: a caption, an exercise title, untranslated).
emphasis     On a page of the Chinese edition, every emphasis (<em>) holding a CJK character
             has the class zh-emphasis (scripts/editions.py, ChineseEmphasis), which
             _static/editions.css sets upright with 着重号: Chinese fonts have no italic.
icon         Each edition's index.html, which only forwards the reader to the first page,
             names the book's icon (<link rel="icon">, scripts/site_extras.py): without it
             the browser asks for a /favicon.ico the site lacks, a 404 in the console.
machine-path No page shows where the book was built: the repository's own absolute path
             (an API signature's default `path=PosixPath('/home/…/chapters/data/…')`, a
             constant's value). _config.yml keeps defaults as the source writes them
             (autodoc_preserve_defaults) and scripts/autodoc_constants.py shows a path
             constant from the repository's root.

Every offender is printed as `page: rule: detail`, then a summary; the exit code is 1 if
there is any. Run from the repository's root: the API rule imports `illustrated` from it.
"""
import argparse
import importlib
import inspect
import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup

sys.path.insert(0, str(Path(__file__).resolve().parent))  # imported from tests too
from check_browser import html_pages  # noqa: E402  the same pages as the browser check

ROOT = Path(__file__).resolve().parent.parent
API_PAGE = "appendix/api.html"
API_SOURCE = ROOT / "appendix" / "api.md"
QUOTES = "'\"‘’“”"
RAW_RST = re.compile(r"\.\. (?:py:\w+|auto\w+)::|:param \w|:returns?:|:rtype:")
TABLE_BORDER = re.compile(r"={5,}")
AUTOMODULE = re.compile(r"^\s*(?:\.\. automodule::|```\{automodule\})\s*(\S+)", re.M)
EXERCISES = re.compile(r"^(?:[\d.]+\s*)?Exercises$")
COLUMN = 107  # characters of code in the article's column at a 1280-px window
CODE_LINE = 100  # the longest source line allowed: no wrap from 1200 px up (layout.css)
ZH = "zh/"  # the Chinese edition's folder in the site (scripts/build_book.py ZH)
CJK = re.compile("[\u4e00-\u9fff]")
ZH_EMPHASIS = "zh-emphasis"  # scripts/editions.py, ChineseEmphasis


def soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


def page_text(doc: BeautifulSoup) -> str:
    """The text a reader sees: no scripts or styles (comments are never text)."""
    body = doc.body or doc
    for tag in body.find_all(["script", "style"]):
        tag.decompose()
    return body.get_text("\n")


def check_raw_rst(page: str, doc: BeautifulSoup, shown: int = 5) -> list[str]:
    """The first ``shown`` raw lines of a page, then how many more there are."""
    lines = [
        line.strip() for line in page_text(doc).splitlines()
        if RAW_RST.search(line) or (page == API_PAGE and TABLE_BORDER.search(line))
    ]
    problems = [f"{page}: raw-rst: {line[:100]}" for line in lines[:shown]]
    if len(lines) > shown:
        problems.append(f"{page}: raw-rst: ... and {len(lines) - shown} more such lines")
    return problems


# ---------------------------------------------------------------- api
def api_modules(source: str) -> list[str]:
    """Modules the API page's source documents with automodule, in order."""
    return AUTOMODULE.findall(source)


def public_names(module) -> list[str]:
    """``__all__`` if the module has one, else the functions and classes it defines."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [
        name for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and obj.__module__ == module.__name__
    ]


def check_api(page: str, doc: BeautifulSoup, expected: dict[str, list[str]]) -> list[str]:
    """``expected`` maps each module on the page to its public names."""
    if not expected:
        return [f"{page}: api: the page's source documents no module with automodule"]
    rendered = {dt.get("id") for dt in doc.select("dt.sig") if dt.get("id")}
    return [
        f"{page}: api: no rendered signature for {module}.{name}"
        for module, names in expected.items()
        for name in names
        if f"{module}.{name}" not in rendered
    ]


def expected_api(source: str) -> dict[str, list[str]]:
    if str(ROOT) not in sys.path[:1]:
        sys.path.insert(0, str(ROOT))  # this checkout's package, not another install
    return {name: public_names(importlib.import_module(name)) for name in api_modules(source)}


# ---------------------------------------------------------------- glue
def pasted_values(doc: BeautifulSoup) -> list:
    """Elements MyST-NB pasted from a `glue`: inline roles (`{glue}`, `{glue:text}`) render
    as span.output / span.pasted-text; a `{glue}` block renders as .output outside a cell."""
    inline = doc.select("span.pasted-text, span.output")
    blocks = [el for el in doc.select("div.output") if not el.find_parent("div", class_="cell")]
    return inline + blocks


def check_glue_quotes(page: str, doc: BeautifulSoup) -> list[str]:
    problems = []
    for el in pasted_values(doc):
        text = el.get_text().strip()
        if len(text) >= 2 and text[0] in QUOTES and text[-1] in QUOTES:
            context = el.parent.get_text(" ", strip=True) if el.parent else ""
            problems.append(f"{page}: glue-quotes: pasted {text} in \"{shorten(context, text)}\"")
    return problems


def shorten(context: str, text: str, width: int = 40) -> str:
    """``context`` cut to ``width`` characters either side of ``text``."""
    context = " ".join(context.split())
    at = context.find(text)
    if at < 0:
        return context[: 2 * width]
    start, end = max(0, at - width), at + len(text) + width
    return ("…" if start else "") + context[start:end] + ("…" if end < len(context) else "")


# ---------------------------------------------------------------- solutions
def heading_text(h) -> str:
    return " ".join(h.get_text(" ", strip=True).replace("#", " ").split())


def first_source_line(cell) -> str:
    code = cell.select_one("div.cell_input pre")
    lines = [line for line in (code.get_text() if code else "").splitlines() if line.strip()]
    return lines[0].strip() if lines else "(a cell whose source is not shown)"


def check_solutions(page: str, doc: BeautifulSoup) -> list[str]:
    problems = []
    for solution in doc.select("div.solution"):
        if "dropdown" not in solution.get("class", []):
            title = solution.select_one(".admonition-title")
            name = title.get_text(" ", strip=True) if title else "a solution"
            problems.append(f"{page}: solutions: \"{name}\" is not a dropdown "
                            "(add `:class: dropdown`)")
    headings = [h for h in doc.find_all(["h1", "h2", "h3"]) if EXERCISES.match(heading_text(h))]
    if not headings:
        return problems
    for cell in headings[0].find_all_next("div", class_="cell"):
        box = cell.find_parent("div", class_="solution")
        if box is None or "dropdown" not in box.get("class", []):
            problems.append(f"{page}: solutions: code cell after Exercises outside a closed "
                            f"solution: {first_source_line(cell)}")
    return problems


# ---------------------------------------------------------------- code width
def check_code_width(page: str, doc: BeautifulSoup, limit: int = CODE_LINE,
                     shown: int = 5) -> list[str]:
    """Source lines of code cells longer than ``limit`` characters: the first ``shown``,
    then how many more."""
    long = [line for pre in doc.select("div.cell_input pre")
            for line in pre.get_text().splitlines() if len(line) > limit]
    problems = [f"{page}: code-width: {len(line)} characters (the limit is {limit}): "
                f"{line.strip()[:70]}…" for line in long[:shown]]
    if len(long) > shown:
        problems.append(f"{page}: code-width: ... and {len(long) - shown} more such lines")
    return problems


GENERATED = {"genindex.html", "py-modindex.html", "search.html"}  # Sphinx's, no article


def check_edition(page: str, doc: BeautifulSoup, html_dir: Path) -> list[str]:
    if page.removeprefix(ZH) in GENERATED:
        return []
    problems = []
    switch = doc.select_one("p.edition-switch a[href]")
    if switch is None:
        problems.append(f"{page}: edition: no link to the other edition")
    else:
        target = (html_dir / page).parent / switch["href"]
        if not target.resolve().is_file():
            problems.append(f"{page}: edition: its link {switch['href']} leads to no page")
    if not page.startswith(ZH):
        return problems
    if doc.html.get("lang") != "zh-CN":
        problems.append(f"{page}: edition: lang={doc.html.get('lang')!r}, not 'zh-CN'")
    texts = [("title", h1.get_text(" ", strip=True)) for h1 in doc.select("article h1")[:1]]
    texts += [("exercise title", t.get_text(" ", strip=True))
              for t in doc.select(".exercise p.admonition-title, .solution p.admonition-title")]
    texts += [("sidebar caption", c.get_text(" ", strip=True))
              for c in doc.select(".bd-sidebar-primary p.caption")]
    problems += [f"{page}: edition: {what} not translated: {text[:60]!r}"
                 for what, text in texts if not CJK.search(text)]
    return problems


def check_emphasis(page: str, doc: BeautifulSoup, shown: int = 5) -> list[str]:
    """Emphases on Chinese text of a Chinese page left in italics (without ``ZH_EMPHASIS``):
    the first ``shown``, then how many more."""
    if not page.startswith(ZH):
        return []
    italic = [em.get_text(" ", strip=True) for em in doc.find_all("em")
              if CJK.search(em.get_text()) and ZH_EMPHASIS not in (em.get("class") or [])]
    problems = [f"{page}: emphasis: <em>{text[:40]}</em> is set in italics, not as "
                f"{ZH_EMPHASIS} (着重号)" for text in italic[:shown]]
    if len(italic) > shown:
        problems.append(f"{page}: emphasis: ... and {len(italic) - shown} more such emphases")
    return problems


def check_machine_path(page: str, text: str, root: Path = ROOT) -> list[str]:
    """The ``machine-path`` rule: the page's HTML never holds the repository's absolute path."""
    where = text.find(str(root))
    if where < 0:
        return []
    context = re.sub(r"<[^>]+>", "", text[max(0, where - 120):where + 60])
    return [f"{page}: machine-path: the build machine's path {root} is on the page "
            f"({text.count(str(root))} time(s)): …{context.strip()[-110:]}"]


# ---------------------------------------------------------------- main
def check_redirect_icons(html_dir: Path) -> list[str]:
    """The ``icon`` rule, on both editions' index.html (the redirects html_pages leaves out)."""
    problems = []
    for page in ("index.html", "zh/index.html"):
        path = html_dir / page
        if path.is_file() and not soup(path.read_text(encoding="utf-8")).select('link[rel~="icon"]'):
            problems.append(f"{page}: icon: no <link rel=\"icon\">: the browser will ask for "
                            f"/favicon.ico, which the site lacks (a 404 in the console)")
    return problems


def check_site(html_dir: Path, api_source: str | None = None) -> list[str]:
    # The same pages as the browser check: not index.html, which only redirects to the
    # first page, nor the theme's files in _static/.
    pages = html_pages(html_dir) if html_dir.is_dir() else []
    if not pages:
        return [f"{html_dir}: no HTML pages: build the book first (make book-check)"]
    problems = []
    for page in pages:
        text = (html_dir / page).read_text(encoding="utf-8")
        problems += check_machine_path(page, text)
        doc = soup(text)
        problems += check_glue_quotes(page, doc)
        problems += check_solutions(page, doc)
        problems += check_code_width(page, doc)
        problems += check_edition(page, doc, html_dir)
        problems += check_emphasis(page, doc)
        if page == API_PAGE:
            source = api_source
            if source is None:
                source = API_SOURCE.read_text(encoding="utf-8")
            problems += check_api(page, doc, expected_api(source))
        problems += check_raw_rst(page, doc)  # last: it strips scripts from doc
    problems += check_redirect_icons(html_dir)
    if not (html_dir / API_PAGE).is_file():
        problems.append(f"{API_PAGE}: api: the page was not built")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description="Static checks of the built website.")
    parser.add_argument("html_dir", nargs="?", type=Path, default=ROOT / "_build" / "check" / "html",
                        help="the built site (default: the strict build's, _build/check/html; "
                        "make book's is _build/html)")
    html_dir = parser.parse_args().html_dir
    problems = check_site(html_dir)
    for problem in problems:
        print(problem)
    pages = len(html_pages(html_dir)) if html_dir.is_dir() else 0
    if problems:
        print(f"Site checks: {len(problems)} problem(s) in {html_dir} "
              "(rules: see scripts/check_site.py).")
        return 1
    print(f"Site checks (API page, raw rST, glued quotes, closed solutions, code width, editions, "
          f"Chinese emphasis, icons, machine paths): {pages} pages (index.html only redirects), 0 problems.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
