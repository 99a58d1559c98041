"""Dataset sources: NumpySlicesDataset and GeneratorDataset (MindSpore's source datasets).

A random-accessible source (NumpySlicesDataset, or GeneratorDataset over an
object with __getitem__ and __len__) is shuffled globally when `shuffle` is True
or None (MindSpore's default), with a new permutation every epoch drawn from
mindlite.random_state.generator(). Generator functions and plain iterables are
read in order (`shuffle=True` warns and, as in MindSpore, changes nothing; use
`.shuffle(buffer_size)`).
Rows are read in the calling thread: `num_parallel_workers` is accepted (checked)
for MindSpore scripts and does not start workers.
"""
import warnings

import numpy as np

from ..common.tensor import Tensor
from .engine import Dataset, check_int, column_list, to_array


class _RandomAccessSource(Dataset):
    """Rows 0..n-1 read with `_get(i)`, in a fresh random order each epoch if shuffled."""

    def _setup(self, api, n, num_samples, shuffle, sampler=None, num_shards=None,
               shard_id=None):
        if shuffle is not None and not isinstance(shuffle, bool):
            raise TypeError(f"For '{api}', 'shuffle' must be a bool or None, but got {shuffle!r}")
        self.n, self.shuffled = n, shuffle is not False
        self.num_samples = n if num_samples is None else min(
            n, check_int(api, "num_samples", num_samples, 1))
        self.sampler = _sampler(api, sampler, shuffle, num_shards, shard_id)
        if self.sampler is not None and num_samples is None:
            self.num_samples = None             # the sampler decides (it may draw more than n)

    def _count(self):
        if self.sampler is not None:
            count = self.sampler.count(self.n)
            return count if self.num_samples is None else min(count, self.num_samples)
        return self.num_samples

    def _order(self):
        if self.sampler is not None:
            return self.sampler.order(self.n)[:self.num_samples]
        if self.shuffled:
            from ..random_state import generator
            return generator().permutation(self.n)[:self.num_samples]
        return range(self.num_samples)

    def _rows(self):
        for i in self._order():
            yield self._get(int(i))


def _sampler(api, sampler, shuffle, num_shards, shard_id):
    """The source's sampler: `sampler`, or a DistributedSampler for num_shards / shard_id."""
    from .samplers import DistributedSampler, Sampler
    if (num_shards is None) != (shard_id is None):
        raise ValueError(f"For '{api}', 'num_shards' and 'shard_id' must be given together, but "
                         f"got num_shards={num_shards!r}, shard_id={shard_id!r}")
    if sampler is not None:
        if not isinstance(sampler, Sampler):
            raise TypeError(f"For '{api}', 'sampler' must be a dataset Sampler, but got "
                            f"{type(sampler).__name__}")
        if shuffle is not None or num_shards is not None:
            raise ValueError(f"For '{api}', 'sampler' cannot be given with 'shuffle' or "
                             "'num_shards' / 'shard_id'")
        return sampler
    if num_shards is not None:
        return DistributedSampler(num_shards, shard_id, shuffle=shuffle is not False)
    return None


class NumpySlicesDataset(_RandomAccessSource):
    """Rows sliced along axis 0 of `data`: an ndarray or list (one column), a tuple of
    arrays (one column each) or a dict name -> array. Columns default to column_0, ...
    `NumpySlicesDataset(data, column_names=None, num_samples=None, num_parallel_workers=1,
    shuffle=None)`.
    """

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        super().__init__()
        api = "NumpySlicesDataset"
        check_int(api, "num_parallel_workers", num_parallel_workers, 1)
        if isinstance(data, dict):
            names, cols = [str(k) for k in data], list(data.values())
        elif isinstance(data, tuple):
            names, cols = None, list(data)
        elif isinstance(data, (list, np.ndarray, Tensor)):
            names, cols = None, [data]
        else:
            raise TypeError(f"For '{api}', 'data' must be a list, tuple, dict or numpy array, "
                            f"but got {type(data).__name__}")
        if not cols:
            raise ValueError(f"For '{api}', 'data' has no columns")
        arrays = []
        for i, c in enumerate(cols):
            try:
                a = to_array(api, c)
            except (TypeError, ValueError):
                raise ValueError(f"For '{api}', column {i} cannot be made into one array (are "
                                 "its rows of different shapes?)") from None
            if a.ndim == 0:
                raise ValueError(f"For '{api}', column {i} is a scalar; each column needs at "
                                 "least one dimension to slice rows from")
            arrays.append(a)
        lengths = [len(a) for a in arrays]
        if len(set(lengths)) > 1:
            raise ValueError(f"For '{api}', all columns must have the same number of rows, but "
                             f"got lengths {lengths}")
        if column_names is not None:
            names = column_list(api, "column_names", column_names)
            if len(names) != len(arrays):
                raise ValueError(f"For '{api}', 'column_names' names {len(names)} columns, but "
                                 f"'data' has {len(arrays)}")
        elif names is None:
            names = [f"column_{i}" for i in range(len(arrays))]
        self.names, self.arrays = names, arrays
        self._setup(api, lengths[0], num_samples, shuffle, sampler, num_shards, shard_id)

    _fresh = True

    def get_col_names(self):
        return list(self.names)

    def _get(self, i):
        # NOTE: copies, so later in-place changes to a row never reach the caller's data.
        return tuple(np.array(a[i]) for a in self.arrays)

    def _batches(self, batch_size, drop_remainder):
        """Whole batches by fancy indexing (new arrays): what batch() over rows would give."""
        order = np.asarray(self._order())
        stop = len(order) - len(order) % batch_size if drop_remainder else len(order)
        for i in range(0, stop, batch_size):
            idx = order[i:i + batch_size]
            yield tuple(a[idx] for a in self.arrays)


def _row(api, names, row):
    """A source's row (tuple/list/dict of values, or one value) -> tuple of arrays."""
    if isinstance(row, dict):
        row = tuple(row.values())
    elif not isinstance(row, (tuple, list)):
        row = (row,)
    if len(row) != len(names):
        raise ValueError(f"For '{api}', the source returned {len(row)} columns, but "
                         f"'column_names' names {len(names)}: {names}")
    return tuple(to_array(api, v) for v in row)


class GeneratorDataset(_RandomAccessSource):
    """Rows from `source`: a generator function (called once per epoch), an iterable, or a
    random-accessible object (__getitem__ and __len__). Each row is a tuple of arrays.
    `GeneratorDataset(source, column_names, *, num_samples=None, num_parallel_workers=1,
    shuffle=None)` (keyword-only: MindSpore's third positional argument is column_types).
    """

    def __init__(self, source, column_names=None, *, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        super().__init__()
        api = "GeneratorDataset"
        check_int(api, "num_parallel_workers", num_parallel_workers, 1)
        if column_names is None:
            raise ValueError(f"For '{api}', 'column_names' is required (the names of the "
                             "columns the source returns)")
        self.names = column_list(api, "column_names", column_names)
        self.source = source
        if hasattr(source, "__getitem__") and hasattr(source, "__len__"):
            self.kind = "random"
            self._setup(api, len(source), num_samples, shuffle, sampler, num_shards, shard_id)
            return
        if sampler is not None or num_shards is not None:
            raise ValueError(f"For '{api}', a sampler or shards need a random-accessible source "
                             "(with __getitem__ and __len__)")
        if callable(source):
            self.kind = "function"
        elif hasattr(source, "__iter__"):
            self.kind = "iterable"
        else:
            raise TypeError(f"For '{api}', 'source' must be a generator function, an iterable "
                            "or a random-accessible object (with __getitem__ and __len__), but "
                            f"got {type(source).__name__}")
        if shuffle is not None and not isinstance(shuffle, bool):
            raise TypeError(f"For '{api}', 'shuffle' must be a bool or None, but got {shuffle!r}")
        if shuffle:
            warnings.warn(f"For '{api}', 'shuffle' has no effect on a source without "
                          "__getitem__ and __len__ (read in order, as MindSpore); use "
                          ".shuffle(buffer_size)", stacklevel=2)
        self.num_samples = None if num_samples is None else check_int(
            api, "num_samples", num_samples, 1)
        self._counted = None

    _fresh = False                      # the source may hand out the same array again

    def get_col_names(self):
        return list(self.names)

    def _get(self, i):
        return _row("GeneratorDataset", self.names, self.source[i])

    def _count(self):
        if self.kind == "random":
            return self.num_samples
        if self._counted is None:
            # NOTE: like MindSpore, a source without __len__ is counted by reading it once.
            self._counted = sum(1 for _ in self._rows())
        return self._counted

    def _rows(self):
        if self.kind == "random":
            yield from super()._rows()
            return
        it = iter(self.source() if self.kind == "function" else self.source)
        for i, row in enumerate(it):
            if self.num_samples is not None and i >= self.num_samples:
                return
            yield _row("GeneratorDataset", self.names, row)
