import random

import pytest

from illustrated.translator.batching import padded_tokens, shard, token_batches


def test_batches_cover_every_example_once_within_the_budget():
    rng = random.Random(0)
    lengths = [rng.randint(3, 30) for _ in range(1000)]
    batches = token_batches(lengths, 200, seed=0, epoch=0, pool=256)
    assert sorted(i for b in batches for i in b) == list(range(1000))
    assert all(padded_tokens([lengths[i] for i in b]) <= 200 for b in batches)
    assert token_batches(lengths, 200, seed=0, epoch=0, pool=256) == batches
    assert token_batches(lengths, 200, seed=0, epoch=1, pool=256) != batches
    # bucketing: far less padding than batches of the same sizes drawn at random
    waste = sum(padded_tokens([lengths[i] for i in b]) for b in batches) - sum(lengths)
    assert waste < 0.1 * sum(lengths)


def test_long_example_alone_and_min_size():
    batches = token_batches([5, 50, 5, 5], 20, pool=4)
    assert [1] in batches
    assert all(len(b) >= 2 for b in token_batches([5, 50, 5, 5], 20, pool=4, min_size=2))
    with pytest.raises(ValueError, match="max_tokens must be a positive int"):
        token_batches([1], 0)


def test_shard():
    assert shard(list(range(7)), 0, 2) == [0, 2, 4, 6]
    assert shard(list(range(7)), 1, 2) == [1, 3, 5]
    with pytest.raises(ValueError, match="rank must be in"):
        shard([1], 2, 2)
