import pytest
import torch
import torch.nn.functional as F

from illustrated.loss import LabelSmoothingLoss

V, PAD = 7, 0


def _data():
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(3, 5, V, generator=g, dtype=torch.float64, requires_grad=True)
    target = torch.randint(1, V, (3, 5), generator=g)
    target[0, 3:] = PAD
    return logits, target


def test_no_smoothing_equals_cross_entropy():
    logits, target = _data()
    ours = LabelSmoothingLoss(V, PAD, 0.0)(logits.log_softmax(-1), target)
    ref = F.cross_entropy(logits.reshape(-1, V), target.reshape(-1), ignore_index=PAD)
    torch.testing.assert_close(ours, ref)


def test_kl_is_soft_cross_entropy_minus_entropy():
    logits, target = _data()
    crit = LabelSmoothingLoss(V, PAD, 0.1)
    ours = crit(logits.log_softmax(-1), target)
    keep = target.reshape(-1) != PAD
    q = crit.true_dist(target.reshape(-1)[keep], torch.float64)
    ce = F.cross_entropy(logits.reshape(-1, V)[keep], q)
    entropy = -(q * q.clamp_min(1e-300).log()).sum(-1).mean()
    torch.testing.assert_close(ours, ce - entropy)
    # torch's label_smoothing is the same with eps/V over every class
    qt = F.one_hot(target.reshape(-1)[keep], V).double() * 0.9 + 0.1 / V
    torch.testing.assert_close(
        F.cross_entropy(logits.reshape(-1, V)[keep], target.reshape(-1)[keep], label_smoothing=0.1),
        F.cross_entropy(logits.reshape(-1, V)[keep], qt))


def test_zero_probability_gives_no_nan():
    logp = torch.full((1, 2, V), -float("inf"), dtype=torch.float64)
    logp[..., 1:] = torch.log(torch.tensor(1.0 / (V - 1)))
    logp.requires_grad_(True)
    loss = LabelSmoothingLoss(V, PAD, 0.1)(logp, torch.tensor([[1, 2]]))
    loss.backward()
    assert torch.isfinite(loss) and torch.isfinite(logp.grad).all()


def test_bad_shapes_named():
    with pytest.raises(ValueError, match="target"):
        LabelSmoothingLoss(V, PAD)(torch.zeros(2, V), torch.zeros(3, dtype=torch.long))
    with pytest.raises(ValueError, match="smoothing"):
        LabelSmoothingLoss(V, PAD, 1.5)
