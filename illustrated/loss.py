"""Label-smoothed loss (the paper's section 5.4, eps = 0.1), in the Kullback-Leibler form.

The true distribution ``q`` of a position with target ``y`` puts ``1 - eps`` on ``y``,
``eps / (V - 2)`` on every other class except padding, and 0 on padding: the Annotated
Transformer's scheme. (Szegedy et al.'s definition gives every class ``eps / V``, the target
included; Tensor2Tensor's ``smoothing_cross_entropy`` spreads ``eps / (V - 1)`` over every
other id, padding included.) The loss is
``KL(q || p) = sum_c q_c (log q_c - log p_c)``, averaged over non-padding positions.

Relation to PyTorch, tested: ``KL(q || p) = CE(q, p) - H(q)``, so the loss equals
``F.cross_entropy(logp, q, ...)`` (cross-entropy against the soft targets) minus the entropy
of ``q``, a constant: same gradients. ``F.cross_entropy(label_smoothing=eps)`` is the same
construction with ``q`` spread as ``eps / V`` over *all* ``V`` classes (padding and the
target included). With ``eps = 0`` the loss equals ``F.cross_entropy(ignore_index=pad)``.
"""
from __future__ import annotations

import torch
from torch import nn

from .checks import check_positive_int, check_tensor


class LabelSmoothingLoss(nn.Module):
    """Args: vocab_size ``V``; pad_id; smoothing ``eps`` in [0, 1).

    Call with log-probabilities ``(..., V)`` and targets ``(...)``; returns the mean
    over non-padding targets (a 0-D tensor)."""

    def __init__(self, vocab_size: int, pad_id: int, smoothing: float = 0.1):
        super().__init__()
        check_positive_int(vocab_size, "vocab_size")
        if vocab_size < 3:
            raise ValueError(f"vocab_size must be >= 3 (target, pad, another), got {vocab_size}")
        if not 0 <= pad_id < vocab_size:
            raise ValueError(f"pad_id must be in [0, {vocab_size}), got {pad_id}")
        if not 0.0 <= smoothing < 1.0:
            raise ValueError(f"smoothing must be in [0, 1), got {smoothing}")
        self.V, self.pad_id, self.eps = vocab_size, pad_id, float(smoothing)

    def true_dist(self, target: torch.Tensor, dtype=torch.float32) -> torch.Tensor:
        """The smoothed target distribution ``q`` ``(N, V)`` for targets ``(N,)``."""
        q = torch.full((target.numel(), self.V), self.eps / (self.V - 2), dtype=dtype)
        q[:, self.pad_id] = 0.0
        q.scatter_(1, target.reshape(-1, 1), 1.0 - self.eps)  # (N, V)
        return q

    def forward(self, logp: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        """Args: logp ``(..., V)`` log-probabilities; target ``(...)`` ids.
        Returns: the mean KL divergence over non-padding targets."""
        check_tensor(logp, "logp", min_ndim=2, floating=True)
        if logp.shape[-1] != self.V or logp.shape[:-1] != target.shape:
            raise ValueError(
                f"logp must be (..., V={self.V}) and target its shape without V, got "
                f"logp {tuple(logp.shape)} and target {tuple(target.shape)}"
            )
        logp = logp.reshape(-1, self.V)  # (N, V)
        target = target.reshape(-1)  # (N,)
        keep = target != self.pad_id  # (N,)
        q = self.true_dist(target[keep], logp.dtype)  # (n, V)
        lp = logp[keep]  # (n, V)
        # Only where q > 0: 0 * log 0 and 0 * (-inf) would give NaN.
        pos = q > 0
        terms = torch.where(pos, q * (q.clamp_min(1e-300).log() - lp), torch.zeros_like(q))
        return terms.sum() / keep.sum().clamp_min(1)
