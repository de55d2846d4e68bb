"""Regenerate ``illustrated/draw/fonts/wqy-microhei-subset.ttf``, the small CJK font of the figures.

Why: chapter 3 labels rows with Chinese characters (人, 工, 智, 能). matplotlib's default
font, DejaVu Sans, has no CJK glyphs, so it would draw empty boxes and warn "Glyph ...
missing". ``illustrated.draw`` instead draws every text that contains CJK characters with
this file, set per text (``FontProperties(fname=...)``), never through global settings.
The full font is about 5 MB; the package ships a subset of it: printable ASCII,
Latin-1 (so "étudiant" or "×" work in the same label) and the characters listed below.

The source is WenQuanYi Micro Hei (Apache-2.0, from Debian's ``fonts-wqy-microhei``).
Droid Sans Fallback, the other obvious candidate, has no ASCII glyphs, so a label mixing
"人" and "(person)" would still miss glyphs.

To add characters:

1. ``apt-get install -y fonts-wqy-microhei`` (Debian/Ubuntu);
2. add them to ``CHARACTERS`` below;
3. run ``python scripts/subset_font.py`` from the repository root
   (``--source PATH`` picks another copy of ``wqy-microhei.ttc``);
4. check the printed size (keep it well under 200 kB) and commit the new ``.ttf``.

The figures' words on the Chinese edition come from the package's catalogues,
``illustrated/draw/locale/**/*.po`` (``FIGURE_CATALOGUES``): every character of their
translations is kept too (``figure_characters()``), so a Chinese title, axis label or
control ("log₁₀ τ") never misses a glyph.

The same run writes the website's web font, ``_static/fonts/wqy-microhei-web.woff2``
(WOFF2: fontTools compresses it with ``brotli``, both pinned in requirements.txt): every
CJK character an English page can show (``english_characters()``): the site's sources
(``site_characters()``: the pages' Markdown and notebooks, outputs included, the
package's docstrings shown on the API page, and ``CHARACTERS``), the link to the Chinese
edition at the top of every page ("阅读本页的中文版", taken from scripts/editions.py), the
pages' scripts (``SCRIPTS``: the live translator's messages, the explorers').
Its figures and explorers speak English. ``_static/cjk.css``
declares it as the family "WQY Web" for CJK code points only (``unicode-range``), so body
text, headings and MathJax's text in Chinese render on a machine without any CJK font.
``tests/scripts/test_web_font.py`` fails when a page uses a character the committed web
font lacks: rerun this script.

The Chinese edition uses a thousand characters more; it gets a font of its own,
``_static/fonts/wqy-microhei-web-zh.woff2`` (``edition_characters()``: the English pages',
every translation in ``locales/zh_CN/``, the Chinese pages' switch link and footer
(scripts/editions.py), the figures' and
explorers' words (their catalogues: the explorers are drawn in the page's font; the
Chinese alt texts the notebooks keep), and the Chinese of the words Sphinx, the theme and the extensions write on a Chinese page: "搜索",
"上一页" ...). scripts/editions.py serves it to
the Chinese pages under the English font's name, so cjk.css is the same for both.

The full font never comes from the network: install the Debian package, or extract it
without installing it system-wide
(``apt-get download fonts-wqy-microhei && dpkg-deb -x fonts-wqy-microhei_*.deb DIR``,
then ``--source DIR/usr/share/fonts/truetype/wqy/wqy-microhei.ttc``).
"""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from fontTools import subset

ROOT = Path(__file__).resolve().parent.parent
SOURCE = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
TARGET = ROOT / "illustrated" / "draw" / "fonts" / "wqy-microhei-subset.ttf"
WEB_TARGET = ROOT / "_static" / "fonts" / "wqy-microhei-web.woff2"
ZH_WEB_TARGET = ROOT / "_static" / "fonts" / "wqy-microhei-web-zh.woff2"
# The Chinese edition's translations, and the catalogues of the words that Sphinx, the
# theme and the extensions write on a Chinese page (in the installed packages; the copy
# button keeps its words in its script).
ZH_CATALOGUES = "locales/zh_CN/**/*.po"
# The book's scripts the pages load, with the words they write (the live translator's
# messages in both languages, the explorers'): both editions' fonts keep their characters.
# Not _static/vendor/ (vega, copied from node_modules by a build, not the book's words).
SCRIPTS = ("_static/*.js", "_static/live/*.js", "_static/live/*.mjs")
# The figures' and explorers' words in other languages (illustrated.draw.words reads them).
FIGURE_CATALOGUES = "illustrated/draw/locale/**/*.po"
# Of those, the words that matplotlib draws into the figures' PNGs with the package's font
# (the explorers' words, explorers.po, are drawn by the browser in the page's fonts).
DRAWN_CATALOGUES = "illustrated/draw/locale/**/draw.po"
UI_CATALOGUES = ("sphinx/locale/zh_CN/LC_MESSAGES/*.po",
                 "sphinx_book_theme/**/zh_CN/LC_MESSAGES/*.po",
                 "pydata_sphinx_theme/locale/zh/LC_MESSAGES/*.po",
                 "sphinx_exercise/**/zh_CN/LC_MESSAGES/*.po",
                 "sphinx_togglebutton/**/zh-cn/LC_MESSAGES/*.po",
                 # the copy button's tooltip ("复制到剪贴板"), in its script
                 "sphinx_copybutton/_static/copybutton.js_t")
# What counts as CJK: the same ranges as illustrated.draw.figure._CJK (CJK radicals to
# unified ideographs, compatibility ideographs, full-width forms), plus CJK punctuation.
CJK = re.compile("[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")
# The files whose text reaches the website (the API page shows the package's docstrings).
SITE_SOURCES = ("*.md", "chapters/**/*.md", "chapters/**/*.ipynb", "appendix/**/*.md",
                "appendix/**/*.ipynb", "glossary/**/*.md", "illustrated/**/*.py", "_toc.yml",
                "references.bib",
                "_config.yml")

# The CJK characters the book uses, plus a small glossary for exercises and captions.
CHARACTERS = (
    "人工智能"  # chapter 3: "artificial intelligence", one token per character
    "中文注意力机器学习翻译"  # Chinese, attention, machine learning, translation
    "我是学生你好世界的一个"  # "I am a student", "hello world", common particles
    "词向量编码解码器模型自输入输出查询键值头层位置"  # word, vector, encoder, decoder, ...
    "，。、：；？！（）《》“”‘’"  # full-width punctuation
)


def unicodes(root: Path = ROOT) -> list[int]:
    """Code points of the figures' font: printable ASCII, Latin-1, ``CHARACTERS`` and every
    character of the figures' translations (``figure_characters()``)."""
    kept = set(range(0x20, 0x7F)) | set(range(0xA0, 0x100)) | {ord(c) for c in CHARACTERS}
    return sorted(kept | {ord(c) for c in figure_characters(root, DRAWN_CATALOGUES)})


def figure_characters(root: Path = ROOT, pattern: str = FIGURE_CATALOGUES) -> set[str]:
    """Every character of the translations in the figures' catalogues (``pattern``): a
    Chinese figure text is drawn whole with the CJK font, its Greek letters, subscripts and
    digits included."""
    from babel.messages.pofile import read_po

    found = set()
    for path in root.glob(pattern):
        with path.open("rb") as po:
            for message in read_po(po):
                if not message.id:  # the header: about the catalogue, not a word drawn
                    continue
                strings = message.string if isinstance(message.string, tuple) else (
                    message.string,)
                found |= {c for text in strings if text for c in text if c.isprintable()}
    return found


def cjk_characters(text: str) -> set[str]:
    """The CJK characters of ``text``."""
    return set(CJK.findall(text))


def _strings(node, chinese: bool = False):
    """Every string inside a JSON value (a notebook: its sources and outputs). A figure's
    Chinese rendering (its output metadata's ``zh_CN``: alt text, words) is shown only by
    the Chinese edition: left out, or, with ``chinese``, the only strings kept."""
    if isinstance(node, str):
        if not chinese:
            yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "zh_CN":
                if chinese:
                    yield from _strings(value)
            else:
                yield from _strings(value, chinese)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value, chinese)


def source_text(path: Path, chinese: bool = False) -> str:
    """The text of one site source; a notebook's strings are decoded from its JSON (with
    ``chinese``: only its figures' Chinese words, see ``_strings``)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        return "\n".join(_strings(json.loads(text), chinese))
    return "" if chinese else text


def site_characters(root: Path = ROOT, chinese: bool = False) -> set[str]:
    """Every CJK character of the site's sources and of ``CHARACTERS`` (with ``chinese``:
    of the notebooks' Chinese figure words only)."""
    found = set() if chinese else cjk_characters(CHARACTERS)
    for pattern in SITE_SOURCES:
        for path in root.glob(pattern):
            if not any(part.startswith((".", "_build")) for part in path.relative_to(root).parts):
                found |= cjk_characters(source_text(path, chinese))
    return found


def switch_link(chinese: bool) -> str:
    """The link to the other edition at the top of every page of an edition: its text is
    scripts/editions.py's (``edition_link``), not a copy that could drift from it."""
    from editions import edition_link

    return edition_link("index", chinese)


def english_characters(root: Path = ROOT) -> set[str]:
    """Every CJK character an English page can show: the site's sources', the switch link's
    to the Chinese edition and the pages' scripts' (``SCRIPTS``). Its figures and explorers
    show English words: the figures' catalogues are the Chinese edition's."""
    found = site_characters(root) | cjk_characters(switch_link(chinese=False))
    for pattern in SCRIPTS:
        for path in root.glob(pattern):
            found |= cjk_characters(path.read_text(encoding="utf-8"))
    return found


def edition_characters(root: Path = ROOT) -> set[str]:
    """Every CJK character of the Chinese edition: the English pages' (``english_characters``),
    the translations', the Chinese pages' switch link and footer, the figures' and explorers'
    words (their catalogues, and the Chinese alt texts the notebooks keep) and the translated
    words of Sphinx, the theme and the extensions."""
    import sphinx

    from editions import ZH_FOOTER

    found = english_characters(root) | cjk_characters(switch_link(chinese=True))
    found |= cjk_characters(ZH_FOOTER)  # the licence at the foot of every Chinese page
    from theme_words import SEARCH_BOX, ZH  # the theme's tooltips, as scripts/theme_words.py
    found |= cjk_characters("".join(ZH.values()) + SEARCH_BOX)  # says them
    found |= cjk_characters("".join(figure_characters(root))) | site_characters(root, True)
    for path in root.glob(ZH_CATALOGUES):
        found |= cjk_characters(path.read_text(encoding="utf-8"))
    packages = Path(sphinx.__file__).resolve().parent.parent
    for pattern in UI_CATALOGUES:
        for path in packages.glob(pattern):
            found |= cjk_characters(path.read_text(encoding="utf-8"))
    return found


#: Full-width brackets as Chinese fonts set them: Micro Hei draws （ and ） near the middle of
#: their square, which leaves a gap inside the brackets ("（ 越低越好 ）"); a Chinese book's
#: opening bracket sits at the right of its square and the closing one at the left, next to
#: the text they enclose. (Code point: the side the ink moves to.)
BRACKETS = {0xFF08: "right", 0xFF09: "left"}
BRACKET_MARGIN = 0.05  # of the em: the space left between the ink and its side


def set_brackets(font) -> None:
    """Move the ink of the ``BRACKETS`` in ``font`` (a TrueType font) to their side of the
    square; their advance stays a full em, so the text does not move."""
    glyf, hmtx = font["glyf"], font["hmtx"]
    margin = round(BRACKET_MARGIN * font["head"].unitsPerEm)
    for code, side in BRACKETS.items():
        name = font.getBestCmap().get(code)
        if name is None:  # not among the subset's characters
            continue
        glyph = glyf[name]
        glyph.recalcBounds(glyf)
        advance, _ = hmtx[name]
        shift = advance - margin - glyph.xMax if side == "right" else margin - glyph.xMin
        glyph.coordinates.translate((shift, 0))
        glyph.recalcBounds(glyf)
        hmtx[name] = (advance, glyph.xMin)


def _subset(source: Path, codepoints, output: Path, flavor=None) -> None:
    """Save the glyphs of ``codepoints`` from ``source`` (face 0) to ``output``."""
    options = subset.Options()
    options.font_number = 0  # the .ttc holds Micro Hei (0) and Micro Hei Light (1)
    options.hinting = False  # hinting is for small screen sizes; the figures are raster
    options.layout_features = []  # no shaping features needed for isolated characters
    options.name_IDs = ["*"]  # keep the copyright and licence records
    options.notdef_outline = True
    options.drop_tables += ["FFTM"]  # FontForge timestamps, nothing to draw
    options.flavor = flavor
    font = subset.load_font(str(source), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(codepoints))
    subsetter.subset(font)
    set_brackets(font)
    output.parent.mkdir(parents=True, exist_ok=True)
    subset.save_font(font, str(output), options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SOURCE, help="wqy-microhei.ttc")
    parser.add_argument("--output", type=Path, default=TARGET)
    parser.add_argument("--web-output", type=Path, default=WEB_TARGET)
    args = parser.parse_args()
    if not args.source.exists():
        raise SystemExit(f"{args.source} not found: apt-get install -y fonts-wqy-microhei")
    _subset(args.source, unicodes(), args.output)
    print(f"wrote {args.output} ({args.output.stat().st_size / 1024:.0f} kB, "
          f"{len(unicodes())} characters)")
    web = {ord(c) for c in english_characters()}
    _subset(args.source, web, args.web_output, flavor="woff2")
    print(f"wrote {args.web_output} ({args.web_output.stat().st_size / 1024:.0f} kB, "
          f"{len(web)} CJK characters of the English edition)")
    zh = {ord(c) for c in edition_characters()}
    _subset(args.source, zh, ZH_WEB_TARGET, flavor="woff2")
    print(f"wrote {ZH_WEB_TARGET} ({ZH_WEB_TARGET.stat().st_size / 1024:.0f} kB, "
          f"{len(zh)} CJK characters of the Chinese edition)")


if __name__ == "__main__":
    main()
