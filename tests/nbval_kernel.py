"""A pytest plugin for the nbval stages (the Makefile's ``-p tests.nbval_kernel``): each
notebook's kernel is forked from a process that has imported torch already
(tests/kernel_fork.py; ``KERNEL_FORK=0`` starts every kernel afresh instead), and a kernel
that dies before it answers is started again, up to three times.

Two nbval workers start kernels at the same moment. jupyter_client picks each kernel's five
ports by asking the system for free ones and releasing them; between that and the kernel
binding them, the other worker's kernel can take one, and the kernel dies with "Address
already in use" before it replies ("Kernel died before replying to kernel_info": seen once in
a fresh clone's ``make test``, chapter 2, all 33 cells in error; the same notebook passed
alone). No cell has run at that point, so starting the kernel again changes no result.

With ``NBVAL_PIXELS=0`` (the Makefile's three kernel paths), the kernels show
every output but pictures: nbval compares a figure's text, never its pixels (it skips
image/png and image/jpeg, unless run with ``--nbdime``), and drawing a PNG involves none of
torch's kernels, which is what those paths are there to vary. Each figure is still built by
the same calls and shown (as its ``text/plain``, which nbval compares); only its PNG is not
drawn: 0.2 s of CPU a figure, 100 figures a path. ``make notebooks`` draws them all.
"""
from __future__ import annotations

import atexit
import functools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import nbval.kernel

TRIES = 3
FORK = Path(__file__).with_name("kernel_fork.py")
#: The MIME types nbval does not compare (nbval.plugin.IPyNbFile.skip_compare).
PICTURES = ("image/png", "image/jpeg")


@functools.cache
def zygote() -> str:
    """The socket of this process's zygote (tests/kernel_fork.py), started on first use with
    the environment jupyter_client gives this process's kernels (its own, and
    ``JPY_PARENT_PID``, the manager's process), and stopped when the process ends."""
    path = Path(tempfile.mkdtemp(prefix="kernel-fork-")) / "zygote"
    env = {**os.environ, "JPY_PARENT_PID": str(os.getpid())}
    proc = subprocess.Popen([sys.executable, str(FORK), "zygote", str(path)],
                            stdout=subprocess.PIPE, text=True, env=env)
    atexit.register(lambda: (proc.terminate(), proc.wait()))
    if proc.stdout.readline().strip() != "ready":
        raise RuntimeError(f"the kernel zygote did not start (exit {proc.wait()})")
    return str(path)


class ForkedKernelSpecs(nbval.kernel.NbvalKernelspecManager):
    """nbval's kernel of the current environment, started by tests/kernel_fork.py's client:
    its argv is the client's, with ipykernel's own arguments (``-f <connection file>``)."""

    def get_kernel_spec(self, kernel_name):
        spec = super().get_kernel_spec(kernel_name)
        if kernel_name == nbval.kernel.CURRENT_ENV_KERNEL_NAME:
            ipykernel_args = spec.argv[spec.argv.index("-f"):]
            spec.argv = [sys.executable, str(FORK), "client", zygote(), *ipykernel_args]
        return spec


def without_pictures(manager):
    """``manager``, a kernel spec manager class, whose kernel of the current environment
    leaves :data:`PICTURES` out of IPython's active display types (``DisplayFormatter.
    active_types``: an object with a ``_repr_png_`` is shown by its other representations,
    and ``_repr_png_`` is not called)."""
    from IPython.core.formatters import DisplayFormatter

    shown = [t for t in DisplayFormatter().format_types if t not in PICTURES]

    class WithoutPictures(manager):
        def get_kernel_spec(self, kernel_name):
            spec = super().get_kernel_spec(kernel_name)
            if kernel_name == nbval.kernel.CURRENT_ENV_KERNEL_NAME:
                spec.argv = [*spec.argv, *(f"--DisplayFormatter.active_types={t}"
                                           for t in shown)]
            return spec

    return WithoutPictures


def retrying(start):
    """``start`` (nbval's ``start_new_kernel``), tried up to ``TRIES`` times while the kernel
    dies on start-up (a ``RuntimeError``); the last failure is raised as it came."""

    @functools.wraps(start)
    def start_new_kernel(*args, **kwargs):
        for attempt in range(1, TRIES + 1):
            try:
                return start(*args, **kwargs)
            except RuntimeError as err:
                if attempt == TRIES:
                    raise
                print(f"\nnbval: the kernel died on start-up ({err}); starting it again "
                      f"({attempt + 1} of {TRIES})", file=sys.stderr)

    return start_new_kernel


def pytest_configure(config):
    manager = nbval.kernel.NbvalKernelspecManager  # what start_new_kernel uses
    if os.environ.get("KERNEL_FORK", "1") != "0":
        manager = ForkedKernelSpecs
    if os.environ.get("NBVAL_PIXELS", "1") == "0":
        manager = without_pictures(manager)
    nbval.kernel.NbvalKernelspecManager = manager
    nbval.kernel.start_new_kernel = retrying(nbval.kernel.start_new_kernel)
