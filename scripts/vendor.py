"""The JavaScript the pages run, from the site's own files: `npm ci`, then copy.

    python scripts/vendor.py        # run by scripts/build_book.py before every build

package.json and package-lock.json pin the npm packages (onnxruntime-web for the live
translator; vega, vega-lite and vega-embed for the explorers). This script installs them
with `npm ci` when node_modules/ is missing or older than the lockfile, then copies the few
files the pages load into _static/vendor/ (ignored by git), which Sphinx copies into
_build/html/_static/vendor/. Nothing is loaded from a CDN.

Without npm, or when `npm ci` fails, it says why in a few lines and returns False: the book
still builds, and the live pages say that their scripts are missing.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = ROOT / "node_modules"
VENDOR = ROOT / "_static" / "vendor"
# node_modules/<source> -> _static/vendor/<name>: only what a page loads.
FILES = {
    "onnxruntime-web/dist/ort.wasm.min.mjs": "ort.wasm.min.mjs",
    "onnxruntime-web/dist/ort-wasm-simd-threaded.mjs": "ort-wasm-simd-threaded.mjs",
    "onnxruntime-web/dist/ort-wasm-simd-threaded.wasm": "ort-wasm-simd-threaded.wasm",
    "onnxruntime-web/package.json": "onnxruntime-web.package.json",  # MIT; no LICENSE file
    "vega/build/vega.min.js": "vega.min.js",
    "vega/LICENSE": "LICENSE-vega.txt",
    "vega-lite/build/vega-lite.min.js": "vega-lite.min.js",
    "vega-lite/LICENSE": "LICENSE-vega-lite.txt",
    "vega-embed/build/vega-embed.min.js": "vega-embed.min.js",
    "vega-embed/LICENSE": "LICENSE-vega-embed.txt",
}


def npm_ci() -> str | None:
    """Install node_modules/ from the lockfile if needed. None when done, else why not."""
    lock, installed = ROOT / "package-lock.json", MODULES / ".package-lock.json"
    if installed.is_file() and installed.stat().st_mtime >= lock.stat().st_mtime:
        return None
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not on the PATH (install Node.js 20 or newer, which brings npm)"
    print("Installing the pages' JavaScript (npm ci, pinned by package-lock.json) ...",
          flush=True)
    proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                          cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-5:])
        return f"`npm ci` failed (exit {proc.returncode}):\n{tail}"
    return None


def vendor() -> bool:
    """npm ci if needed, then copy FILES into _static/vendor/. False (with a message) if
    the live pages will lack their scripts."""
    why = npm_ci()
    missing = [src for src in FILES if not (MODULES / src).is_file()]
    if why is None and missing:
        why = f"node_modules lacks {', '.join(missing)}: delete node_modules/ and build again"
    if why is not None:
        print(f"The live pages will not run: {why}.\nThe rest of the book builds as usual.",
              file=sys.stderr, flush=True)
        return False
    VENDOR.mkdir(parents=True, exist_ok=True)
    for src, name in FILES.items():
        dst = VENDOR / name
        if not dst.is_file() or dst.stat().st_mtime < (MODULES / src).stat().st_mtime:
            shutil.copy2(MODULES / src, dst)
    return True


if __name__ == "__main__":
    sys.exit(0 if vendor() else 1)
