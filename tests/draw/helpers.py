"""Data and inspection helpers shared by the tests of illustrated.draw."""
from __future__ import annotations

import io
import json
from pathlib import Path

import torch
from matplotlib.figure import Figure

CJK = list("人工智能")
ROOT = Path(__file__).resolve().parents[2]


def notebook_outputs():
    """``("<notebook> cell <i>", output)`` for every output of the committed notebooks."""
    for path in sorted((ROOT / "chapters").glob("*.ipynb")) + sorted(
            (ROOT / "appendix").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for i, cell in enumerate(cells):
            for output in cell.get("outputs", []):
                yield f"{path.relative_to(ROOT)} cell {i}", output


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def render(fig: Figure) -> None:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    assert buffer.getvalue().startswith(b"\x89PNG")


def texts(ax, gid=None) -> list[str]:
    return [t.get_text() for t in ax.texts if gid is None or t.get_gid() == gid]


def softmax_weights(*shape, seed=0) -> torch.Tensor:
    return torch.softmax(torch.randn(*shape, generator=gen(seed)) * 2, dim=-1)


def thinking_machines(seed=0):
    """The example of chapter 3: two words, D = 4, Dk = 3."""
    g = gen(seed)
    x = torch.randn(2, 4, generator=g)  # (L, D)
    w_q, w_k, w_v = (torch.randn(4, 3, generator=g) for _ in range(3))  # (D, Dk)
    return ["Thinking", "Machines"], x, w_q, w_k, w_v
