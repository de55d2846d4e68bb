"""Build the website with Jupyter Book, printing only what a reader needs.

    python scripts/build_book.py           # `make book`
    python scripts/build_book.py --check   # `make book-check`, a stage of `make test`

`make book` first executes the chapter notebooks that changed since the last build, one
line per chapter ("... executed in 10.1 s", or "... cached" when unchanged), into Jupyter
Book's execution cache (_build/.jupyter_cache, the one `execute_notebooks: cache` reads).
A chapter unchanged since the last git commit is not executed: its committed outputs are
its execution (written by `make notebooks`, proven reproducible by `make test`'s nbval), so
they go into the cache as they are ("... committed outputs"). A fresh clone's first
`make book` therefore executes nothing; a chapter you edit is executed.
Sphinx then renders the pages from that cache without printing its progress (`-q`); its
warnings and errors still print, and fail the build as before. The English and the Chinese
edition build side by side (two processes, one core each most of the time): even with
nothing to rebuild, each spends seconds starting Sphinx and loading the extensions. The last
line says where the book is.

Why the chapters are executed here rather than by MyST-NB during the Sphinx build: MyST-NB
starts its kernels with jupyter_client's defaults (plain TCP) and offers no way to
configure them, so ipykernel printed "Kernel is running over TCP without encryption ..."
once per chapter. scripts/execute_notebooks.py starts them with CurveZMQ encryption, and
`make notebooks` and `make book` now execute chapters the same way. A page that this
script does not execute (not an .ipynb listed in _toc.yml) is still executed by MyST-NB.

`--check`: notebooks not re-executed (nbval has just proven their committed outputs),
`-W -n --keep-going`: any warning fails. It builds from scratch into a folder of its own,
_build/check/html (CHECK_HTML, which the tests of tests/site/ and tests/site/browser/
read), so the reader's _build/html and the execution cache survive it: `make book` after
`make test` executes nothing. It builds with a copy of _config.yml in _build/check/ that
says `execute_notebooks: "off"`, so the real config stays the one a reader uses.
"""
import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat
import yaml

from export_onnx import export_onnx
from vendor import vendor

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
CACHE = BUILD / ".jupyter_cache"  # where Jupyter Book puts it: <output>/.jupyter_cache
INDEX = BUILD / "html" / "index.html"
# The strict build's own folder: wiped and rebuilt by --check, nothing else touches it.
CHECK = BUILD / "check"
CHECK_HTML = CHECK / "html"
# The Chinese edition (issue 22): the same pages built with language zh_CN from the
# catalogues in locales/ (scripts/translations.py), into this folder of each site.
ZH = "zh"
ZH_TITLES = ROOT / "locales" / "zh_CN" / "LC_MESSAGES" / "intro.po"  # the book's title


def zh_config() -> dict:
    """The Chinese edition's settings: its language; MyST-NB's "Show code cell source",
    which has no translation of its own; the site's title (the sidebar's and the
    browser tab's), which Jupyter Book takes from _config.yml, as the landing page's
    catalogue translates it; and the words of terminology.yml's terms, which its search
    index holds wherever a page holds them (scripts/zh_search.py; read at each build, and
    a change of them re-indexes every page)."""
    from babel.messages.pofile import read_po
    from zh_search import words

    title = load_config()["title"]
    with ZH_TITLES.open("rb") as f:
        message = read_po(f).get(title)
    return {"language": "zh_CN", "nb_code_prompt_show": "显示代码单元",
            "nb_code_prompt_hide": "隐藏代码单元",
            "html_title": message.string if message and message.string else title,
            "html_search_options": {"terms": words()}}


# The `execute:` keys of _config.yml that execute_chapters() follows; any other key would
# change how MyST-NB executes, so it must be taught here first.
KNOWN_EXECUTE_KEYS = {"execute_notebooks", "timeout", "allow_errors", "raise_on_error"}
PROBLEM = re.compile(r"(?:^|: )(WARNING|ERROR|SEVERE|CRITICAL):")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def load_config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))


def toc_notebooks() -> list[Path]:
    """The .ipynb files listed in _toc.yml, in reading order."""
    def files(node):
        if isinstance(node, dict):
            if "file" in node:
                yield node["file"]
            for value in node.values():
                yield from files(value)
        elif isinstance(node, list):
            for item in node:
                yield from files(item)

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    paths = (ROOT / (name + ".ipynb") for name in files(toc))
    return [p for p in paths if p.is_file()]


def execute_chapters(execute: dict) -> bool:
    """Execute every changed chapter into the cache, one line each. False if one fails."""
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    from execute_notebooks import prepare_environment, run_notebook

    unknown = sorted(set(execute) - KNOWN_EXECUTE_KEYS)
    if unknown:
        sys.exit(f"scripts/build_book.py does not know the _config.yml setting(s) "
                 f"execute.{unknown}: teach execute_chapters() what they mean first")
    prepare_environment()
    cache = get_cache(str(CACHE))
    for path in toc_notebooks():
        name = path.relative_to(ROOT).as_posix()
        # Read exactly as MyST-NB does, so that its cache lookup finds what we store.
        nb = nbformat.reads(path.read_text(encoding="utf-8"), as_version=nbformat.NO_CONVERT)
        # The committed outputs first: the cache matches a notebook by its code alone, so an
        # older execution of the same code (before a change to the package or to a
        # catalogue re-executed the chapter) would otherwise be shown.
        if committed_as_executed(path, nb):
            # Its committed outputs are an execution of exactly this code (`make notebooks`
            # wrote them; `make test`'s nbval proves they come out again): no need to rerun.
            cache.add_nb_to_project(str(path))
            bundle = CacheBundleIn(nb, str(path), data={"execution_seconds": 0.0})
            cache.cache_notebook_bundle(bundle, check_validity=False, overwrite=True)
            print(f"{name} ... committed outputs (unchanged since the last commit)")
            continue
        try:
            cache.match_cache_notebook(nb)
            print(f"{name} ... cached")
            continue
        except KeyError:
            pass
        print(f"{name} ... ", end="", flush=True)
        try:
            seconds = run_notebook(nb, path.parent, execute.get("timeout", 30),
                                   allow_errors=execute.get("allow_errors", False))
        except (CellExecutionError, CellTimeoutError) as error:
            print("failed", flush=True)
            print(f"\n{error}\n{name} failed (above); the website was not built.", file=sys.stderr)
            return False
        cache.add_nb_to_project(str(path))
        bundle = CacheBundleIn(nb, str(path), data={"execution_seconds": seconds})
        cache.cache_notebook_bundle(bundle, check_validity=False, overwrite=True)
        print(f"executed in {seconds:.1f} s")
    return True


def committed_as_executed(path: Path, nb) -> bool:
    """True when ``path`` is in git, unchanged since the last commit, and every code cell
    has been run (so its outputs are the committed execution). False outside a git
    checkout: then the chapter is executed."""
    if any(c.cell_type == "code" and c.get("execution_count") is None for c in nb.cells):
        return False
    try:
        tracked = subprocess.run(["git", "ls-files", "--error-unmatch", str(path)], cwd=ROOT,
                                 capture_output=True).returncode == 0
        changed = subprocess.run(["git", "status", "--porcelain", "--", str(path)], cwd=ROOT,
                                 capture_output=True, text=True).stdout.strip()
    except OSError:  # no git
        return False
    return tracked and not changed


def jupyter_book(*args: str) -> tuple[int, int]:
    """Run `jupyter-book build -q`; show its warnings and errors as they come.

    Returns (exit code, number of warning and error messages). Jupyter Book's own banner
    on stdout is shown only if the build fails.
    """
    exe = Path(sys.executable).with_name("jupyter-book")
    problems = 0
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as banner:
        proc = subprocess.Popen([str(exe), "build", str(ROOT), "-q", *args], cwd=ROOT,
                                stdout=banner, stderr=subprocess.PIPE, text=True)
        for line in proc.stderr:
            sys.stderr.write(line)
            problems += bool(PROBLEM.search(ANSI.sub("", line)))
        rc = proc.wait()
        if rc != 0:
            banner.seek(0)
            sys.stderr.write(banner.read())
    return rc, problems


def side_by_side(english: list[str], chinese: list[str]):
    """Both editions' builds at once (``jupyter_book(*english)``, ``jupyter_book(*chinese)``):
    each keeps one core busy most of its time, and even with nothing to rebuild each spends
    seconds starting Sphinx and loading its extensions. Returns both ``(exit code, number
    of problems)``, the English first; (1, 0) for a Chinese build that raised."""
    chinese_result: dict = {}
    thread = threading.Thread(target=lambda: chinese_result.update(result=jupyter_book(*chinese)))
    thread.start()
    english_result = jupyter_book(*english)
    thread.join()
    return english_result, chinese_result.get("result", (1, 0))


def config_copy(folder: Path, sphinx_config: dict | None = None,
                execute: dict | None = None) -> Path:
    """A copy of _config.yml in ``folder`` for a build of our own: no execution unless
    ``execute`` says otherwise, ``sphinx_config`` added to ``sphinx: config:``, and the
    local extensions' folders made absolute (they are relative to the config's folder)."""
    config = load_config()
    if config.get("execute", {}).get("execute_notebooks") != "cache":
        sys.exit("_config.yml must say `execute_notebooks: cache` (readers' builds); "
                 "the other builds switch it off themselves")
    config["execute"].update(execute or {"execute_notebooks": "off"})
    config["sphinx"]["config"].update(sphinx_config or {})
    local = config.get("sphinx", {}).get("local_extensions") or {}
    for name, path in local.items():
        local[name] = str((ROOT / path).resolve())
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "_config.copy.yml"
    path.write_text("# Written by scripts/build_book.py; edit _config.yml instead.\n"
                    + yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def build() -> int:
    vendor()  # the live pages' JavaScript; without it the rest still builds
    export_onnx()  # the live translator's model files; likewise
    config = load_config()
    execute = config.get("execute", {})
    if execute.get("execute_notebooks") == "cache":
        print("Executing the chapters changed since the last build and the last commit "
              "(each takes 5 to 30 s):", flush=True)
        if not execute_chapters(execute):
            return 1
    print("Building the website, both editions side by side ...", flush=True)
    # The same execution cache as the English edition: its outputs, nothing executed again.
    folder = BUILD / ZH
    config = config_copy(folder, zh_config(), {"execute_notebooks": "cache", "cache": str(CACHE)})
    (rc, problems), (rc_zh, problems_zh) = side_by_side(
        [], ["--config", str(config), "--path-output", str(folder)])
    if rc != 0 or not INDEX.is_file():
        print(f"The build failed ({problems} warning/error messages above).", file=sys.stderr)
        return rc or 1
    if problems:
        print(f"Built with {problems} warning(s), above.")
    if rc_zh != 0 or not (folder / "_build" / "html" / "index.html").is_file():
        print(f"The Chinese edition failed ({problems_zh} warning/error messages above).",
              file=sys.stderr)
        return rc_zh or 1
    shutil.rmtree(INDEX.parent / ZH, ignore_errors=True)
    shutil.copytree(folder / "_build" / "html", INDEX.parent / ZH)
    if problems_zh:
        print(f"Chinese edition built with {problems_zh} warning(s), above.")
    print(f"\nThe book is at {INDEX}  (open it in a browser; the Chinese edition is at "
          f"{INDEX.parent / ZH / 'index.html'})")
    return 0


def check() -> int:
    start = time.perf_counter()
    shutil.rmtree(CHECK, ignore_errors=True)
    CHECK.mkdir(parents=True)
    vendor()
    export_onnx()
    # Jupyter Book writes to <path-output>/_build/html; the checks read _build/check/html.
    # The Chinese edition, as strict, builds at the same time (each build keeps one core
    # busy), and then goes into the site's zh/ folder.
    zh = CHECK / ZH
    strict = ["-W", "-n", "--keep-going"]
    (rc, problems), (rc_zh, problems_zh) = side_by_side(
        ["--config", str(config_copy(CHECK)), "--path-output", str(CHECK), *strict],
        ["--config", str(config_copy(zh, zh_config())), "--path-output", str(zh), *strict])
    built = CHECK / "_build" / "html"
    if built.is_dir():
        built.rename(CHECK_HTML)
    if (zh / "_build" / "html").is_dir() and CHECK_HTML.is_dir():
        (zh / "_build" / "html").rename(CHECK_HTML / ZH)
    seconds = time.perf_counter() - start
    if rc != 0 or rc_zh != 0:
        print(f"Strict build failed: {problems} warning/error messages in English, "
              f"{problems_zh} in Chinese, above ({seconds:.0f} s).", file=sys.stderr)
        return rc or rc_zh
    print(f"Strict build (-W -n --keep-going, committed outputs) of both editions: 0 warnings, "
          f"{seconds:.0f} s, in {CHECK_HTML.relative_to(ROOT)}/ and its {ZH}/.")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="strict build, no execution")
    return check() if parser.parse_args().check else build()


if __name__ == "__main__":
    sys.exit(main())
