"""Dataset pipeline ops of map_ops.py and structure_ops.py: parallel map (threads and
processes) gives serial map's order and values, per_batch_map, skip/filter/project/rename,
zip/concat/split, padded_batch, errors."""
import time

import numpy as np
import pytest

from mindlite import dataset as ds


def _data(n=23):
    return ds.NumpySlicesDataset({"x": np.arange(n), "y": np.arange(n) * 2}, shuffle=False)


def _rows(d):
    return [tuple(np.asarray(c).tolist() for c in r)
            for r in d.create_tuple_iterator(output_numpy=True)]


def _slow_square(x):
    time.sleep(0.001 * float(x % 3))        # uneven work: results finish out of order
    return x * x, x + 1


@pytest.mark.parametrize("workers, processes", [(1, False), (4, False), (3, True)])
def test_parallel_map_keeps_order_and_values(workers, processes):
    serial = _rows(_data().map(_slow_square, ["x"], ["sq", "inc"]))
    got = _rows(_data().map(_slow_square, ["x"], ["sq", "inc"], num_parallel_workers=workers,
                            python_multiprocessing=processes))
    assert got == serial
    assert serial[5] == (25, 6, 10)
    # a second epoch through the same pipeline gives the same rows
    it = _data().map(_slow_square, ["x"], ["sq", "inc"], num_parallel_workers=workers,
                     python_multiprocessing=processes).create_tuple_iterator(num_epochs=2,
                                                                             output_numpy=True)
    assert len(list(it)) == 23 and len(list(it)) == 23


def _boom(x):
    if x == 7:
        raise ValueError("bad row 7")
    return x


@pytest.mark.parametrize("processes", [False, True])
def test_an_operation_error_reaches_the_caller(processes):
    with pytest.raises(ValueError, match="bad row 7"):
        _rows(_data().map(_boom, num_parallel_workers=2, python_multiprocessing=processes))


def test_per_batch_map_and_column_order():
    def double_and_tag(x, y, info):
        return [v * 2 for v in x], [v + info.get_batch_num() for v in y]
    got = _rows(_data(10).batch(4, per_batch_map=double_and_tag, num_parallel_workers=2))
    assert got[1] == ([8, 10, 12, 14], [9, 11, 13, 15])
    assert len(got) == 3 and got[2][0] == [16, 18]
    d = _data(4).map(lambda x: x + 1, ["x"], ["x1"], column_order=["y", "x1"])
    assert d.get_col_names() == ["y", "x1"] and _rows(d)[0] == (0, 1)


def test_structure_ops():
    d = _data(10)
    assert _rows(d.skip(8)) == [(8, 16), (9, 18)]
    assert d.skip(12).get_dataset_size() == 0
    f = d.filter(lambda x: x % 3 == 0, ["x"])
    assert f.get_dataset_size() == 4 and [r[0] for r in _rows(f)] == [0, 3, 6, 9]
    assert d.project(["y"]).rename(["y"], ["z"]).get_col_names() == ["z"]
    z = d.zip(d.rename(["x", "y"], ["p", "q"]).take(4))
    assert z.get_col_names() == ["x", "y", "p", "q"] and z.get_dataset_size() == 4
    both = d + d.skip(5)
    assert both.get_dataset_size() == 15 and _rows(both)[10] == (5, 10)
    a, b = d.split([7, 3], randomize=False)
    assert [r[0] for r in _rows(b)] == [7, 8, 9]
    p, q = d.split([0.5, 0.5])
    assert sorted(r[0] for r in _rows(p) + _rows(q)) == list(range(10))
    g = ds.GeneratorDataset([(np.arange(i),) for i in range(1, 5)], ["v"], shuffle=False)
    padded = _rows(g.padded_batch(2, pad_info={"v": (None, -1)}))
    assert padded == [([[0, -1], [0, 1]],), ([[0, 1, 2, -1], [0, 1, 2, 3]],)]
    assert _rows(g.padded_batch(4, pad_info={"v": ([5], 9)}))[0][0][0] == [0, 9, 9, 9, 9]
    # a source that gathers whole batches itself still gets padded
    s = ds.NumpySlicesDataset({"v": np.arange(8).reshape(4, 2)}, shuffle=False)
    assert _rows(s.padded_batch(2, pad_info={"v": ([3], -1)}))[0] == ([[0, 1, -1], [2, 3, -1]],)


def test_errors():
    d = _data(4)
    with pytest.raises(ValueError, match="'num_parallel_workers' must be a positive int"):
        d.map(lambda x: x, num_parallel_workers=0)
    with pytest.raises(ValueError, match="column 'nope' does not exist"):
        d.project(["nope"])
    with pytest.raises(ValueError, match="duplicate column names"):
        d.zip(d)
    with pytest.raises(ValueError, match="every dataset must have the columns"):
        d + d.project(["x"])
    with pytest.raises(ValueError, match="int sizes must be positive and sum to the dataset"):
        d.split([1, 2])
    with pytest.raises(TypeError, match="'per_batch_map' must be callable"):
        d.batch(2, per_batch_map=3)
    g = ds.GeneratorDataset([(np.arange(i),) for i in range(1, 5)], ["v"], shuffle=False)
    with pytest.raises(RuntimeError, match="larger than the pad shape"):
        _rows(g.padded_batch(4, pad_info={"v": ([2], 0)}))
