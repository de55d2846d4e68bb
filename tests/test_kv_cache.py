"""Tests for :mod:`illustrated.kv_cache` on its own; how an attention module reads and fills
a cache is tested in ``test_attention.py``, a decoder's in ``test_model.py``."""
import pytest
import torch

from illustrated.kv_cache import DecoderCache, KVCache, check_decoder_cache


def test_kv_cache_reorder_keeps_the_rows_asked_for():
    cache = KVCache()
    cache.reorder(torch.tensor([0]))  # empty: nothing to do
    cache.k = torch.arange(3.0).view(3, 1, 1, 1)
    cache.v = -cache.k
    cache.reorder(torch.tensor([2, 2, 0]))
    assert cache.k.flatten().tolist() == [2.0, 2.0, 0.0]
    assert cache.v.flatten().tolist() == [-2.0, -2.0, -0.0]


def test_decoder_cache_holds_one_pair_per_layer_and_counts_positions():
    cache = DecoderCache(3)
    assert len(cache.layers) == 3 and len(cache) == 0
    assert all(isinstance(s, KVCache) and not s.static and m.static for s, m in cache.layers)
    cache.layers[0][0].k = torch.zeros(2, 1, 4, 1)
    cache.layers[0][0].v = torch.zeros(2, 1, 4, 1)
    assert len(cache) == 4
    cache.reorder(torch.tensor([1]))
    assert cache.layers[0][0].k.shape == (1, 1, 4, 1)


@pytest.mark.parametrize("bad", [0, -1, 1.5])
def test_decoder_cache_needs_a_positive_layer_count(bad):
    with pytest.raises((ValueError, TypeError), match="N"):
        DecoderCache(bad)


def test_a_decoder_cache_must_fit_the_decoder():
    check_decoder_cache(None, 2)
    check_decoder_cache(DecoderCache(2), 2)
    with pytest.raises(TypeError, match=r"^cache must be a DecoderCache or None, got list$"):
        check_decoder_cache([KVCache(), KVCache()], 2)
    with pytest.raises(ValueError, match=r"^cache has 3 layers but the decoder has 2; make it "
                                         r"with model.new_cache\(\)$"):
        check_decoder_cache(DecoderCache(3), 2)
