"""Tests for :mod:`illustrated.masks`: one convention, bool with True = may attend."""
import math
import re

import pytest
import torch
from torch import nn
from torch.nn.functional import scaled_dot_product_attention as torch_sdpa

from illustrated.attention import MultiHeadAttention, scaled_dot_product_attention
from illustrated.interop import from_torch
from illustrated.masks import (check_mask, length_mask, padding_mask, subsequent_mask,
                               to_torch_blocked)

T, F = True, False
TOKENS = torch.tensor([[5, 2, 1, 0, 0], [1, 3, 1, 4, 0]])  # (B=2, S=5), pad id 0


def test_padding_mask_of_the_example_batch():
    mask = padding_mask(TOKENS)
    expected = torch.tensor([[[T, T, T, F, F]], [[T, T, T, T, F]]])
    assert mask.dtype == torch.bool and mask.shape == (2, 1, 5)
    assert torch.equal(mask, expected)


def test_padding_mask_with_another_pad_id():
    assert torch.equal(padding_mask(TOKENS, pad_id=1), torch.tensor(
        [[[T, T, F, T, T]], [[F, T, F, T, T]]]))


def test_padding_mask_is_torch_key_padding_mask_inverted():
    # torch's key_padding_mask marks the padding itself (True = ignore)
    assert torch.equal(to_torch_blocked(padding_mask(TOKENS)[:, 0]), TOKENS == 0)


@pytest.mark.parametrize("size", [1, 2, 4, 7])
def test_subsequent_mask_is_the_lower_triangle(size):
    mask = subsequent_mask(size)
    assert mask.dtype == torch.bool and mask.shape == (1, size, size)
    i, j = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
    assert torch.equal(mask[0], j <= i)  # position i sees 0..i, itself included


def test_subsequent_mask_of_four():
    expected = torch.tensor([[[T, F, F, F], [T, T, F, F], [T, T, T, F], [T, T, T, T]]])
    assert torch.equal(subsequent_mask(4), expected)


def test_subsequent_mask_matches_torch_after_conversion():
    # torch's float causal mask is -inf where blocked
    torch_mask = nn.Transformer.generate_square_subsequent_mask(6)
    assert torch.equal(to_torch_blocked(subsequent_mask(6)[0]), torch.isinf(torch_mask))


def test_subsequent_mask_device():
    assert subsequent_mask(3, device="cpu").device == torch.device("cpu")


@pytest.mark.parametrize("mask", [padding_mask(TOKENS), subsequent_mask(5)], ids=["pad", "causal"])
def test_masks_broadcast_against_scores(mask):
    scores = torch.randn(2, 5, 5, generator=torch.Generator().manual_seed(0))  # (B, L, S)
    check_mask(mask, scores.shape)  # must not raise
    check_mask(mask.unsqueeze(-3), (2, 3, 5, 5))  # with a head axis: (B, H, L, S)
    filled = scores.masked_fill(~mask, float("-inf"))
    assert filled.shape == scores.shape
    assert torch.equal(torch.isinf(filled), ~mask.expand(2, 5, 5))


def test_decoder_mask_combines_padding_and_causal():
    tgt = torch.tensor([[7, 8, 9, 0], [7, 0, 0, 0]])  # (B, T)
    mask = padding_mask(tgt) & subsequent_mask(4)  # (B, T, T)
    assert mask.shape == (2, 4, 4) and mask.dtype == torch.bool
    for b in range(2):
        for i in range(4):
            for j in range(4):
                assert mask[b, i, j] == (j <= i and tgt[b, j] != 0), (b, i, j)


def test_to_torch_blocked_inverts():
    mask = padding_mask(TOKENS) & subsequent_mask(5)
    blocked = to_torch_blocked(mask)
    assert blocked.dtype == torch.bool
    assert torch.equal(blocked, ~mask)
    assert torch.equal(to_torch_blocked(blocked), mask)


def test_to_torch_blocked_means_zero_weight_in_torch():
    torch.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, batch_first=True).eval()
    x = torch.randn(2, 5, 8)
    mask = subsequent_mask(5)[0]  # (L, S)
    _, weights = m(x, x, x, attn_mask=to_torch_blocked(mask), average_attn_weights=False)
    assert (weights[..., ~mask] == 0).all() and (weights[..., mask] > 0).all()


# --- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "size, error, match",
    [
        (0, ValueError, r"size must be positive, got size=0"),
        (-1, ValueError, r"size must be positive, got size=-1"),
        (2.5, TypeError, r"size must be an int, got float"),
        (True, TypeError, r"size must be an int, got bool"),
        ("4", TypeError, r"size must be an int, got str"),
    ],
)
def test_subsequent_mask_bad_size(size, error, match):
    with pytest.raises(error, match=match):
        subsequent_mask(size)


@pytest.mark.parametrize(
    "tokens, error, match",
    [
        (TOKENS.float(), TypeError, r"tokens must hold integer ids, got dtype torch.float32"),
        (TOKENS.bool(), TypeError, r"tokens must hold integer ids, got dtype torch.bool"),
        (TOKENS[0], ValueError, r"tokens must be 2-D, got 1-D with shape \(5,\)"),
        (TOKENS[None], ValueError, r"tokens must be 2-D, got 3-D"),
        (TOKENS.tolist(), TypeError, r"tokens must be a torch.Tensor, got list"),
    ],
)
def test_padding_mask_bad_tokens(tokens, error, match):
    with pytest.raises(error, match=match):
        padding_mask(tokens)


@pytest.mark.parametrize(
    "mask, shape, error, match",
    [
        (torch.ones(2, 1, 5), (2, 5, 5), TypeError, r"mask must be a bool tensor"),
        (torch.ones(2, 1, 5, dtype=torch.int64), (2, 5, 5), TypeError, r"bool"),
        (torch.ones(2, 1, 4, dtype=torch.bool), (2, 5, 5), ValueError,
         r"shape \(2, 1, 4\) does not broadcast .* shape \(2, 5, 5\)"),
        (torch.ones(3, 1, 5, dtype=torch.bool), (2, 5, 5), ValueError, r"\(3, 1, 5\).*\(2, 5, 5\)"),
        # broadcasting may not grow the scores
        (torch.ones(4, 2, 5, 5, dtype=torch.bool), (2, 5, 5), ValueError, r"does not broadcast"),
        (torch.ones(2, 5, 0, dtype=torch.bool), (2, 5, 5), ValueError, r"does not broadcast"),
        ([[True]], (2, 5, 5), TypeError, r"mask must be a torch.Tensor"),
    ],
    ids=["float", "int", "width", "batch", "too_many_dims", "empty", "list"],
)
def test_check_mask_bad_mask(mask, shape, error, match):
    with pytest.raises(error, match=match):
        check_mask(mask, shape)


def test_to_torch_blocked_refuses_a_float_mask():
    with pytest.raises(TypeError, match=r"mask must be a bool tensor"):
        to_torch_blocked(torch.ones(2, 5))


# --- a mask of another dtype: the error says how to convert it, and the advice is right ---

F64 = torch.float64
CAUSAL_ADDITIVE = nn.Transformer.generate_square_subsequent_mask(5, dtype=F64)  # 0 / -inf
PAD_ADDITIVE = torch.zeros(2, 1, 5, dtype=F64).masked_fill(TOKENS[:, None] == 0, -1e9)
ZERO_ONE = "a 0/1 mask \\(1 = may attend\\) converts with `mask\\.bool\\(\\)`$"
ADDITIVE = ("this looks like an additive mask \\(0 = attend, -inf = blocked\\), as "
            "torch\\.nn\\.MultiheadAttention takes; convert it with `mask == 0`$")
EITHER = ("convert a 0/1 mask \\(1 = may attend\\) with `mask\\.bool\\(\\)`, an additive mask "
          "\\(0 = attend, -inf or a large negative number = blocked\\) with `mask == 0`$")


@pytest.mark.parametrize(
    "mask, advice",
    [
        (subsequent_mask(5).float(), ZERO_ONE),
        (subsequent_mask(5).to(torch.uint8), ZERO_ONE),  # old PyTorch code's masks
        (CAUSAL_ADDITIVE, ADDITIVE),
        (PAD_ADDITIVE, ADDITIVE),
        (-(~subsequent_mask(5)).long(), ADDITIVE),  # 0 / -1
        (torch.full((2, 5, 5), 0.5), EITHER),
        (subsequent_mask(5).long() * 2, EITHER),
    ],
    ids=["float_0_1", "uint8_0_1", "additive_-inf", "additive_-1e9", "int_negative",
         "float_other", "int_other"],
)
def test_check_mask_says_how_to_convert_a_mask_of_another_dtype(mask, advice):
    with pytest.raises(TypeError, match=rf"^mask must be a bool tensor \(True = may attend\), "
                                        rf"got dtype {re.escape(str(mask.dtype))}; {advice}"):
        check_mask(mask, (2, 5, 5))
    with pytest.raises(TypeError, match=advice):
        to_torch_blocked(mask)


def test_the_advice_names_the_argument():
    with pytest.raises(TypeError, match=r"convert it with `src_mask == 0`$"):
        check_mask(CAUSAL_ADDITIVE, (5, 5), name="src_mask")


def convert(mask: torch.Tensor) -> torch.Tensor:
    """Apply the conversion the error message suggests, exactly as it is written there."""
    with pytest.raises(TypeError) as info:
        check_mask(mask, mask.shape)
    (code,) = re.findall(r"`([^`]*)`", str(info.value))
    return eval(code, {"mask": mask})  # the message's own code, e.g. `mask == 0`


def qkv(seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(2, 5, 8, generator=g, dtype=F64) for _ in range(3)]


@pytest.mark.parametrize(
    "additive", [CAUSAL_ADDITIVE, PAD_ADDITIVE, CAUSAL_ADDITIVE + PAD_ADDITIVE],
    ids=["causal_-inf", "padding_-1e9", "both"],
)
def test_converted_additive_mask_attends_as_torch_does_with_the_original(additive):
    q, k, v = qkv()
    ours, _ = scaled_dot_product_attention(q, k, v, mask=convert(additive))
    theirs = torch_sdpa(q, k, v, attn_mask=additive)
    torch.testing.assert_close(ours, theirs)
    # the old advice, .bool(), turns the mask into its opposite: it attends to blocked keys
    flipped, _ = scaled_dot_product_attention(q, k, v, mask=additive.bool())
    assert not torch.allclose(flipped, theirs)


def test_converted_additive_mask_in_multi_head_attention_as_in_torch():
    torch_mha = nn.MultiheadAttention(8, 2, batch_first=True, dtype=F64).eval()
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():  # weights and biases from a local generator, all nonzero
        for p in torch_mha.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=F64) / math.sqrt(8))
    ours = from_torch(torch_mha)
    x, _, _ = qkv(2)
    theirs, _ = torch_mha(x, x, x, attn_mask=CAUSAL_ADDITIVE)
    torch.testing.assert_close(ours(x, x, x, mask=convert(CAUSAL_ADDITIVE)), theirs)


def test_converted_0_1_mask_is_the_bool_mask_it_came_from():
    for mask in (subsequent_mask(5), padding_mask(TOKENS)):
        assert torch.equal(convert(mask.float()), mask)
        assert torch.equal(convert(mask.to(torch.uint8)), mask)


# ---------------------------------------------------------------- length_mask (d2l's valid_lens)


def test_length_mask_equals_padding_mask_for_right_padding():
    valid_lens = (TOKENS != 0).sum(-1)  # (B,) = [3, 4]
    assert valid_lens.tolist() == [3, 4]
    assert torch.equal(length_mask(valid_lens, 5), padding_mask(TOKENS))


def test_length_mask_per_query_is_the_causal_mask():
    # d2l's decoder in training: query i of every sentence sees i + 1 keys
    valid_lens = torch.arange(1, 5).repeat(2, 1)  # (B, L) = (2, 4)
    mask = length_mask(valid_lens, 4)
    assert mask.shape == (2, 4, 4)
    assert torch.equal(mask, subsequent_mask(4).expand(2, 4, 4))


def test_length_mask_edges():
    mask = length_mask(torch.tensor([0, 3]), 3)
    assert torch.equal(mask, torch.tensor([[[F, F, F]], [[T, T, T]]]))


@pytest.mark.parametrize("lens, size, error, pattern", [
    (torch.tensor([1.0, 2.0]), 3, TypeError, r"valid_lens must hold integer lengths, got dtype torch\.float32"),
    (torch.tensor([1, 4]), 3, ValueError, r"valid_lens must lie between 0 and size=3, got values from 1 to 4"),
    (torch.tensor([-1, 2]), 3, ValueError, r"between 0 and size=3"),
    (torch.tensor(2), 3, ValueError, r"valid_lens must be 1-D or 2-D, got 0-D"),
    (torch.tensor([1, 2]), 0, ValueError, r"size must be positive"),
    ([1, 2], 3, TypeError, r"valid_lens must be a torch\.Tensor, got list"),
])
def test_length_mask_bad_input(lens, size, error, pattern):
    with pytest.raises(error, match=pattern):
        length_mask(lens, size)


def test_causal_parallel_pass_equals_every_prefix_alone():
    """The decoder's <bos> y1 y2 ... steps: with the causal mask, position t of one pass
    over the whole sequence equals the last position of a pass over the prefix 0..t."""
    gen = torch.Generator().manual_seed(0)
    mha = MultiHeadAttention(16, 4).double().eval()
    x = torch.randn(2, 5, 16, generator=gen, dtype=torch.float64)  # (B, L, D)
    parallel = mha(x, x, x, mask=subsequent_mask(5))  # (B, L, D)
    for t in range(1, 6):
        prefix = x[:, :t]  # (B, t, D)
        torch.testing.assert_close(parallel[:, t - 1], mha(prefix, prefix, prefix)[:, -1])
    unmasked = mha(x, x, x)  # without the mask the future leaks into early positions
    assert not torch.allclose(unmasked[:, 0], parallel[:, 0])
