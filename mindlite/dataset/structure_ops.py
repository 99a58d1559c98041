"""Dataset ops that reshape a pipeline's rows or join pipelines (MindSpore's names): skip,
filter, project, rename, zip, concat (also `a + b`), split and padded_batch."""
import numbers

import numpy as np

from .engine import BatchDataset, Dataset, column_list

__all__ = ["SkipDataset", "FilterDataset", "ProjectDataset", "RenameDataset", "ZipDataset",
           "ConcatDataset", "PaddedBatchDataset", "split"]


class SkipDataset(Dataset):
    def __init__(self, child, count):
        super().__init__(child)
        self.count = count

    def _count(self):
        return max(self.child._count() - self.count, 0)

    def _rows(self):
        for i, row in enumerate(self.child._rows()):
            if i >= self.count:
                yield row


class FilterDataset(Dataset):
    """Rows for which predicate(*input_columns) is true (its size is known after a pass)."""

    def __init__(self, child, predicate, input_columns):
        super().__init__(child)
        if not callable(predicate):
            raise TypeError(f"For 'Dataset.filter', 'predicate' must be callable, but got "
                            f"{type(predicate).__name__}")
        cols = child.get_col_names()
        names = cols if input_columns is None else column_list("Dataset.filter",
                                                                "input_columns", input_columns)
        for n in names:
            if n not in cols:
                raise ValueError(f"For 'Dataset.filter', column '{n}' does not exist; the "
                                 f"dataset's columns are {cols}")
        self.predicate, self.idx = predicate, [cols.index(n) for n in names]

    def _count(self):
        return sum(1 for _ in self._rows())

    def _rows(self):
        for row in self.child._rows():
            if bool(np.all(self.predicate(*[row[i] for i in self.idx]))):
                yield row


class ProjectDataset(Dataset):
    def __init__(self, child, columns):
        super().__init__(child)
        cols = child.get_col_names()
        self.names = column_list("Dataset.project", "columns", columns)
        for n in self.names:
            if n not in cols:
                raise ValueError(f"For 'Dataset.project', column '{n}' does not exist; the "
                                 f"dataset's columns are {cols}")
        self.idx = [cols.index(n) for n in self.names]

    def get_col_names(self):
        return list(self.names)

    def _rows(self):
        for row in self.child._rows():
            yield tuple(row[i] for i in self.idx)


class RenameDataset(Dataset):
    def __init__(self, child, input_columns, output_columns):
        super().__init__(child)
        api = "Dataset.rename"
        old = column_list(api, "input_columns", input_columns)
        new = column_list(api, "output_columns", output_columns)
        if len(old) != len(new):
            raise ValueError(f"For '{api}', 'input_columns' and 'output_columns' must have the "
                             f"same length, but got {len(old)} and {len(new)}")
        cols = child.get_col_names()
        for n in old:
            if n not in cols:
                raise ValueError(f"For '{api}', column '{n}' does not exist; the dataset's "
                                 f"columns are {cols}")
        mapping = dict(zip(old, new))
        self.names = [mapping.get(c, c) for c in cols]
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"For '{api}', the renamed columns {self.names} have duplicates")

    def get_col_names(self):
        return list(self.names)

    def _rows(self):
        return self.child._rows()


def _check_datasets(api, datasets):
    if not datasets or not all(isinstance(d, Dataset) for d in datasets):
        raise TypeError(f"For '{api}', the datasets must be Dataset objects, but got "
                        f"{[type(d).__name__ for d in datasets]}")


class ZipDataset(Dataset):
    """Rows side by side; as long as the shortest input; column names must not repeat."""

    def __init__(self, datasets):
        super().__init__(None)
        _check_datasets("Dataset.zip", datasets)
        self.children = datasets
        self.names = [n for d in datasets for n in d.get_col_names()]
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"For 'Dataset.zip', the zipped datasets have duplicate column "
                             f"names: {self.names}; rename them first")

    def get_col_names(self):
        return list(self.names)

    def _count(self):
        return min(d._count() for d in self.children)

    def get_batch_size(self):
        return 1

    _fresh = False

    def _rows(self):
        for rows in zip(*[d._rows() for d in self.children]):
            yield tuple(v for row in rows for v in row)


class ConcatDataset(Dataset):
    """One dataset's rows after another's; the column names must agree."""

    def __init__(self, datasets):
        super().__init__(None)
        _check_datasets("Dataset.concat", datasets)
        names = datasets[0].get_col_names()
        for d in datasets[1:]:
            if d.get_col_names() != names:
                raise ValueError(f"For 'Dataset.concat', every dataset must have the columns "
                                 f"{names}, but got {d.get_col_names()}")
        self.children, self.names = datasets, names

    def get_col_names(self):
        return list(self.names)

    def _count(self):
        return sum(d._count() for d in self.children)

    def get_batch_size(self):
        return 1

    _fresh = False

    def _rows(self):
        for d in self.children:
            yield from d._rows()


class _IndexedDataset(Dataset):
    """The rows of `child` at `indices` (one materialised pass of the child, kept)."""

    def __init__(self, rows, names, indices):
        super().__init__(None)
        self.rows, self.names, self.indices = rows, names, indices

    def get_col_names(self):
        return list(self.names)

    def _count(self):
        return len(self.indices)

    def get_batch_size(self):
        return 1

    _fresh = False

    def _rows(self):
        for i in self.indices:
            yield self.rows[i]


def split(dataset, sizes, randomize=True):
    """Datasets of the given sizes (ints summing to the size, or fractions summing to 1)."""
    api = "Dataset.split"
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise TypeError(f"For '{api}', 'sizes' must be a non-empty list, but got {sizes!r}")
    rows = list(dataset._rows())
    n = len(rows)
    if all(isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in sizes):
        counts = list(sizes)
        if any(c < 1 for c in counts) or sum(counts) != n:
            raise ValueError(f"For '{api}', int sizes must be positive and sum to the dataset "
                             f"size {n}, but got {list(sizes)}")
    elif all(isinstance(s, float) for s in sizes):
        if any(not 0 < s <= 1 for s in sizes) or abs(sum(sizes) - 1.0) > 1e-6:
            raise ValueError(f"For '{api}', float sizes must be in (0, 1] and sum to 1, but got "
                             f"{list(sizes)}")
        counts = [int(round(s * n)) for s in sizes]
        counts[-1] += n - sum(counts)
    else:
        raise TypeError(f"For '{api}', 'sizes' must be all ints or all floats, but got {sizes!r}")
    order = np.arange(n)
    if randomize:
        from ..random_state import generator
        order = generator().permutation(n)
    out, start = [], 0
    for c in counts:
        out.append(_IndexedDataset(rows, dataset.get_col_names(), order[start:start + c]))
        start += c
    return out


class PaddedBatchDataset(BatchDataset):
    """Batches whose rows are padded per column to the batch's largest shape (or the shape
    and value pad_info {column: (shape, value)} gives; None in a shape = the largest)."""

    gather_whole_batches = False        # rows are padded one by one in _stack

    def __init__(self, child, batch_size, drop_remainder, pad_info):
        super().__init__(child, batch_size, drop_remainder)
        if pad_info is not None and not isinstance(pad_info, dict):
            raise TypeError(f"For 'Dataset.padded_batch', 'pad_info' must be a dict, but got "
                            f"{type(pad_info).__name__}")
        self.pad_info = pad_info or {}

    def _stack(self, rows):
        names = self.get_col_names()
        cols = []
        for c in range(len(rows[0])):
            items = [np.asarray(r[c]) for r in rows]
            shape, value = self.pad_info.get(names[c], (None, 0))
            largest = [max(it.shape[d] for it in items) for d in range(items[0].ndim)]
            target = largest if shape is None else [
                largest[d] if s is None else s for d, s in enumerate(shape)]
            out = np.full((len(items),) + tuple(target), value, dtype=items[0].dtype)
            for i, it in enumerate(items):
                if any(a > b for a, b in zip(it.shape, target)):
                    raise RuntimeError(f"For 'Dataset.padded_batch', a row of column "
                                       f"'{names[c]}' has shape {it.shape}, larger than the "
                                       f"pad shape {tuple(target)}")
                out[(i,) + tuple(slice(0, s) for s in it.shape)] = it
            cols.append(out)
        return tuple(cols)
