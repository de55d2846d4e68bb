"""The book's citations for JupyterLab: labextension/static/references.json.

    python scripts/lab_references.py           # write it (after editing references.bib)
    python scripts/lab_references.py --check   # exit 1 if it is not what references.bib gives

In the book a citation shows what sphinxcontrib-bibtex makes of references.bib with the
book's styles (_config.yml: author-year references, scripts/bib_styles.py labels):
{cite}`vaswani2017attention` is "[Vaswani et al., 2017]", {cite:label}`source004` is
"Source 004", and its tooltip is the bibliography entry. JupyterLab has no bibliography,
so the lab plugin (labextension/static/plugin.mjs) shows the same words from this file:
per key, the text of each citation role the chapters use and the entry as plain text.
"""
import argparse
import json
import sys
from pathlib import Path

from pybtex.database import parse_file
from pybtex.plugin import find_plugin, register_plugin
from sphinxcontrib.bibtex.style.referencing import format_references
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle
from sphinxcontrib.bibtex.style.template import SphinxReferenceInfo

from bib_styles import IllustratedStyle, ShorthandLabelStyle

ROOT = Path(__file__).resolve().parent.parent
BIB = ROOT / "references.bib"
OUT = ROOT / "labextension" / "static" / "references.json"
#: The citation roles the chapters use, and sphinxcontrib-bibtex's name of each ({cite} is
#: {cite:p}); the plugin shows any other as {cite}.
ROLES = {"cite": "p", "cite:label": "label", "cite:labelpar": "labelpar"}


def references(bib: Path = BIB) -> dict:
    """``{key: {"cite": "[Vaswani et al., 2017]", ..., "reference": "Ashish Vaswani, ..."}}``."""
    register_plugin("pybtex.style.labels", "shorthand", ShorthandLabelStyle, force=True)
    entries = parse_file(bib).entries
    formatted = {e.key: e for e in IllustratedStyle().format_entries(entries.values())}
    plaintext = find_plugin("pybtex.backends", "plaintext")()
    style = AuthorYearReferenceStyle()
    result = {}
    for key, entry in entries.items():
        info = SphinxReferenceInfo(builder=None, fromdocname="", todocname="",
                                   citation_id="", title=None, pre_text="", post_text="")
        shown = {role: str(format_references(style, name, [(entry, formatted[key], info)]))
                 for role, name in ROLES.items()}
        reference = formatted[key].text.render(plaintext).replace("\\url ", "")
        result[key] = {**shown, "reference": reference}
    return dict(sorted(result.items()))


def text(refs: dict) -> str:
    return json.dumps(refs, ensure_ascii=False, indent=1) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the file is not what references.bib gives")
    args = parser.parse_args()
    wanted = text(references())
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.is_file() else ""
        if current != wanted:
            print(f"{OUT.relative_to(ROOT)} is not what references.bib gives: "
                  "python scripts/lab_references.py writes it")
            return 1
        return 0
    OUT.write_text(wanted, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({len(json.loads(wanted))} references)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
