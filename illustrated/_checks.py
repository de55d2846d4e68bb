"""Input validation shared by the public functions of ``illustrated``.

Each helper raises ``TypeError`` or ``ValueError`` with a message a learner can act on:
it names the argument, what was expected and what came.
"""
from __future__ import annotations

import functools
import inspect
import threading
from contextlib import contextmanager
from itertools import zip_longest

import torch

# Whether a checked call is running in this thread: the calls it makes skip their checks.
_door = threading.local()


def checked_at_the_door(check):
    """Decorate a public ``forward`` (or function) so that ``check`` sees its arguments
    once, at the door: only when it is the outermost checked call. The calls it makes
    inside (a model calling its layers, a layer its attention) then skip their checks, so
    each tensor a reader passes is checked once per call, with the message of the entry
    the reader called. ``check`` takes the same arguments as the function."""
    def decorate(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if getattr(_door, "inside", False):
                return fn(*args, **kwargs)
            try:
                check(*args, **kwargs)
            except TypeError as error:  # an argument fn does not take: say so in fn's name
                try:
                    inspect.signature(fn).bind(*args, **kwargs)
                except TypeError as wrong:
                    raise TypeError(f"{fn.__qualname__}() {wrong}") from None
                raise error
            with inputs_checked():
                return fn(*args, **kwargs)
        return call
    return decorate


@contextmanager
def inputs_checked():
    """Inside this block, public calls skip their checks: the caller vouches for its
    inputs, e.g. a trainer that checked its batches once, on the CPU, when it built them
    (a check on a GPU tensor's values would wait for the GPU at every step)."""
    outer = getattr(_door, "inside", False)
    _door.inside = True
    try:
        yield
    finally:
        _door.inside = outer


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
