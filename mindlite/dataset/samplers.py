"""Samplers (MindSpore's mindspore.dataset samplers): which rows of a random-access source an
epoch reads, in which order. A source takes one as `sampler=`, or `num_shards` / `shard_id`
(a DistributedSampler), instead of `shuffle`. Random draws come from
mindlite.random_state.generator(), so `mindlite.set_seed` makes them reproducible and every
epoch draws afresh.

- SequentialSampler(start_index=None, num_samples=None): rows start_index, start_index+1, ...
- RandomSampler(replacement=False, num_samples=None): a permutation (or draws with
  replacement).
- SubsetSampler(indices, num_samples=None): the given rows in the given order.
- SubsetRandomSampler(indices, num_samples=None): the given rows, shuffled each epoch.
- WeightedRandomSampler(weights, num_samples=None, replacement=True): rows drawn with
  probability proportional to `weights`.
- DistributedSampler(num_shards, shard_id, shuffle=True, num_samples=None, offset=-1): shard
  `shard_id` of `num_shards`: rows shard_id, shard_id + num_shards, ... of the (shuffled,
  identically in every shard given the same seed) order, wrapping around so every shard
  reads ceil(n / num_shards) rows, as MindSpore's.
"""
import numbers

import numpy as np

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetSampler",
           "SubsetRandomSampler", "WeightedRandomSampler", "DistributedSampler"]


def _rng():
    from ..random_state import generator
    return generator()


def _count(cls, name, value, low=1, allow_none=True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"For '{cls}', '{name}' must be an int >= {low}, but got {value!r}")
    return int(value)


class Sampler:
    """Base class: `order(n)` gives one epoch's row indices for a source of n rows."""

    def __init__(self, num_samples=None):
        self.num_samples = _count(type(self).__name__, "num_samples", num_samples)

    def _limit(self, indices):
        return indices if self.num_samples is None else indices[:self.num_samples]

    def order(self, n):
        raise NotImplementedError

    def count(self, n):
        """Rows per epoch for a source of n rows (without drawing anything)."""
        full = self._full(n)
        return full if self.num_samples is None else min(full, self.num_samples)

    def get_num_samples(self):
        return self.num_samples


class SequentialSampler(Sampler):
    def __init__(self, start_index=None, num_samples=None):
        super().__init__(num_samples)
        self.start_index = _count("SequentialSampler", "start_index", start_index, 0) or 0

    def _full(self, n):
        return max(n - self.start_index, 0)

    def order(self, n):
        if n and self.start_index >= n:
            raise ValueError(f"For 'SequentialSampler', 'start_index' {self.start_index} must be "
                             f"less than the dataset size {n}")
        return self._limit(np.arange(self.start_index, n))


class RandomSampler(Sampler):
    def __init__(self, replacement=False, num_samples=None):
        super().__init__(num_samples)
        if not isinstance(replacement, bool):
            raise TypeError(f"For 'RandomSampler', 'replacement' must be a bool, but got "
                            f"{replacement!r}")
        self.replacement = replacement

    def _full(self, n):
        return self.num_samples if self.replacement and self.num_samples else n

    def order(self, n):
        if self.replacement:
            return _rng().integers(0, n, self.num_samples or n)
        return self._limit(_rng().permutation(n))


def _indices(cls, indices):
    if isinstance(indices, np.ndarray):
        indices = indices.tolist()
    if not isinstance(indices, (list, tuple)) or not all(
            isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in indices):
        raise TypeError(f"For '{cls}', 'indices' must be a list of ints, but got {indices!r}")
    return np.asarray(indices, np.int64)


class SubsetSampler(Sampler):
    def __init__(self, indices, num_samples=None):
        super().__init__(num_samples)
        self.indices = _indices(type(self).__name__, indices)

    def _check(self, n):
        bad = self.indices[(self.indices < 0) | (self.indices >= n)]
        if bad.size:
            raise ValueError(f"For '{type(self).__name__}', index {int(bad[0])} is out of range "
                             f"for a dataset of {n} rows")

    def _full(self, n):
        return len(self.indices)

    def order(self, n):
        self._check(n)
        return self._limit(self.indices)


class SubsetRandomSampler(SubsetSampler):
    def order(self, n):
        self._check(n)
        return self._limit(self.indices[_rng().permutation(len(self.indices))])


class WeightedRandomSampler(Sampler):
    def __init__(self, weights, num_samples=None, replacement=True):
        super().__init__(num_samples)
        w = np.asarray(weights, np.float64)
        if w.ndim != 1 or not w.size or (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise ValueError(f"For 'WeightedRandomSampler', 'weights' must be a non-empty list of "
                             f"non-negative numbers with a positive sum, but got {weights!r}")
        if not isinstance(replacement, bool):
            raise TypeError(f"For 'WeightedRandomSampler', 'replacement' must be a bool, but got "
                            f"{replacement!r}")
        self.weights, self.replacement = w, replacement

    def _full(self, n):
        return self.num_samples or len(self.weights)

    def order(self, n):
        if len(self.weights) > n:
            raise ValueError(f"For 'WeightedRandomSampler', {len(self.weights)} weights for a "
                             f"dataset of {n} rows")
        size = self.num_samples or len(self.weights)
        return _rng().choice(len(self.weights), size, replace=self.replacement,
                             p=self.weights / self.weights.sum())


class DistributedSampler(Sampler):
    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        super().__init__(num_samples)
        self.num_shards = _count("DistributedSampler", "num_shards", num_shards, 1, False)
        self.shard_id = _count("DistributedSampler", "shard_id", shard_id, 0, False)
        if self.shard_id >= self.num_shards:
            raise ValueError(f"For 'DistributedSampler', 'shard_id' must be in [0, "
                             f"{self.num_shards}), but got {shard_id}")
        if not isinstance(shuffle, bool):
            raise TypeError(f"For 'DistributedSampler', 'shuffle' must be a bool, but got "
                            f"{shuffle!r}")
        self.shuffle, self.offset = shuffle, offset

    def _full(self, n):
        return -(-n // self.num_shards)

    def order(self, n):
        if n == 0:
            return np.arange(0)
        base = _rng().permutation(n) if self.shuffle else np.arange(n)
        per_shard = -(-n // self.num_shards)
        picks = (np.arange(per_shard) * self.num_shards + self.shard_id) % n
        return self._limit(base[picks])
