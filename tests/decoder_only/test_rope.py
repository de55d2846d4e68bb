"""Tests for illustrated.decoder_only.rope: the rotation, its two layouts, the offset."""
import math

import pytest
import torch

from illustrated.decoder_only.rope import apply_rope, half_order, rope_cos_sin

F64 = torch.float64


def randn(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=F64)


def test_each_pair_turns_by_position_times_theta():
    """The interleaved layout, from the formula: pair (2i, 2i+1) at position p turns by the
    angle p * base^(-2i/d_k), as a 2 x 2 rotation matrix does."""
    d_k, start, T = 6, 3, 4
    x = randn(1, 1, T, d_k)
    y = apply_rope(x, start=start)
    for t in range(T):
        for i in range(d_k // 2):
            a = (start + t) * 10000 ** (-2 * i / d_k)
            R = torch.tensor([[math.cos(a), -math.sin(a)],
                              [math.sin(a), math.cos(a)]], dtype=F64)  # turns by a
            pair = slice(2 * i, 2 * i + 2)
            torch.testing.assert_close(y[0, 0, t, pair], R @ x[0, 0, t, pair])


def test_the_angles_are_chapter_7s_table():
    cos, sin = rope_cos_sin(5, 3, 8, dtype=F64)
    theta = 10000 ** (-torch.arange(0, 8, 2, dtype=F64) / 8)  # (Dk/2,)
    angle = torch.arange(5, 8, dtype=F64)[:, None] * theta  # (T, Dk/2)
    torch.testing.assert_close((cos, sin), (angle.cos(), angle.sin()), atol=1e-15, rtol=0)


def test_the_two_layouts_are_one_rotation_of_permuted_dimensions():
    x = randn(2, 3, 7, 8)
    order = half_order(8)
    assert order.tolist() == [0, 2, 4, 6, 1, 3, 5, 7]
    interleaved = apply_rope(x, start=4)
    half = apply_rope(x[..., order], start=4, layout="half")
    torch.testing.assert_close(half, interleaved[..., order], atol=1e-14, rtol=0)
    # a plain half layout without the permutation is another rotation
    assert not torch.allclose(apply_rope(x, layout="half"), interleaved)


def test_a_checkpoint_converts_by_permuting_the_rows_of_wq_and_wk():
    """Scores of RoPE queries and keys computed with the interleaved layout equal those of
    the rotate-half layout when each head's rows of W^Q and W^K are permuted, as Hugging
    Face's Llama conversion does."""
    D, h, T = 16, 2, 6
    d_k = D // h
    W_q, W_k, x = randn(D, D, seed=1), randn(D, D, seed=2), randn(1, T, D, seed=3)
    rows = torch.cat([head * d_k + half_order(d_k) for head in range(h)])  # (D,)

    def scores(W_q, W_k, layout):
        q = (x @ W_q.T).view(1, T, h, d_k).transpose(1, 2)  # (1, H, T, Dk)
        k = (x @ W_k.T).view(1, T, h, d_k).transpose(1, 2)  # (1, H, T, Dk)
        q, k = apply_rope(q, layout=layout), apply_rope(k, layout=layout)
        return q @ k.transpose(-2, -1)  # (1, H, T, T)

    torch.testing.assert_close(scores(W_q[rows], W_k[rows], "half"),
                               scores(W_q, W_k, "interleaved"), atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_the_score_depends_on_the_offset_only(layout):
    """q . k after RoPE at positions (m, n) equals it at (m + s, n + s): 200 random
    positions and shifts, float64."""
    g = torch.Generator().manual_seed(0)
    q, k = randn(1, 1, 1, 16, seed=1), randn(1, 1, 1, 16, seed=2)
    m, n, s = torch.randint(0, 500, (3, 200), generator=g)
    # the same q and the same k at every position 0 .. 999, rotated there
    q_at = apply_rope(q.expand(1, 1, 1000, 16), layout=layout)[0, 0]  # (1000, 16)
    k_at = apply_rope(k.expand(1, 1, 1000, 16), layout=layout)[0, 0]  # (1000, 16)
    score = q_at @ k_at.T  # (1000, 1000): score[i, j], q at i and k at j
    torch.testing.assert_close(score[m + s, n + s], score[m, n], atol=1e-10, rtol=1e-10)
    assert not torch.allclose(score[0, 3], score[0, 4])  # but on the offset it does


def test_start_rotates_new_rows_at_their_absolute_positions():
    """Rotating rows P .. P+T-1 with start=P equals rotating the whole sequence and keeping
    them: a cached decoder's new keys land where the full forward puts them."""
    x = randn(2, 2, 9, 8)
    torch.testing.assert_close(apply_rope(x[:, :, 5:], start=5), apply_rope(x)[:, :, 5:],
                               atol=1e-14, rtol=0)
    torch.testing.assert_close(apply_rope(x).norm(dim=-1), x.norm(dim=-1))  # a rotation


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="must be even"):
        apply_rope(torch.randn(1, 1, 2, 5))
    with pytest.raises(ValueError, match="layout must be one of"):
        apply_rope(torch.randn(1, 1, 2, 4), layout="rotate")
    with pytest.raises(ValueError, match="start must be an int >= 0"):
        apply_rope(torch.randn(1, 1, 2, 4), start=-1)
    with pytest.raises(ValueError, match="positive even int"):
        half_order(7)
