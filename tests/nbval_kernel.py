"""A pytest plugin for the nbval stages (the Makefile's ``-p tests.nbval_kernel``): a kernel
that dies before it answers is started again, up to three times.

Two nbval workers start kernels at the same moment. jupyter_client picks each kernel's five
ports by asking the system for free ones and releasing them; between that and the kernel
binding them, the other worker's kernel can take one, and the kernel dies with "Address
already in use" before it replies ("Kernel died before replying to kernel_info": seen once in
a fresh clone's ``make test``, chapter 2, all 33 cells in error; the same notebook passed
alone). No cell has run at that point, so starting the kernel again changes no result.
"""
from __future__ import annotations

import functools
import sys

import nbval.kernel

TRIES = 3


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
    nbval.kernel.start_new_kernel = retrying(nbval.kernel.start_new_kernel)
