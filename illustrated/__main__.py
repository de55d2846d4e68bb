"""``python -m illustrated COMMAND``: the package's commands (:mod:`illustrated.commands`)."""
import sys

from .commands import main

if __name__ == "__main__":
    sys.exit(main())
