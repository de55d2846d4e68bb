import re

import pytest
import torch
from torch import nn

from illustrated.model import Transformer
from illustrated.training import TrainConfig, load_checkpoint, rate, save_checkpoint, train

TINY = TrainConfig(steps=20, batch_size=16, d_model=16, N=1, h=2, d_ff=32)


def test_rate_warmup_then_decay():
    assert rate(1, 64, 10) < rate(10, 64, 10) > rate(100, 64, 10)
    assert rate(40, 64, 10) == pytest.approx(rate(10, 64, 10) / 2)


def test_training_is_reproducible_and_checkpoint_round_trip(tmp_path):
    model, sv, tv, hist, _ = train(TINY, progress=False)
    _, _, _, hist2, _ = train(TINY, progress=False)
    assert hist == hist2 and len(hist) == 20
    path = save_checkpoint(tmp_path / "c.pt", model, sv, tv, hist)
    m2, sv2, tv2 = load_checkpoint(path)
    assert sv2.itos == sv.itos and tv2.itos == tv.itos
    for a, b in zip(model.state_dict().values(), m2.state_dict().values()):
        assert torch.equal(a, b)
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ValueError, match="damaged"):
        load_checkpoint(path)


def test_checkpoint_of_another_shape_is_refused(tmp_path):
    model, sv, tv, _, _ = train(TrainConfig(steps=1, batch_size=4, d_model=16, N=1, h=2,
                                            d_ff=32), progress=False)
    path = save_checkpoint(tmp_path / "c.pt", model, sv, tv)
    blob = torch.load(path, weights_only=True)
    blob["config"]["d_model"] = 32
    torch.save(blob, path)
    with pytest.raises(ValueError, match="do not fit"):
        load_checkpoint(path)


class Counted(Transformer):
    """The package's model under another name, counting its construction."""
    built = []

    def __init__(self, config, generator=None):
        super().__init__(config, generator)
        Counted.built.append(config)


def test_train_trains_the_class_model_factory_builds():
    short = TrainConfig(steps=3, batch_size=4, d_model=16, N=1, h=2, d_ff=32)
    model, _, tv, hist, _ = train(short, progress=False, model_factory=Counted)
    assert type(model) is Counted and len(Counted.built) == 1
    assert Counted.built[0].tgt_vocab == len(tv) and Counted.built[0].d_model == 16
    _, _, _, default_hist, _ = train(short, progress=False)
    assert hist == default_hist  # same generator, same weights, same batches


def test_train_refuses_a_bad_model_factory():
    short = TrainConfig(steps=1, batch_size=4, d_model=16, N=1, h=2, d_ff=32)
    with pytest.raises(TypeError, match="model_factory must be a callable"):
        train(short, progress=False, model_factory=42)
    with pytest.raises(TypeError, match="must return an nn.Module, got int"):
        train(short, progress=False, model_factory=lambda config, generator: 3)


def test_vocabularies_come_from_the_training_pairs_only(monkeypatch):
    import illustrated.training as train_module
    from illustrated.data import split_pairs

    train_pairs, held = split_pairs(0)
    unseen = [("je vois un ornithorynque", "i see a platypus")]  # in no training pair
    monkeypatch.setattr(train_module, "split_pairs", lambda seed: (train_pairs, held + unseen))
    _, sv, tv, _, held_back = train(TrainConfig(steps=1, batch_size=4, d_model=16, N=1, h=2,
                                                d_ff=32), progress=False)
    assert unseen[0] in held_back
    assert "ornithorynque" not in sv.stoi and "platypus" not in tv.stoi
    assert "vois" in sv.stoi and "see" in tv.stoi
    with pytest.warns(UserWarning, match="platypus"):
        assert tv.encode("i see a platypus")[4] == tv.unk_id
