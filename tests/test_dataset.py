"""mindlite.dataset: sources, shuffle/batch/map/repeat/take, iterators, reproducible shuffles and
argument errors (MindSpore's mindspore.dataset behaviour)."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mindlite as ms
import mindlite.dataset as ds
from mindlite import Tensor


def rows(dataset, **kw):
    return [[np.asarray(c) for c in r]
            for r in dataset.create_tuple_iterator(output_numpy=True, **kw)]


def first_col(dataset):
    return [r[0].tolist() for r in rows(dataset)]


# ---- sources ------------------------------------------------------------------------------------
def test_numpy_slices_inputs_and_names():
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    d = ds.NumpySlicesDataset(a, shuffle=False)
    assert d.get_col_names() == ["column_0"] and d.get_dataset_size() == 4
    assert [r[0].tolist() for r in rows(d)] == a.tolist()
    d = ds.NumpySlicesDataset((a, [1, 2, 3, 4]), shuffle=False)
    assert d.get_col_names() == ["column_0", "column_1"]
    assert [r[1].item() for r in rows(d)] == [1, 2, 3, 4]
    d = ds.NumpySlicesDataset({"x": a, "y": np.arange(4)}, shuffle=False)
    assert d.get_col_names() == ["x", "y"]
    d = ds.NumpySlicesDataset([1.5, 2.5], column_names="v", shuffle=False)
    assert d.get_col_names() == ["v"] and first_col(d) == [1.5, 2.5]
    assert ds.NumpySlicesDataset(a, num_samples=2, shuffle=False).get_dataset_size() == 2


def test_numpy_slices_errors():
    with pytest.raises(ValueError, match="NumpySlicesDataset.*same number of rows.*\\[3, 2\\]"):
        ds.NumpySlicesDataset((np.zeros(3), np.zeros(2)))
    with pytest.raises(ValueError, match="NumpySlicesDataset.*'column_names' names 1"):
        ds.NumpySlicesDataset((np.zeros(3), np.zeros(3)), column_names=["a"])
    with pytest.raises(ValueError, match="NumpySlicesDataset.*duplicate"):
        ds.NumpySlicesDataset((np.zeros(3), np.zeros(3)), column_names=["a", "a"])
    with pytest.raises(TypeError, match="NumpySlicesDataset.*'data'"):
        ds.NumpySlicesDataset(5)
    with pytest.raises(ValueError, match="NumpySlicesDataset.*scalar"):
        ds.NumpySlicesDataset((np.float32(1),))
    with pytest.raises(TypeError, match="NumpySlicesDataset.*'shuffle'"):
        ds.NumpySlicesDataset([1, 2], shuffle="yes")


def test_generator_sources():
    def gen():
        for i in range(5):
            yield np.array([i, i], np.int32), i * 0.5

    class Iterable:
        def __iter__(self):
            return iter([(np.ones(2),), (np.zeros(2),)])

    class Random:
        def __getitem__(self, i):
            return np.array(i), np.array(-i)

        def __len__(self):
            return 6

    d = ds.GeneratorDataset(gen, ["a", "b"])
    assert d.get_dataset_size() == 5 and first_col(d)[2] == [2, 2]
    assert rows(d)[3][1].item() == 1.5
    d = ds.GeneratorDataset(Iterable(), "x")
    assert d.get_dataset_size() == 2 and first_col(d) == [[1, 1], [0, 0]]
    d = ds.GeneratorDataset(Random(), ["i", "j"], shuffle=False)
    assert d.get_dataset_size() == 6 and first_col(d) == list(range(6))
    assert sorted(first_col(ds.GeneratorDataset(Random(), ["i", "j"]))) == list(range(6))
    assert first_col(ds.GeneratorDataset(gen, ["a", "b"], num_samples=2)) == [[0, 0], [1, 1]]


def test_generator_errors():
    def gen():
        yield (np.ones(1), np.ones(1))
    with pytest.raises(ValueError, match="GeneratorDataset.*'column_names' is required"):
        ds.GeneratorDataset(gen)
    with pytest.warns(UserWarning, match="GeneratorDataset.*'shuffle' has no effect"):
        d = ds.GeneratorDataset(lambda: iter([(np.array(i),) for i in range(5)]), "a",
                                shuffle=True)
    assert first_col(d) == [0, 1, 2, 3, 4]                  # in order, as MindSpore
    with pytest.raises(TypeError, match="GeneratorDataset.*'source'"):
        ds.GeneratorDataset(42, ["a"])
    with pytest.raises(ValueError, match="GeneratorDataset.*returned 2 columns.*names 1"):
        rows(ds.GeneratorDataset(gen, ["a"]))


# ---- shuffles -----------------------------------------------------------------------------------
def test_default_shuffle_is_a_reproducible_permutation_reshuffled_each_epoch():
    data = np.arange(20)
    ms.set_seed(7)
    it = ds.NumpySlicesDataset(data).create_tuple_iterator(num_epochs=2, output_numpy=True)
    e1, e2 = [int(r[0]) for r in it], [int(r[0]) for r in it]
    assert sorted(e1) == sorted(e2) == list(range(20))
    assert e1 != list(range(20)) and e1 != e2
    ms.set_seed(7)
    it = ds.NumpySlicesDataset(data).create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [int(r[0]) for r in it] == e1 and [int(r[0]) for r in it] == e2
    with pytest.raises(RuntimeError, match="beyond the specified number of epochs"):
        next(it)


@given(n=st.integers(0, 30), buffer_size=st.integers(2, 40), seed=st.integers(0, 100))
def test_buffer_shuffle(n, buffer_size, seed):
    d = ds.NumpySlicesDataset(np.arange(n), shuffle=False)
    ms.set_seed(seed)
    got = first_col(d.shuffle(buffer_size))
    assert sorted(got) == list(range(n))
    ms.set_seed(seed)
    assert first_col(d.shuffle(buffer_size)) == got
    assert d.shuffle(buffer_size).get_dataset_size() == n


def test_shuffle_errors():
    d = ds.NumpySlicesDataset([1, 2, 3])
    with pytest.raises(ValueError, match="Dataset.shuffle.*'buffer_size' must be >= 2"):
        d.shuffle(1)
    with pytest.raises(TypeError, match="Dataset.shuffle.*'buffer_size'"):
        d.shuffle(2.0)


# ---- batch / map / repeat / take -----------------------------------------------------------------
@given(n=st.integers(0, 25), batch_size=st.integers(1, 8), drop=st.booleans(),
       tail=st.sampled_from([(), (2,), (0, 3)]))
def test_batch_matches_numpy(n, batch_size, drop, tail):
    x = np.arange(n * int(np.prod(tail)), dtype=np.float32).reshape((n,) + tail)
    y = np.arange(n, dtype=np.int64)
    d = ds.NumpySlicesDataset((x, y), shuffle=False).batch(batch_size, drop_remainder=drop)
    got = rows(d)
    want_n = n // batch_size if drop else -(-n // batch_size)
    assert len(got) == d.get_dataset_size() == want_n
    for i, (bx, by) in enumerate(got):
        sl = slice(i * batch_size, (i + 1) * batch_size)
        assert bx.dtype == np.float32 and np.array_equal(bx, x[sl])
        assert np.array_equal(by, y[sl])


@given(n=st.integers(0, 20), batch_size=st.integers(1, 6), drop=st.booleans(),
       seed=st.integers(0, 50))
def test_gathered_batches_equal_stacked_rows(n, batch_size, drop, seed):
    d = ds.NumpySlicesDataset((np.arange(n * 2.0).reshape(n, 2), np.arange(n)))
    ms.set_seed(seed)
    fast = rows(d.batch(batch_size, drop))                       # whole batches gathered
    ms.set_seed(seed)
    slow = rows(d.map(lambda v: v).batch(batch_size, drop))      # row by row, then stacked
    assert len(fast) == len(slow)
    for f, s in zip(fast, slow):
        assert all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(f, s))


def test_batch_errors():
    d = ds.NumpySlicesDataset([1, 2, 3])
    with pytest.raises(ValueError, match="Dataset.batch.*'batch_size' must be >= 1.*0"):
        d.batch(0)
    with pytest.raises(TypeError, match="Dataset.batch.*'batch_size'"):
        d.batch("2")
    with pytest.raises(TypeError, match="Dataset.batch.*'drop_remainder'"):
        d.batch(2, drop_remainder=1)

    def ragged():
        yield (np.ones(2),)
        yield (np.ones(3),)
    with pytest.raises(RuntimeError, match="Inconsistent batch shapes.*'a'.*\\[2\\].*\\[3\\]"):
        rows(ds.GeneratorDataset(ragged, ["a"]).batch(2))


def test_map():
    d = ds.NumpySlicesDataset({"x": np.arange(4.0), "y": np.arange(4)}, shuffle=False)
    assert first_col(d.map(lambda x: x * 10)) == [0.0, 10.0, 20.0, 30.0]
    m = d.map([lambda y: y + 1, lambda y: y * 2], input_columns="y")
    assert [r[1].item() for r in rows(m)] == [2, 4, 6, 8]
    m = d.map(lambda x, y: (x + y, x - y), input_columns=["x", "y"], output_columns=["s", "t"])
    assert m.get_col_names() == ["s", "t"] and rows(m)[2][0].item() == 4.0
    m = d.map(lambda y: Tensor(np.array([y, y])), input_columns="y", output_columns="yy")
    assert m.get_col_names() == ["x", "yy"] and rows(m)[1][1].tolist() == [1, 1]
    assert m.batch(2).get_dataset_size() == 2
    with pytest.raises(ValueError, match="Dataset.map.*input column 'z' does not exist"):
        d.map(lambda z: z, input_columns="z")
    with pytest.raises(TypeError, match="Dataset.map.*'operations'"):
        d.map(3)
    with pytest.raises(ValueError, match="Dataset.map.*returned 2 values"):
        rows(d.map(lambda x: (x, x)))
    with pytest.raises(ValueError, match="Dataset.map.*already exist"):
        d.map(lambda x: x, input_columns="x", output_columns="y")


def test_repeat_and_take():
    d = ds.NumpySlicesDataset([1, 2, 3], shuffle=False)
    assert first_col(d.repeat(2)) == [1, 2, 3, 1, 2, 3] and d.repeat(2).get_dataset_size() == 6
    assert first_col(d.repeat().take(7)) == [1, 2, 3, 1, 2, 3, 1]
    assert d.repeat(-1).get_dataset_size() == 3 and d.take(2).get_dataset_size() == 2
    assert d.batch(2).repeat(2).get_dataset_size() == 4
    with pytest.raises(ValueError, match="Dataset.repeat.*'count' must be >= 1 or -1"):
        d.repeat(0)


# ---- iterators -----------------------------------------------------------------------------------
def test_iterators():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    d = ds.NumpySlicesDataset({"x": x, "y": np.array([0, 1, 2], np.int32)}, shuffle=False)
    first = next(iter(d))
    assert isinstance(first, list) and all(isinstance(c, Tensor) for c in first)
    assert first[0].dtype == ms.float32 and first[1].dtype == ms.int32
    first[0].asnumpy()[0] = 99                         # a Tensor never aliases the source data
    assert x[0, 0] == 0
    buf = np.zeros(2)

    def reuse():                                       # a generator handing out one buffer
        for i in range(3):
            buf[:] = i
            yield (buf,)
    assert [t[0].asnumpy().tolist() for t in ds.GeneratorDataset(reuse, "b")] == [
        [0, 0], [1, 1], [2, 2]]
    got = list(d.create_dict_iterator(num_epochs=1))
    assert [sorted(r) for r in got] == [["x", "y"]] * 3 and got[2]["y"].asnumpy().item() == 2
    assert [r[0].item() for r in rows(d, columns=["y"])] == [0, 1, 2]
    it = d.create_tuple_iterator(num_epochs=1)
    assert len(list(it)) == 3
    with pytest.raises(ValueError, match="create_tuple_iterator.*column 'q' does not exist"):
        d.create_tuple_iterator(columns="q")
    with pytest.raises(ValueError, match="create_dict_iterator.*'num_epochs' must be >= 1 or -1"):
        d.create_dict_iterator(num_epochs=0)
    assert len([r for r in d.batch(2)]) == 2 and ds.config.get_seed() == ms.get_seed()
