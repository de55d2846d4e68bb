"""Checkpoint files: written atomically, read back with a check of their format. Used by
:mod:`illustrated.training` (the toy translator), :mod:`illustrated.translator.training`
(the resumable training state), :mod:`illustrated.translator.inference` (the real
translator) and :mod:`illustrated.decoder_only.training` (the decoder-only model).
"""
from __future__ import annotations

import os
from pathlib import Path

import torch


def write_atomically(blob: dict, path) -> Path:
    """``torch.save`` to a temporary file beside ``path``, then ``os.replace``: a process
    killed while writing leaves the previous file whole."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(blob, tmp)
    os.replace(tmp, path)
    return path


def read_checked(path, fmt: str, what: str, map_location=None) -> dict:
    """The dictionary saved in ``path``, whose ``"format"`` must be ``fmt``.

    Raises:
        FileNotFoundError: no such file.
        ValueError: a damaged file, or one that is not a ``what`` (named in the message).
    """
    try:
        blob = torch.load(path, weights_only=True, map_location=map_location)
    except FileNotFoundError:
        raise
    except Exception as e:
        raise ValueError(f"{path} is damaged or not a checkpoint: {e}") from None
    if not isinstance(blob, dict) or blob.get("format") != fmt:
        raise ValueError(f"{path} is not a {what} (format {fmt})")
    return blob


def half_state(model: torch.nn.Module) -> dict:
    """``model``'s state dict with float weights as float16, on the CPU, for a small
    shipped file; a matrix shared by several layers stays one tensor in the file."""
    halves, state = {}, {}
    for k, v in model.state_dict().items():
        if v.data_ptr() not in halves:
            halves[v.data_ptr()] = (v.detach().to("cpu", torch.float16)
                                    if v.is_floating_point() else v.detach().cpu())
        state[k] = halves[v.data_ptr()]
    return state
