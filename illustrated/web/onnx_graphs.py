"""The real translator as two ONNX graphs, for the book's live translator page, and the
decoder-only model as one, for the live writer page (run in the browser by
onnxruntime-web). Used by ``scripts/export_onnx.py``, which ``make book`` runs.

* :class:`EncoderGraph`: source ids ``(1, S)`` -> the memory ``(1, S, D)`` and the encoder
  self-attention weights of every layer and head ``(1, N, H, S, S)``.
* :class:`DecoderGraph`: the memory, the source ids and ``K`` prefixes ``(K, T)`` -> the
  log-probabilities of each prefix's next token ``(K, V)`` (one step of
  :func:`illustrated.decoding.greedy_decode` or of beam search, without a key/value cache:
  the whole prefix is decoded again) and the cross-attention weights ``(K, N, H, T, S)``.
* :class:`WriterGraph`: the decoder-only model's ids ``(1, T)`` -> the log-probabilities of
  the next token ``(1, V)`` (one step of ``illustrated.decoder_only.sampling.generate`` without a
  cache: the whole prefix is read again).

The translator's graphs read their weights from one shared file: every weight once (the embedding
matrix that the encoder, the decoder and the generator share is stored once), as float16
where that is exact (the checkpoint is float16, so all of its matrices are), turned back to
float32 by a ``Cast`` inside the graph: the graphs compute with the very float32 values of
:func:`~illustrated.translator.inference.load_translator`'s model. The writer's graph has a file
of its own, made the same way.
"""
from __future__ import annotations

import hashlib
import warnings
from pathlib import Path

import torch
from torch import nn

from ..decoder_only.model import DecoderOnly
from ..masks import padding_mask
from ..model import Transformer

ENCODER_FILE, DECODER_FILE, WEIGHTS_FILE = "encoder.onnx", "decoder.onnx", "weights.bin"
WRITER_FILE, WRITER_WEIGHTS = "writer.onnx", "writer.bin"
OPSET = 17


def _check_ids(ids, name: str, vocab: int) -> None:
    """A clear error for ids the graphs cannot take (traced values are not checked)."""
    if torch.jit.is_tracing():
        return
    if not isinstance(ids, torch.Tensor) or ids.dim() != 2:
        raise ValueError(f"{name} must be a 2-D tensor of token ids, got {ids!r:.80}")
    if ids.dtype != torch.long:
        raise TypeError(f"{name} must hold int64 token ids, got dtype {ids.dtype}")
    if ids.numel() == 0:
        raise ValueError(f"{name} must not be empty, got shape {tuple(ids.shape)}")
    if ids.min() < 0 or ids.max() >= vocab:
        raise ValueError(f"{name} must be token ids in [0, {vocab}), got ids from "
                         f"{int(ids.min())} to {int(ids.max())}")


def _check_model(model, kind=Transformer) -> None:
    if not isinstance(model, kind):
        raise TypeError(f"model must be an {kind.__module__}.{kind.__name__}, got "
                        f"{type(model).__name__}")


def _causal_mask(ids: torch.Tensor) -> torch.Tensor:
    """masks.subsequent_mask for the traced length T of ``ids`` ``(K, T)``: that function
    takes a Python int, which would freeze T in the graph. Returns ``(1, T, T)``."""
    pos = torch.cumsum(torch.ones_like(ids[0]), 0)  # (T,): 1 .. T
    return (pos[None, :] <= pos[:, None])[None]  # (1, T, T)


class EncoderGraph(nn.Module):
    """The encoder of ``model`` with its self-attention weights as a second output."""

    def __init__(self, model: Transformer):
        super().__init__()
        _check_model(model)
        self.model = model

    def forward(self, src: torch.Tensor):
        """Args: src ``(1, S)`` ids. Returns ``(memory (1, S, D), weights (1, N, H, S, S))``."""
        c = self.model.config
        _check_ids(src, "src", c.src_vocab)
        if not torch.jit.is_tracing() and src.shape[0] != 1:
            raise ValueError(f"src must be one sentence (1, S), got {tuple(src.shape)}")
        src_mask = padding_mask(src, c.pad_id)  # (1, 1, S)
        memory = self.model.encode(src, src_mask)  # (1, S, D)
        weights = torch.stack([layer.self_attn.attention_weights
                               for layer in self.model.encoder.layers], dim=1)  # (1, N, H, S, S)
        return memory, weights


class DecoderGraph(nn.Module):
    """One decoding step for ``K`` prefixes of one source, as
    ``illustrated.decoding._step`` without a cache, plus the cross-attention weights."""

    def __init__(self, model: Transformer):
        super().__init__()
        _check_model(model)
        self.model = model

    def forward(self, memory: torch.Tensor, src: torch.Tensor, ys: torch.Tensor):
        """Args: memory ``(1, S, D)`` from :class:`EncoderGraph`; src ``(1, S)`` its ids;
        ys ``(K, T)`` prefixes, each starting with ``<bos>``. Returns
        ``(logp (K, V), cross (K, N, H, T, S))``: log-probabilities of the token after each
        prefix, and the cross-attention of every layer and head at every position."""
        c = self.model.config
        _check_ids(src, "src", c.src_vocab)
        _check_ids(ys, "ys", c.tgt_vocab)
        if not torch.jit.is_tracing() and (memory.shape[:2] != src.shape
                                           or src.shape[0] != 1):
            raise ValueError(f"memory (1, S, D) and src (1, S) must be of one source, got "
                             f"{tuple(memory.shape)} and {tuple(src.shape)}")
        K, T = ys.shape
        src_mask = padding_mask(src, c.pad_id).expand(K, -1, -1)  # (K, 1, S)
        mem = memory.expand(K, -1, -1)  # (K, S, D)
        out = self.model.decode(mem, src_mask, ys, _causal_mask(ys))  # (K, T, D)
        logp = self.model.generator(out[:, -1])  # (K, V)
        cross = torch.stack([layer.src_attn.attention_weights
                             for layer in self.model.decoder.layers], dim=1)  # (K, N, H, T, S)
        return logp, cross


class WriterGraph(nn.Module):
    """One writing step of the decoder-only model, as
    :func:`illustrated.decoder_only.sampling.generate` takes it without a cache: the whole
    prefix is read again, the last position's row returned."""

    def __init__(self, model: DecoderOnly):
        super().__init__()
        _check_model(model, DecoderOnly)
        self.model = model

    def forward(self, ids: torch.Tensor):
        """Args: ids ``(1, T)``. Returns ``logp (1, V)``: the log-probabilities of the
        token after ``ids``. DecoderOnly.forward's steps, with the causal mask of the
        traced length."""
        c = self.model.config
        _check_ids(ids, "ids", c.vocab)
        if not torch.jit.is_tracing() and (ids.shape[0] != 1 or ids.shape[1] > c.max_len):
            raise ValueError(f"ids must be one sequence (1, T), T <= max_len={c.max_len}, "
                             f"got {tuple(ids.shape)}")
        embed, positional = self.model.embed
        x = positional(embed(ids))  # (1, T, D)
        for layer in self.model.layers:
            x = layer(x, _causal_mask(ids))  # (1, T, D)
        return self.model.generator(x[:, -1])  # (1, V)


def _trace(graph: nn.Module, args, path: Path, inputs, outputs, axes) -> None:
    # The TorchScript exporter (dynamo=False): it runs the package's Python input checks
    # on the example values, where torch.export refuses their data-dependent branches.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TracerWarnings about those very checks
        torch.onnx.export(graph.eval(), args, str(path), input_names=inputs,
                          output_names=outputs, dynamic_axes=axes, opset_version=OPSET,
                          dynamo=False, do_constant_folding=False)


def _share_weights(models: dict, folder: Path, weights: str = WEIGHTS_FILE) -> int:
    """Move the initializers of ``models`` (name -> ModelProto) into one file
    ``weights``, each distinct tensor once, float32 ones stored as float16 plus a
    ``Cast`` where that is exact. Returns the file's size in bytes."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    stored, blob = {}, bytearray()
    for proto in models.values():
        graph, casts = proto.graph, []
        # Large constants (the positional-encoding table) become shared initializers too.
        for node in [n for n in graph.node if n.op_type == "Constant"]:
            value = node.attribute[0]
            if value.name == "value" and len(value.t.raw_data) >= 1024:
                tensor = onnx.TensorProto()
                tensor.CopyFrom(value.t)
                tensor.name = node.output[0]
                graph.initializer.append(tensor)
                graph.node.remove(node)
        for init in graph.initializer:
            array = numpy_helper.to_array(init)
            if array.dtype == np.float32 and array.size > 1 and np.array_equal(
                    array.astype(np.float16).astype(np.float32), array):
                name = init.name
                half = numpy_helper.from_array(array.astype(np.float16), name + ".f16")
                init.CopyFrom(half)
                casts.append(helper.make_node("Cast", [half.name], [name], to=TensorProto.FLOAT,
                                              name=name + ".cast"))
            raw = init.raw_data or numpy_helper.from_array(numpy_helper.to_array(init)).raw_data
            if len(raw) < 64:  # scalars and shapes stay inside the graph
                init.raw_data = raw
                continue
            key = (init.data_type, tuple(init.dims), hashlib.sha256(raw).hexdigest())
            if key not in stored:
                blob.extend(b"\0" * (-len(blob) % 64))  # aligned, as onnx's own writer does
                stored[key] = (len(blob), len(raw))
                blob.extend(raw)
            offset, length = stored[key]
            init.ClearField("raw_data")
            for field in ("float_data", "int64_data", "int32_data", "double_data"):
                init.ClearField(field)
            init.data_location = TensorProto.EXTERNAL
            del init.external_data[:]
            for k, v in (("location", weights), ("offset", offset), ("length", length)):
                entry = init.external_data.add()
                entry.key, entry.value = k, str(v)
        nodes = casts + list(graph.node)
        del graph.node[:]
        graph.node.extend(nodes)
    (folder / weights).write_bytes(bytes(blob))
    for name, proto in models.items():
        onnx.save(proto, str(folder / name))
        onnx.checker.check_model(str(folder / name))
    return len(blob)


def export_translator(model: Transformer, folder) -> dict:
    """Write ``encoder.onnx``, ``decoder.onnx`` and their shared ``weights.bin`` into
    ``folder`` (created if needed). Returns a description for the page: the model's sizes
    and the files' sizes in bytes. The model's mode (train or eval) is restored."""
    import onnx

    _check_model(model)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    c = model.config
    src = torch.tensor([[1, 5, 6, 7, 2]])  # (1, S): any ids of the vocabulary
    ys = torch.tensor([[1, 5, 6], [1, 8, 9]])  # (K, T)
    was_training = model.training
    try:
        model.eval()
        with torch.no_grad():
            memory, _ = EncoderGraph(model)(src)  # (1, S, D)
        _trace(EncoderGraph(model), (src,), folder / ENCODER_FILE, ["src"],
               ["memory", "self_attention"], {"src": {1: "S"}, "memory": {1: "S"},
                                              "self_attention": {3: "S", 4: "S"}})
        _trace(DecoderGraph(model), (memory, src, ys), folder / DECODER_FILE,
               ["memory", "src", "ys"], ["logp", "cross_attention"],
               {"memory": {1: "S"}, "src": {1: "S"}, "ys": {0: "K", 1: "T"},
                "logp": {0: "K"}, "cross_attention": {0: "K", 3: "T", 4: "S"}})
    finally:
        model.train(was_training)
    models = {name: onnx.load(str(folder / name), load_external_data=False)
              for name in (ENCODER_FILE, DECODER_FILE)}
    _share_weights(models, folder)
    files = {name: (folder / name).stat().st_size
             for name in (ENCODER_FILE, DECODER_FILE, WEIGHTS_FILE)}
    return {"N": c.N, "h": c.h, "d_model": c.d_model, "src_vocab": c.src_vocab,
            "tgt_vocab": c.tgt_vocab, "pad_id": c.pad_id, "files": files}


def export_writer(model, folder) -> dict:
    """Write the graph of ``model`` (a ``DecoderOnly``), ``writer.onnx``, and its
    weights, ``writer.bin``, into ``folder`` (created if
    needed). Returns the model's sizes and the files' sizes in bytes, for the page. The
    model's mode (train or eval) is restored."""
    import onnx

    _check_model(model, DecoderOnly)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    was_training = model.training
    try:
        _trace(WriterGraph(model.eval()), (torch.tensor([[1, 5, 6, 7]]),),
               folder / WRITER_FILE, ["ids"], ["logp"], {"ids": {1: "T"}})
    finally:
        model.train(was_training)
    _share_weights({WRITER_FILE: onnx.load(str(folder / WRITER_FILE),
                                           load_external_data=False)}, folder, WRITER_WEIGHTS)
    c = model.config
    return {"N": c.N, "h": c.h, "d_model": c.d_model, "vocab": c.vocab,
            "max_len": c.max_len, "files": {name: (folder / name).stat().st_size
                                            for name in (WRITER_FILE, WRITER_WEIGHTS)}}
