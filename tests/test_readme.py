"""README.md stays what a newcomer reads in a screen or two: short, every link leading to a
file of the repository, every chapter in its table, and its picture one the book computes
(the PNG of a committed output of the notebook its comment names)."""
from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MAX_LINES = 120
# Markdown links and images, and the src of an <img>: the targets inside the repository.
LINK = re.compile(r"\]\(([^)\s]+)\)|\bsrc=\"([^\"]+)\"")
# <!-- docs/x.png: the figure "..." of chapters/NN_name.ipynb, ...
PICTURE = re.compile(r"<!--\s*(\S+\.png):.*?\bof\s+((?:chapters|appendix)/\S+\.ipynb)", re.S)


def local_links(text: str) -> list[str]:
    targets = [a or b for a, b in LINK.findall(text)]
    return [t.split("#")[0] for t in targets if not re.match(r"[a-z]+:", t) and t[0] != "#"]


def notebook_pictures(notebook: Path) -> list[bytes]:
    """The PNG images of a notebook's committed outputs."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [base64.b64decode(output["data"]["image/png"]) for cell in cells
            for output in cell.get("outputs", []) if "image/png" in output.get("data", {})]


def test_the_readme_fits_in_a_screen_or_two():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, (f"README.md has {len(lines)} lines, more than {MAX_LINES}: "
                                     "details belong in CONTRIBUTING.md")


def test_the_readmes_links_lead_to_files_of_the_repository():
    links = local_links(README.read_text(encoding="utf-8"))
    assert "CONTRIBUTING.md" in links and "LICENSE" in links
    missing = [link for link in links if not (ROOT / link).exists()]
    assert not missing, f"README.md links to what the repository lacks: {missing}"


def test_every_chapter_is_in_the_readmes_table():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    chapters = [c["file"] for part in toc["parts"] for c in part["chapters"]
                if c["file"].startswith("chapters/")]
    linked = {str(Path(link).with_suffix("")) for link in
              local_links(README.read_text(encoding="utf-8"))}
    missing = [c for c in chapters if c not in linked]
    assert chapters and not missing, f"README.md's table of chapters lacks {missing}"


def test_the_readmes_picture_is_a_figure_the_book_computes():
    found = PICTURE.search(README.read_text(encoding="utf-8"))
    assert found, "README.md's picture has no comment naming the notebook that draws it"
    picture, notebook = (ROOT / found.group(1)), ROOT / found.group(2)
    drawn = picture.read_bytes() in notebook_pictures(notebook)
    assert drawn, (
        f"{found.group(1)} is none of the figures of {found.group(2)}: copy the figure again "
        "from the notebook's committed output")
