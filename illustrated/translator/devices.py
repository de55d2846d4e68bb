"""Where a real translator trains: the best device at hand, whether it computes in bfloat16
natively, and the processes of a run that ``torchrun`` started (PyTorch's
``DistributedDataParallel``: gloo on CPUs, NCCL on GPUs). Introduced in the chapter Real
sentences; :func:`illustrated.translator.training.train_real` uses them.
"""
from __future__ import annotations

import os

import torch
from torch import distributed as dist


def best_device() -> str:
    """``"cuda"`` when a GPU is present, else ``"mps"`` (Apple), else ``"cpu"``."""
    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def native_bf16(device: torch.device) -> bool:
    """Does ``device`` compute in bfloat16 natively: a CUDA GPU, or a CPU with AVX-512 BF16
    or AMX (elsewhere bfloat16 is emulated, slower than float32)?"""
    if device.type == "cuda":
        return True
    if device.type != "cpu":
        return False
    try:  # private helpers of torch.cpu, guarded: an older or newer torch may lack them
        return bool(torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported())
    except AttributeError:
        return False


def join_processes(device: str):
    """``(rank, world, device)``: this process's rank, the number of processes and the
    device this process computes on; joins the process group when ``torchrun`` started us
    (``WORLD_SIZE`` above 1)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world == 1:
        return 0, 1, torch.device(device)
    if not dist.is_initialized():
        dist.init_process_group("nccl" if device == "cuda" else "gloo")
    if device == "cuda":
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)
        return dist.get_rank(), world, torch.device("cuda", local)
    return dist.get_rank(), world, torch.device(device)
