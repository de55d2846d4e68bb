"""Build the website with Jupyter Book.

    python scripts/build_book.py           # `make book`: executes changed notebooks (cache)
    python scripts/build_book.py --check   # `make test`: from a clean _build, notebooks not
                                           # re-executed (nbval has just proven their committed
                                           # outputs), -W -n --keep-going: any warning fails

The check build writes a copy of _config.yml with ``execute_notebooks: off`` next to it
(in _build/), so the real config stays the one a reader uses.
"""
import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"


def jupyter_book(*args: str) -> int:
    exe = Path(sys.executable).with_name("jupyter-book")
    return subprocess.call([str(exe), "build", str(ROOT), *args], cwd=ROOT)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="strict build, no execution")
    check = parser.parse_args().check
    if not check:
        rc = jupyter_book()
    else:
        shutil.rmtree(BUILD, ignore_errors=True)
        BUILD.mkdir()
        config = (ROOT / "_config.yml").read_text(encoding="utf-8")
        if "execute_notebooks: cache" not in config:
            sys.exit("_config.yml must say `execute_notebooks: cache` for --check to switch it off")
        check_config = BUILD / "_config.check.yml"
        config = config.replace("execute_notebooks: cache", "execute_notebooks: \"off\"")
        # local_extensions paths are relative to the config file: this copy is in _build/.
        config = config.replace("autodoc_constants: scripts", f"autodoc_constants: {ROOT / 'scripts'}")
        check_config.write_text(config)
        rc = jupyter_book("--config", str(check_config), "-W", "-n", "--keep-going")
    index = BUILD / "html" / "index.html"
    if rc == 0 and index.is_file():
        print(f"\nThe book is at {index}  (open it in a browser)")
    return rc


if __name__ == "__main__":
    sys.exit(main())
