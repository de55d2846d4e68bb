"""The input checks of :mod:`illustrated.attention` (and :mod:`illustrated.fused`), made
once at the door of each call (:func:`~illustrated._checks.checked_at_the_door`). Each
raises ``TypeError`` or ``ValueError`` naming the argument, what was expected and what came.
"""
from __future__ import annotations

import torch

from ._checks import broadcast_shape, check_same_width, check_tensor
from .kv_cache import KVCache
from .masks import check_mask


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


def _check_same_dtype_and_device(**tensors: torch.Tensor) -> None:
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


def _check_qkv(query, key, value) -> None:
    for name, x in (("query", query), ("key", key), ("value", value)):
        check_tensor(x, name, min_ndim=2, floating=True)
    _check_same_dtype_and_device(query=query, key=key, value=value)
    if query.dim() != key.dim() or key.dim() != value.dim():
        raise ValueError(
            "query, key and value must have the same number of dimensions, got shapes "
            f"{tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}"
        )
    check_same_width(query, key, "query", "key")
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(
            "key and value must have the same length S (one value per key), got "
            f"key {tuple(key.shape)} and value {tuple(value.shape)}"
        )
    if broadcast_shape(query.shape[:-2], key.shape[:-2], value.shape[:-2]) is None:
        raise ValueError(
            "the batch dimensions of query, key and value do not match: "
            f"{tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}"
        )


def check_sdpa_inputs(query, key, value, mask=None, dropout=None) -> None:
    """The checks of :func:`~illustrated.attention.scaled_dot_product_attention`, at its door."""
    _check_qkv(query, key, value)
    if dropout is not None and not callable(dropout):
        raise TypeError(
            f"dropout must be a module such as nn.Dropout(p) or None, got "
            f"{type(dropout).__name__} ({dropout!r})"
        )
    if mask is not None:
        batch = broadcast_shape(query.shape[:-2], key.shape[:-2])  # the batch axes of Q K^T
        check_mask(mask, (*batch, query.shape[-2], key.shape[-2]))  # against (..., L, S)


def check_attention_inputs(module, query, key, value, mask=None, cache=None) -> None:
    """The checks of one call of a multi-head attention ``module`` (one with ``d_model``,
    ``h`` and parameters), made at its door: the teaching module
    (:mod:`illustrated.attention`) and the fused one (:mod:`illustrated.fused`) share them."""
    if cache is not None and not isinstance(cache, KVCache):
        raise TypeError(f"cache must be a KVCache or None, got {type(cache).__name__}")
    # Each tensor once: self-attention passes one tensor three times, encoder-decoder
    # attention the memory twice.
    inputs = {"query": query}
    if key is not query:
        inputs["key"] = key
    if value is not key and value is not query:
        inputs["value"] = value
    for name, x in inputs.items():
        check_tensor(x, name, ndim=3, floating=True)
        if x.shape[2] != module.d_model:
            raise ValueError(f"{name} must have last dimension d_model={module.d_model}, "
                             f"got shape {tuple(x.shape)}")
    if len(inputs) > 1:
        _check_same_dtype_and_device(**inputs)
    check_like_weights(module, query)
    (B, L, _), (B_k, S, _), (B_v, S_v, _) = query.shape, key.shape, value.shape
    if not B == B_k == B_v:
        raise ValueError(
            "query, key and value must have the same batch size B, got shapes "
            f"{tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}"
        )
    if S != S_v:
        raise ValueError(
            f"key and value must have the same length S, got {tuple(key.shape)} "
            f"and {tuple(value.shape)}"
        )
    if cache is not None and cache.k is not None:
        if cache.k.shape[0] != B:
            raise ValueError(
                f"the cache holds keys for a batch of {cache.k.shape[0]} but the query "
                f"has B={B}: start a new KVCache for a new batch (or reorder() this one)"
            )
        S = len(cache) if cache.static else len(cache) + S  # the keys attended to
    if mask is not None:
        check_tensor(mask, "mask", ndim=(2, 3, 4))
        # Check the mask as the caller gave it, so an error names their shape.
        check_mask(mask, (B, module.h, L, S) if mask.dim() == 4 else (B, L, S))


def check_like_weights(module, x: torch.Tensor) -> None:
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
