"""W^Q, W^K, W^V in one block (``illustrated.stacking``): the layers do not notice, the
block is never stale, and ``MultiHeadAttention`` takes the one-product path exactly where
nobody can tell, with the same numbers as the three layers one by one."""
import copy
import io
import pickle

import pytest
import torch
from torch import nn

from illustrated.attention import KVCache, MultiHeadAttention
from illustrated.masks import subsequent_mask
from illustrated.stacking import Stacked, stack

D, H = 16, 4
F64 = {"dtype": torch.float64}


def mha(seed=0, **kw):
    torch.manual_seed(seed)
    return MultiHeadAttention(D, H, **kw).double().eval()


def layers(m):
    return (m.w_q, m.w_k, m.w_v)


def stacked_now(m) -> bool:
    """Whether ``m``'s next call may take the one-product path."""
    with torch.no_grad():
        return m._stacked is not None and m._stacked.ready(layers(m))


def one_by_one(m, *args, **kw):
    """``m``'s output and weights through the three layers (the teaching code as it reads):
    with the block switched off for one call."""
    saved, m._stacked = m._stacked, None
    try:
        with torch.no_grad():
            return m(*args, **kw), m.attention_weights
    finally:
        m._stacked = saved


def stacked_call(m, *args, **kw):
    assert stacked_now(m)
    with torch.no_grad():
        return m(*args, **kw), m.attention_weights


# ------------------------------------------------------------------ stack() itself

def test_stack_keeps_the_parameters_and_their_values():
    torch.manual_seed(0)
    lins = [nn.Linear(D, D) for _ in range(3)]
    params = [p for m in lins for p in m.parameters()]
    before = [p.detach().clone() for p in params]
    block = stack(lins)
    assert isinstance(block, Stacked)
    assert [p for m in lins for p in m.parameters()] == params  # the same objects
    for p, old in zip(params, before):
        assert p.is_leaf and p.requires_grad
        assert torch.equal(p, old)
    assert block.weight.shape == (3 * D, D) and block.bias.shape == (3 * D,)
    # Each layer's weight is its rows of the block: a change of one is a change of the other.
    for i, m in enumerate(lins):
        assert m.weight.data_ptr() == block.weight[i * D].data_ptr()
        assert m.bias.data_ptr() == block.bias[i * D:].data_ptr()
    with torch.no_grad():
        lins[1].weight.fill_(2.0)
    assert torch.equal(block.weight[D:2 * D], torch.full((D, D), 2.0))


def test_stack_without_biases():
    lins = [nn.Linear(D, D, bias=False) for _ in range(3)]
    block = stack(lins)
    assert block.bias is None and block.biases == (None, None, None)
    assert block.ready(lins) is False  # gradients are recorded here
    with torch.no_grad():
        assert block.ready(lins)


@pytest.mark.parametrize("lins", [
    [nn.Linear(D, D), nn.Linear(D, D), nn.Linear(D, 2 * D)],  # shapes differ
    [nn.Linear(D, D), nn.Linear(D, D, bias=False), nn.Linear(D, D)],  # a bias missing
    [nn.Linear(D, D), nn.Linear(D, D).double(), nn.Linear(D, D)],  # dtypes differ
    [nn.Linear(D, D), nn.Sequential(nn.Linear(D, D)), nn.Linear(D, D)],  # not a Linear
    [],
], ids=["shapes", "bias", "dtype", "not_linear", "empty"])
def test_stack_refuses_layers_it_cannot_stack_and_touches_nothing(lins):
    ptrs = [p.data_ptr() for m in lins for p in m.parameters()]
    assert stack(lins) is None
    assert [p.data_ptr() for m in lins for p in m.parameters()] == ptrs


# ------------------------------------------------------------- the same numbers

CASES = ["self", "cross", "three", "masked_self", "padded_cross"]


def inputs(case):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 5, D, generator=g, **F64)
    memory = torch.randn(2, 7, D, generator=g, **F64)
    other = torch.randn(2, 7, D, generator=g, **F64)
    pad = torch.ones(2, 1, 7, dtype=torch.bool)
    pad[1, :, 5:] = False  # the second sentence's last two keys are padding
    return {"self": (x, x, x), "cross": (x, memory, memory), "three": (x, memory, other),
            "masked_self": (x, x, x, subsequent_mask(5)),
            "padded_cross": (x, memory, memory, pad)}[case]


@pytest.mark.parametrize("need_weights", [True, False], ids=["teaching", "lean"])
@pytest.mark.parametrize("case", CASES)
def test_one_product_equals_three_layers(case, need_weights):
    m = mha()
    args = inputs(case)
    out, weights = stacked_call(m, *args, need_weights=need_weights)
    ref, ref_weights = one_by_one(m, *args, need_weights=need_weights)
    torch.testing.assert_close(out, ref)
    if need_weights:
        torch.testing.assert_close(weights, ref_weights)
    else:
        assert weights is None and ref_weights is None


@pytest.mark.parametrize("bias", [True, False])
def test_one_product_equals_torch(bias):
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(D, H, bias=bias, batch_first=True).double().eval()
    ours = MultiHeadAttention.from_torch(theirs)
    assert stacked_now(ours)
    x = torch.randn(3, 6, D, **F64)
    with torch.no_grad():
        out, w = theirs(x, x, x, average_attn_weights=False)
        torch.testing.assert_close(ours(x, x, x), out)
    torch.testing.assert_close(ours.attention_weights, w)


@pytest.mark.parametrize("static", [False, True], ids=["self", "encoder_decoder"])
def test_decoding_with_a_cache_equals_three_layers(static):
    """Step by step with a KVCache, one product each step, as the three layers give."""
    m = mha()
    x, memory, _ = inputs("three")
    outs = {}
    for way in ("stacked", "layers"):
        cache = KVCache(static=static)
        steps = []
        for t in range(x.shape[1]):
            q = x[:, t:t + 1]  # (B, 1, D)
            k = memory if static else q
            if way == "stacked":
                steps.append(stacked_call(m, q, k, k, cache=cache)[0])
            else:
                steps.append(one_by_one(m, q, k, k, cache=cache)[0])
        outs[way] = torch.cat(steps, dim=1)  # (B, L, D)
    torch.testing.assert_close(outs["stacked"], outs["layers"])


def test_float32_one_product_matches_three_layers():
    torch.manual_seed(0)
    m = MultiHeadAttention(64, 8).eval()
    x = torch.randn(2, 16, 64)
    out, w = stacked_call(m, x, x, x)
    ref, ref_w = one_by_one(m, x, x, x)
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(w, ref_w)


# ---------------------------------------------- taken only where nobody can tell

def test_gradients_take_the_three_layers():
    """With gradients recorded the block is not used: every parameter gets its gradient,
    the same as a module never stacked would."""
    m = mha()
    x = torch.randn(2, 5, D, **F64)
    assert m._stacked.ready(layers(m)) is False  # grad mode is on here
    m(x, x, x).sum().backward()
    plain = mha()
    plain._stacked = None
    plain(x, x, x).sum().backward()
    for (name, p), q in zip(m.named_parameters(), plain.parameters()):
        assert p.grad is not None, name
        torch.testing.assert_close(p.grad, q.grad, msg=name)


def test_inference_mode_takes_the_block():
    m = mha()
    x = torch.randn(1, 4, D, **F64)
    with torch.inference_mode():
        assert m._stacked.ready(layers(m))
        out = m(x, x, x)
    torch.testing.assert_close(out, one_by_one(m, x, x, x)[0])


def test_a_hook_on_a_projection_sees_every_call():
    """Chapter 9 counts the rows W^K projects with a forward hook: the hook must see them."""
    m = mha()
    x = torch.randn(2, 5, D, **F64)
    rows = []
    handle = m.w_k.register_forward_hook(lambda mod, inp, out: rows.append(out.shape[1]))
    with torch.no_grad():
        assert not m._stacked.ready(layers(m))
        m(x, x, x)
    handle.remove()
    assert rows == [5]
    assert stacked_now(m)  # the hook gone, the block is back


def test_a_pre_hook_or_a_global_hook_turns_the_block_off():
    m = mha()
    handle = m.w_v.register_forward_pre_hook(lambda mod, inp: None)
    assert not stacked_now(m)
    handle.remove()
    handle = nn.modules.module.register_module_forward_hook(lambda mod, inp, out: None)
    try:
        assert not stacked_now(m)
    finally:
        handle.remove()
    assert stacked_now(m)


def test_tracing_keeps_the_three_layers():
    """An exported graph holds the three layers' weights, as the checkpoint names them."""
    m = mha()
    x = torch.randn(1, 4, D, **F64)

    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = m

        def forward(self, t):
            return self.attn(t, t, t)

    with torch.no_grad(), pytest.warns(torch.jit.TracerWarning):
        traced = torch.jit.trace(SelfAttention(), (x,), check_trace=False)
    graph = str(traced.inlined_graph)
    assert graph.count("aten::linear") == 4, graph  # W^Q, W^K, W^V, W^O: not one product
    torch.testing.assert_close(traced(x), one_by_one(m, x, x, x)[0])


def test_a_replaced_layer_or_parameter_turns_the_block_off():
    m = mha()
    x = torch.randn(1, 4, D, **F64)
    m.w_q = nn.Linear(D, D).double()
    assert not stacked_now(m)
    with torch.no_grad():
        torch.testing.assert_close(m(x, x, x), one_by_one(m, x, x, x)[0])
    m = mha()
    m.w_v.weight = nn.Parameter(torch.zeros(D, D, **F64))
    assert not stacked_now(m)
    m = mha()
    m.w_k.bias.data = torch.zeros(D, **F64)  # new memory under the same parameter
    assert not stacked_now(m)
    with torch.no_grad():
        out = m(x, x, x)
    torch.testing.assert_close(out, one_by_one(m, x, x, x)[0])


# ------------------------------------------------------------ the block is never stale

def changed_weights_agree(m, change):
    """After ``change(m)``, the one-product path gives what the three layers give."""
    change(m)
    x = torch.randn(2, 5, D, **F64)
    out, w = stacked_call(m, x, x, x)
    ref, ref_w = one_by_one(m, x, x, x)
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(w, ref_w)
    return out


def optimizer_step(m):
    opt = torch.optim.Adam(m.parameters(), lr=0.1)
    x = torch.randn(2, 5, D, **F64)
    m(x, x, x).square().sum().backward()
    opt.step()


def load_other(m):
    m.load_state_dict(mha(seed=7).state_dict())


def data_zero(m):
    m.w_q.weight.data.zero_()  # .data: an in-place change autograd does not count


@pytest.mark.parametrize("change", [optimizer_step, load_other, data_zero])
def test_in_place_changes_reach_the_block(change):
    m = mha()
    before = stacked_call(m, *inputs("self"))[0].clone()
    after = changed_weights_agree(m, change)
    assert not torch.allclose(before, after)  # the change did change the output


def test_load_state_dict_of_another_model_gives_its_outputs():
    m, other = mha(), mha(seed=7)
    m.load_state_dict(other.state_dict())
    x = torch.randn(2, 5, D, **F64)
    with torch.no_grad():
        torch.testing.assert_close(m(x, x, x), other(x, x, x))


@pytest.mark.parametrize("convert", [
    lambda m: m.float(), lambda m: m.half().double(), lambda m: m.to(torch.float32),
    lambda m: m.share_memory()], ids=["float", "half_double", "to", "share_memory"])
def test_conversions_stack_again(convert):
    m = mha()
    m = convert(m) or m
    assert stacked_now(m)
    dtype = m.w_q.weight.dtype
    x = torch.randn(2, 5, D, dtype=dtype)
    out, w = stacked_call(m, x, x, x)
    ref, ref_w = one_by_one(m, x, x, x)
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(w, ref_w)


def test_a_deep_copy_has_a_block_of_its_own():
    m = mha()
    twin = copy.deepcopy(m)
    assert stacked_now(twin)
    assert twin._stacked.weight.data_ptr() != m._stacked.weight.data_ptr()
    x = torch.randn(2, 5, D, **F64)
    with torch.no_grad():
        torch.testing.assert_close(twin(x, x, x), m(x, x, x))
        m.w_q.weight.zero_()  # the original changes; the copy must not
    torch.testing.assert_close(twin(x, x, x), one_by_one(twin, x, x, x)[0])
    assert not torch.allclose(stacked_call(twin, x, x, x)[0], stacked_call(m, x, x, x)[0])


def test_pickle_and_torch_save_round_trips():
    m = mha()
    x = torch.randn(2, 5, D, **F64)
    with torch.no_grad():
        ref = m(x, x, x)
    for back in (pickle.loads(pickle.dumps(m)), _torch_round_trip(m)):
        assert stacked_now(back)
        with torch.no_grad():
            torch.testing.assert_close(back(x, x, x), ref)


def _torch_round_trip(m):
    buf = io.BytesIO()
    torch.save(m, buf)
    buf.seek(0)
    return torch.load(buf, weights_only=False)


def test_state_dict_keys_and_sizes_are_unchanged():
    m = mha()
    sd = m.state_dict()
    assert list(sd) == ["w_q.weight", "w_q.bias", "w_k.weight", "w_k.bias", "w_v.weight",
                        "w_v.bias", "w_o.weight", "w_o.bias"]
    assert all(t.shape in ((D, D), (D,)) for t in sd.values())
