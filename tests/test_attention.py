"""Tests for :mod:`illustrated.attention`, with PyTorch's own attention as the reference.

``torch.nn.functional.scaled_dot_product_attention`` shares our mask meaning
(True = may attend); ``torch.nn.MultiheadAttention`` uses the opposite one, so its masks
go through :func:`illustrated.masks.to_torch_blocked`.
"""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from illustrated.attention import MultiHeadAttention, scaled_dot_product_attention
from illustrated.interop import from_torch
from illustrated.masks import padding_mask, subsequent_mask, to_torch_blocked

F64 = torch.float64
TOL = dict(atol=1e-10, rtol=1e-10)
TOKENS = torch.tensor([[5, 2, 1, 0, 0], [1, 3, 1, 4, 0]])  # (B=2, S=5), pad id 0


def randn(*shape, seed=0):
    """A float64 tensor from its own generator, so no test touches the global seed."""
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=F64)


def reference_weights(q, k, mask=None):
    """softmax(Q K^T / sqrt(d_k)) written out directly; blocked scores become -inf."""
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1)


# name -> (query shape, key shape, value shape, mask or None); no row is fully blocked.
CASES = {
    "no_mask": ((2, 5, 8), (2, 5, 8), (2, 5, 8), None),
    "padding": ((2, 5, 8), (2, 5, 8), (2, 5, 8), padding_mask(TOKENS)),
    "causal": ((2, 5, 8), (2, 5, 8), (2, 5, 8), subsequent_mask(5)),
    "decoder": ((2, 5, 8), (2, 5, 8), (2, 5, 8), padding_mask(TOKENS) & subsequent_mask(5)),
    "heads": ((2, 3, 5, 4), (2, 3, 5, 4), (2, 3, 5, 4), None),
    "heads_padding": ((2, 3, 5, 4), (2, 3, 5, 4), (2, 3, 5, 4), padding_mask(TOKENS)[:, None]),
    "heads_causal": ((2, 3, 5, 4), (2, 3, 5, 4), (2, 3, 5, 4), subsequent_mask(5)),
    "L_ne_S": ((2, 3, 8), (2, 5, 8), (2, 5, 8), padding_mask(TOKENS)),
    "Dv_ne_Dk": ((2, 5, 8), (2, 5, 8), (2, 5, 6), subsequent_mask(5)),
    "all_differ": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), padding_mask(TOKENS)[:, None]),
}


def make_case(name):
    q_shape, k_shape, v_shape, mask = CASES[name]
    return randn(*q_shape, seed=1), randn(*k_shape, seed=2), randn(*v_shape, seed=3), mask


# --- scaled_dot_product_attention against torch ---------------------------------------


@pytest.mark.parametrize("name", CASES)
def test_sdpa_matches_torch(name):
    q, k, v, mask = make_case(name)
    out, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert out.shape == q.shape[:-1] + v.shape[-1:]
    torch.testing.assert_close(out, expected, **TOL)
    torch.testing.assert_close(weights, reference_weights(q, k, mask), **TOL)


@pytest.mark.parametrize("name", CASES)
def test_weight_rows_sum_to_one(name):
    q, k, v, mask = make_case(name)
    _, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:-1], dtype=F64))
    assert (weights >= 0).all()


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c[3] is not None])
def test_masked_positions_get_exactly_zero_weight(name):
    q, k, v, mask = make_case(name)
    _, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    blocked = ~mask.expand_as(weights)
    assert blocked.any()
    assert (weights[blocked] == 0).all()
    assert (weights[~blocked] > 0).all()


def test_dropout_module_is_applied_to_weights():
    q, k, v, _ = make_case("no_mask")
    drop = nn.Dropout(0.5)
    torch.manual_seed(0)
    out, weights = scaled_dot_product_attention(q, k, v, dropout=drop)
    assert (weights == 0).any()
    torch.testing.assert_close(out, weights @ v, **TOL)


@pytest.mark.parametrize("name", ["no_mask", "padding", "decoder", "all_differ"])
def test_sdpa_gradcheck(name):
    q, k, v, mask = make_case(name)
    # one sequence and width 3 keep the Jacobians small
    inputs = tuple(t[:1, ..., :3].clone().requires_grad_() for t in (q, k, v))
    mask = None if mask is None else mask[:1]

    def f(q, k, v):
        return scaled_dot_product_attention(q, k, v, mask=mask)

    assert torch.autograd.gradcheck(f, inputs)


# --- a query row with every key blocked -----------------------------------------------


def test_fully_masked_row_is_zero_not_nan():
    q, k, v = randn(2, 4, 8, seed=1), randn(2, 5, 8, seed=2), randn(2, 5, 6, seed=3)
    mask = torch.ones(2, 4, 5, dtype=torch.bool)
    mask[0, 1] = False  # query 1 of sequence 0 may look at nothing
    mask[1, 2, 3:] = False  # an ordinary partly blocked row
    q, k, v = (t.requires_grad_() for t in (q, k, v))
    out, weights = scaled_dot_product_attention(q, k, v, mask=mask)

    assert (weights[0, 1] == 0).all() and (out[0, 1] == 0).all()
    for t in (out, weights):
        assert torch.isfinite(t).all()
    # the other rows are what torch computes for them alone
    expected = F.scaled_dot_product_attention(q[1], k[1], v[1], mask[1])
    torch.testing.assert_close(out[1], expected, **TOL)
    keep = [0, 2, 3]
    expected = F.scaled_dot_product_attention(q[0, keep], k[0], v[0], mask[0, keep])
    torch.testing.assert_close(out[0, keep], expected, **TOL)

    # anomaly mode raises if any step of the backward pass makes a NaN, even one that a
    # later step would hide
    with pytest.warns(UserWarning, match="Anomaly Detection"), torch.autograd.detect_anomaly():
        out, weights = scaled_dot_product_attention(q, k, v, mask=mask)
        (out.square().sum() + weights.square().sum()).backward()
    for t in (q, k, v):
        assert torch.isfinite(t.grad).all()
    assert (q.grad[0, 1] == 0).all()  # the row read nothing, so nothing flows back to it


def test_fully_masked_row_gradcheck():
    q, k, v = (randn(1, 3, 3, seed=s).requires_grad_() for s in (1, 2, 3))
    mask = torch.tensor([[[True, False, True], [False, False, False], [True, True, True]]])

    def f(q, k, v):
        return scaled_dot_product_attention(q, k, v, mask=mask)

    assert torch.autograd.gradcheck(f, (q, k, v))


def test_fully_padded_sequence_through_mha():
    mha = MultiHeadAttention(8, 2).to(F64).eval()
    with torch.no_grad():
        mha.w_o.bias.copy_(randn(8, seed=9))
    x = randn(2, 4, 8, seed=1).requires_grad_()
    tokens = torch.tensor([[3, 4, 0, 0], [0, 0, 0, 0]])  # sequence 1 is all padding
    mask = padding_mask(tokens)  # (B, 1, S)
    out = mha(x, x, x, mask=mask)

    assert torch.isfinite(out).all()
    assert (mha.attention_weights[1] == 0).all()
    # nothing to read: each row of sequence 1 is W^O applied to 0, i.e. the bias
    torch.testing.assert_close(out[1], mha.w_o.bias.expand(4, 8), atol=0, rtol=0)
    # sequence 0 is as if it were alone
    torch.testing.assert_close(out[0], mha(x[:1], x[:1], x[:1], mask=mask[:1])[0], **TOL)
    out.sum().backward()
    assert torch.isfinite(x.grad).all()


# --- MultiHeadAttention against torch.nn.MultiheadAttention ---------------------------

B, L, S, D, H = 2, 4, 5, 12, 3


def make_torch_mha(batch_first, bias, seed=0):
    torch.manual_seed(seed)
    m = nn.MultiheadAttention(D, H, bias=bias, batch_first=batch_first, dtype=F64).eval()
    if bias:  # torch starts the biases at 0; random ones make the test able to fail
        with torch.no_grad():
            m.in_proj_bias.copy_(randn(3 * D, seed=seed + 10))
            m.out_proj.bias.copy_(randn(D, seed=seed + 11))
    return m


def make_masks(kind, q_len, k_len):
    """Our mask and the matching (attn_mask, key_padding_mask) for torch."""
    tokens = TOKENS[:, :k_len]  # (B, S) source ids with padding
    pad = padding_mask(tokens)  # (B, 1, S)
    if q_len == k_len:
        attn = subsequent_mask(q_len)[0]  # (L, L)
    else:
        attn = torch.rand(q_len, k_len, generator=torch.Generator().manual_seed(4)) > 0.4
        attn[:, 0] = True  # every query keeps one key, so torch has no NaN row
    if kind == "none":
        return None, None, None
    if kind == "padding":
        return pad, None, to_torch_blocked(pad[:, 0])
    if kind == "attn":
        return attn, to_torch_blocked(attn), None
    if kind == "both":
        return pad & attn, to_torch_blocked(attn), to_torch_blocked(pad[:, 0])
    if kind == "per_batch":  # (B, L, S): torch wants it repeated per head, (B*H, L, S)
        mask = torch.rand(B, q_len, k_len, generator=torch.Generator().manual_seed(5)) > 0.5
        mask[..., 0] = True
        return mask, to_torch_blocked(mask).repeat_interleave(H, dim=0), None
    raise AssertionError(kind)


@pytest.mark.parametrize("mask_kind", ["none", "padding", "attn", "both", "per_batch"])
@pytest.mark.parametrize("attn_kind", ["self", "cross", "distinct_kv"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("batch_first", [True, False], ids=["batch_first", "seq_first"])
def test_mha_matches_torch(batch_first, bias, attn_kind, mask_kind):
    m = make_torch_mha(batch_first, bias)
    ours = from_torch(m)
    assert not ours.training
    q_len = S if attn_kind == "self" else L
    query = randn(B, q_len, D, seed=1)
    key = query if attn_kind == "self" else randn(B, S, D, seed=2)
    value = randn(B, S, D, seed=3) if attn_kind == "distinct_kv" else key
    mask, attn_mask, key_padding_mask = make_masks(mask_kind, q_len, S)

    args = (query, key, value)
    if not batch_first:
        args = tuple(t.transpose(0, 1) for t in args)  # (n, B, D)
    expected, expected_w = m(*args, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                             need_weights=True, average_attn_weights=False)
    if not batch_first:
        expected = expected.transpose(0, 1)  # (B, L, D)

    out = ours(query, key, value, mask=mask)
    assert out.shape == (B, q_len, D) and ours.attention_weights.shape == (B, H, q_len, S)
    torch.testing.assert_close(out, expected, **TOL)
    torch.testing.assert_close(ours.attention_weights, expected_w, **TOL)


def test_mha_4d_mask_per_head():
    m = make_torch_mha(True, True)
    ours = from_torch(m)
    x = randn(B, S, D, seed=1)
    mask = torch.rand(B, H, S, S, generator=torch.Generator().manual_seed(6)) > 0.5
    mask[..., 0] = True
    expected, expected_w = m(x, x, x, attn_mask=to_torch_blocked(mask).reshape(B * H, S, S),
                             average_attn_weights=False)
    torch.testing.assert_close(ours(x, x, x, mask=mask), expected, **TOL)
    torch.testing.assert_close(ours.attention_weights, expected_w, **TOL)


# --- properties of MultiHeadAttention -------------------------------------------------


def make_mha(seed=0, **kwargs):
    torch.manual_seed(seed)
    return MultiHeadAttention(16, 4, **kwargs).to(F64).eval()


def test_mha_self_attention_is_permutation_equivariant():
    mha = make_mha()
    x = randn(2, 6, 16, seed=1)
    perm = torch.randperm(6, generator=torch.Generator().manual_seed(2))
    assert not torch.equal(perm, torch.arange(6))
    out = mha(x, x, x)
    weights = mha.attention_weights
    out_p = mha(x[:, perm], x[:, perm], x[:, perm])
    torch.testing.assert_close(out_p, out[:, perm], atol=1e-12, rtol=1e-12)
    torch.testing.assert_close(mha.attention_weights, weights[:, :, perm][..., perm],
                               atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("t", [0, 2, 4])
def test_causal_mask_ignores_the_future(t):
    mha = make_mha()
    x = randn(2, 6, 16, seed=1)
    changed = x.clone()
    changed[:, t + 1:] = randn(2, 5 - t, 16, seed=2)
    mask = subsequent_mask(6)
    out, out_changed = mha(x, x, x, mask=mask), mha(changed, changed, changed, mask=mask)
    torch.testing.assert_close(out_changed[:, : t + 1], out[:, : t + 1], atol=1e-12, rtol=1e-12)
    assert not torch.allclose(out_changed[:, t + 1:], out[:, t + 1:])  # the future did change
    # without the mask, the early outputs do see the change
    assert not torch.allclose(mha(changed, changed, changed)[:, : t + 1], mha(x, x, x)[:, : t + 1])


def test_mha_weights_rows_sum_to_one_and_masked_are_zero():
    mha = make_mha()
    x = randn(2, 5, 16, seed=1)
    mask = padding_mask(TOKENS) & subsequent_mask(5)  # (B, L, S)
    mha(x, x, x, mask=mask)
    w = mha.attention_weights  # (B, H, L, S)
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 4, 5, dtype=F64))
    assert (w[~mask[:, None].expand_as(w)] == 0).all()


def test_mha_dropout_is_off_in_eval_and_on_in_train():
    mha = make_mha(dropout=0.5)
    x = randn(2, 5, 16, seed=1)
    torch.testing.assert_close(mha(x, x, x), mha(x, x, x), atol=0, rtol=0)
    mha.train()
    torch.manual_seed(0)
    mha(x, x, x)
    assert (mha.attention_weights == 0).any()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_mha_runs_on_cuda():
    m = make_torch_mha(True, True).cuda()
    ours = from_torch(m)
    assert ours.w_q.weight.is_cuda
    x = randn(B, S, D, seed=1).cuda()
    mask = padding_mask(TOKENS.cuda())
    expected, _ = m(x, x, x, key_padding_mask=to_torch_blocked(mask[:, 0]))
    torch.testing.assert_close(ours(x, x, x, mask=mask), expected, **TOL)


# --- bad input gives a clear error ----------------------------------------------------

X = randn(2, 5, 8)


@pytest.mark.parametrize(
    "query, key, value, mask, error, match",
    [
        (randn(8), X, X, None, ValueError, r"query must have at least 2 dimensions"),
        (X, randn(5, 8), X, None, ValueError, r"same number of dimensions"),
        (X, randn(3, 5, 8), randn(3, 5, 8), None, ValueError, r"batch dimensions"),
        (X, randn(2, 5, 6), X, None, ValueError, r"query and key must have the same last dim"),
        (X, X, randn(2, 4, 8), None, ValueError, r"key and value must have the same length S"),
        (X, X, X, torch.ones(2, 5, 5), TypeError, r"bool"),
        (X, X, X, torch.ones(2, 1, 4, dtype=torch.bool), ValueError, r"\(2, 1, 4\).*\(2, 5, 5\)"),
        (X, X, X, torch.ones(3, 2, 5, 5, dtype=torch.bool), ValueError, r"does not broadcast"),
        (X.tolist(), X, X, None, TypeError, r"query must be a torch.Tensor, got list"),
        (X, X, X, [[True]], TypeError, r"mask must be a torch.Tensor"),
        (torch.ones(2, 5, 8, dtype=torch.long), X, X, None, TypeError, r"query must be a floating"),
    ],
    ids=["rank", "ranks_differ", "batch", "width", "kv_length", "float_mask", "mask_shape",
         "mask_rank", "list", "list_mask", "int_query"],
)
def test_sdpa_bad_input(query, key, value, mask, error, match):
    with pytest.raises(error, match=match):
        scaled_dot_product_attention(query, key, value, mask=mask)


def test_sdpa_dropout_must_be_a_module():
    with pytest.raises(TypeError, match=r"dropout must be a module such as nn.Dropout"):
        scaled_dot_product_attention(X, X, X, dropout=0.1)


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        ((10, 3), {}, ValueError, r"d_model=10 is not divisible by h=3"),
        ((8, 0), {}, ValueError, r"h must be positive"),
        ((8, 2.0), {}, TypeError, r"h must be an int"),
        ((8, 2), {"dropout": 1.0}, ValueError, r"dropout must be in \[0, 1\), got dropout=1.0"),
        ((8, 2), {"dropout": -0.1}, ValueError, r"dropout must be in \[0, 1\)"),
        ((8, 2), {"dropout": "0.1"}, TypeError, r"dropout must be a float"),
    ],
)
def test_mha_bad_construction(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        MultiHeadAttention(*args, **kwargs)


Y = randn(2, 5, 8)


@pytest.mark.parametrize(
    "query, key, value, mask, error, match",
    [
        (randn(5, 8), Y, Y, None, ValueError, r"query must be 3-D, got 2-D"),
        (Y, Y, randn(2, 5, 8, 1), None, ValueError, r"value must be 3-D, got 4-D"),
        (randn(2, 5, 6), Y, Y, None, ValueError, r"query must have last dimension d_model=8"),
        (Y, randn(2, 5, 6), Y, None, ValueError, r"key must have last dimension d_model=8"),
        (Y, randn(3, 5, 8), randn(3, 5, 8), None, ValueError, r"same batch size B"),
        (Y, Y, randn(2, 4, 8), None, ValueError, r"key and value must have the same length S"),
        (Y, Y, Y, torch.ones(2, 5, 5), TypeError, r"bool"),
        (Y, Y, Y, torch.ones(5, dtype=torch.bool), ValueError, r"mask must be 2-D or 3-D or 4-D"),
        (Y, Y, Y, torch.ones(2, 1, 4, dtype=torch.bool), ValueError, r"\(2, 1, 4\).*\(2, 5, 5\)"),
        (Y, Y, Y, torch.ones(2, 3, 5, 5, dtype=torch.bool), ValueError,
         r"\(2, 3, 5, 5\).*\(2, 2, 5, 5\)"),
        ("x", Y, Y, None, TypeError, r"query must be a torch.Tensor, got str"),
        (Y.long(), Y, Y, None, TypeError, r"query must be a floating-point tensor"),
    ],
    ids=["rank2", "rank4", "q_width", "k_width", "batch", "kv_length", "float_mask",
         "mask_rank", "mask_shape", "mask_heads", "str", "int_query"],
)
def test_mha_bad_input(query, key, value, mask, error, match):
    mha = MultiHeadAttention(8, 2).to(F64)
    with pytest.raises(error, match=match):
        mha(query, key, value, mask=mask)


# --- dtypes and devices that do not match: an error that names them and the fix -------


@pytest.mark.parametrize(
    "module_dtype, input_dtype, match",
    [
        (torch.float32, F64, r"^the input has dtype torch\.float64 but the module's weights are "
                             r"torch\.float32: call \.double\(\) on the module "
                             r"\(model\.double\(\)\) or cast the input with \.float\(\)$"),
        (F64, torch.float32, r"^the input has dtype torch\.float32 but the module's weights are "
                             r"torch\.float64: call \.float\(\) on the module "
                             r"\(model\.float\(\)\) or cast the input with \.double\(\)$"),
    ],
    ids=["float64_input", "float32_input"],
)
def test_mha_input_dtype_must_match_its_weights(module_dtype, input_dtype, match):
    mha = MultiHeadAttention(8, 2).to(module_dtype)
    x = randn(2, 5, 8).to(input_dtype)
    with pytest.raises(TypeError, match=match):
        mha(x, x, x)
    # either fix the message names works
    assert mha.to(input_dtype)(x, x, x).dtype == input_dtype
    assert mha.to(module_dtype)(x.to(module_dtype), x.to(module_dtype), x.to(module_dtype)
                                ).dtype == module_dtype


def test_mha_under_autocast_may_mix_dtypes():
    mha = MultiHeadAttention(8, 2).bfloat16()
    x = randn(2, 5, 8).float()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert mha(x, x, x).shape == (2, 5, 8)


@pytest.mark.parametrize("which", ["key", "value"])
def test_query_key_value_must_share_a_dtype(which):
    x = randn(2, 5, 8)
    args = {"query": x, "key": x, "value": x, which: x.float()}
    match = (rf"^query and {which} must have the same dtype, got query torch\.float64 and "
             rf"{which} torch\.float32; cast one to the other's, e\.g\. {which}\.double\(\)$")
    with pytest.raises(TypeError, match=match):
        scaled_dot_product_attention(**args)
    with pytest.raises(TypeError, match=match):
        MultiHeadAttention(8, 2).double()(**args)


def test_devices_must_match():
    x = randn(2, 5, 8)
    with pytest.raises(ValueError, match=r"^query and key must be on the same device, got "
                                         r"query on cpu and key on meta; move one, e\.g\. "
                                         r"key\.to\(query\.device\)$"):
        scaled_dot_product_attention(x, x.to("meta"), x)
    with pytest.raises(ValueError, match=r"^the input is on cpu but the module's weights are on "
                                         r"meta: move the module \(model\.to\('cpu'\)\) or "
                                         r"the input \(\.to\('meta'\)\)$"):
        MultiHeadAttention(8, 2).double().to("meta")(x, x, x)


# --- the memory-lean path (need_weights=False) against the teaching path ---------------

def lean_masks():
    """name -> mask for queries (B=2, L=5) over keys (S=5); 'blind' has a fully blocked row."""
    blind = padding_mask(TOKENS) & subsequent_mask(5)  # (B, L, S)
    blind = blind.clone()
    blind[0, 2] = False  # query 2 of sequence 0 may attend to nothing
    per_head = torch.rand(2, 2, 5, 5, generator=torch.Generator().manual_seed(7)) > 0.5
    per_head[0, 1, 3] = False  # one fully blocked row in one head only
    return {"none": None, "padding": padding_mask(TOKENS), "causal": subsequent_mask(5),
            "decoder": padding_mask(TOKENS) & subsequent_mask(5), "blind_row": blind,
            "causal_2d": subsequent_mask(5)[0], "per_head_blind": per_head}


def lean_pair(seed=0, dropout=0.0):
    """Two modules with the same weights: the teaching path and the lean one."""
    torch.manual_seed(seed)
    teach = MultiHeadAttention(8, 2, dropout=dropout).to(F64)
    with torch.no_grad():
        for p in teach.parameters():  # random biases too, so a wrong one shows
            p.copy_(randn(*p.shape, seed=seed + p.numel()))
    lean = MultiHeadAttention(8, 2, dropout=dropout, need_weights=False).to(F64)
    lean.load_state_dict(teach.state_dict())
    return teach, lean


@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("cross", [False, True], ids=["self", "cross"])
@pytest.mark.parametrize("mask_name", list(lean_masks()))
def test_lean_path_equals_teaching_path(mask_name, cross, train):
    teach, lean = lean_pair()
    teach.train(train), lean.train(train)
    mask = lean_masks()[mask_name]
    outs, grads = [], []
    for m in (teach, lean):
        x = randn(2, 5, 8, seed=1).requires_grad_()
        mem = randn(2, 5, 8, seed=2).requires_grad_()
        kv = mem if cross else x
        out = m(x, kv, kv, mask=mask)
        (out * randn(2, 5, 8, seed=3)).sum().backward()
        outs.append(out)
        grads.append([x.grad, mem.grad if cross else torch.zeros(())]
                     + [p.grad for p in m.parameters()])
    assert teach.attention_weights is not None and lean.attention_weights is None
    assert torch.isfinite(outs[1]).all()
    torch.testing.assert_close(outs[1], outs[0], **TOL)
    for g_lean, g_teach in zip(grads[1], grads[0]):
        assert torch.isfinite(g_lean).all()
        torch.testing.assert_close(g_lean, g_teach, **TOL)


def test_lean_fully_blocked_row_outputs_the_bias():
    _, lean = lean_pair()
    x = randn(2, 5, 8, seed=1)
    mask = lean_masks()["blind_row"]
    out = lean(x, x, x, mask=mask)
    # nothing to read: the row is W^O applied to 0, i.e. W^O's bias, not NaN
    torch.testing.assert_close(out[0, 2], lean.w_o.bias, atol=0, rtol=0)


def test_need_weights_is_the_modules_choice():
    teach, lean = lean_pair()
    x = randn(2, 5, 8, seed=1)
    teach.need_weights = False
    out = teach(x, x, x)
    assert teach.attention_weights is None
    lean.need_weights = True
    torch.testing.assert_close(lean(x, x, x), out, **TOL)
    assert lean.attention_weights.shape == (2, 2, 5, 5)


def test_an_argument_forward_does_not_take_is_named_as_forwards():
    with pytest.raises(TypeError, match=r"^MultiHeadAttention.forward\(\) got an unexpected "
                                        r"keyword argument 'need_weights'"):
        MultiHeadAttention(8, 2).to(F64)(Y, Y, Y, need_weights=False)


@pytest.mark.parametrize("bad", ["yes", 1, 0.0])
def test_need_weights_must_be_a_bool(bad):
    with pytest.raises(TypeError, match=r"need_weights must be True or False, got"):
        MultiHeadAttention(8, 2, need_weights=bad)


def test_lean_dropout_is_on_in_train_and_off_in_eval():
    _, lean = lean_pair(dropout=0.5)
    x = randn(2, 5, 8, seed=1)
    lean.eval()
    torch.testing.assert_close(lean(x, x, x), lean(x, x, x), atol=0, rtol=0)
    lean.train()
    torch.manual_seed(0)
    a = lean(x, x, x)
    lean.eval()
    assert not torch.allclose(a, lean(x, x, x))


@pytest.mark.parametrize("static", [False, True], ids=["self", "cross"])
def test_lean_path_with_a_kv_cache(static):
    """Step-by-step decoding with a cache gives the same on both paths as in one call."""
    from illustrated.kv_cache import KVCache
    teach, lean = lean_pair()
    teach.eval(), lean.eval()
    x = randn(2, 5, 8, seed=1)
    mem = randn(2, 6, 8, seed=2)
    full_mask = None if static else subsequent_mask(5)
    whole = teach(x, mem if static else x, mem if static else x, mask=full_mask)
    for m in (teach, lean):
        cache = KVCache(static=static)
        steps = []
        for t in range(5):
            xt = x[:, t:t + 1]  # (B, 1, D)
            kv = mem if static else xt
            steps.append(m(xt, kv, kv, cache=cache))
        torch.testing.assert_close(torch.cat(steps, dim=1), whole, **TOL)


# --- KVCache on its own -------------------------------------------------------------


def _mha(seed=0):
    torch.manual_seed(seed)
    return MultiHeadAttention(16, 4, dropout=0.0).double().eval()


def test_kv_cache_grows_by_the_new_positions_and_matches_full_attention():
    from illustrated.kv_cache import KVCache
    mha, cache = _mha(), KVCache()
    x = torch.randn(2, 5, 16, dtype=torch.float64)
    full = mha(x, x, x, subsequent_mask(5))  # (2, 5, 16)
    assert len(cache) == 0 and cache.k is None
    steps = []
    for t in range(5):
        steps.append(mha(x[:, t:t + 1], x[:, t:t + 1], x[:, t:t + 1], cache=cache))
        assert len(cache) == t + 1
        assert cache.k.shape == (2, 4, t + 1, 4) and cache.v.shape == (2, 4, t + 1, 4)
    torch.testing.assert_close(torch.cat(steps, dim=1), full)


def test_static_kv_cache_projects_the_memory_once():
    from illustrated.kv_cache import KVCache
    mha, cache = _mha(1), KVCache(static=True)
    memory = torch.randn(2, 3, 16, dtype=torch.float64)
    q = torch.randn(2, 1, 16, dtype=torch.float64)
    first = mha(q, memory, memory, cache=cache)
    k = cache.k
    # The second call ignores the key/value arguments: the cached projection is reused.
    again = mha(q, torch.zeros_like(memory), torch.zeros_like(memory), cache=cache)
    assert cache.k is k and len(cache) == 3
    torch.testing.assert_close(again, first)


def test_cache_of_the_wrong_type_is_refused():
    mha = _mha()
    x = torch.randn(1, 2, 16, dtype=torch.float64)
    with pytest.raises(TypeError, match="KVCache"):
        mha(x, x, x, cache=(None, None))


# --- dropout ------------------------------------------------------------------------------


def test_teaching_path_skips_dropout_only_where_it_is_the_identity():
    """Eval mode (or p = 0) leaves the weights untouched; training with p > 0 drops some."""
    teach, _ = lean_pair(dropout=0.5)
    x = randn(2, 5, 8, seed=1)
    teach.eval()
    teach(x, x, x)
    torch.testing.assert_close(teach.attention_weights.sum(-1), torch.ones(2, 2, 5, dtype=F64))
    teach.train()
    torch.manual_seed(0)
    teach(x, x, x)
    assert (teach.attention_weights == 0).any()


# --- the checks, made by every call: shapes, dtypes and devices, never values ------------


@pytest.mark.parametrize("need_weights", [True, False], ids=["teaching", "lean"])
def test_a_call_and_its_checks_read_no_value_back(need_weights, monkeypatch):
    """Every call checks its inputs, also inside a model: the checks must cost no read of a
    tensor's values (on a GPU, a wait), with a mask and with either cache."""
    from illustrated.kv_cache import KVCache
    mha = _mha()
    mha.need_weights = need_weights
    x, memory = torch.randn(2, 1, 16, dtype=F64), torch.randn(2, 3, 16, dtype=F64)
    for name in ("__bool__", "item", "tolist", "cpu", "numpy"):
        def sync(*args, name=name, **kwargs):
            raise AssertionError(f"host read: Tensor.{name}")
        monkeypatch.setattr(torch.Tensor, name, sync)
    static, growing = KVCache(static=True), KVCache()
    for _ in range(2):
        mha(x, memory, memory, torch.ones(2, 1, 3, dtype=torch.bool), cache=static)
        mha(x, x, x, None, cache=growing)
    mha(memory, memory, memory, subsequent_mask(3))
    scaled_dot_product_attention(memory, memory, memory, subsequent_mask(3), nn.Dropout(0.5))


@pytest.mark.parametrize("static", [False, True], ids=["self", "cross"])
def test_a_cache_of_another_batch_is_refused(static):
    from illustrated.kv_cache import KVCache
    mha, cache = _mha(), KVCache(static=static)
    x = torch.randn(2, 3, 16, dtype=F64)
    mha(x, x, x, cache=cache)
    with pytest.raises(ValueError, match=r"^the cache holds keys for a batch of 2 but the query "
                                         r"has B=1: start a new KVCache"):
        mha(x[:1], x[:1], x[:1], cache=cache)


def test_a_mask_is_checked_against_the_keys_the_cache_holds():
    """The keys attended to are the cache's (static) or the cache's and the new ones, so the
    mask's last axis is checked against those, with the module's message."""
    from illustrated.kv_cache import KVCache
    mha = _mha()
    memory, x = torch.randn(2, 3, 16, dtype=F64), torch.randn(2, 1, 16, dtype=F64)
    static, growing = KVCache(static=True), KVCache()
    mha(x, memory, memory, cache=static)
    mha(x, x, x, cache=growing)
    blocked_last = torch.tensor([True, True, False]).expand(2, 1, 3)  # (B, 1, S=3)
    out = mha(x, memory, memory, blocked_last, cache=static)  # the 3 cached keys
    torch.testing.assert_close(out, mha(x, memory[:, :2], memory[:, :2]))
    with pytest.raises(ValueError, match=r"\(2, 1, 4\).*scores of shape \(2, 1, 3\)"):
        mha(x, memory, memory, torch.ones(2, 1, 4, dtype=torch.bool), cache=static)
    with pytest.raises(ValueError, match=r"\(2, 1, 3\).*scores of shape \(2, 1, 2\)"):
        mha(x, x, x, torch.ones(2, 1, 3, dtype=torch.bool), cache=growing)  # P + S = 2


def test_a_projection_without_a_weight_is_not_compared():
    """A reader's replacement of a projection by a module without weights runs."""
    teach, _ = lean_pair()
    x = randn(2, 5, 8, seed=1)
    teach.w_q = nn.Identity()
    q = x.view(2, 5, 2, 4).transpose(1, 2)  # (B, H, L, Dk): x itself is the query
    k, v = (lin(x).view(2, 5, 2, 4).transpose(1, 2) for lin in (teach.w_k, teach.w_v))
    z, _ = scaled_dot_product_attention(q, k, v)
    expected = teach.w_o(z.transpose(1, 2).reshape(2, 5, 8))
    torch.testing.assert_close(teach(x, x, x), expected, **TOL)
