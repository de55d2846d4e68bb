"""Notebook kernels forked from a process that has already imported torch (the nbval stages).

nbval starts a fresh kernel for every notebook: 21 notebooks on three kernel paths, 63
kernels in ``make test``. Each new kernel spent about 2.2 s of CPU before its first cell had
done anything of its own: Python and ipykernel starting (0.65 s), then the first cell's
``import torch``, matplotlib and pandas (1.5 s): about 140 of the nbval stages' 455
CPU-seconds. Here one process per nbval worker, the *zygote*, imports those once, and each
kernel is a fork of it: the same modules in the same freshly imported state, at the price
of a fork.

    python tests/kernel_fork.py zygote SOCKET   # imports PRELOAD, then forks on request
    python tests/kernel_fork.py client SOCKET -f CONNECTION_FILE   # what jupyter_client runs

jupyter_client starts the *client* as if it were the kernel (tests/nbval_kernel.py puts it
in the kernel spec's argv). The client sends the zygote its arguments, working folder,
environment and standard streams; the zygote forks; the child becomes the kernel
(``ipykernel``, with those arguments, in that folder, with those streams). The client stays
as the kernel's stand-in for jupyter_client: it passes on every signal it is sent
(interrupt, terminate) and exits when the kernel does; a kernel whose client was killed
exits too.

What keeps a forked kernel the same as a fresh one:
- The zygote only imports, and computes nothing: torch's OpenMP threads do not exist yet (a
  fork copies the calling thread only; the kernel starts its own when it first needs
  them). The one thread the imports do start, numpy's OpenBLAS pool, is shut down by
  OpenBLAS before a fork and started again in the child.
- What a module reads from the environment when it is imported (torch its kernel path and
  threads, ``ATEN_CPU_CAPABILITY``, ``OMP_NUM_THREADS``; ipykernel ``JPY_PARENT_PID``) it
  read in the zygote, whose environment is the one jupyter_client gives the kernel: the
  worker's, with ``JPY_PARENT_PID`` the worker's process. A kernel asked for with another
  environment (but for :data:`VARYING`) is refused with a message, not run with the
  zygote's.
- The child takes new random seeds from the system (Python's, torch's, numpy's), as a new
  process does when it imports them; the default signal handling; and the working folder,
  module path, arguments and standard streams of ``python -m ipykernel_launcher``.
- pandas is not preloaded (:data:`PRELOAD`).
Only the standard library is imported by the client (it starts in a notebook's folder).
"""
from __future__ import annotations

import json
import os
import runpy
import select
import signal
import socket
import sys
import threading

# What every notebook's first cell imports, the kernel's own machinery first. Not pandas:
# it decides at import whether it runs in a terminal (no IPython yet: yes) and then cuts
# wide tables to the terminal's width ("[3 rows x 5 columns]"); imported by the kernel, it
# sees the kernel and does not.
# torch._dynamo too: FlopCounterMode imports it (with sympy) the first time it counts, 1.2 s
# of CPU in each of the 8 notebooks that count FLOPs (illustrated.counting), on each path.
PRELOAD = ("ipykernel.kernelapp", "torch", "torch.nn.functional", "numpy", "matplotlib.figure",
           "torch._dynamo")
STREAMS = 3  # stdin, stdout, stderr
# The environment variables that may differ from kernel to kernel: pytest names the test
# running in PYTEST_CURRENT_TEST; no module reads it when imported.
VARYING = {"PYTEST_CURRENT_TEST"}


def reap(*_) -> None:
    """Wait for every kernel that has ended (its CPU time then counts in the zygote's
    children's, and so in the worker's when it waits for the zygote)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:  # none left
        pass


def zygote(path: str) -> None:
    """Import PRELOAD, say "ready" on stdout, then fork a kernel per request on ``path``,
    until the worker that started it has ended."""
    import gc
    import importlib

    started_with = dict(os.environ)
    for name in PRELOAD:
        importlib.import_module(name)
    # What an import wrote into the environment is taken out again (torch._dynamo's
    # TORCHINDUCTOR_CACHE_DIR, which inductor sets again if it is ever asked for its cache):
    # a kernel's environment is the one it asked for, as a fresh kernel's is.
    os.environ.clear()
    os.environ.update(started_with)
    # What the imports made stays out of the kernels' garbage collections, which would
    # otherwise touch, and so copy, every page of it in every kernel.
    gc.freeze()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen()
    signal.signal(signal.SIGCHLD, reap)
    worker = os.pidfd_open(os.getppid())  # readable once the worker has ended
    print("ready", flush=True)
    while True:
        if worker in select.select([server, worker], [], [])[0]:
            return
        conn, _ = server.accept()
        message, fds, _, _ = socket.recv_fds(conn, 1 << 16, STREAMS)
        request = json.loads(message + b"".join(iter(lambda: conn.recv(1 << 16), b"")))
        asked, own = request["env"], os.environ
        wrong = {k: (asked.get(k), own.get(k)) for k in (set(asked) | set(own)) - VARYING
                 if asked.get(k) != own.get(k)}
        if wrong:
            error = f"its environment is not the zygote's: {wrong} (the kernel's, the zygote's)"
            print(f"kernel_fork: a kernel refused: {error}", file=sys.stderr, flush=True)
            conn.sendall(json.dumps({"error": error}).encode())
        else:
            pid = os.fork()
            if pid == 0:
                server.close()
                conn.close()
                kernel(request, fds)  # never returns
            conn.sendall(json.dumps({"pid": pid}).encode())
        for fd in fds:
            os.close(fd)
        conn.close()


def kernel(request: dict, fds: list[int]) -> None:
    """In the forked child: become the kernel jupyter_client asked for."""
    import random

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    # Fresh seeds from the system, as a new process takes them when it imports these.
    random.seed()
    sys.modules["torch"].seed()
    if "numpy.random" in sys.modules:
        sys.modules["numpy.random"].seed()
    client = os.pidfd_open(request["client"])

    def watch():  # the client killed: no one will stop this kernel, so it stops itself
        select.select([client], [], [])
        os._exit(1)
    threading.Thread(target=watch, daemon=True).start()
    # As ``python -m ipykernel_launcher <argv>`` starts it: the working folder first on the
    # module path (where this script's folder was), the launcher run as __main__.
    sys.path[0] = request["cwd"]
    sys.argv = ["ipykernel_launcher", *request["argv"]]
    try:
        runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def client(path: str, argv: list[str]) -> int:
    """Ask the zygote on ``path`` for a kernel with ``argv``; pass signals on to it; return
    when it has ended."""
    request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "client": os.getpid()}
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)
        socket.send_fds(conn, [json.dumps(request).encode()], list(range(STREAMS)))
        conn.shutdown(socket.SHUT_WR)
        answer = json.loads(b"".join(iter(lambda: conn.recv(4096), b"")))
    if "error" in answer:
        print(f"kernel_fork: the zygote refused this kernel: {answer['error']}",
              file=sys.stderr)
        return 1
    pid = answer["pid"]
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, lambda sig, _: os.kill(pid, sig))
    try:
        ended = os.pidfd_open(pid)
    except ProcessLookupError:
        return 0
    select.select([ended], [], [])  # interrupted by a signal, it waits again (PEP 475)
    return 0


if __name__ == "__main__":
    role, path, *rest = sys.argv[1:]
    if role == "zygote":
        zygote(path)
    elif role == "client":
        sys.exit(client(path, rest))
    else:
        sys.exit(f"usage: kernel_fork.py zygote|client SOCKET [KERNEL ARGS]; got {role!r}")
