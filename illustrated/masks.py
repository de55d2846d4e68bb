"""Masks: which positions a query may look at. Introduced in chapter 6, Masking.

**The one mask convention of this package.** A mask is a ``torch.bool`` tensor that
broadcasts against the attention scores ``(B, L, S)`` (or ``(B, H, L, S)``), and

    ``True`` means *may attend*; ``False`` means *blocked*.

Blocked scores are replaced by a very negative number before the softmax, so their
weights come out exactly 0. PyTorch's own APIs disagree with each other here:
``torch.nn.functional.scaled_dot_product_attention`` uses the same meaning as we do,
while ``torch.nn.MultiheadAttention`` and ``torch.nn.Transformer*`` use ``True`` for
*blocked*. :func:`to_torch_blocked` converts at that border. All of them also take float
*additive* masks, added to the scores (0 = attend, ``-inf`` = blocked): ``mask == 0``
turns one into ours, while ``mask.bool()`` would turn it into its opposite. A mask of any
dtype but bool is refused with an error that says which conversion its values call for.
"""
from __future__ import annotations

import torch

from .checks import broadcast_shape, check_positive_int, check_tensor


def padding_mask(tokens: torch.Tensor, pad_id: int = 0) -> torch.Tensor:
    """Mask out padding tokens so no query attends to them.

    Args:
        tokens: integer token ids, shape ``(B, S)``.
        pad_id: the id used for padding.

    Returns:
        bool tensor ``(B, 1, S)``: ``True`` on real tokens. The middle axis of size 1
        broadcasts over every query position.

    Example: the batch ``[[5, 2, 1, 0, 0], [1, 3, 1, 4, 0]]`` gives
    ``[[[T, T, T, F, F]], [[T, T, T, T, F]]]``.
    """
    check_tensor(tokens, "tokens", ndim=2)
    if tokens.is_floating_point() or tokens.dtype == torch.bool:
        raise TypeError(f"tokens must hold integer ids, got dtype {tokens.dtype}")
    return (tokens != pad_id).unsqueeze(1)  # (B, 1, S)


def subsequent_mask(size: int, device=None) -> torch.Tensor:
    """The causal mask: position ``i`` may attend to positions ``0..i`` only.

    Args:
        size: sequence length ``L``.
        device: where to create the mask.

    Returns:
        bool tensor ``(1, L, L)``, ``True`` on and below the diagonal.
    """
    check_positive_int(size, "size")
    return torch.ones(size, size, dtype=torch.bool, device=device).tril().unsqueeze(0)  # (1, L, L)


def length_mask(valid_lens: torch.Tensor, size: int) -> torch.Tensor:
    """The padding mask written with lengths, as d2l's ``valid_lens`` does: each sentence
    keeps its first ``valid_lens[b]`` keys.

    Args:
        valid_lens: integer lengths, shape ``(B,)`` (one per sentence) or ``(B, L)`` (one
            per query, as d2l's decoder uses during training).
        size: the number of keys ``S``.

    Returns:
        bool tensor ``(B, 1, S)`` for lengths ``(B,)``, ``(B, L, S)`` for ``(B, L)``:
        ``True`` on key positions ``0 .. valid_lens - 1``. For right-padded tokens,
        ``length_mask((tokens != pad_id).sum(-1), S)`` equals ``padding_mask(tokens, pad_id)``.
    """
    check_tensor(valid_lens, "valid_lens", ndim=(1, 2))
    if valid_lens.is_floating_point() or valid_lens.dtype == torch.bool:
        raise TypeError(f"valid_lens must hold integer lengths, got dtype {valid_lens.dtype}")
    check_positive_int(size, "size")
    if bool((valid_lens < 0).any()) or bool((valid_lens > size).any()):
        raise ValueError(f"valid_lens must lie between 0 and size={size}, got values from "
                         f"{valid_lens.min().item()} to {valid_lens.max().item()}")
    if valid_lens.dim() == 1:
        lens = valid_lens.view(-1, 1, 1)  # (B, 1, 1): the same length for every query
    else:
        lens = valid_lens.unsqueeze(-1)  # (B, L, 1)
    positions = torch.arange(size, device=valid_lens.device)  # (S,)
    return positions < lens  # (B, 1, S) or (B, L, S)


def _not_bool(mask: torch.Tensor, name: str) -> TypeError:
    """The error for a mask of another dtype, with the conversion its values call for.

    A 0/1 mask (1 = may attend) converts with ``.bool()``. An *additive* mask, as
    ``torch.nn.MultiheadAttention`` and ``nn.Transformer.generate_square_subsequent_mask``
    use (0 = attend, ``-inf`` or a large negative number = blocked), must not: ``.bool()``
    would turn its blocked entries into True and its open ones into False."""
    start = f"{name} must be a bool tensor (True = may attend), got dtype {mask.dtype}; "
    if bool(((mask == 0) | (mask == 1)).all()):
        advice = f"a 0/1 mask (1 = may attend) converts with `{name}.bool()`"
    elif bool((mask <= 0).all()) and bool((mask < 0).any()):
        advice = (f"this looks like an additive mask (0 = attend, -inf = blocked), as "
                  f"torch.nn.MultiheadAttention takes; convert it with `{name} == 0`")
    else:
        advice = (f"convert a 0/1 mask (1 = may attend) with `{name}.bool()`, an additive "
                  f"mask (0 = attend, -inf or a large negative number = blocked) with "
                  f"`{name} == 0`")
    return TypeError(start + advice)


def check_mask(mask: torch.Tensor, scores_shape, name: str = "mask") -> None:
    """Raise a clear error unless ``mask`` is bool and broadcasts to ``scores_shape``."""
    check_tensor(mask, name)
    if mask.dtype != torch.bool:
        raise _not_bool(mask, name)
    if broadcast_shape(mask.shape, scores_shape) != tuple(scores_shape):
        raise ValueError(
            f"{name} of shape {tuple(mask.shape)} does not broadcast against the attention "
            f"scores of shape {tuple(scores_shape)}"
        )


def to_torch_blocked(mask: torch.Tensor) -> torch.Tensor:
    """Convert our mask (``True`` = may attend) to PyTorch's ``nn.MultiheadAttention``
    convention (``True`` = blocked)."""
    check_tensor(mask, "mask")
    if mask.dtype != torch.bool:
        raise _not_bool(mask, "mask")
    return ~mask
