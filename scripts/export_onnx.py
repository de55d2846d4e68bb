"""The live pages' model files, exported from the real translator's checkpoint and from
the decoder-only model's (the live writer).

    python scripts/export_onnx.py   # run by scripts/build_book.py before every build

Writes into _static/live/ (ignored by git; Sphinx copies it to _build/html/_static/live/):
encoder.onnx, decoder.onnx and their shared weights.bin (illustrated.web.onnx_graphs), the
tokenizer's JSON (the one inside the checkpoint), limits.json (what the model read in
training, illustrated.translator.limits.training_profile of the checkpoint: the page's
limits.mjs warns as the command does) and manifest.json (what the page needs to know:
whether tokenizer.js and onnxruntime-web are there, the special ids, MAX_LEN, the length
penalty of illustrated.translator.inference.translate, the files' sizes). Nothing is done
when these are newer than the checkpoint, the corpus, this script,
illustrated/web/onnx_graphs.py and illustrated/translator/limits.py, and the manifest still
tells the truth about tokenizer.js and onnxruntime-web. On failure it says why in one line
and returns False: the book still builds, and the live translator page says that its model
is missing.

The live writer's files, likewise: writer.onnx and writer.bin (illustrated.web.onnx_graphs),
its tokenizer (writer-tokenizer.json, the one inside writer.pt) and writer.json, its
manifest (the special ids, max_len, the command's defaults, the files' sizes).
"""
from __future__ import annotations

import inspect
import json
import sys
import time
from pathlib import Path

from illustrated.shipped import PAIRS, TRANSLATOR, WRITER

ROOT = Path(__file__).resolve().parent.parent
LIVE = ROOT / "_static" / "live"
OUTPUTS = ("encoder.onnx", "decoder.onnx", "weights.bin", "tokenizer.json", "limits.json",
           "manifest.json")
RUNTIME = ("ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm")
PACKAGE = ROOT / "illustrated"
CHECKPOINT = TRANSLATOR
SOURCES = (CHECKPOINT, PAIRS, Path(__file__).resolve(), PACKAGE / "web" / "onnx_graphs.py",
           PACKAGE / "translator" / "limits.py")
WRITER_OUTPUTS = ("writer.onnx", "writer.bin", "writer-tokenizer.json", "writer.json")
WRITER_SOURCES = (WRITER, Path(__file__).resolve(), PACKAGE / "web" / "onnx_graphs.py",
                  PACKAGE / "commands" / "generate.py")


def up_to_date(names=OUTPUTS, sources=None) -> bool:
    """Every output exists and is newer than every source; its manifest (the last
    output) tells the truth about tokenizer.js and onnxruntime-web."""
    outputs = [LIVE / name for name in names]
    if not all(p.is_file() for p in outputs):
        return False
    try:  # the page loads tokenizer.js and onnxruntime-web only where the manifest says so
        manifest = json.loads(outputs[-1].read_text(encoding="utf-8"))
        if (manifest["tokenizer_js"], manifest["runtime"]) != (has_tokenizer(), has_runtime()):
            return False
    except (ValueError, KeyError):
        return False
    sources = [p for p in sources or SOURCES if p.exists()]
    return min(p.stat().st_mtime for p in outputs) >= max(p.stat().st_mtime for p in sources)


def has_tokenizer() -> bool:
    """Whether the page's JavaScript tokenizer (committed, not generated) is there."""
    return (LIVE / "tokenizer.js").is_file()


def has_runtime() -> int:
    """The bytes of onnxruntime-web that the page loads from _static/vendor/ (put there by
    scripts/vendor.py); 0 if any of its files is missing."""
    files = [ROOT / "_static" / "vendor" / name for name in RUNTIME]
    return sum(p.stat().st_size for p in files) if all(p.is_file() for p in files) else 0


def export_onnx() -> bool:
    """Both pages' files, each exported if needed; False if either failed."""
    translator = export_translator_files()
    return export_writer_files() and translator


def export_translator_files() -> bool:
    """Export if needed (one line saying so). False, with the reason, if it failed."""
    if up_to_date():
        return True
    start = time.perf_counter()
    try:
        from illustrated.translator.inference import MAX_LEN, load_translator, translate
        from illustrated.translator.limits import training_profile
        from illustrated.translator.tokenizer import SubwordTokenizer
        from illustrated.web.onnx_graphs import export_translator

        model, tokenizer, blob = load_translator(CHECKPOINT)
        manifest = export_translator(model, LIVE)
        profile = training_profile(blob).to_json()  # the one the command reads
    except Exception as error:  # noqa: BLE001 - any failure: say it, build the rest
        print(f"The live translator will not run: exporting {CHECKPOINT.name} to ONNX failed: "
              f"{type(error).__name__}: {error}", file=sys.stderr, flush=True)
        return False
    (LIVE / "tokenizer.json").write_text(blob["tokenizer"], encoding="utf-8")
    # One line, no ASCII escapes: the page downloads it before the model (~150 kB).
    (LIVE / "limits.json").write_text(json.dumps(profile, ensure_ascii=False,
                                                 separators=(",", ":")), encoding="utf-8")
    manifest.update(
        bos_id=SubwordTokenizer.bos_id, eos_id=SubwordTokenizer.eos_id, max_len=MAX_LEN,
        tokenizer_js=has_tokenizer(), runtime=has_runtime(),
        length_penalty=inspect.signature(translate).parameters["length_penalty"].default)
    for name in ("tokenizer.json", "limits.json"):
        manifest["files"][name] = (LIVE / name).stat().st_size
    (LIVE / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    mb = sum(manifest["files"].values()) / 1e6
    print(f"Live translator: ONNX export in {time.perf_counter() - start:.1f} s "
          f"({mb:.1f} MB in _static/live/).", flush=True)
    return True


def export_writer_files() -> bool:
    """The live writer's files, if needed (one line saying so). False, with the reason,
    if it failed."""
    if up_to_date(WRITER_OUTPUTS, WRITER_SOURCES):
        return True
    start = time.perf_counter()
    try:
        from illustrated.commands.generate import parser
        from illustrated.decoder_only.training import load_lm
        from illustrated.web.onnx_graphs import export_writer

        model, tokenizer, blob = load_lm(WRITER)
        manifest = export_writer(model, LIVE)
    except Exception as error:  # noqa: BLE001 - any failure: say it, build the rest
        print(f"The live writer will not run: exporting {WRITER.name} to ONNX failed: "
              f"{type(error).__name__}: {error}", file=sys.stderr, flush=True)
        return False
    (LIVE / "writer-tokenizer.json").write_text(blob["tokenizer"], encoding="utf-8")
    options = vars(parser().parse_args([]))  # the command's defaults
    defaults = {k: options[k] for k in ("temperature", "top_k", "top_p", "seed",
                                        "max_new_tokens")}
    manifest.update(bos_id=tokenizer.bos_id, eos_id=tokenizer.eos_id, defaults=defaults,
                    tokenizer_js=has_tokenizer(), runtime=has_runtime())
    manifest["files"]["writer-tokenizer.json"] = (LIVE / "writer-tokenizer.json").stat().st_size
    (LIVE / "writer.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    mb = sum(manifest["files"].values()) / 1e6
    print(f"Live writer: ONNX export in {time.perf_counter() - start:.1f} s "
          f"({mb:.1f} MB in _static/live/).", flush=True)
    return True


if __name__ == "__main__":
    sys.exit(0 if export_onnx() else 1)
