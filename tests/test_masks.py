"""Tests for :mod:`illustrated.masks`: one convention, bool with True = may attend."""
import pytest
import torch
from torch import nn

from illustrated.masks import check_mask, padding_mask, subsequent_mask, to_torch_blocked

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
