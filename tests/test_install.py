"""The package installs: a wheel built from this clone, installed into a new virtual environment
in which only the dependencies it declares are visible, runs its commands from a folder
outside the clone, with the files it ships.

Nothing is downloaded. The wheel is built from a copy of the package's files (those git
would commit) in a temporary folder (no ``build/`` left in the clone), by the setuptools of
the project's ``.venv``. The new environment sees the distributions of ``.venv`` that the wheel's
``Requires-Dist`` names, and theirs, in turn (the closure a fresh ``pip install`` would
resolve, at the versions ``requirements.txt`` pins), through symbolic links in a folder that
one ``.pth`` file names; pip installs the wheel there with ``--no-index``, resolving its
dependencies from what is visible, and ``pip check`` finds every requirement satisfied.
Then a scan of the installed files: every import of a third-party module is declared, at
run time unless :data:`EXTRA_IMPORTS` names it (and then only inside a function).

One test, not several: the steps share the environment, and ``make unit``'s workers would
each build it again.
"""
from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
# What the wheel is built from: the package and what pyproject.toml names.
SOURCES = ["illustrated", "pyproject.toml", "README.md", "LICENSE"]
# The third-party modules that only an extra needs (pyproject.toml's
# [project.optional-dependencies]): each may be imported only inside a function, so that every
# module of the package imports without it. Any other module the package imports is declared
# at run time ([project] dependencies).
EXTRA_IMPORTS = {
    "altair": "pages",  # illustrated.explorers: the charts of the website
    "pandas": "pages",  # illustrated.explorers: the charts' data
    "onnx": "pages",  # illustrated.web: the live pages' graphs
    "babel": "book",  # illustrated.draw.words: the Chinese edition's figure words
}
SENTENCE = "Je suis étudiant."


def run(args, cwd, env, timeout=120):
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                          text=True, encoding="utf-8", timeout=timeout)
    assert proc.returncode == 0, (f"{' '.join(map(str, args))} -> exit {proc.returncode}\n"
                                  f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    return proc


def tracked_files() -> list[str]:
    """The files of :data:`SOURCES` that a commit of this clone would hold: tracked, or new
    and not ignored (a shipped file that git ignores is in no clone's wheel)."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                          "--", *SOURCES], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout
    return sorted({f for f in out.split("\0") if f and (ROOT / f).is_file()})


def build_wheel(files: list[str], tmp: Path) -> Path:
    """The wheel, built by setuptools' PEP 517 hook (what ``pip install .`` calls) from a copy
    of ``files`` in ``tmp``, so that the build's ``build/`` and ``*.egg-info`` stay there."""
    src, dist = tmp / "src", tmp / "dist"
    for f in files:
        (src / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, src / f)
    code = ("import sys; from setuptools import build_meta; "
            "print(build_meta.build_wheel(sys.argv[1]))")
    name = run([sys.executable, "-c", code, dist], cwd=src, env=os.environ.copy())
    return dist / name.stdout.strip().splitlines()[-1]


def requirements(meta: str) -> tuple[list[Requirement], dict[str, set[str]]]:
    """The run-time requirements of a wheel's METADATA, and each extra's distribution names
    (an extra that names the package's own extras includes theirs)."""
    reqs = [Requirement(r) for r in Parser().parsestr(meta).get_all("Requires-Dist") or []]
    extras_named = Parser().parsestr(meta).get_all("Provides-Extra") or []
    base = [r for r in reqs if r.marker is None or r.marker.evaluate({"extra": ""})]
    own: dict[str, list[Requirement]] = {
        e: [r for r in reqs if r.marker is not None and r.marker.evaluate({"extra": e})]
        for e in extras_named}

    def names(extra, seen=()):
        out = set()
        for r in own[extra]:
            if canonicalize_name(r.name) == "illustrated":
                out |= set().union(*(names(e, seen + (extra,)) for e in r.extras
                                     if e not in seen))
            else:
                out.add(canonicalize_name(r.name))
        return out
    return base, {e: names(e) for e in extras_named}


def closure(reqs: list[Requirement]) -> dict[str, metadata.Distribution]:
    """The installed distributions (of the interpreter running the tests, the project's
    ``.venv``) that ``reqs`` need, with what they need in turn, markers evaluated here."""
    found: dict[str, metadata.Distribution] = {}
    todo, extras_seen = [(r, "") for r in reqs], set()
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        key = canonicalize_name(req.name)
        try:
            dist = found.get(key) or metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            pytest.fail(f"{req} is required, and not installed in {sys.prefix}")
        if key not in found:
            found[key] = dist
            todo += [(Requirement(r), "") for r in dist.requires or []]
        for e in set(req.extras) - {x for k, x in extras_seen if k == key}:
            extras_seen.add((key, e))  # a requirement such as foo[bar]: foo's extra bar too
            todo += [(Requirement(r), e) for r in dist.requires or []]
    return found


def link_farm(dists, folder: Path) -> None:
    """A folder of links to the files of ``dists`` in site-packages (their top-level modules,
    packages and .dist-info folders; not their scripts or .pth files)."""
    folder.mkdir()
    for dist in dists:
        site = Path(dist.locate_file(""))
        tops = {f.parts[0] for f in dist.files or [] if f.parts[0] not in ("..", "__pycache__")
                and not f.parts[0].endswith(".pth")}
        for top in tops:
            if (site / top).exists() and not (folder / top).exists():
                (folder / top).symlink_to(site / top)


def new_environment(tmp: Path, meta: str) -> Path:
    """A virtual environment in which only the run-time closure of ``meta`` (and pip) is
    visible; returns its python."""
    venv = tmp / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=tmp, env=os.environ.copy())
    base, _ = requirements(meta)
    dists = closure(base + [Requirement("pip")])
    link_farm(dists.values(), tmp / "visible")
    python = venv / "bin" / "python"
    purelib = run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                  cwd=tmp, env=os.environ.copy()).stdout.strip()
    (Path(purelib) / "visible.pth").write_text(f"{tmp / 'visible'}\n")
    return python


def imports(path: Path):
    """``(module, lazy)`` for each absolute import of the file; lazy: inside a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lazy = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            for n in ast.walk(f)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((a.name, id(node) in lazy) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module, id(node) in lazy


def undeclared_imports(package: Path, meta: str) -> list[str]:
    """Each import of the installed package that its METADATA does not declare."""
    base, extras = requirements(meta)
    declared = {canonicalize_name(r.name) for r in base}
    providers = metadata.packages_distributions()
    problems = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package.parent)
        for module, lazy in imports(path):
            top = module.split(".")[0]
            if top in sys.stdlib_module_names or top in ("__future__", "illustrated"):
                continue
            dists = {canonicalize_name(d) for d in providers.get(top, [])}
            extra = EXTRA_IMPORTS.get(top)
            if not dists:
                problems.append(f"{where}: imports {module}, which no installed distribution "
                                "provides")
            elif extra is None and not dists & declared:
                problems.append(f"{where}: imports {module} ({', '.join(sorted(dists))}), not "
                                "declared in pyproject.toml's [project] dependencies")
            elif extra is not None and not dists & (declared | extras.get(extra, set())):
                problems.append(f"{where}: imports {module}, declared in neither the "
                                f"dependencies nor the extra {extra!r}")
            elif extra is not None and not lazy and not dists & declared:
                problems.append(f"{where}: imports {module} (the extra {extra!r}) at the top "
                                "of the module: import it inside the function that needs it")
    return problems


@pytest.mark.long
@pytest.mark.skipif(not shutil.which("git") or not (ROOT / ".git").exists(),
                    reason="needs a git clone (the wheel is built from its tracked files)")
def test_the_wheel_installs_where_only_its_dependencies_are_and_its_commands_work(tmp_path):
    files = tracked_files()
    wheel = build_wheel(files, tmp_path / "build")

    # 1. The wheel holds every file of the package, shipped files included.
    with zipfile.ZipFile(wheel) as z:
        inside = set(z.namelist())
        meta = z.read(next(n for n in inside if n.endswith(".dist-info/METADATA"))).decode()
    left_out = [f for f in files if f.startswith("illustrated/") and f not in inside]
    assert not left_out, f"the wheel leaves out (pyproject.toml's package-data): {left_out}"

    # 2. Installed with pip where only the declared dependencies are visible, no index.
    python = new_environment(tmp_path, meta)
    bin_dir = python.parent
    # Neither this shell's Python settings nor the machine's pip configuration (its indexes
    # and folders of wheels) apply: pip sees the wheel and the visible distributions only.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")
           and k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", PYTHONNOUSERSITE="1",
               OMP_NUM_THREADS="1", PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull)
    away = tmp_path / "elsewhere"  # the commands run here, outside the clone
    away.mkdir()
    run([python, "-m", "pip", "install", "--no-index", "--no-compile", wheel], away, env)
    run([python, "-m", "pip", "check"], away, env)

    # 3. Every third-party import of the installed package is declared.
    site = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                    away, env).stdout.strip())
    problems = undeclared_imports(site / "illustrated", meta)
    assert not problems, "\n".join(problems)

    # 4. Every module imports, from the wheel (not the clone's editable install).
    code = ("import importlib, pkgutil, illustrated; print(illustrated.__file__); "
            "[importlib.import_module(m.name) for m in "
            "pkgutil.walk_packages(illustrated.__path__, 'illustrated.')]")
    where = run([python, "-c", code], away, env).stdout.strip()
    assert Path(where).is_relative_to(site), f"illustrated was imported from {where}, not {site}"

    # 5. The commands, by the console script and by python -m, with the shipped files.
    usage = run([bin_dir / "illustrated", "--help"], away, env).stdout
    assert usage.startswith("usage: illustrated "), usage
    translate = run([bin_dir / "illustrated", "translate", SENTENCE], away, env)
    assert translate.stdout == "I'm a student.\n", translate.stdout
    shipped = site / "illustrated" / "shipped" / "tatoeba" / "translator.pt"
    assert str(shipped) in translate.stderr, translate.stderr
    generate = run([python, "-m", "illustrated", "generate", "The cat", "--greedy"], away, env)
    assert generate.stdout.startswith("The cat "), generate.stdout
    train = run([bin_dir / "illustrated", "train", "--steps", "10", "--threads", "1",
                 "--out", "toy.pt"], away, env)
    assert "held-out: exact_match=" in train.stdout and (away / "toy.pt").is_file(), train.stdout
    toy = run([python, "-m", "illustrated", "translate", "--toy", "je suis étudiant"], away, env)
    assert toy.stdout == "i am a student\n", toy.stdout
    assert str(site / "illustrated" / "shipped" / "toy_translator.pt") in toy.stderr, toy.stderr


def test_requirements_txt_pins_what_pyproject_declares_within_its_ranges():
    """requirements.txt (the book's environment, exact pins) and pyproject.toml (what the
    package needs, by role) name the same packages: each declared one is pinned, at a version
    its range admits, so that the tested environment is one a ``pip install`` may give."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = [Requirement(r) for r in project["dependencies"]]
    declared += [Requirement(r) for extra in project["optional-dependencies"].values()
                 for r in extra]
    pins = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"requirements.txt: {line!r} is not an exact pin (name==version)"
            pins[canonicalize_name(name)] = version.strip()
    problems = []
    for req in declared:
        name = canonicalize_name(req.name)
        if name == "illustrated":  # an extra that includes another
            continue
        if name not in pins:
            problems.append(f"pyproject.toml declares {req}; requirements.txt pins no {req.name}")
        elif not req.specifier.contains(pins[name], prereleases=True):
            problems.append(f"requirements.txt pins {req.name}=={pins[name]}, outside "
                            f"pyproject.toml's {req}")
    assert not problems, "\n".join(problems)
