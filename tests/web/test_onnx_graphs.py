"""illustrated.web.onnx_graphs: the ONNX graphs of the live translator page and of the live
writer page, run by onnxruntime, against the PyTorch models on held-out sentences."""

import numpy as np
import pytest
import torch

from illustrated.decoder_only.sampling import generate
from illustrated.decoder_only.training import load_lm
from illustrated.decoding import _step, greedy_decode
from illustrated.masks import padding_mask
from illustrated.translator.inference import MAX_LEN, load_translator
from illustrated.web.onnx_graphs import (DECODER_FILE, ENCODER_FILE, WEIGHTS_FILE, WRITER_FILE,
                                         WRITER_WEIGHTS, DecoderGraph, EncoderGraph,
                                         WriterGraph, export_translator, export_writer)

ort = pytest.importorskip("onnxruntime")
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
    from illustrated.translator.corpus import load_split
    from illustrated.translator.inference import prepare

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
    import export_onnx

    bad = tmp_path / "translator.pt"
    bad.write_bytes(b"not a checkpoint")
    monkeypatch.setattr(export_onnx, "CHECKPOINT", bad)
    monkeypatch.setattr(export_onnx, "SOURCES", (bad,))
    monkeypatch.setattr(export_onnx, "LIVE", tmp_path / "live")
    monkeypatch.setattr(export_onnx, "WRITER", bad)
    monkeypatch.setattr(export_onnx, "WRITER_SOURCES", (bad,))
    assert export_onnx.export_onnx() is False
    err = capsys.readouterr().err
    assert "live translator will not run" in err and "translator.pt" in err
    assert "live writer will not run" in err


# ------------------------------------------------------------------ the live writer
@pytest.fixture(scope="module")
def writer(tmp_path_factory):
    model, tokenizer, _ = load_lm()
    folder = tmp_path_factory.mktemp("writer")
    info = export_writer(model, folder)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(str(folder / WRITER_FILE), options)
    return model, tokenizer, folder, info, session


class OnnxWriter(torch.nn.Module):
    """The exported graph as generate() calls a model without a cache: each call reads
    the whole prefix and gives the next token's row (the only one generate reads)."""

    def __init__(self, session, config):
        super().__init__()
        self.session, self.config = session, config
        self.anchor = torch.nn.Parameter(torch.zeros(1))  # generate asks for a device

    def forward(self, tokens, cache=None, last_only=False):
        assert cache is None and last_only  # the graph gives the last row only
        logp, = self.session.run(None, {"ids": tokens.numpy()})  # (1, V)
        return torch.from_numpy(logp)[:, None]  # (1, 1, V)


def prompts(tokenizer, n=8):
    """The first words of held-out (test split) English sentences: ``[bos, ...]``."""
    from illustrated.translator.corpus import load_split

    return [tokenizer.encode(" ".join(en.split()[:1 + i % 4]))[:-1]
            for i, (_, en) in enumerate(load_split().test[:n])]


def test_writer_step_matches_pytorch(writer):
    """The next token's log-probabilities after held-out prompts, after prefixes of every
    length up to max_len, as the model's own forward gives them."""
    model, tokenizer, _, _, session = writer
    g = torch.Generator().manual_seed(0)
    long = torch.randint(4, model.config.vocab, (model.config.max_len,), generator=g)
    for ids in prompts(tokenizer) + [long[:T].tolist() for T in (1, 2, 17, 63, 64)]:
        x = torch.tensor([ids])  # (1, T)
        logp, = session.run(None, {"ids": x.numpy()})  # (1, V)
        with torch.no_grad():
            want = model(x)[:, -1]  # (1, V)
        np.testing.assert_allclose(logp, want.numpy(), **TOL)


def test_writer_generates_as_python(writer):
    """generate() over the exported graph (no cache) writes the ids it writes over the
    model (with its cache): greedy and sampled with fixed seeds and settings."""
    model, tokenizer, _, _, session = writer
    graph = OnnxWriter(session, model.config)
    settings = [dict(temperature=0.0), dict(seed=1), dict(temperature=0.8, top_k=40, seed=7),
                dict(temperature=1.2, top_p=0.9, seed=2**32 - 1)]
    for i, ids in enumerate(prompts(tokenizer, 4)):
        options = settings[i % len(settings)]
        want = generate(model, ids, 20, eos_id=tokenizer.eos_id, **options)
        got = generate(graph, ids, 20, use_cache=False, eos_id=tokenizer.eos_id, **options)
        assert got == want, (ids, options)


def test_writer_weights_once_and_bad_input(writer, shipped):
    model, _, folder, info, _ = writer
    c = model.config
    params = sum(p.numel() for p in model.parameters())  # the tied matrix counted once
    size = (folder / WRITER_WEIGHTS).stat().st_size
    assert 2 * params <= size <= 2 * params + c.max_len * c.d_model * 4 + 64 * 100
    assert info["files"][WRITER_WEIGHTS] == size and info["max_len"] == c.max_len
    with pytest.raises(TypeError, match="DecoderOnly"):
        export_writer(shipped[0], folder)
    with pytest.raises(TypeError, match="DecoderOnly"):
        WriterGraph("writer.pt")
    graph = WriterGraph(model)
    with pytest.raises(ValueError, match=r"\[0, 4000\)"):
        graph(torch.tensor([[1, 4000]]))
    with pytest.raises(ValueError, match="one sequence"):
        graph(torch.tensor([[1, 5], [1, 6]]))
    with pytest.raises(ValueError, match="max_len=64"):
        graph(torch.ones(1, 65, dtype=torch.long))
