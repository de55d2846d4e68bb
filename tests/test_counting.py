"""Tests for illustrated.counting: parameters, and FLOPs as PyTorch's counter counts them."""
import pytest
import torch
from torch import nn

from illustrated.counting import count_flops, count_flops_by_op, count_parameters
from illustrated.model import ModelConfig, Transformer


def test_count_parameters_can_skip_frozen_ones():
    model = Transformer(ModelConfig.tiny(), torch.Generator().manual_seed(0))
    model.src_embed.requires_grad_(False)
    frozen = 16 * 32
    total = count_parameters(model, trainable_only=False)
    assert count_parameters(model) == total - frozen


def test_count_flops_is_two_per_multiply_add():
    a, b = torch.randn(3, 5), torch.randn(5, 7)
    assert count_flops(torch.mm, a, b) == 2 * 3 * 5 * 7
    assert count_flops(lambda: a @ b) == 2 * 3 * 5 * 7
    linear = nn.Linear(5, 4)
    assert count_flops(linear, torch.randn(2, 6, 5)) == 2 * 12 * 5 * 4


def test_count_flops_by_op_splits_linear_and_batched_products():
    x, w = torch.randn(2, 4, 8), nn.Linear(8, 8)
    by_op = count_flops_by_op(lambda: w(x) @ x.transpose(1, 2))
    assert by_op["aten.addmm"] == 2 * 8 * 8 * 8 and by_op["aten.bmm"] == 2 * 2 * 4 * 8 * 4
    assert sum(by_op.values()) == count_flops(lambda: w(x) @ x.transpose(1, 2))


def test_count_flops_leaves_the_thread_count_alone():
    threads = torch.get_num_threads()
    count_flops(torch.mm, torch.randn(2, 2), torch.randn(2, 2))
    assert torch.get_num_threads() == threads


def test_count_flops_refuses_what_it_cannot_run():
    with pytest.raises(TypeError, match="fn must be a callable.*got int"):
        count_flops(3)
