"""The package's commands, gathered under one entry: ``python -m illustrated COMMAND`` (or
``illustrated COMMAND``, the console script an install puts on the ``PATH``). One module
per command; each reads its options, calls the rooms that do the work (the top-level
modules, :mod:`illustrated.translator`, :mod:`illustrated.decoder_only`) and prints.

================  ===============================================================  =========
command           what it does                                                     chapter
================  ===============================================================  =========
``translate``     French to English: the shipped real translator, or the toy one   10-12
``generate``      English after a prompt: the shipped decoder-only model           13
``train``         train a translator: the toy grammar, or the Tatoeba pairs        11, 12
``train-writer``  train the decoder-only model on the Tatoeba English sentences    13
``evaluate``      score a real translator on the Tatoeba test split, as JSON       12
================  ===============================================================  =========

A command is named by a verb, as typed; what it uses is named by a noun elsewhere (the
``translate`` command, the :mod:`~illustrated.translator` room). Every command gives a bad
option a one-line message (exit status 2) and says with ``--help`` what each option does;
:mod:`illustrated.commands.common` holds what they share.

No torch at import time here: the entry lets torch's threads sleep while they wait
(:func:`~illustrated.commands.common.passive_waits`) before a command imports torch.
"""
from __future__ import annotations

import importlib
import sys

from .common import Parser, passive_waits

#: How ``python -m illustrated`` names itself in its messages; the console script says
#: ``illustrated``.
PROGRAM = "python -m illustrated"
#: The commands, each with its module in this package and the line ``--help`` shows for it.
COMMANDS = {
    "translate": ("translate", "translate French to English with the real translator the "
                  "package ships, or the toy one of chapters 10-11 (--toy)"),
    "generate": ("generate", "write English after a prompt with the decoder-only model of "
                 "chapter 13"),
    "train": ("train", "train a translator: the toy grammar of chapters 10-11 (default) or "
              "the Tatoeba pairs of chapter 12 (--corpus tatoeba)"),
    "train-writer": ("train_writer", "train the decoder-only model of chapter 13 on the "
                     "English sentences of the Tatoeba training split"),
    "evaluate": ("evaluate", "score a real translator on the Tatoeba test split and write "
                 "the report as JSON"),
}


def _parser(program: str) -> Parser:
    p = Parser(prog=program, description="The commands of The Illustrated Transformer, "
               f"tested. '{program} COMMAND --help' describes a command's options.")
    sub = p.add_subparsers(title="commands", metavar="COMMAND", dest="command",
                           required=True)
    for name, (_, summary) in COMMANDS.items():
        sub.add_parser(name, help=summary, add_help=False)
    return p


def main(argv=None, program: str = PROGRAM) -> int:
    """``python -m illustrated COMMAND [OPTIONS]``: run the command; returns its exit status.
    No command, or an unknown one, gets a one-line message (exit status 2)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    _parser(program).parse_args(argv[:1])  # --help, or a one-line error, unless a command
    passive_waits()  # before the command imports torch, which reads it once
    module = importlib.import_module(f"{__name__}.{COMMANDS[argv[0]][0]}")
    return module.main(argv[1:], program)


def console() -> int:
    """The console script ``illustrated`` (``[project.scripts]`` in pyproject.toml)."""
    return main(program="illustrated")
