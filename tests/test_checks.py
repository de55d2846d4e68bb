"""Tests for illustrated.checks: the cheap integer checks agree with PyTorch's rules; the id
checks read values only when asked to (or once a lookup failed); every call of a model
checks its parts' inputs as plain calls, reading shapes, never values."""
import itertools

import pytest
import torch

from illustrated.attention import scaled_dot_product_attention
from illustrated.checks import (broadcast_shape, check_token_ids, check_tokens,
                                out_of_vocabulary)


def _torch(*shapes):
    try:
        return tuple(torch.broadcast_shapes(*shapes))
    except RuntimeError:
        return None


def test_broadcast_shape_agrees_with_torch_on_every_small_case():
    sizes = [(), (0,), (1,), (2,), (3,), (1, 2), (2, 1), (3, 2), (2, 2), (1, 1, 2),
             (2, 1, 1), (2, 3, 2), (0, 2)]
    for a, b in itertools.product(sizes, repeat=2):
        assert broadcast_shape(a, b) == _torch(a, b), (a, b)
    for a, b, c in itertools.product(sizes[:8], repeat=3):
        assert broadcast_shape(a, b, c) == _torch(a, b, c), (a, b, c)


@pytest.mark.parametrize("shapes, expected", [
    (((2, 1, 5), (2, 4, 5, 5)), None),
    (((1, 5, 5), (2, 4, 5, 5)), (2, 4, 5, 5)),
    ((torch.Size([2, 1, 5]), (2, 5, 5)), (2, 5, 5)),
])
def test_broadcast_shape_on_attention_masks(shapes, expected):
    assert broadcast_shape(*shapes) == expected


# --- token ids -------------------------------------------------------------------------


def test_token_ids_are_checked_without_their_values():
    check_token_ids(torch.tensor([[-5, 10**6]]), "src")  # the range is the lookup's to check
    with pytest.raises(TypeError, match=r"^src must hold integer ids, got dtype torch.float32$"):
        check_token_ids(torch.zeros(1, 2), "src")
    with pytest.raises(TypeError, match=r"^tokens must hold integer ids, got dtype torch.bool$"):
        check_token_ids(torch.zeros(1, 2, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"^src must be 2-D, got 1-D with shape \(2,\)$"):
        check_token_ids(torch.zeros(2, dtype=torch.long), "src")


def test_check_tokens_reads_the_range():
    check_tokens(torch.tensor([[0, 9]]), 10)
    check_tokens(torch.zeros(2, 0, dtype=torch.long), 10)  # nothing to read
    with pytest.raises(ValueError, match=r"^tgt must be token ids in \[0, vocab=10\), got ids "
                                         r"from -1 to 3$"):
        check_tokens(torch.tensor([[-1, 3]]), 10, "tgt")
    with pytest.raises(ValueError, match=r"^tokens must be token ids in \[0, vocab=10\), got ids "
                                         r"from 0 to 10$"):
        check_tokens(torch.tensor([[0, 10]]), 10)  # the table's size is one too many
    assert str(out_of_vocabulary(torch.tensor([[4, 12]]), 10)) == (
        "tokens must be token ids in [0, vocab=10), got ids from 4 to 12")


# --- every call checks, also inside a model, with plain calls --------------------------------

def _checks_run(fn, *args, **kwargs) -> list[str]:
    """The names of the check functions of ``illustrated`` that ``fn(*args)`` runs."""
    import sys
    names = []

    def profile(frame, event, arg):
        code = frame.f_code
        if event == "call" and "illustrated" in code.co_filename and \
                code.co_name.lstrip("_").startswith("check"):
            names.append(code.co_name)

    sys.setprofile(profile)
    try:
        fn(*args, **kwargs)
    finally:
        sys.setprofile(None)
    return names


def _tiny():
    from illustrated.masks import padding_mask, subsequent_mask
    from illustrated.model import ModelConfig, Transformer
    model = Transformer(ModelConfig.tiny(), torch.Generator().manual_seed(0))
    src = torch.tensor([[3, 4, 5, 0], [6, 7, 8, 9]])
    tgt = torch.tensor([[1, 4, 5], [1, 7, 0]])
    return model, src, tgt, padding_mask(src), padding_mask(tgt) & subsequent_mask(3)


def test_every_part_of_a_model_call_checks_its_own_inputs():
    """No module trusts its caller: each attention of the N = 2 encoder and decoder layers
    (2 + 2 x 2) checks what it is given; it hands its heads, made from checked inputs, to
    the formula unchecked (the formula checks a reader's call)."""
    model, src, tgt, src_mask, tgt_mask = _tiny()
    ran = _checks_run(model, src, tgt, src_mask, tgt_mask)
    assert ran.count("check_attention_inputs") == 6
    assert ran.count("check_sdpa_inputs") == 0
    assert ran.count("_check_decoder_layer") == 2
    assert _checks_run(scaled_dot_product_attention, *[torch.randn(2, 3, 4)] * 3).count(
        "check_sdpa_inputs") == 1
    assert ran.count("check_token_ids") == 4  # src and tgt: by forward, then by each embedding


def test_no_check_of_a_model_call_reads_a_value(monkeypatch):
    """The checks read shapes, dtypes and devices: a model call, and a step of decoding with
    the cache, read no tensor's value back (on a GPU, a wait for it)."""
    model, src, tgt, src_mask, tgt_mask = _tiny()
    model.eval()
    for name in ("__bool__", "item", "tolist", "cpu", "numpy"):
        def read(*args, name=name, **kwargs):
            raise AssertionError(f"host read: Tensor.{name}")
        monkeypatch.setattr(torch.Tensor, name, read)
    model(src, tgt, src_mask, tgt_mask)
    memory, cache = model.encode(src, src_mask), model.new_cache()
    for t in range(3):
        model.decode(memory, src_mask, tgt[:, t:t + 1], None, cache=cache)
