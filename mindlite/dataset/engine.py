"""The dataset pipeline (MindSpore's mindspore.dataset.Dataset): chainable ops and iterators.

A pipeline is a chain of nodes; each op (`shuffle`, `batch`, `map`, `repeat`,
`take`) returns a new node over the previous one and leaves it unchanged. One
epoch of a node is the generator `_rows()`, yielding each row as a tuple of
numpy arrays (one per column). Iterators (`create_tuple_iterator`,
`create_dict_iterator`, plain iteration) run epochs and convert columns to
mindlite Tensors unless `output_numpy=True`. All randomness (source shuffles,
`shuffle(buffer_size)`) comes from mindlite.random_state.generator(), so
`mindlite.set_seed` makes a run reproducible; every epoch reshuffles.
Sources live in sources.py.
"""
import numbers

import numpy as np

from ..common.tensor import Tensor


def check_int(api, arg, value, minimum, allow_minus_one=False):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"For '{api}', '{arg}' must be an int, but got "
                        f"{type(value).__name__}: {value!r}")
    if value < minimum and not (allow_minus_one and value == -1):
        extra = " or -1" if allow_minus_one else ""
        raise ValueError(f"For '{api}', '{arg}' must be >= {minimum}{extra}, but got {value}")
    return int(value)


def column_list(api, arg, names):
    """str or list/tuple of str -> list of str (non-empty, no duplicates)."""
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, (list, tuple)) or not names or not all(
            isinstance(n, str) and n for n in names):
        raise TypeError(f"For '{api}', '{arg}' must be a non-empty str or a non-empty list of "
                        f"non-empty str, but got {names!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"For '{api}', '{arg}' has duplicate names: {list(names)}")
    return list(names)


class Dataset:
    """Base of every dataset: the chainable ops, iterators and size queries."""

    def __init__(self, child=None):
        self.child = child

    # ---- what a node defines ------------------------------------------------------------
    def _rows(self):
        """One epoch: a generator of rows (tuples of numpy arrays)."""
        raise NotImplementedError(f"'{type(self).__name__}' must define _rows()")

    def _count(self):
        """Rows in one epoch."""
        return self.child._count()

    def get_col_names(self):
        """The column names of this node's rows."""
        return self.child.get_col_names()

    @property
    def _fresh(self):
        """True when every array this node yields is new (no one else holds it)."""
        return self.child._fresh

    # ---- queries -----------------------------------------------------------------------
    def get_dataset_size(self):
        """Rows (batches, after `batch`) in one epoch (after `repeat(-1)`: in one pass)."""
        return self._count()

    def get_batch_size(self):
        return self.child.get_batch_size() if self.child is not None else 1

    # ---- ops ---------------------------------------------------------------------------
    def shuffle(self, buffer_size):
        """Shuffle rows through a buffer of `buffer_size` rows (>= 2)."""
        return ShuffleDataset(self, check_int("Dataset.shuffle", "buffer_size", buffer_size, 2))

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None,
              per_batch_map=None, input_columns=None, output_columns=None,
              python_multiprocessing=False, max_rowsize=None):
        """Stack `batch_size` consecutive rows per column; the last short batch is kept unless
        `drop_remainder`. per_batch_map(cols..., batch_info) rewrites each batch's
        `input_columns` first (map_ops.py)."""
        batch_size = check_int("Dataset.batch", "batch_size", batch_size, 1)
        if not isinstance(drop_remainder, bool):
            raise TypeError("For 'Dataset.batch', 'drop_remainder' must be a bool, but got "
                            f"{drop_remainder!r}")
        if per_batch_map is None:
            return BatchDataset(self, batch_size, drop_remainder)
        from .map_ops import PerBatchMapDataset, check_workers
        workers = check_workers("Dataset.batch", num_parallel_workers, python_multiprocessing)
        return PerBatchMapDataset(self, batch_size, drop_remainder, per_batch_map,
                                  input_columns, output_columns, workers,
                                  python_multiprocessing)

    def map(self, operations, input_columns=None, output_columns=None, column_order=None,
            num_parallel_workers=None, python_multiprocessing=False, cache=None,
            callbacks=None, max_rowsize=None, offload=None):
        """Apply `operations` (a callable or list of callables, chained) to the columns
        `input_columns` (default: the first) of every row; results replace them, named
        `output_columns` (default: `input_columns`). `num_parallel_workers` rows at once, in
        threads or (python_multiprocessing) processes, results in order (map_ops.py)."""
        from .map_ops import MapDataset, check_workers
        workers = check_workers("Dataset.map", num_parallel_workers, python_multiprocessing)
        node = MapDataset(self, operations, input_columns, output_columns, workers,
                          python_multiprocessing)
        return node.project(column_order) if column_order is not None else node

    def repeat(self, count=None):
        """Run the pipeline `count` times per epoch (None or -1: endlessly)."""
        count = -1 if count is None else check_int("Dataset.repeat", "count", count, 1, True)
        return RepeatDataset(self, count)

    def take(self, count=-1):
        """The first `count` rows (-1: all)."""
        return TakeDataset(self, check_int("Dataset.take", "count", count, 1, True))

    # structure ops (structure_ops.py)
    def skip(self, count):
        from .structure_ops import SkipDataset
        return SkipDataset(self, check_int("Dataset.skip", "count", count, 0))

    def filter(self, predicate, input_columns=None, num_parallel_workers=None):
        from .structure_ops import FilterDataset
        return FilterDataset(self, predicate, input_columns)

    def project(self, columns):
        from .structure_ops import ProjectDataset
        return ProjectDataset(self, columns)

    def rename(self, input_columns, output_columns):
        from .structure_ops import RenameDataset
        return RenameDataset(self, input_columns, output_columns)

    def zip(self, datasets):
        from .structure_ops import ZipDataset
        return ZipDataset([self] + (list(datasets) if isinstance(datasets, (tuple, list))
                                    else [datasets]))

    def concat(self, datasets):
        from .structure_ops import ConcatDataset
        return ConcatDataset([self] + (list(datasets) if isinstance(datasets, (tuple, list))
                                       else [datasets]))

    def __add__(self, other):
        return self.concat(other)

    def split(self, sizes, randomize=True):
        from .structure_ops import split
        return split(self, sizes, randomize)

    def padded_batch(self, batch_size, drop_remainder=False, num_parallel_workers=None,
                     pad_info=None):
        from .structure_ops import PaddedBatchDataset
        batch_size = check_int("Dataset.padded_batch", "batch_size", batch_size, 1)
        return PaddedBatchDataset(self, batch_size, drop_remainder, pad_info)

    # ---- iterators ---------------------------------------------------------------------
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False,
                              do_copy=True):
        """An iterator of rows as lists (Tensors, or numpy arrays with `output_numpy`).
        Each `for` over it runs one epoch; it runs `num_epochs` epochs (-1: no limit)."""
        return DatasetIterator(self, columns, num_epochs, output_numpy, as_dict=False)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """As create_tuple_iterator, with each row a dict column name -> value."""
        return DatasetIterator(self, None, num_epochs, output_numpy, as_dict=True)

    def __iter__(self):
        return iter(self.create_tuple_iterator())


class ShuffleDataset(Dataset):
    def __init__(self, child, buffer_size):
        super().__init__(child)
        self.buffer_size = buffer_size

    def _rows(self):
        from ..random_state import generator
        rng, buf = generator(), []
        for row in self.child._rows():
            if len(buf) < self.buffer_size:
                buf.append(row)
                continue
            i = int(rng.integers(len(buf)))
            out, buf[i] = buf[i], row
            yield out
        for i in rng.permutation(len(buf)):
            yield buf[i]


class BatchDataset(Dataset):
    def __init__(self, child, batch_size, drop_remainder):
        super().__init__(child)
        self.batch_size, self.drop_remainder = batch_size, drop_remainder

    def get_batch_size(self):
        return self.batch_size

    def _count(self):
        n = self.child._count()
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)

    def _stack(self, rows):
        cols = []
        for c in range(len(rows[0])):
            items = [r[c] for r in rows]
            shape = items[0].shape
            for it in items:
                if it.shape != shape:
                    raise RuntimeError(
                        "Inconsistent batch shapes, batch operation expects same shape for each "
                        f"data row, but got inconsistent shape in column "
                        f"'{self.get_col_names()[c]}', expected shape for this column is: "
                        f"{list(shape)}, got shape: {list(it.shape)}")
            cols.append(np.stack(items))
        return tuple(cols)

    _fresh = True

    gather_whole_batches = True         # subclasses that build batches themselves: False

    def _rows(self):
        fast = getattr(self.child, "_batches", None) if self.gather_whole_batches else None
        if fast is not None:            # a source that can gather a whole batch at once
            yield from fast(self.batch_size, self.drop_remainder)
            return
        rows = []
        for row in self.child._rows():
            rows.append(row)
            if len(rows) == self.batch_size:
                yield self._stack(rows)
                rows = []
        if rows and not self.drop_remainder:
            yield self._stack(rows)


class RepeatDataset(Dataset):
    def __init__(self, child, count):
        super().__init__(child)
        self.count = count

    def _count(self):
        n = self.child._count()
        return n if self.count == -1 else n * self.count    # endless: one pass, as MindSpore

    def _rows(self):
        i = 0
        while self.count == -1 or i < self.count:
            yield from self.child._rows()
            i += 1


class TakeDataset(Dataset):
    def __init__(self, child, count):
        super().__init__(child)
        self.count = count

    def _count(self):
        n = self.child._count()
        return n if self.count == -1 else min(n, self.count)

    def _rows(self):
        if self.count == -1:
            yield from self.child._rows()
            return
        for i, row in enumerate(self.child._rows()):
            if i >= self.count:
                return
            yield row


def to_array(api, value):
    """One column value -> numpy array (Tensors via asnumpy, Python scalars via np.asarray)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, Tensor):
        return value.asnumpy()
    arr = np.asarray(value)
    if arr.dtype == object:
        raise TypeError(f"For '{api}', every column value must be a numpy array, Tensor or "
                        f"number, but got {type(value).__name__}")
    return arr


class DatasetIterator:
    """Runs epochs of a dataset; each `for` loop over it consumes one epoch."""

    def __init__(self, dataset, columns, num_epochs, output_numpy, as_dict):
        api = "Dataset.create_dict_iterator" if as_dict else "Dataset.create_tuple_iterator"
        self.num_epochs = check_int(api, "num_epochs", num_epochs, 1, True)
        if not isinstance(output_numpy, bool):
            raise TypeError(f"For '{api}', 'output_numpy' must be a bool, but got "
                            f"{output_numpy!r}")
        names = dataset.get_col_names()
        if columns is None:
            self.names, self.idx = names, None
        else:
            self.names = column_list(api, "columns", columns)
            for c in self.names:
                if c not in names:
                    raise ValueError(f"For '{api}', column '{c}' does not exist; the dataset's "
                                     f"columns are {names}")
            self.idx = [names.index(c) for c in self.names]
        self.dataset, self.output_numpy, self.as_dict = dataset, output_numpy, as_dict
        self.fresh = dataset._fresh
        self.epochs_done, self._epoch = 0, None

    def __iter__(self):
        return self

    def __next__(self):
        if self._epoch is None:
            if 0 <= self.num_epochs <= self.epochs_done:
                raise RuntimeError("User tries to fetch data beyond the specified number of "
                                   f"epochs ({self.num_epochs}) of this dataset iterator")
            self._epoch = self.dataset._rows()
        try:
            row = next(self._epoch)
        except StopIteration:
            self._epoch = None
            self.epochs_done += 1
            raise
        if self.idx is not None:
            row = tuple(row[i] for i in self.idx)
        if not self.output_numpy:
            # NOTE: arrays someone else may hold (a generator's, a map's) are copied, so a
            # Tensor never aliases them; string columns have no Tensor type and stay numpy.
            make = Tensor.from_numpy if self.fresh else Tensor
            row = tuple(a if a.dtype.kind in "USO" else make(a) for a in row)
        return dict(zip(self.names, row)) if self.as_dict else list(row)
