"""The one entry of the commands: ``python -m illustrated COMMAND`` and the console script
``illustrated`` (illustrated/commands/__init__.py, illustrated/__main__.py)."""
import importlib
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from illustrated import commands
from illustrated.commands import COMMANDS, main


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert text.startswith("usage: python -m illustrated [-h] COMMAND ...")
    for name, (_, summary) in COMMANDS.items():
        assert f"{name} {' '.join(summary.split())}" in text, name


@pytest.mark.parametrize("argv, message", [
    ([], "the following arguments are required: COMMAND"),
    (["translat"], "argument COMMAND: invalid choice: 'translat' (choose from "),
    (["--beam", "4"], "the following arguments are required: COMMAND"),
])
def test_no_command_or_an_unknown_one_is_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"python -m illustrated: {message}")
    assert line.endswith(" (--help lists the options)")
    assert message.endswith("COMMAND") or all(name in line for name in COMMANDS)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_command_is_its_module_named_after_the_entry(name, capsys):
    """``python -m illustrated NAME --help`` is the module's own help, under the entry's
    name; the console script names itself ``illustrated``."""
    for program in ("python -m illustrated", "illustrated"):
        with pytest.raises(SystemExit) as exit_:
            main([name, "--help"], program)
        assert exit_.value.code == 0
        assert capsys.readouterr().out.startswith(f"usage: {program} {name} ")


@pytest.mark.parametrize("name, argv, message", [
    ("translate", ["--beam", "0", "merci"], "argument --beam: must be 1 or more, got 0"),
    ("translate", ["--beam", "-1", "merci"], "argument --beam: must be 1 or more, got -1"),
    ("translate", ["--beam", "two", "merci"], "argument --beam: expected an integer, got 'two'"),
    ("translate", ["--bogus", "merci"], "unrecognized arguments: --bogus"),
    ("train", ["--steps", "0"], "argument --steps: must be 1 or more, got 0"),
    ("train", ["--steps", "many"], "argument --steps: expected an integer, got 'many'"),
    ("train", ["--corpus", "wiki"],
     "argument --corpus: invalid choice: 'wiki' (choose from 'toy', 'tatoeba')"),
    ("train", ["--corpus", "tatoeba", "--max-tokens", "-5"],
     "argument --max-tokens: must be 1 or more, got -5"),
    ("train-writer", ["--steps", "0"], "argument --steps: must be 1 or more, got 0"),
    ("evaluate", ["--resamples", "0"], "argument --resamples: must be 1 or more, got 0"),
    ("evaluate", ["--limit", "x"], "argument --limit: expected an integer, got 'x'"),
])
def test_a_bad_option_is_one_line_that_names_the_command(name, argv, message, capsys):
    """Through the entry, as a reader types it (generate's own checks: test_generate.py)."""
    with pytest.raises(SystemExit) as exit_:
        main([name, *argv])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        f"python -m illustrated {name}: {message} (--help lists the options)"]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_command_describes_every_option(name):
    module = importlib.import_module(f"illustrated.commands.{COMMANDS[name][0]}")
    undescribed = [a.option_strings or a.dest for a in module.parser()._actions
                   if not (a.help or "").strip()]
    assert undescribed == []


def test_the_console_script_is_declared_and_runs():
    """pyproject.toml's [project.scripts]: ``illustrated`` is commands.console, and the
    installed script runs it."""
    scripts = metadata.entry_points(group="console_scripts")
    (entry,) = [e for e in scripts if e.name == "illustrated"]
    assert entry.value == "illustrated.commands:console" and entry.load() is commands.console
    script = Path(sys.executable).parent / "illustrated"
    proc = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: illustrated "), proc.stderr


def test_translates_from_any_folder(tmp_path):
    """The shipped files are found from the package, not from the current folder: the real
    translator, run where there is no repository."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-m", "illustrated", "translate",
                           "Je suis étudiant."], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (0, "I'm a student.\n"), proc.stderr
    assert proc.stderr.startswith("real translator: ") and "shipped" in proc.stderr
