"""Dataset.map and Dataset.batch(per_batch_map=...) with parallel workers.

`num_parallel_workers` > 1 applies the operations to several rows (or batches) at once and
yields the results in the input's order, keeping at most `4 * workers` tasks (of 16 rows, or
one batch) in flight:
- threads by default, the right choice for numpy / Pillow / mindlite work, which releases the
  GIL;
- processes with `python_multiprocessing=True`, for Python-heavy operations: a pool forked at
  the first epoch whose workers already hold the operations (nothing is pickled but each row
  and its result), shut down when the epoch ends or the iterator is dropped.
Exceptions in an operation propagate to the iterating thread, naming the operation.
"""
import collections
import itertools
import numbers

import numpy as np

from .engine import BatchDataset, Dataset, column_list, to_array

__all__ = ["MapDataset", "PerBatchMapDataset", "ordered_map"]

_WORKER_FN = None            # the function a forked worker applies (set by its initializer)


def _init_worker(fn):
    global _WORKER_FN
    _WORKER_FN = fn


def _call_worker(items):
    return [_WORKER_FN(item) for item in items]


def _call_each(fn, items):
    return [fn(item) for item in items]


def check_workers(api, workers, multiprocessing_flag):
    if workers is None:
        return 1
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1:
        raise ValueError(f"For '{api}', 'num_parallel_workers' must be a positive int, but got "
                         f"{workers!r}")
    if not isinstance(multiprocessing_flag, bool):
        raise TypeError(f"For '{api}', 'python_multiprocessing' must be a bool, but got "
                        f"{multiprocessing_flag!r}")
    return int(workers)


def ordered_map(fn, items, workers, processes, chunk=1):
    """fn over the iterable `items`, in order, with `workers` threads or processes; each
    task takes `chunk` consecutive items.

    NOTE: a task costs ~20-50 µs of queueing and waking (a future, a lock, a thread switch),
    more than a cheap per-row operation (TypeCast, Rescale, HWC2CHW on an MNIST image take
    2-10 µs): one task a row made the model zoo's LeNet pipeline (4 maps, 2 workers) spend
    ~11 ms a batch of 32 in the pool. Rows go in chunks of 16 (batches one by one)."""
    if workers == 1:
        for item in items:
            yield fn(item)
        return
    import concurrent.futures        # here: import mindlite does not load them
    import multiprocessing
    if processes:
        pool = concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("fork"), initializer=_init_worker,
            initargs=(fn,))
        submit = lambda part: pool.submit(_call_worker, part)  # noqa: E731
    else:
        pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="mindlite-map")
        submit = lambda part: pool.submit(_call_each, fn, part)  # noqa: E731
    pending = collections.deque()
    try:
        it = iter(items)
        while True:
            part = list(itertools.islice(it, chunk))
            if not part:
                break
            pending.append(submit(part))
            if len(pending) >= 4 * workers:
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()
    finally:
        for f in pending:
            f.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


def _apply(ops, outputs, vals):
    for op in ops:
        out = op(*vals)
        vals = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if len(vals) != len(outputs):
        raise ValueError(f"For 'Dataset.map', the operations returned {len(vals)} values, but "
                         f"'output_columns' names {len(outputs)}: {outputs}")
    return tuple(to_array("Dataset.map", v) for v in vals)


class _RowFn:
    """The picklable per-row work: the operations on the input columns of one row."""

    def __init__(self, node):
        self.ops, self.outputs = node.ops, node.outputs
        self.in_idx, self.before_idx, self.after_idx = node.in_idx, node.before_idx, \
            node.after_idx

    def __call__(self, row):
        vals = _apply(self.ops, self.outputs, tuple(row[i] for i in self.in_idx))
        return (tuple(row[i] for i in self.before_idx) + vals
                + tuple(row[i] for i in self.after_idx))


class MapDataset(Dataset):
    def __init__(self, child, operations, input_columns, output_columns, workers=1,
                 processes=False):
        super().__init__(child)
        api = "Dataset.map"
        ops = operations if isinstance(operations, (list, tuple)) else [operations]
        if not ops or not all(callable(op) for op in ops):
            raise TypeError(f"For '{api}', 'operations' must be a callable or a non-empty list "
                            f"of callables, but got {operations!r}")
        cols = child.get_col_names()
        inputs = cols[:1] if input_columns is None else column_list(
            api, "input_columns", input_columns)
        for name in inputs:
            if name not in cols:
                raise ValueError(f"For '{api}', input column '{name}' does not exist; the "
                                 f"dataset's columns are {cols}")
        outputs = inputs if output_columns is None else column_list(
            api, "output_columns", output_columns)
        kept = [c for c in cols if c not in inputs]
        clash = [c for c in outputs if c in kept]
        if clash:
            raise ValueError(f"For '{api}', output columns {clash} already exist and are not "
                             "input columns")
        at = cols.index(inputs[0])
        before = [c for c in cols[:at] if c not in inputs]
        self.ops, self.outputs = list(ops), outputs
        self.in_idx = [cols.index(c) for c in inputs]
        self.before_idx = [cols.index(c) for c in before]
        self.after_idx = [cols.index(c) for c in kept if c not in before]
        self.names = before + outputs + [cols[i] for i in self.after_idx]
        self.workers, self.processes = workers, processes

    _fresh = False

    def get_col_names(self):
        return list(self.names)

    def _rows(self):
        # NOTE: consecutive maps with the same workers run as one per-row chain (one pool, one
        # task per chunk of rows, no generator between them): the same rows, in order, at a
        # third of the cost per row for cheap operations (the model zoo's 4-map MNIST line)
        fns, node = [], self
        while (isinstance(node, MapDataset) and node.workers == self.workers
               and node.processes == self.processes):
            fns.append(_RowFn(node))
            node = node.child
        fn = fns[0] if len(fns) == 1 else _Chain(fns[::-1])
        yield from ordered_map(fn, node._rows(), self.workers, self.processes, chunk=16)


class _Chain:
    """Row functions applied one after the other (picklable, for process workers)."""

    def __init__(self, fns):
        self.fns = fns

    def __call__(self, row):
        for fn in self.fns:
            row = fn(row)
        return row


class _BatchFn:
    def __init__(self, node):
        self.fn, self.in_idx, self.rest_idx = node.fn, node.in_idx, node.rest_idx
        self.n_out = node.n_out
        self.info = node.batch_info

    def __call__(self, item):
        number, batch = item
        out = self.fn(*[list(batch[i]) for i in self.in_idx], self.info(number))
        out = out if isinstance(out, (tuple, list)) else (out,)
        if len(out) != self.n_out:
            raise ValueError(f"For 'Dataset.batch', 'per_batch_map' returned {len(out)} columns, "
                             f"but 'output_columns' names {self.n_out}")
        cols = [np.stack([to_array("Dataset.batch", v) for v in c]) if isinstance(c, list)
                else to_array("Dataset.batch", c) for c in out]
        return tuple(cols) + tuple(batch[i] for i in self.rest_idx)


class BatchInfo:
    """What per_batch_map's last argument reports (MindSpore's BatchInfo)."""

    def __init__(self, batch_num, epoch_num=0):
        self._batch_num, self._epoch_num = batch_num, epoch_num

    def get_batch_num(self):
        return self._batch_num

    def get_epoch_num(self):
        return self._epoch_num


class PerBatchMapDataset(BatchDataset):
    """batch() with per_batch_map(col..., batch_info) applied to each batch's input columns
    (as lists of per-row arrays), which it replaces with the returned columns."""

    def __init__(self, child, batch_size, drop_remainder, fn, input_columns, output_columns,
                 workers=1, processes=False):
        super().__init__(child, batch_size, drop_remainder)
        api = "Dataset.batch"
        if not callable(fn):
            raise TypeError(f"For '{api}', 'per_batch_map' must be callable, but got "
                            f"{type(fn).__name__}")
        cols = child.get_col_names()
        inputs = cols if input_columns is None else column_list(api, "input_columns",
                                                                 input_columns)
        for name in inputs:
            if name not in cols:
                raise ValueError(f"For '{api}', input column '{name}' does not exist; the "
                                 f"dataset's columns are {cols}")
        outputs = inputs if output_columns is None else column_list(api, "output_columns",
                                                                     output_columns)
        self.fn, self.n_out = fn, len(outputs)
        self.in_idx = [cols.index(c) for c in inputs]
        self.rest_idx = [i for i, c in enumerate(cols) if c not in inputs]
        self.names = outputs + [cols[i] for i in self.rest_idx]
        self.workers, self.processes = workers, processes

    def get_col_names(self):
        return list(self.names)

    @staticmethod
    def batch_info(number):
        return BatchInfo(number)

    def _batches_of_rows(self):
        rows, number = [], 0
        for row in self.child._rows():
            rows.append(row)
            if len(rows) == self.batch_size:
                yield number, tuple(zip(*rows))
                rows, number = [], number + 1
        if rows and not self.drop_remainder:
            yield number, tuple(zip(*rows))

    def _rows(self):
        work = _BatchFn(self)
        for out in ordered_map(work, self._batches_of_rows(), self.workers, self.processes):
            yield out
