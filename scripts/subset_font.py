"""Regenerate ``illustrated/fonts/wqy-microhei-subset.ttf``, the small CJK font of the figures.

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
"""
from __future__ import annotations

import argparse
from pathlib import Path

from fontTools import subset

ROOT = Path(__file__).resolve().parent.parent
SOURCE = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
TARGET = ROOT / "illustrated" / "fonts" / "wqy-microhei-subset.ttf"

# The CJK characters the book uses, plus a small glossary for exercises and captions.
CHARACTERS = (
    "人工智能"  # chapter 3: "artificial intelligence", one token per character
    "中文注意力机器学习翻译"  # Chinese, attention, machine learning, translation
    "我是学生你好世界的一个"  # "I am a student", "hello world", common particles
    "词向量编码解码器模型自输入输出查询键值头层位置"  # word, vector, encoder, decoder, ...
    "，。、：；？！（）《》“”‘’"  # full-width punctuation
)


def unicodes() -> list[int]:
    """Code points kept: printable ASCII, Latin-1 and ``CHARACTERS``."""
    kept = set(range(0x20, 0x7F)) | set(range(0xA0, 0x100)) | {ord(c) for c in CHARACTERS}
    return sorted(kept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SOURCE, help="wqy-microhei.ttc")
    parser.add_argument("--output", type=Path, default=TARGET)
    args = parser.parse_args()
    if not args.source.exists():
        raise SystemExit(f"{args.source} not found: apt-get install -y fonts-wqy-microhei")
    options = subset.Options()
    options.font_number = 0  # the .ttc holds Micro Hei (0) and Micro Hei Light (1)
    options.hinting = False  # hinting is for small screen sizes; the figures are raster
    options.layout_features = []  # no shaping features needed for isolated characters
    options.name_IDs = ["*"]  # keep the copyright and licence records
    options.notdef_outline = True
    options.drop_tables += ["FFTM"]  # FontForge timestamps, nothing to draw
    font = subset.load_font(str(args.source), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=unicodes())
    subsetter.subset(font)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    subset.save_font(font, str(args.output), options)
    print(f"wrote {args.output} ({args.output.stat().st_size / 1024:.0f} kB, "
          f"{len(unicodes())} characters)")


if __name__ == "__main__":
    main()
