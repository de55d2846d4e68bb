import pytest
import torch

from illustrated.model import ModelConfig, Transformer


def test_shared_embeddings_are_one_matrix_and_keys_do_not_change():
    plain = Transformer(ModelConfig.tiny())
    shared = Transformer(ModelConfig.tiny(share_embeddings=True))
    assert list(plain.state_dict()) == list(shared.state_dict())
    w = shared.src_embed[0].embedding.weight
    assert shared.tgt_embed[0].embedding.weight is w and shared.generator.proj.weight is w
    n = sum(p.numel() for p in shared.parameters())
    assert n == sum(p.numel() for p in plain.parameters()) - 2 * w.numel()
    with pytest.raises(ValueError, match="share_embeddings needs one vocabulary"):
        ModelConfig.tiny(share_embeddings=True, tgt_vocab=17)
    with pytest.raises(TypeError, match="share_embeddings must be True or False"):
        ModelConfig.tiny(share_embeddings=1)
    src = torch.tensor([[1, 5, 2]])
    assert shared(src, src).shape == (1, 3, 16)
