import dataclasses
import importlib
import inspect
import os
import subprocess
import sys
import traceback
from pathlib import Path

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from illustrated.commands.train import main
from illustrated.loss import LabelSmoothingLoss
from illustrated.model import Transformer
from illustrated.translator.corpus import load_split
from illustrated.translator.dev_curve import dev_loss
from illustrated.translator.step import smoothed_loss_sum, tensorise, train_step
from illustrated.translator.tokenizer import SubwordTokenizer
from illustrated.translator.training import (PRESETS, RealConfig, average_state_dicts,
                                             model_config, train_real)

TINY = RealConfig(steps=6, max_tokens=300, warmup=3, d_model=32, N=1, h=2, d_ff=64,
                  dropout=0.1, average=2, average_every=2, save_every=3, limit=200,
                  eval_every=2, bleu_every=4)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def data():
    return load_split().train, SubwordTokenizer.load()


def test_smoothed_loss_sum_equals_label_smoothing_loss():
    g = torch.Generator().manual_seed(0)
    logp = torch.randn(3, 5, 11, generator=g, dtype=torch.float64).log_softmax(-1)
    target = torch.randint(0, 11, (3, 5), generator=g)
    target[0, :2] = 0
    n = int((target != 0).sum())
    kept = (target.flatten() != 0).nonzero()[:, 0]  # as the trainer's batches carry them
    for eps in (0.0, 0.1):
        for keep in (None, kept):
            torch.testing.assert_close(smoothed_loss_sum(logp, target, 0, eps, keep).double(),
                                       LabelSmoothingLoss(11, 0, eps)(logp, target) * n)


@pytest.mark.parametrize("name, other", [
    ("illustrated.training", "illustrated.translator.training"),
    ("illustrated.translator.training", "illustrated.training")])
def test_each_trainer_imports_without_the_other(monkeypatch, name, other):
    """No import cycle: the schedule both use lives in illustrated.schedule."""
    import illustrated

    for module in (name, other, "illustrated.schedule"):  # restored after the test
        monkeypatch.delitem(sys.modules, module, raising=False)
        monkeypatch.delattr(illustrated, module.split(".")[1], raising=False)
    importlib.import_module(name)
    assert other not in sys.modules


def test_token_ids_are_checked_once_when_the_batches_are_made():
    data = [([1, 5, 2], [1, 7, 2]), ([1, 4, 2], [1, 9, 2])]
    assert len(tensorise(data, [[0, 1]], vocab=10)) == 1
    with pytest.raises(ValueError, match=r"tgt_in must be token ids in \[0, vocab=8\), got "
                       r"ids from 1 to 9"):
        tensorise(data, [[0, 1]], vocab=8)


class HostReads(TorchDispatchMode):
    """Records each op that makes the host wait for the device: a value read back
    (``.item()``, ``bool(t)``, ``int(t)`` call ``aten._local_scalar_dense``), a comparison
    answered on the host (``torch.equal``), an output whose size depends on values
    (``nonzero``, a bool mask as an index). ``exempt(t)``: a tensor whose read costs no
    wait."""

    SYNCS = {"_local_scalar_dense", "equal", "is_nonzero", "nonzero", "masked_select"}

    def __init__(self, exempt):
        super().__init__()
        self.exempt, self.reads = exempt, []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        bool_index = name.startswith("index") and any(
            isinstance(i, torch.Tensor) and i.dtype == torch.bool
            for i in (args[1] if len(args) > 1 and isinstance(args[1], (list, tuple)) else ()))
        if (name in self.SYNCS or bool_index) and not self.exempt(args[0]):
            where = [f"{f.filename.split('illustrated/')[-1]}:{f.lineno}"
                     for f in traceback.extract_stack() if "/illustrated/" in f.filename]
            self.reads.append(f"aten.{name} at {where[-1] if where else '?'}")
        return func(*args, **(kwargs or {}))


def test_a_training_step_reads_nothing_back_from_the_device(data, monkeypatch):
    """Two steps of the trainer's own step function: no op of them would make the host
    wait for a GPU, so the CPU queues step after step while the GPU computes."""
    pairs, tok = data
    cfg = dataclasses.replace(TINY, clip=0.5)  # the clipping is checked too
    model = Transformer(model_config(cfg, len(tok)), torch.Generator().manual_seed(0))
    model.keep_attention_weights(False).train()
    opt = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    ids = [(tok.encode(f), tok.encode(e)) for f, e in pairs[:8]]
    batches = tensorise(ids, [[0, 1, 2, 3], [4, 5, 6, 7]], len(tok))
    assert all(bool((b.tensors[0] == 0).any()) for b in batches)  # padding: masks to read

    def counter(t):  # Adam's step count stays a CPU tensor on a GPU: reading it never waits
        return any(t is s["step"] for s in opt.state.values())

    def refuse(name, real):
        def method(self, *args, **kwargs):
            if name == "item" and counter(self):
                return real(self, *args, **kwargs)
            raise AssertionError(f"Tensor.{name}() called in a training step")
        return method
    for name in ("item", "tolist", "cpu", "numpy"):
        monkeypatch.setattr(torch.Tensor, name, refuse(name, getattr(torch.Tensor, name)))
    with HostReads(exempt=counter) as mode:
        for step, batch in enumerate(batches):
            train_step(model, opt, batch, cfg, step)
    assert mode.reads == [], "host reads: " + ", ".join(sorted(set(mode.reads)))


class Compiled(torch.nn.Module):
    """Stands in for torch.compile's wrapper (compiling takes minutes on a CPU)."""
    made = []

    def __init__(self, net):
        super().__init__()
        self.net, self.calls = net, 0
        Compiled.made.append(self)

    def forward(self, *args):
        self.calls += 1
        return self.net(*args)


def test_compile_trains_through_torch_compile(data, monkeypatch):
    """compile=True (--compile; off by default) trains through torch.compile(model)."""
    pairs, tok = data
    monkeypatch.setattr(torch, "compile", Compiled)
    monkeypatch.setattr(Compiled, "made", [])
    assert inspect.signature(train_real).parameters["compile"].default is False
    cfg = dataclasses.replace(TINY, steps=2, eval_every=0, bleu_every=0, average=1)
    train_real(cfg, pairs, tok, None, device="cpu", amp=False, progress=False, compile=True)
    assert [(type(c.net), c.calls) for c in Compiled.made] == [(Transformer, 2)]


def test_checkpoint_averaging():
    a = {"w": torch.tensor([1.0, 2.0]), "n": torch.tensor(3)}
    b = {"w": torch.tensor([3.0, 6.0]), "n": torch.tensor(4)}
    avg = average_state_dicts([a, b])
    assert torch.equal(avg["w"], torch.tensor([2.0, 4.0])) and int(avg["n"]) == 4
    with pytest.raises(ValueError, match="different keys"):
        average_state_dicts([a, {"w": a["w"]}])
    with pytest.raises(ValueError, match="at least one"):
        average_state_dicts([])


def test_training_ends_with_the_average_of_the_last_checkpoints(data, tmp_path):
    pairs, tok = data
    model, log = train_real(TINY, pairs, tok, tmp_path / "s.pt", device="cpu", amp=False,
                            progress=False)
    snaps = torch.load(tmp_path / "s.pt", weights_only=True)["snapshots"]
    assert len(snaps) == 2 and len(log.loss) == 6 and log.loss[-1] < log.loss[0]
    for k, v in model.state_dict().items():
        torch.testing.assert_close(v, (snaps[0][k] + snaps[1][k]) / 2)
    # the weights before the averaging are kept too: the last snapshot's
    assert log.last.keys() == model.state_dict().keys()
    for k, v in log.last.items():
        assert torch.equal(v, snaps[1][k]), k


def test_resume_after_interrupt_gives_the_same_model(data, tmp_path):
    pairs, tok = data
    dev = pairs[-8:]
    whole, log = train_real(TINY, pairs, tok, tmp_path / "a.pt", device="cpu", amp=False,
                            progress=False, dev_pairs=dev)
    _, part = train_real(TINY, pairs, tok, tmp_path / "b.pt", device="cpu", amp=False, progress=False,
                         stop_after=4, dev_pairs=dev)  # interrupted after step 4
    assert len(part.loss) == 4
    assert torch.load(tmp_path / "b.pt", weights_only=True)["step"] == 4  # saved at the stop
    resumed, log2 = train_real(TINY, pairs, tok, tmp_path / "b.pt", resume=True,
                               device="cpu", amp=False, progress=False, dev_pairs=dev)
    assert log2.loss == log.loss and log2.curve == log.curve
    for (k, v), w in zip(whole.state_dict().items(), resumed.state_dict().values()):
        assert torch.equal(v, w), k
    other = dataclasses.replace(TINY, steps=7)
    with pytest.raises(ValueError, match="another configuration"):
        train_real(other, pairs, tok, tmp_path / "b.pt", resume=True, device="cpu", amp=False,
                   progress=False)


@pytest.mark.long
def test_two_ddp_processes_equal_one_process(tmp_path):
    """torchrun, 2 CPU processes (gloo), each half of every global batch: the same weights
    as one process on the whole batch (no dropout, so no random stream differs)."""
    flags = ["--corpus", "tatoeba", "--tiny", "--limit", "200", "--steps", "3",
             "--max-tokens", "300", "--eval", "none", "--no-progress", "--no-amp"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    env.pop("WORLD_SIZE", None)
    subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                    "--nproc_per_node", "2", "-m", "illustrated", "train", *flags,
                    "--state", str(tmp_path / "ddp.pt"), "--out", str(tmp_path / "ddp-t.pt")],
                   check=True, cwd=ROOT, env=env, capture_output=True, timeout=120)
    main([*flags, "--device", "cpu", "--state", str(tmp_path / "one.pt"),
          "--out", str(tmp_path / "one-t.pt")])
    ddp = torch.load(tmp_path / "ddp.pt", weights_only=True)
    one = torch.load(tmp_path / "one.pt", weights_only=True)
    assert ddp["step"] == one["step"] == 3
    torch.testing.assert_close(ddp["history"], one["history"], rtol=1e-5, atol=1e-6)
    # Adam divides each gradient by its own running size, so where a gradient is near 0
    # the last-bit differences of two summation orders grow to a fraction of one step's
    # size (the learning rate, here about 0.06): the tolerance is 1e-4, 0.2 % of a step.
    for k, v in one["model"].items():
        torch.testing.assert_close(ddp["model"][k], v, rtol=1e-4, atol=1e-4)
    assert ddp["history"][0] > 0


def test_the_curve_is_the_development_loss_and_bleu_of_the_model_at_that_step(data, tmp_path):
    pairs, tok = data
    dev = pairs[-8:]
    model, log = train_real(TINY, pairs, tok, None, device="cpu", amp=False, progress=False,
                            dev_pairs=dev)
    assert [p["step"] for p in log.curve] == [2, 4, 6]
    assert ["dev_bleu" in p for p in log.curve] == [False, True, True]  # every 4, and last
    last = Transformer(model.config)
    last.load_state_dict(log.last)  # the weights at step 6, before averaging
    data_ids = [(tok.encode(f), tok.encode(e)) for f, e in dev]
    assert log.curve[-1]["dev_loss"] == round(dev_loss(last, data_ids, 1200, 0.1), 4)
    assert 0 < log.curve[-1]["dev_distinct"] <= 1


def test_a_collapsed_training_is_said(data, monkeypatch):
    """A model that writes one sentence whatever it reads: the trainer warns."""
    pairs, tok = data
    monkeypatch.setattr("illustrated.translator.dev_curve.translate",
                        lambda model, tok, sentences, **kw: ["I you you."] * len(sentences))
    with pytest.warns(UserWarning, match="training has collapsed: the development set's "
                      "translations are 12% as varied as its references"):
        train_real(TINY, pairs, tok, None, device="cpu", amp=False, progress=False,
                   dev_pairs=pairs[-8:])


def test_a_healthy_training_is_not_called_collapsed(data, monkeypatch, recwarn):
    pairs, tok = data
    monkeypatch.setattr("illustrated.translator.dev_curve.translate",
                        lambda model, tok, sentences, **kw: list(sentences))
    train_real(TINY, pairs, tok, None, device="cpu", amp=False, progress=False, dev_pairs=pairs[-8:])
    assert not [w for w in recwarn if "collapsed" in str(w.message)]


def test_presets():
    assert PRESETS["laptop"] == RealConfig()
    base = PRESETS["base"]
    assert (base.d_model, base.N, base.h, base.d_ff) == (512, 6, 8, 2048)  # the paper's base
    assert RealConfig().peak_rate() == pytest.approx(0.6 * 256 ** -0.5 * 400 ** -0.5)


def test_bfloat16_where_it_is_native(monkeypatch):
    from illustrated.translator.devices import native_bf16

    assert native_bf16(torch.device("cuda")) and not native_bf16(torch.device("mps"))
    for avx, amx, native in ((True, False, True), (False, True, True), (False, False, False)):
        monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: avx)
        monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: amx)
        assert native_bf16(torch.device("cpu")) == native
    monkeypatch.delattr(torch.cpu, "_is_amx_tile_supported")  # a torch without the helper
    assert not native_bf16(torch.device("cpu"))



@pytest.mark.parametrize("clip", [0.0, 0.5])
def test_the_gradient_is_clipped_every_step_when_asked(data, monkeypatch, clip):
    """``clip`` (the base preset's 1.0) clips the gradient's norm before each update; 0 (the
    paper's and the laptop preset's) never does."""
    pairs, tok = data
    asked, real = [], torch.nn.utils.clip_grad_norm_
    monkeypatch.setattr(torch.nn.utils, "clip_grad_norm_",
                        lambda params, max_norm, **kw: asked.append(max_norm) or
                        real(params, max_norm, **kw))
    cfg = dataclasses.replace(TINY, clip=clip, eval_every=0, bleu_every=0)
    train_real(cfg, pairs, tok, None, device="cpu", amp=False, progress=False)
    assert asked == ([clip] * TINY.steps if clip else [])


# A deeper model at a large peak rate, on a subset: six post-norm layers stall (the loss
# stops near the frequency-only level of about 4), the base preset's recipe (pre-norm
# layers, the gradient's norm clipped) keeps it falling. Measured at these 60 steps, seeds
# 0, 1, 2: post-norm falls from 5.63-5.67 to 3.87-4.00, the base recipe from 5.35-5.49 to
# 3.04-3.25. With the base preset planted back to post-norm without clipping, the first
# assert fails. Chapter 12 and
# benchmarks/recipes.py show the same on the whole corpus, in full-size runs.
DEEP = dict(d_model=32, N=6, h=2, d_ff=64, dropout=0.0, limit=2000, max_tokens=600,
            steps=60, warmup=15, factor=2.0, names=0, average=1, eval_every=0, bleu_every=0)


def deep_loss(data, **recipe):
    """The mean training loss of the first and of the last 10 steps."""
    pairs, tok = data
    cfg = dataclasses.replace(RealConfig(**DEEP), **recipe)
    _, log = train_real(cfg, pairs, tok, None, device="cpu", amp=False, progress=False)
    return sum(log.loss[:10]) / 10, sum(log.loss[-10:]) / 10


@pytest.mark.long
def test_a_deeper_model_keeps_learning_with_the_base_recipe(data):
    base = PRESETS["base"]
    first, last = deep_loss(data, norm_first=base.norm_first, clip=base.clip)
    _, post_last = deep_loss(data)  # the paper's post-norm layers, no clipping
    assert last < first - 2  # the loss falls ...
    assert last < post_last - 0.5  # ... well below where post-norm layers stall
