"""Tests for illustrated.draw as a whole: every public name is exported and documented,
each figure renders, functions with ``ax=`` draw into it, no module grows too long, and
importing or drawing changes no global state."""
from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from matplotlib.figure import Figure

from illustrated import draw

from .helpers import gen, softmax_weights, thinking_machines

PACKAGE = Path(draw.__file__).parent


# Modules whose public names are not figures: the editions' words, which the figures use and
# which is its own API (``illustrated.draw.words``, on the API page too), and what the figure
# modules share (``figure``, ``shapes``), public within the package only.
NOT_FIGURES = {"words", "figure", "shapes"}


def public_definitions() -> dict[str, list[str]]:
    """{public name: the modules of illustrated/draw/ that define it at top level}, but for
    the modules of ``NOT_FIGURES`` (which hold no figures), of which only the names draw
    exports count."""
    found = {}
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            else:
                continue
            for name in names:  # in NOT_FIGURES, only what draw exports (book_words)
                if not name.startswith("_") and (path.stem not in NOT_FIGURES
                                                 or name in draw.__all__):
                    found.setdefault(name, []).append(path.stem)
    return found


def test_every_public_name_is_exported_and_importable():
    assert len(draw.__all__) == len(set(draw.__all__)), "a name is listed twice in __all__"
    defined = public_definitions()
    assert sorted(set(defined) - set(draw.__all__)) == [], "public, but not in draw.__all__"
    assert sorted(set(draw.__all__) - set(defined)) == [], "in draw.__all__, defined nowhere"
    for name, modules in defined.items():
        assert len(modules) == 1, f"{name} is defined in {modules}"
    namespace = {}
    exec("from illustrated.draw import *", namespace)
    assert set(draw.__all__) <= namespace.keys()
    for name in draw.__all__:  # also as `from illustrated.draw import <name>`
        assert getattr(importlib.import_module("illustrated.draw"), name) is namespace[name]


def test_every_public_name_is_documented():
    for name in draw.__all__:
        obj = getattr(draw, name)
        if callable(obj):  # a figure function: says what it takes and what it returns
            doc = obj.__doc__ or ""
            assert "Returns:" in doc, f"{name} has no docstring with a Returns: section"
            assert obj.__module__.startswith("illustrated.draw."), obj.__module__
        else:  # a constant: defined in a module that says what it is for
            (module,) = public_definitions()[name]
            assert importlib.import_module(f"illustrated.draw.{module}").__doc__, module


def test_no_module_is_longer_than_400_lines():
    lengths = {p.name: len(p.read_text(encoding="utf-8").splitlines())
               for p in PACKAGE.glob("*.py")}
    assert len(lengths) > 1
    assert {name: n for name, n in lengths.items() if n > 400} == {}, "split the module"

BEAM_LEVELS = [[(None, "<bos>", 0.0, "kept")],
               [(0, "i", -0.1, "kept"), (0, "we", -2.5, "dropped")],
               [(0, "am", -0.2, "kept"), (0, "<eos>", -3.0, "finished")]]

FIGURES = {  # name: (make the figure, expected number of axes)
    "tensor_cells": (lambda: draw.tensor_cells(torch.randn(2, 4, generator=gen())), 1),
    "tensor_cells_colorbar": (lambda: draw.tensor_cells(torch.randn(20, 512), colorbar=True), 2),
    "matmul_figure": (lambda: draw.matmul_figure(torch.randn(2, 4), torch.randn(4, 3)), 1),
    "multi_head_figure": (lambda: draw.multi_head_figure(
        torch.randn(3, 4), torch.randn(2, 3, 2), torch.randn(4, 4)), 1),
    "self_attention_table": (lambda: draw.self_attention_table(*thinking_machines()), 1),
    "attention_heatmap": (lambda: draw.attention_heatmap(softmax_weights(3, 4)), 1),
    "attention_heads": (lambda: draw.attention_heads(softmax_weights(8, 4, 4), ncols=4), 8),
    "histograms_side": (lambda: draw.histograms({"std 100": torch.randn(500) * 100,
                                                 "std 1": torch.randn(500)}), 2),
    "histograms_overlay": (lambda: draw.histograms({"a": torch.randn(500),
                                                    "b": torch.randn(500) * 2}), 1),
    "bar_values": (lambda: draw.bar_values(softmax_weights(10)), 1),
    "line_plot": (lambda: draw.line_plot([1, 2, 4], {"a": [1, 2, 3], "b": [3, 2, 1]}), 1),
    "interval_plot": (lambda: draw.interval_plot(["a", "b"], [0.5, -1.0], [-0.2, -2.0],
                                                 [1.2, -0.1]), 1),
    "stack_diagram": (lambda: draw.stack_diagram(), 1),
    "stack_diagram_detail": (lambda: draw.stack_diagram(detail=True), 1),
    "black_box": (lambda: draw.black_box(), 1),
    "beam_tree": (lambda: draw.beam_tree(BEAM_LEVELS), 1),
    "add_norm_figure": (lambda: draw.add_norm_figure(torch.randn(3, 4),
                                                     torch.randn(3, 4)), 1),
    "position_flow": (lambda: draw.position_flow(
        ["je", "suis", "étudiant"], *torch.randn(4, 3, 4, generator=gen())), 1),
}


@pytest.mark.parametrize("name", FIGURES)
def test_each_function_returns_a_figure_that_renders(name):
    make, n_axes = FIGURES[name]
    fig = make()
    assert isinstance(fig, Figure)
    assert len(fig.axes) == n_axes
    width, height = fig.get_size_inches()
    assert 2.5 <= width <= 10.5 and 1.0 <= height <= 10.5, (width, height)
    # Renders to PNG, through the method Jupyter calls to show a figure without pyplot.
    png, metadata = fig._repr_png_()
    assert png.startswith(b"\x89PNG")
    # ... with the alt text as the output's metadata, a sentence naming what is drawn, and
    # the Chinese rendering (tests/draw/test_editions.py).
    assert metadata.keys() == {"alt", "zh_CN"} and metadata["alt"] == fig.alt_text
    assert len(fig.alt_text) > 30 and fig.alt_text.endswith("."), fig.alt_text


@pytest.mark.parametrize("name", FIGURES)
def test_alt_text_follows_the_arguments(name):
    """Two calls with different data or labels do not share one canned sentence."""
    make, _ = FIGURES[name]
    assert make().alt_text != ""


@pytest.mark.parametrize("function", [draw.tensor_cells, draw.attention_heatmap,
                                      draw.bar_values, draw.histograms, draw.line_plot])
def test_functions_with_ax_draw_into_it(function):
    host = Figure()
    ax = host.add_subplot()
    data = torch.rand(4)
    args = {draw.tensor_cells: (data,), draw.attention_heatmap: (data.view(2, 2),),
            draw.bar_values: (data,), draw.histograms: ({"a": data},),
            draw.line_plot: (data, {"a": data})}[function]
    assert function(*args, ax=ax) is host
    assert len(host.axes) == 1


def test_importing_and_drawing_touch_no_global_state():
    code = (
        "import sys, io, matplotlib\n"
        # every setting but 'backend', whose reading would itself resolve a backend
        "def settings():\n"
        "    keys = [k for k in matplotlib.rcParams if k != 'backend']\n"
        "    return {k: repr(matplotlib.rcParams[k]) for k in keys}\n"
        "before = settings()\n"
        "import illustrated.draw as d\n"
        "d.tensor_cells([[1.0, -2.0]], row_labels=['人']).savefig(io.BytesIO(), format='png')\n"
        "d.stack_diagram().savefig(io.BytesIO(), format='png')\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot was imported'\n"
        "assert before == settings(), 'rcParams changed'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
