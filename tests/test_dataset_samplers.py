"""Samplers (dataset/samplers.py) on random-access sources: the rows each reads, sizes known
without drawing, reproducible under set_seed, distributed shards partitioning the data as
MindSpore's (strided, wrapping to equal sizes), errors."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import dataset as ds


def _ids(d):
    return [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)]


def _src(n=10, **kw):
    return ds.NumpySlicesDataset({"i": np.arange(n)}, **kw)


def test_sequential_subset_and_sizes():
    d = _src(sampler=ds.SequentialSampler(3, 4))
    assert _ids(d) == [3, 4, 5, 6] and d.get_dataset_size() == 4
    assert _ids(_src(sampler=ds.SubsetSampler([7, 1, 1, 4]))) == [7, 1, 1, 4]
    sub = _src(sampler=ds.SubsetRandomSampler([2, 5, 9]))
    assert sorted(_ids(sub)) == [2, 5, 9] and sub.get_dataset_size() == 3
    assert _src(sampler=ds.RandomSampler(num_samples=4)).get_dataset_size() == 4
    g = ds.GeneratorDataset([(np.array(i),) for i in range(6)], ["i"],
                            sampler=ds.SequentialSampler(num_samples=2))
    assert _ids(g) == [0, 1]


def test_random_samplers_are_reproducible_and_redraw():
    ms.set_seed(5)
    d = _src(sampler=ds.RandomSampler())
    first, second = _ids(d), _ids(d)
    assert sorted(first) == list(range(10)) and first != second
    ms.set_seed(5)
    assert _ids(_src(sampler=ds.RandomSampler())) == first
    with_repl = _ids(_src(sampler=ds.RandomSampler(True, 50)))
    assert len(with_repl) == 50 and set(with_repl) <= set(range(10))   # repeats: 50 > 10
    w = _ids(_src(sampler=ds.WeightedRandomSampler([0, 0, 1, 0, 0, 0, 0, 0, 0, 3], 40)))
    assert set(w) <= {2, 9} and w.count(9) > w.count(2)


@pytest.mark.parametrize("n, shards", [(10, 3), (9, 3), (4, 4), (5, 2)])
@pytest.mark.parametrize("shuffle", [False, True])
def test_distributed_shards_partition(n, shards, shuffle):
    seen = []
    for k in range(shards):
        ms.set_seed(11)                        # every shard process holds the same seed
        d = _src(n, num_shards=shards, shard_id=k, shuffle=shuffle)
        rows = _ids(d)
        assert len(rows) == d.get_dataset_size() == -(-n // shards)
        seen += rows
    assert set(seen) == set(range(n))         # every row in some shard
    assert len(seen) - n == (-n) % shards    # wrapped rows only to even the shards
    if not shuffle:
        assert _ids(_src(10, num_shards=3, shard_id=1, shuffle=False)) == [1, 4, 7, 0]


def test_batches_follow_the_sampler():
    d = _src(sampler=ds.SubsetSampler([9, 8, 7, 6, 5])).batch(2)
    assert [b[0].tolist() for b in d.create_tuple_iterator(output_numpy=True)] == \
        [[9, 8], [7, 6], [5]]


def test_errors():
    with pytest.raises(ValueError, match="'sampler' cannot be given with 'shuffle'"):
        _src(sampler=ds.RandomSampler(), shuffle=True)
    with pytest.raises(ValueError, match="'num_shards' and 'shard_id' must be given together"):
        _src(num_shards=2)
    with pytest.raises(ValueError, match="'shard_id' must be in \\[0, 2\\)"):
        ds.DistributedSampler(2, 2)
    with pytest.raises(TypeError, match="'sampler' must be a dataset Sampler"):
        _src(sampler=[1, 2])
    with pytest.raises(ValueError, match="index 12 is out of range"):
        _ids(_src(sampler=ds.SubsetSampler([1, 12])))
    with pytest.raises(ValueError, match="'weights' must be a non-empty list"):
        ds.WeightedRandomSampler([0, 0])
    with pytest.raises(ValueError, match="need a random-accessible source"):
        ds.GeneratorDataset(lambda: iter([(1,)]), ["a"], num_shards=2, shard_id=0)
