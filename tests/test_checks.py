"""Tests for illustrated._checks: the cheap integer checks agree with PyTorch's rules."""
import itertools

import pytest
import torch

from illustrated._checks import broadcast_shape


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


# --- checks at the door: once per call a reader makes ---------------------------------------

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


def test_a_model_call_checks_at_its_door_and_nowhere_inside():
    model, src, tgt, src_mask, tgt_mask = _tiny()
    ran = _checks_run(model, src, tgt, src_mask, tgt_mask)
    assert ran[0] == "_check_forward"
    inner = {"_check_embeddings", "_check_encoder", "_check_encoder_layer", "_check_decoder",
             "_check_decoder_layer", "_check_feed_forward", "check_attention_inputs",
             "check_sdpa_inputs", "_check_input"}
    assert not inner & set(ran), sorted(inner & set(ran))
    assert ran.count("check_tokens") == 2  # src and tgt, once each


def test_a_layer_called_by_a_reader_checks_its_own_inputs():
    model, src, tgt, src_mask, tgt_mask = _tiny()
    layer, x = model.encoder.layers[0], torch.randn(2, 4, 32)
    ran = _checks_run(layer, x, src_mask)
    assert ran.count("_check_encoder_layer") == 1 and "check_attention_inputs" not in ran
    attention = layer.self_attn
    assert _checks_run(attention, x, x, x).count("check_attention_inputs") == 1
