"""The package as a whole: importing it changes no global state and prints nothing, and no
module imports another's private names."""
import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import illustrated

# Runs in a fresh interpreter: snapshot the global state, import illustrated and every
# module of it and of its subpackages (found by walking its folders, so modules added later
# are covered too), snapshot again. Results go to a file so that stdout and stderr must stay empty.
SCRIPT = textwrap.dedent(
    """
    import hashlib, importlib, importlib.util, json, pkgutil, sys, warnings
    import matplotlib, numpy, torch

    def digest(data):
        return hashlib.sha256(bytes(data)).hexdigest()

    def snapshot():
        rc = matplotlib.rcParams  # read raw, so the 'backend' entry is not resolved
        return {
            "torch.initial_seed": torch.initial_seed(),
            "torch rng state": digest(torch.get_rng_state().tolist()),
            "torch default dtype": str(torch.get_default_dtype()),
            "torch grad enabled": torch.is_grad_enabled(),
            "torch deterministic": torch.are_deterministic_algorithms_enabled(),
            "torch print options": repr(vars(torch._tensor_str.PRINT_OPTS)),
            "numpy rng state": digest(numpy.random.get_state()[1].tobytes()),
            "numpy print options": repr(numpy.get_printoptions()),
            "warnings filters": repr(warnings.filters),
            "rcParams": {k: repr(dict.__getitem__(rc, k)) for k in dict.keys(rc)},
        }

    before = snapshot()
    locations = importlib.util.find_spec("illustrated").submodule_search_locations
    names = ["illustrated"] + [  # every module of every subpackage
        m.name for m in pkgutil.walk_packages(locations, "illustrated.")
    ]
    for name in names:
        importlib.import_module(name)
    after = snapshot()
    with open(sys.argv[1], "w") as f:
        json.dump({"names": names, "before": before, "after": after}, f)
    """
)


def test_import_changes_no_global_state_and_prints_nothing(tmp_path):
    out_file = tmp_path / "state.json"
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(out_file)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "", f"importing illustrated printed: {proc.stdout!r}"
    assert proc.stderr == "", f"importing illustrated wrote to stderr: {proc.stderr!r}"

    result = json.loads(out_file.read_text())
    assert {"illustrated", "illustrated.attention", "illustrated.masks",
            "illustrated.translator.training", "illustrated.decoder_only.sampling",
            "illustrated.commands.translate", "illustrated.web.onnx_graphs",
            "illustrated.shipped"} <= set(result["names"])
    before, after = result["before"], result["after"]
    rc_before, rc_after = before["rcParams"], after["rcParams"]
    changed_rc = sorted(k for k in rc_before if rc_before[k] != rc_after.get(k))
    assert changed_rc == [], f"importing illustrated changed matplotlib.rcParams: {changed_rc}"
    assert before["rcParams"].keys() == after["rcParams"].keys()
    for key in before:
        assert before[key] == after[key], f"importing illustrated changed {key}"


# The layout of issue 42: the modules that moved into subpackages left nothing behind.
MOVED = ["illustrated.corpus", "illustrated.tokenizer", "illustrated.batching",
         "illustrated.names", "illustrated.limits", "illustrated.trainer", "illustrated.train",
         "illustrated.translate", "illustrated.evaluation", "illustrated.evaluate",
         "illustrated.lm_training", "illustrated.sampling", "illustrated.generate",
         "illustrated.export", "illustrated._cli", "illustrated.words"]
# Two old modules' names are rooms now: what was imported from them is not there.
MOVED_NAMES = ["illustrated.translator:load_translator", "illustrated.decoder_only:DecoderOnly"]


def test_the_old_module_paths_are_gone():
    """Each moved module raises ImportError at its old path: no shim, no copy."""
    script = ("import importlib, sys\n"
              "for name in sys.argv[1:]:\n"
              "    module, _, attr = name.partition(':')\n"
              "    try:\n"
              "        exec(f'from {module} import {attr}' if attr else f'import {module}')\n"
              "    except ImportError:\n"
              "        continue\n"
              "    print(name)\n")
    proc = subprocess.run([sys.executable, "-c", script, *MOVED, *MOVED_NAMES],
                          capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.split() == [], "still importable: " + proc.stdout


def private_imports(root: Path) -> list[str]:
    """Every ``from <a module of illustrated> import _name`` under ``root``, relative
    (``from .x``, ``from ..x``, ``from .``) or absolute (``from illustrated.x``), as
    "module: imports _name from x". A dunder (``__version__``) is not private."""
    found = []
    for path in sorted(root.rglob("*.py")):
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = "." * node.level + (node.module or "")
            if node.level == 0 and source.split(".")[0] != root.name:
                continue  # another package's names (torch, __future__, ...)
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.endswith("__"):
                    found.append(f"{module} (line {node.lineno}): imports {alias.name} "
                                 f"from {source}")
    return found


def test_no_module_imports_a_private_name_of_another():
    # A name that other modules use is public within its package (draw/figure.py's
    # finish_figure, explorers/explorer.py's make_explorer); a leading underscore means
    # "this module only". Tests may still reach into the module they test.
    found = private_imports(Path(illustrated.__file__).parent)
    assert found == [], "private names imported across modules:\n" + "\n".join(found)


def test_the_private_import_check_sees_every_form(tmp_path):
    package = tmp_path / "illustrated"
    (package / "draw").mkdir(parents=True)
    (package / "draw" / "a.py").write_text(
        "from __future__ import annotations\nfrom .figure import Figure, _hidden\n"
        "from .. import _top\nfrom illustrated.draw.figure import (\n    _deep,\n)\n"
        "from numpy import _private\nfrom . import __version__\n")
    assert private_imports(package) == [
        "illustrated.draw.a (line 2): imports _hidden from .figure",
        "illustrated.draw.a (line 3): imports _top from ..",
        "illustrated.draw.a (line 4): imports _deep from illustrated.draw.figure",
    ]
