"""The nbval stages' forked kernels (tests/kernel_fork.py, tests/nbval_kernel.py) are fresh
kernels in all a notebook can see: the same kernel path, threads, module path, folder,
environment and parent, their own random seeds; they answer an interrupt, end with their
client, and a kernel asked for with another environment is refused."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import nbval.kernel
import pytest
from jupyter_client.manager import KernelManager

from tests import kernel_fork, nbval_kernel

# What a notebook can see of its kernel, one line of JSON.
LOOK = """import json, os, random, sys, torch
from ipykernel.kernelapp import IPKernelApp
print(json.dumps({"argv0": sys.argv[0], "path": sys.path, "cwd": os.getcwd(),
    "env": dict(os.environ), "parent": IPKernelApp.instance().parent_handle,
    "capability": torch.backends.cpu.get_cpu_capability(), "threads": torch.get_num_threads(),
    "torch_seed": torch.initial_seed(), "random": random.random(),
    "pandas_loaded": "pandas" in sys.modules}))"""


def started(specs, cwd):
    km = KernelManager(kernel_name=nbval.kernel.CURRENT_ENV_KERNEL_NAME, kernel_spec_manager=specs)
    km.start_kernel(cwd=str(cwd), stderr=subprocess.DEVNULL)
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc


def run(kc, code: str, timeout=60) -> tuple[str, dict]:
    out = []
    reply = kc.execute_interactive(code, timeout=timeout, output_hook=lambda m: out.append(
        m["content"].get("text", "")) if m["msg_type"] == "stream" else None)
    return "".join(out), reply["content"]


def look(specs, cwd) -> dict:
    km, kc = started(specs, cwd)
    try:
        return json.loads(run(kc, LOOK)[0])
    finally:
        kc.stop_channels()
        km.shutdown_kernel()


@pytest.mark.long
def test_a_forked_kernel_sees_what_a_fresh_one_sees(tmp_path, monkeypatch):
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")  # another path than this machine's
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    nbval_kernel.zygote.cache_clear()  # a zygote with this environment
    try:
        fresh = look(nbval.kernel.NbvalKernelspecManager(), tmp_path)
        forked = [look(nbval_kernel.ForkedKernelSpecs(), tmp_path) for _ in range(2)]
    finally:
        nbval_kernel.zygote.cache_clear()
    assert fresh["capability"] == "DEFAULT" and fresh["threads"] == 1
    assert not fresh["pandas_loaded"]
    random_state = ("torch_seed", "random")
    for kernel in forked:
        differ = {k: (fresh[k], kernel[k]) for k in fresh
                  if k not in random_state and fresh[k] != kernel[k]}
        assert not differ, differ
    # each kernel seeds itself, as a new process does
    assert all(forked[0][k] != forked[1][k] for k in random_state)


def test_a_forked_kernel_is_interrupted_and_ends_with_its_client(tmp_path):
    km, kc = started(nbval_kernel.ForkedKernelSpecs(), tmp_path)
    try:
        kernel = int(run(kc, "import os; print(os.getpid())")[0])
        kc.execute("import time; time.sleep(60)")
        time.sleep(1)
        start = time.perf_counter()
        km.interrupt_kernel()  # a signal to the client, passed on
        reply = kc.get_shell_msg(timeout=20)
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        assert time.perf_counter() - start < 10
        km.shutdown_kernel(now=True)  # the client is killed: the kernel ends by itself
        for _ in range(100):
            if not os.path.exists(f"/proc/{kernel}") or "Z" in open(
                    f"/proc/{kernel}/stat").read().split(")")[1].split()[0]:
                break
            time.sleep(0.1)
        else:
            pytest.fail(f"the kernel {kernel} outlived its client")
    finally:
        kc.stop_channels()
        if km.has_kernel:
            km.shutdown_kernel(now=True)


def test_a_kernel_on_another_kernel_path_is_refused_with_a_message(tmp_path):
    path = nbval_kernel.zygote()
    env = {**os.environ, "JPY_PARENT_PID": str(os.getpid()), "ATEN_CPU_CAPABILITY": "avx2"}
    if os.environ.get("ATEN_CPU_CAPABILITY") == "avx2":
        env["ATEN_CPU_CAPABILITY"] = "default"
    proc = subprocess.run([sys.executable, kernel_fork.__file__, "client", path, "-f", "x"],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc
    assert "refused" in proc.stderr and "ATEN_CPU_CAPABILITY" in proc.stderr, proc.stderr



def test_a_kernel_without_pictures_shows_a_figures_text_and_draws_no_png(tmp_path):
    """NBVAL_PIXELS=0 (the second and third nbval paths): the figure is built and shown by
    its text, which nbval compares, and its PNG, which nbval skips, is not drawn."""
    from IPython.core.formatters import DisplayFormatter

    from illustrated import draw

    code = "draw.line_plot([1, 2], {'a': [1, 2]})"
    everything = DisplayFormatter().format(eval(code))[0]  # what a kernel shows by default
    km, kc = started(nbval_kernel.without_pictures(nbval_kernel.ForkedKernelSpecs)(), tmp_path)
    try:
        results = []
        kc.execute_interactive(f"from illustrated import draw\n{code}", timeout=60,
                               output_hook=lambda m: results.append(m["content"]["data"])
                               if m["msg_type"] == "execute_result" else None)
    finally:
        kc.stop_channels()
        km.shutdown_kernel()
    assert "image/png" in everything
    assert set(results[0]) == set(everything) - set(nbval_kernel.PICTURES)
    assert results[0]["text/plain"] == everything["text/plain"]
