"""The teaching ``MultiHeadAttention`` keeps PyTorch's contracts: what a reader, a profiler,
``torch.func`` or a serialiser does to an ``nn.Module`` works on it, and it computes what
its three input layers and ``W^O`` compute, called one by one (``by_hand``)."""
import copy
import io

import pytest
import torch
import torch.autograd.forward_ad as fwAD
from torch import nn
from torch.func import functional_call, jvp, stack_module_state, vmap

from illustrated.attention import MultiHeadAttention, scaled_dot_product_attention


def module(seed=0):
    torch.manual_seed(seed)
    return MultiHeadAttention(8, 2).eval()


def by_hand(m, query, key, value):
    """Multi-head attention from the module's own four layers, each called once."""
    B, L, _ = query.shape

    def split(x):
        return x.view(B, -1, 2, 4).transpose(1, 2)  # (B, H, n, Dk)

    z, _ = scaled_dot_product_attention(split(m.w_q(query)), split(m.w_k(key)), split(m.w_v(value)))
    return m.w_o(z.transpose(1, 2).reshape(B, L, 8))  # (B, L, D)


X = torch.randn(2, 5, 8, generator=torch.Generator().manual_seed(1))


def test_a_patched_projection_is_what_runs_even_without_gradients():
    m = module()
    m.w_q.forward = lambda x: 2 * nn.functional.linear(x, m.w_q.weight, m.w_q.bias)
    with torch.no_grad():
        out = m(X, X, X)
        torch.testing.assert_close(out, by_hand(m, X, X, X))
        assert not torch.allclose(out, by_hand(module(), X, X, X))


def test_a_class_wide_linear_patch_sees_four_calls(monkeypatch):
    calls = []
    forward = nn.Linear.forward
    monkeypatch.setattr(nn.Linear, "forward", lambda self, x: calls.append(1) or forward(self, x))
    with torch.no_grad():
        module()(X, X, X)
    assert len(calls) == 4


def test_forward_mode_ad_through_the_parameters():
    m, ref = module(), module()
    tangents = {name: torch.randn_like(p) for name, p in m.named_parameters()}
    outs = []
    for mod in (m, ref):
        with fwAD.dual_level():
            for name, p in list(mod.named_parameters()):
                layer, attr = name.rsplit(".", 1)
                sub = mod.get_submodule(layer)
                delattr(sub, attr)  # the forward-AD tutorial's pattern: del, then set a dual
                setattr(sub, attr, fwAD.make_dual(p.detach(), tangents[name]))
            with torch.no_grad():  # forward AD needs no graph
                out = mod(X, X, X) if mod is m else by_hand(mod, X, X, X)
            outs.append(fwAD.unpack_dual(out).tangent)
    torch.testing.assert_close(outs[0], outs[1])


def test_torch_func_vmap_over_an_ensemble_and_jvp():
    models = [module(seed) for seed in range(3)]
    params, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")

    def call(p, b, x):
        return functional_call(base, (p, b), (x, x, x))

    with torch.no_grad():
        out = vmap(call, in_dims=(0, 0, None))(params, buffers, X)  # (3, B, L, D)
    for i, m in enumerate(models):
        torch.testing.assert_close(out[i], by_hand(m, X, X, X))
    m = models[0]
    names = [n for n, _ in m.named_parameters()]
    primals = tuple(p.detach() for p in m.parameters())
    tangents = tuple(torch.ones_like(p) for p in primals)

    def f(*ps):
        return functional_call(m, dict(zip(names, ps)), (X, X, X))

    with torch.no_grad():
        out, tangent = jvp(f, primals, tangents)
    torch.testing.assert_close(out, by_hand(m, X, X, X))
    assert tangent.shape == out.shape and tangent.abs().sum() > 0


def test_del_and_set_a_weight():
    m = module()
    w = torch.randn(8, 8)
    del m.w_q.weight
    m.w_q.weight = w  # MAML's pattern: a plain tensor where the parameter was
    with torch.no_grad():
        torch.testing.assert_close(m(X, X, X), by_hand(m, X, X, X))


def test_share_memory_shares_every_projection():
    m = module().share_memory()
    assert all(p.is_shared() for p in m.parameters())


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
def test_quantize_dynamic_leaves_no_float_projection():
    q = torch.ao.quantization.quantize_dynamic(module(), {nn.Linear}, dtype=torch.qint8)
    held = [v for mod in q.modules() for v in vars(mod).values()]
    held += [v for obj in held if hasattr(obj, "__dict__") for v in vars(obj).values()]
    held += list(q.parameters())
    assert not any(isinstance(t, torch.Tensor) and t.is_floating_point() and t.dim() == 2
                   for t in held)  # no float32 matrix kept beside the int8 weights
    torch.testing.assert_close(q(X, X, X), module()(X, X, X), atol=0.05, rtol=0)


def test_safetensors_and_torch_save_write_what_they_are_given(tmp_path):
    safetensors_torch = pytest.importorskip("safetensors.torch")  # pinned in requirements.txt
    m = module()
    safetensors_torch.save_model(m, tmp_path / "m.safetensors")
    again = MultiHeadAttention(8, 2).eval()
    safetensors_torch.load_model(again, tmp_path / "m.safetensors")
    torch.testing.assert_close(again(X, X, X), m(X, X, X))
    buffer = io.BytesIO()
    torch.save(m.w_q.weight, buffer)
    assert torch.load(io.BytesIO(buffer.getvalue())).untyped_storage().nbytes() == 8 * 8 * 4


def test_state_dict_round_trips_with_assign_and_shallow_copy():
    m = module()
    other = MultiHeadAttention(8, 2).eval()
    other.load_state_dict(m.state_dict(), assign=True)
    torch.testing.assert_close(other(X, X, X), m(X, X, X))
    nn.utils.vector_to_parameters(nn.utils.parameters_to_vector(m.parameters()) * 0.5,
                                  other.parameters())
    with torch.no_grad():
        torch.testing.assert_close(other(X, X, X), by_hand(other, X, X, X))
        torch.testing.assert_close(copy.copy(m)(X, X, X), m(X, X, X))
