"""illustrated.export: the ONNX graphs of the live translator page, run by onnxruntime,
against the PyTorch model on held-out sentences."""
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from illustrated.decoding import _step, greedy_decode
from illustrated.export import (DECODER_FILE, ENCODER_FILE, WEIGHTS_FILE, DecoderGraph,
                                EncoderGraph, export_translator)
from illustrated.masks import padding_mask
from illustrated.translator import MAX_LEN, SHIPPED_REAL, load_translator

ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.skipif(not SHIPPED_REAL.exists(), reason="no real checkpoint")
N_SENTENCES = 32  # held-out sentences (the test split), as the browser check types
TOL = dict(rtol=1e-5, atol=1e-5)


@pytest.fixture(scope="module")
def shipped():
    model, tokenizer, _ = load_translator()
    return model, tokenizer


@pytest.fixture(scope="module")
def exported(shipped, tmp_path_factory):
    folder = tmp_path_factory.mktemp("live")
    info = export_translator(shipped[0], folder)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    sessions = [ort.InferenceSession(str(folder / name), options)
                for name in (ENCODER_FILE, DECODER_FILE)]
    return folder, info, sessions


@pytest.fixture(scope="module")
def sentences(shipped):
    from illustrated.corpus import load_split
    from illustrated.translator import prepare

    return [shipped[1].encode(prepare(fr)) for fr, _ in load_split().test[:N_SENTENCES]]


def weights(layers, attr):
    return torch.stack([getattr(layer, attr).attention_weights for layer in layers], 1).numpy()


def test_encoder_matches_pytorch(shipped, exported, sentences):
    model, (encoder, _) = shipped[0], exported[2]
    for ids in sentences:
        src = torch.tensor([ids])  # (1, S)
        memory, attention = encoder.run(None, {"src": src.numpy()})
        with torch.no_grad():
            want = model.encode(src, padding_mask(src))  # (1, S, D)
        np.testing.assert_allclose(memory, want.numpy(), **TOL)
        assert attention.shape == (1, model.config.N, model.config.h, len(ids), len(ids))
        np.testing.assert_allclose(attention, weights(model.encoder.layers, "self_attn"), **TOL)


def test_decoder_step_matches_pytorch(shipped, exported, sentences):
    """Log-probabilities of the next token after K prefixes (the greedy translation's
    prefix and two others of its length), and every cross-attention weight."""
    model, tokenizer = shipped
    encoder, decoder = exported[2]
    for ids in sentences:
        src = torch.tensor([ids])  # (1, S)
        ys = greedy_decode(model, src, MAX_LEN, tokenizer.bos_id, tokenizer.eos_id)[:, :-1]
        ys = torch.cat([ys, ys.roll(1, dims=1), ys.flip(1)])  # (3, T): bos need not lead
        memory, _ = encoder.run(None, {"src": src.numpy()})
        logp, cross = decoder.run(None, {"memory": memory, "src": src.numpy(),
                                         "ys": ys.numpy()})
        with torch.no_grad():
            mem = model.encode(src, padding_mask(src))  # (1, S, D)
            mask = padding_mask(src).expand(3, -1, -1)  # (3, 1, S)
            want = _step(model, mem.expand(3, -1, -1), mask, ys, None)  # (3, V)
        np.testing.assert_allclose(logp, want.numpy(), **TOL)
        assert cross.shape == (3, model.config.N, model.config.h, ys.shape[1], len(ids))
        np.testing.assert_allclose(cross, weights(model.decoder.layers, "src_attn"), **TOL)


def test_weights_stored_once_as_float16(shipped, exported):
    model, (folder, info, _) = shipped[0], exported
    c = model.config
    params = sum(p.numel() for p in model.parameters())  # the shared matrix counted once
    table = c.max_len * c.d_model * 4  # the positional-encoding table, float32
    size = (folder / WEIGHTS_FILE).stat().st_size
    assert 2 * params <= size <= 2 * params + table + 64 * 200
    assert info["files"][WEIGHTS_FILE] == size
    assert info["N"] == c.N and info["h"] == c.h and info["tgt_vocab"] == c.tgt_vocab


def test_export_restores_mode(shipped, tmp_path):
    model = shipped[0].train()
    try:
        export_translator(model, tmp_path)
        assert model.training
    finally:
        model.eval()


def test_bad_input_named(shipped, tmp_path):
    model = shipped[0]
    with pytest.raises(TypeError, match="Transformer"):
        export_translator("translator.pt", tmp_path)
    with pytest.raises(TypeError, match="Transformer"):
        EncoderGraph(torch.nn.Linear(2, 2))
    encoder, decoder = EncoderGraph(model), DecoderGraph(model)
    with pytest.raises(ValueError, match=r"\[0, 4000\)"):
        encoder(torch.tensor([[1, 4000, 2]]))
    with pytest.raises(TypeError, match="int64"):
        encoder(torch.tensor([[1.0, 5.0, 2.0]]))
    with pytest.raises(ValueError, match="one sentence"):
        encoder(torch.tensor([[1, 5, 2], [1, 6, 2]]))
    with pytest.raises(ValueError, match="2-D"):
        encoder(torch.tensor([1, 5, 2]))
    src = torch.tensor([[1, 5, 2]])
    with torch.no_grad():
        memory, _ = encoder(src)
    with pytest.raises(ValueError, match="one source"):
        decoder(memory, torch.tensor([[1, 5, 6, 2]]), torch.tensor([[1]]))
    with pytest.raises(ValueError, match="ys must not be empty"):
        decoder(memory, src, torch.zeros(1, 0, dtype=torch.long))


def test_script_says_why_and_fails(tmp_path, monkeypatch, capsys):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    import export_onnx

    bad = tmp_path / "translator.pt"
    bad.write_bytes(b"not a checkpoint")
    monkeypatch.setattr(export_onnx, "CHECKPOINT", bad)
    monkeypatch.setattr(export_onnx, "SOURCES", (bad,))
    monkeypatch.setattr(export_onnx, "LIVE", tmp_path / "live")
    assert export_onnx.export_onnx() is False
    err = capsys.readouterr().err
    assert "live translator will not run" in err and "translator.pt" in err
