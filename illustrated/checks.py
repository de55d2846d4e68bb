"""The input checks the package runs where tensors come in (the public functions that take
tensors, and the ``forward`` of the attention modules and layers), as plain calls. Used
from chapter 3 on.

Each raises ``TypeError`` or ``ValueError`` with a message a learner can act on: it names
the argument, what was expected and what came. They read shapes, dtypes and devices,
never a tensor's values, so a check costs a few microseconds and never makes the host wait
for a GPU; the one message that needs values, :func:`out_of_vocabulary`, reads them only
once a lookup has failed. A module called inside another checks its inputs again: the
checks are cheap, and each names the argument of the call it belongs to.

A concept's own checks live beside it: :func:`~illustrated.masks.check_mask` in
:mod:`~illustrated.masks`, :func:`~illustrated.positional.check_positions` in
:mod:`~illustrated.positional`, :func:`~illustrated.attention.check_attention_inputs` in
:mod:`~illustrated.attention`.
"""
from __future__ import annotations

from itertools import zip_longest

import torch
from torch import nn


def check_tensor(x, name: str, ndim=None, min_ndim=None, floating=False) -> None:
    """Raise if ``x`` is not a tensor of the expected rank (and float dtype if asked)."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if x.dim() not in allowed:
            want = " or ".join(f"{n}-D" for n in allowed)
            raise ValueError(f"{name} must be {want}, got {x.dim()}-D with shape {tuple(x.shape)}")
    if min_ndim is not None and x.dim() < min_ndim:
        raise ValueError(
            f"{name} must have at least {min_ndim} dimensions, got shape {tuple(x.shape)}"
        )
    if floating and not x.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got dtype {x.dtype}")


def broadcast_shape(*shapes) -> tuple | None:
    """The shape that ``shapes`` broadcast to, or ``None`` if they do not: integers only,
    so it costs a few hundred nanoseconds where ``torch.broadcast_shapes`` costs several
    microseconds (a check run on every call of a layer must be cheap)."""
    first = shapes[0]
    if all(s == first for s in shapes[1:]):  # the usual case, at once
        return tuple(first)
    out = []
    for dims in zip_longest(*(reversed(s) for s in shapes), fillvalue=1):  # last axis first
        size = 1
        for n in dims:
            if n != 1:
                if size != 1 and n != size:
                    return None
                size = n
        out.append(size)
    return tuple(reversed(out))


def check_positive_int(value, name: str) -> None:
    """Raise unless ``value`` is a positive ``int`` (bools are refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} ({value!r})")
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {name}={value}")


def check_heads(d_model: int, h: int) -> None:
    """Raise unless ``d_model`` splits evenly into ``h`` heads."""
    check_positive_int(d_model, "d_model")
    check_positive_int(h, "h")
    if d_model % h != 0:
        raise ValueError(
            f"d_model={d_model} is not divisible by h={h} heads "
            f"(each head needs d_model/h dims)"
        )


def check_dropout(p, name: str = "dropout") -> None:
    """Raise unless ``p`` is a probability in [0, 1)."""
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"{name} must be a float in [0, 1), got {type(p).__name__}")
    if not 0.0 <= p < 1.0:
        raise ValueError(f"{name} must be in [0, 1), got {name}={p}")


def check_same_width(a: torch.Tensor, b: torch.Tensor, name_a: str, name_b: str) -> None:
    """Raise unless the last dimensions of two tensors agree."""
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(
            f"{name_a} and {name_b} must have the same last dimension, got "
            f"{name_a} {tuple(a.shape)} and {name_b} {tuple(b.shape)}"
        )


# The method that casts a tensor or a module to a dtype, for error messages.
_CAST = {torch.float64: ".double()", torch.float32: ".float()", torch.float16: ".half()",
         torch.bfloat16: ".bfloat16()"}


def _cast(dtype: torch.dtype) -> str:
    return _CAST.get(dtype, f".to({dtype})")


def _autocast(x: torch.Tensor) -> bool:
    """Whether autocast is on for ``x``'s device: it then casts mixed dtypes itself."""
    try:
        return torch.is_autocast_enabled(x.device.type)
    except TypeError:  # torch < 2.4 takes no device type
        return torch.is_autocast_enabled() or torch.is_autocast_cpu_enabled()


def check_same_dtype_and_device(**tensors: torch.Tensor) -> None:
    """Raise unless the tensors share one dtype and one device: PyTorch's own error
    ("mat1 and mat2 must have the same dtype") names neither the argument nor the fix."""
    (first, a), *others = tensors.items()
    for name, x in others:
        if x.dtype != a.dtype and not _autocast(a):
            raise TypeError(
                f"{first} and {name} must have the same dtype, got {first} {a.dtype} and "
                f"{name} {x.dtype}; cast one to the other's, e.g. {name}{_cast(a.dtype)}"
            )
        if x.device != a.device:
            raise ValueError(
                f"{first} and {name} must be on the same device, got {first} on {a.device} "
                f"and {name} on {x.device}; move one, e.g. {name}.to({first}.device)"
            )


def check_like_weights(module: nn.Module, x: torch.Tensor) -> None:
    """Raise unless the input has the dtype and device of the module's weights."""
    w = next(module.parameters(), None)
    if w is None:
        return
    if x.dtype != w.dtype and not _autocast(x):
        raise TypeError(
            f"the input has dtype {x.dtype} but the module's weights are {w.dtype}: call "
            f"{_cast(x.dtype)} on the module (model{_cast(x.dtype)}) or cast the input "
            f"with {_cast(w.dtype)}"
        )
    if x.device != w.device:
        raise ValueError(
            f"the input is on {x.device} but the module's weights are on {w.device}: "
            f"move the module (model.to('{x.device}')) or the input (.to('{w.device}'))"
        )


def check_stream(x, d_model: int, name: str = "x", like: nn.Module | None = None) -> None:
    """Raise unless ``x`` is a float tensor ``(B, L, d_model)`` (with the dtype and device of
    the module ``like``'s weights, if given): the residual stream a layer reads."""
    check_tensor(x, name, ndim=3, floating=True)
    if x.shape[-1] != d_model:
        raise ValueError(
            f"{name} must have shape (B, L, d_model={d_model}), got {tuple(x.shape)}"
        )
    if like is not None:
        check_like_weights(like, x)


def check_token_ids(tokens, name: str = "tokens") -> None:
    """Raise unless ``tokens`` is a ``(B, L)`` tensor of integer ids. Their range is not read
    here: an embedding's lookup refuses an id outside its table (see
    :func:`out_of_vocabulary`)."""
    check_tensor(tokens, name, ndim=2)
    if tokens.is_floating_point() or tokens.dtype == torch.bool:
        raise TypeError(f"{name} must hold integer ids, got dtype {tokens.dtype}")


def out_of_vocabulary(tokens: torch.Tensor, vocab: int, name: str = "tokens") -> ValueError:
    """The error for ids outside ``[0, vocab)``, naming the smallest and largest. It reads
    the ids, so it is built only once a lookup has failed, never on a good batch."""
    return ValueError(
        f"{name} must be token ids in [0, vocab={vocab}), got ids from "
        f"{tokens.min().item()} to {tokens.max().item()}"
    )


def check_tokens(tokens, vocab: int, name: str = "tokens") -> None:
    """Raise unless ``tokens`` is a ``(B, L)`` tensor of integer ids in ``[0, vocab)``. It
    reads the values (on a GPU, a wait for them): for batches made on the CPU, before they
    go to the device, not for a model's forward."""
    check_token_ids(tokens, name)
    if tokens.numel() and (tokens.min() < 0 or tokens.max() >= vocab):
        raise out_of_vocabulary(tokens, vocab, name)
