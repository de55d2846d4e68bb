"""Tests for :mod:`illustrated.interop`. ``from_torch(...)`` copies PyTorch's modules into
the teaching ones, and refuses what has no counterpart (the copies' outputs are compared
with PyTorch's in ``test_attention.py`` and ``test_layers.py``). ``fuse(...)`` computes what
the teaching modules compute (outputs, masks, the key/value cache, translations of the
shipped translator), in PyTorch's layout (``torch.nn.MultiheadAttention``'s ``in_proj_weight``), with no host sync.
The whole test set is compared by ``benchmarks/fused_equal.py``.
"""
import pytest
import torch
from torch import nn

from illustrated.attention import MultiHeadAttention
from illustrated.decoding import beam_search, greedy_decode
from illustrated.interop import FusedAttention, from_torch, fuse
from illustrated.kv_cache import KVCache
from illustrated.layers import DecoderLayer, EncoderLayer
from illustrated.masks import padding_mask, subsequent_mask
from illustrated.model import ModelConfig, Transformer, make_std_masks
from illustrated.translator.corpus import load_split
from illustrated.translator.inference import load_translator, translate

F64 = torch.float64
TOL = dict(atol=1e-12, rtol=1e-12)
D, H = 16, 4
TOKENS = torch.tensor([[5, 2, 1, 0, 0, 0, 0], [1, 3, 1, 4, 6, 2, 0]])  # (B=2, S=7), pad 0


def randn(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=F64)


@pytest.fixture
def pair():
    """A teaching module (float64, trained-looking: random biases) and its fused copy."""
    torch.manual_seed(0)
    teaching = MultiHeadAttention(D, H).double().eval()
    with torch.no_grad():
        for lin in (teaching.w_q, teaching.w_k, teaching.w_v, teaching.w_o):
            lin.bias.normal_()
    return teaching, fuse(teaching)


# --- from_torch: PyTorch's modules into ours ---------------------------------------------


def test_from_torch_copies_training_mode_and_dtype():
    m = nn.MultiheadAttention(8, 2, dropout=0.25, dtype=F64)  # training mode
    ours = from_torch(m)
    assert isinstance(ours, MultiHeadAttention)
    assert ours.training and ours.dropout.p == 0.25
    assert all(p.dtype == F64 for p in ours.parameters())
    torch.testing.assert_close(ours.w_k.weight, m.in_proj_weight[8:16], atol=0, rtol=0)


def test_from_torch_copies_a_layer_s_eps_dtype_and_mode():
    ref = nn.TransformerDecoderLayer(D, H, 32, batch_first=True, layer_norm_eps=1e-6,
                                     dtype=F64).train()
    ours = from_torch(ref)
    assert isinstance(ours, DecoderLayer) and ours.training
    assert [s.norm.eps for s in (ours.sublayer1, ours.sublayer2, ours.sublayer3)] == [1e-6] * 3
    assert all(p.dtype == F64 for p in ours.parameters())
    assert ours.feed_forward.dropout.p == 0.1 and ours.src_attn.dropout.p == 0.1
    assert isinstance(from_torch(nn.TransformerEncoderLayer(D, H, batch_first=True)),
                      EncoderLayer)


@pytest.mark.parametrize(
    "module, error, match",
    [
        (nn.Linear(8, 8), TypeError, r"from_torch takes a torch.nn.MultiheadAttention, "
                                     r"TransformerEncoderLayer or TransformerDecoderLayer, "
                                     r"got Linear"),
        (nn.MultiheadAttention(8, 2, add_bias_kv=True), ValueError, r"add_bias_kv"),
        (nn.MultiheadAttention(8, 2, add_zero_attn=True), ValueError, r"add_zero_attn"),
        (nn.MultiheadAttention(8, 2, kdim=4, vdim=4), ValueError, r"kdim=4 and vdim=4"),
    ],
)
def test_from_torch_refuses_what_it_cannot_copy(module, error, match):
    with pytest.raises(error, match=match):
        from_torch(module)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(activation="gelu"), r"only ReLU .* got activation='gelu'"),
        (dict(batch_first=False), r"batch_first=True"),
        (dict(bias=False), r"bias=False"),
    ],
)
@pytest.mark.parametrize("theirs", [nn.TransformerEncoderLayer, nn.TransformerDecoderLayer])
def test_from_torch_refuses_a_layer_it_cannot_copy(theirs, kwargs, match):
    options = {"dim_feedforward": 32, "batch_first": True, **kwargs}
    with pytest.raises(ValueError, match=match):
        from_torch(theirs(D, H, **options))


# --- fuse: ours into PyTorch's layout --------------------------------------------------


def test_pytorch_layout():
    theirs = nn.MultiheadAttention(D, H, batch_first=True).double()
    fused = fuse(from_torch(theirs))
    assert isinstance(fused, FusedAttention)
    torch.testing.assert_close(fused.in_proj_weight, theirs.in_proj_weight.detach(), **TOL)
    torch.testing.assert_close(fused.in_proj_bias, theirs.in_proj_bias.detach(), **TOL)
    torch.testing.assert_close(fused.out_proj.weight, theirs.out_proj.weight.detach(), **TOL)


def test_inference_copy_leaves_the_original(pair):
    teaching, fused = pair
    teaching.train()
    before = {k: v.clone() for k, v in teaching.state_dict().items()}
    fused = fuse(teaching)
    assert not fused.training and not any(p.requires_grad for p in fused.parameters())
    with torch.no_grad():
        fused.in_proj_weight.zero_()
    assert teaching.training and all(p.requires_grad for p in teaching.parameters())
    for k, v in teaching.state_dict().items():
        assert torch.equal(v, before[k]), k


@pytest.mark.parametrize("what", [nn.Linear(2, 2), "model", None])
def test_refuses_other_things(what):
    with pytest.raises(TypeError, match=f"Transformer or MultiHeadAttention, got "
                                        f"{type(what).__name__}"):
        fuse(what)


x = randn(2, 5, D, seed=1)
memory = randn(2, 7, D, seed=2)
other = randn(2, 7, D, seed=3)
blocked = padding_mask(TOKENS)[:, :, :5].expand(2, 5, 5).clone()  # (B, L, L)
blocked[1, 2] = False  # a query row with nothing to look at
per_head = torch.rand(2, H, 5, 7, generator=torch.Generator().manual_seed(4)) > 0.3
CASES = {  # name -> (query, key, value, mask)
    "self": (x, x, x, None),
    "self_causal": (x, x, x, subsequent_mask(5)),
    "self_fully_blocked_row": (x, x, x, blocked),
    "cross_padding": (x, memory, memory, padding_mask(TOKENS)),
    "cross_per_head": (x, memory, memory, per_head),  # (B, H, L, S)
    "key_is_not_value": (x, memory, other, None),
}


@pytest.mark.parametrize("name", CASES)
def test_outputs_equal(pair, name):
    teaching, fused = pair
    query, key, value, mask = CASES[name]
    with torch.no_grad():
        torch.testing.assert_close(fused(query, key, value, mask), teaching(query, key, value,
                                                                            mask), **TOL)
    assert fused.attention_weights is None


def test_without_bias():
    teaching = MultiHeadAttention(D, H, bias=False).double().eval()
    fused = fuse(teaching)
    with torch.no_grad():
        torch.testing.assert_close(fused(x, memory, memory), teaching(x, memory, memory), **TOL)


def test_fully_blocked_row_reads_nothing(pair):
    _, fused = pair
    out = fused(x, x, x, blocked)  # (B, L, D)
    torch.testing.assert_close(out[1, 2], fused.out_proj.bias, **TOL)  # W^O applied to 0
    assert not out.isnan().any()


def test_cache_steps_and_reorder(pair):
    """Decoding one position at a time with a self-attention cache and a static
    encoder-decoder cache, reordered midway as beam search does, gives what the teaching
    module gives on the same steps."""
    teaching, fused = pair
    caches = {m: (KVCache(), KVCache(static=True)) for m in (teaching, fused)}
    index = torch.tensor([1, 1])
    with torch.no_grad():
        for t in range(5):
            outs = []
            for m, (own, static) in caches.items():
                y = m(x[:, t:t + 1], x[:, t:t + 1], x[:, t:t + 1], cache=own)  # (B, 1, D)
                outs.append(m(y, memory, memory, padding_mask(TOKENS), cache=static))
                if t == 2:
                    own.reorder(index)
                    static.reorder(index)
            torch.testing.assert_close(outs[1], outs[0], **TOL)
    for (a, b), (c, d) in zip(*[[(cache.k, cache.v) for cache in pair]
                                for pair in caches.values()]):
        torch.testing.assert_close(c, a, **TOL)
        torch.testing.assert_close(d, b, **TOL)


def test_errors_are_the_teaching_modules(pair):
    teaching, fused = pair
    for bad in (x[..., :8], x.float(), x[0]):
        with pytest.raises((TypeError, ValueError)) as ours:
            teaching(bad, bad, bad)
        with pytest.raises(type(ours.value), match=str(ours.value).replace("(", r"\(")
                           .replace(")", r"\)").replace(".", r"\.")):
            fused(bad, bad, bad)


def test_no_host_sync(pair, monkeypatch):
    """A masked step with a cache reads no tensor's value on the host."""
    _, fused = pair
    for name in ("__bool__", "item", "tolist", "cpu", "numpy"):
        def sync(*args, name=name, **kwargs):
            raise AssertionError(f"host sync: Tensor.{name}")
        monkeypatch.setattr(torch.Tensor, name, sync)
    cache = KVCache(static=True)
    fused(x, memory, memory, blocked[..., :1].expand(2, 5, 7), cache=cache)  # its checks too
    fused(x, memory, memory, padding_mask(TOKENS), cache=cache)
    fused(x, x, x, blocked, cache=KVCache())


def test_transformer():
    cfg = ModelConfig.tiny(src_vocab=11, tgt_vocab=11, dropout=0.0)
    model = Transformer(cfg, torch.Generator().manual_seed(0)).double().eval()
    fused = fuse(model)
    assert not any(isinstance(m, MultiHeadAttention) for m in fused.modules())
    assert sum(isinstance(m, FusedAttention) for m in fused.modules()) == 3 * cfg.N
    assert sum(isinstance(m, MultiHeadAttention) for m in model.modules()) == 3 * cfg.N
    src, tgt = TOKENS[:, :5] + 3, TOKENS[:, 2:] + 3
    src[0, 3:] = 0
    with torch.no_grad():
        torch.testing.assert_close(fused(src, tgt, *make_std_masks(src, tgt)),
                                   model(src, tgt, *make_std_masks(src, tgt)), **TOL)
    assert torch.equal(greedy_decode(fused, src, 9, 1, 2), greedy_decode(model, src, 9, 1, 2))
    found = [beam_search(m, src[:1], 9, 1, 2, 3, top_beams=3) for m in (fused, model)]
    assert [t.tolist() for t, _ in found[0]] == [t.tolist() for t, _ in found[1]]
    torch.testing.assert_close([s for _, s in found[0]], [s for _, s in found[1]], **TOL)


def test_shipped_translator_translates_the_same():
    """A subset of the test set (every 60th sentence: short and long ones), greedy and
    beam 4, translated identically; benchmarks/fused_equal.py compares all of it."""
    model, tok, blob = load_translator()
    split = load_split(seed=int(blob.get("train_config", {}).get("seed", 0)))
    src = [f for f, _ in split.test][::60]
    fused = fuse(model)
    for beam in (0, 4):
        assert translate(fused, tok, src, beam=beam) == translate(model, tok, src, beam=beam)
