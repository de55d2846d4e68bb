"""W^Q, W^K and W^V in one block of memory, so that projecting a token by all three is one
matrix product, as PyTorch's ``in_proj_weight`` does (chapter 5 compares the two).

:class:`~illustrated.attention.MultiHeadAttention` keeps its three input projections as
three ``nn.Linear`` layers, the way chapter 5 teaches them. Three small products cost
three calls, though, where PyTorch makes one on the three matrices stacked, ``(3D, D)``:
on a tiny call that is a third of the time.

:func:`stack` gives both. It moves the three layers' weights (and biases) into one new
block, each layer's parameter becoming a view of its own rows. The layers do not notice:
the same parameter objects, names, values, ``state_dict`` keys and gradients. An in-place
change of a layer (an optimizer step, ``load_state_dict``, ``weight.data.zero_()``) is a
change of the block, so the block is never stale.

:meth:`Stacked.ready` says when the block may stand in for the three layers, that is,
when nobody could tell the difference:

- no gradient is being recorded (a product with the block would not carry one back to
  the three parameters);
- no hook watches the layers (it would not see them called), and no tracer or compiler
  is recording them (an exported graph keeps the three layers);
- each layer is still a plain ``nn.Linear`` whose parameters are still the block's rows.
  ``.to()``, ``.half()`` and a deep copy give parameters new memory; the attention module
  then stacks them again. A replaced layer or parameter just turns the shortcut off.

Otherwise the three layers run one by one, exactly as the teaching code reads. The tests
prove both ways equal (``tests/test_stacking.py``).
"""
from __future__ import annotations

import torch
from torch import nn
from torch.nn.modules import module as _module

# The forward hooks registered for every module (nn.modules.module.register_module_forward_hook):
# a hook there must see each projection called, so the block then stands aside.
_GLOBAL_HOOKS = tuple(getattr(_module, name, {}) for name in (
    "_global_forward_hooks", "_global_forward_pre_hooks", "_global_forward_hooks_always_called"))


class Stacked:
    """The block holding the parameters of some ``nn.Linear`` layers of one shape, stacked
    along the output axis: ``weight`` ``(n * D_out, D_in)``, ``bias`` ``(n * D_out,)`` or
    ``None``; ``weights[i]`` and ``biases[i]`` are layer ``i``'s rows."""

    def __init__(self, n: int, weight: torch.Tensor, bias: torch.Tensor | None):
        self.weight, self.bias = weight, bias  # (n * D_out, D_in), (n * D_out,)
        self.weights = weight.chunk(n)  # n x (D_out, D_in)
        self.biases = bias.chunk(n) if bias is not None else (None,) * n  # n x (D_out,)
        # Where each layer's parameters must still start for the block to be theirs.
        self._starts = tuple((w.data_ptr(), None if b is None else b.data_ptr())
                             for w, b in zip(self.weights, self.biases))

    def ready(self, linears) -> bool:
        """Whether the block may stand in for ``linears`` in this call (see the module's
        docstring): integer and identity comparisons only, a microsecond."""
        if (torch.is_grad_enabled() or torch.jit.is_tracing() or torch.compiler.is_compiling()
                or any(_GLOBAL_HOOKS)):
            return False
        for m, start in zip(linears, self._starts):
            if type(m) is not nn.Linear or m._forward_hooks or m._forward_pre_hooks:
                return False
            p = m._parameters
            b = p["bias"]
            if (p["weight"].data_ptr(), None if b is None else b.data_ptr()) != start:
                return False
        return True


def stack(linears) -> Stacked | None:
    """Move the parameters of ``linears`` into one block (see the module's docstring) and
    return it; ``None``, touching nothing, unless they are plain ``nn.Linear`` layers whose
    weights share one shape, dtype and device, with a bias on all of them or none."""
    if not linears or any(type(m) is not nn.Linear for m in linears):
        return None
    weights = [m.weight for m in linears]
    biases = [m.bias for m in linears]
    if len({(w.shape, w.dtype, w.device) for w in weights}) != 1:
        return None
    if any(b is None for b in biases):
        if not all(b is None for b in biases):
            return None
        biases = None
    elif len({(b.dtype, b.device) for b in biases}) != 1:
        return None
    with torch.no_grad():
        weight = torch.cat([w.detach() for w in weights])  # (n * D_out, D_in)
        bias = torch.cat([b.detach() for b in biases]) if biases else None  # (n * D_out,)
    block = Stacked(len(linears), weight, bias)
    for w, rows in zip(weights, block.weights):
        w.data = rows  # the same Parameter object, now a view of the block
    for b, rows in zip(biases or (), block.biases):
        b.data = rows
    return block
