"""RandomCategorical (random_ops.py, kernels/cpu/random_categorical_numpy.py): MindSpore
2.10's draws (values printed by MindSpore for the same calls), the engine and the search
against plain-Python references, its checks, thread safety and the bounded stream table."""
import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import Tensor
from mindlite.kernels.cpu import random_categorical_numpy as K
from mindlite.ops import operations as P

X = np.array([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], np.float32)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_mindspore_values(dtype):
    out = P.RandomCategorical(ms.int64)(Tensor(X.astype(dtype)), 12, 5).asnumpy()
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [[4, 4, 2, 4, 4, 3, 4, 4, 4, 4, 3, 4]] * 2)
    assert P.RandomCategorical()(Tensor(X), 12, 1).asnumpy()[0].tolist() == \
        [2, 3, 3, 4, 4, 4, 4, 3, 3, 2, 4, 4]
    x = np.random.RandomState(0).randn(3, 7)
    np.testing.assert_array_equal(P.RandomCategorical(ms.int32)(Tensor(x), 6, 7).asnumpy(),
                                  [[3, 4, 4, 3, 4, 2], [4, 4, 5, 4, 4, 3], [2, 2, 3, 2, 2, 2]])


def test_a_primitive_keeps_its_stream_per_seed():
    op, x = P.RandomCategorical(ms.int32), Tensor(X)
    got = [op(x, 4, s).asnumpy()[0].tolist() for s in (5, 5, 6, 5)]
    assert got == [[4, 4, 2, 4], [4, 3, 4, 4], [3, 4, 4, 2], [4, 4, 3, 4]]     # MindSpore's
    assert P.RandomCategorical(ms.int32)(x, 4, 5).asnumpy()[0].tolist() == [4, 4, 2, 4]


def _engine_reference(x0, n):
    out, x = [], x0
    for _ in range(n):
        x = x * 16807 % 2147483647
        out.append(x)
    return out


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 2147483646), st.integers(0, 40))
def test_engine_states_equal_a_python_loop(x0, n):
    assert K.minstd_states(x0, n).tolist() == _engine_reference(x0, n)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 3), st.integers(1, 6), st.integers(1, 8), st.booleans(),
       st.sampled_from([np.float16, np.float32, np.float64]), st.integers(-2 ** 31, 2 ** 31))
def test_search_equals_a_python_loop(rows, classes, n, strided, dtype, seed):
    rs = np.random.RandomState(abs(seed) % 1000)
    logits = (rs.randn(rows, classes) * 3).astype(dtype)
    if rows and classes > 1:
        logits[0, 1] = np.inf if seed % 2 else np.nan
    arg = np.repeat(logits, 2, axis=1)[:, ::2] if strided else logits
    got = P.RandomCategorical(ms.int64)(Tensor(arg), n, seed or 1).asnumpy()
    draws, _ = K.uniform_draws(K.philox_seed(seed or 1) % 2147483647 or 1, n)
    with np.errstate(all="ignore"):
        for r in range(rows):
            row = logits[r]
            mx = row[0]
            for v in row[1:]:
                mx = v if v > mx else mx
            cdf = np.cumsum(np.exp((row - mx).astype(np.float32)).astype(dtype), dtype=dtype)
            for j in range(n):
                target = cdf[-1] * dtype(draws[j])
                idx = 0
                while idx < classes - 1 and cdf[idx] < target:
                    idx += 1
                assert got[r, j] == idx
    assert got.shape == (rows, n)


def test_checks():
    op = P.RandomCategorical()
    with pytest.raises(ValueError, match="RandomCategorical.*num_sample"):
        op(Tensor(X), 0, 5)
    with pytest.raises(ValueError, match="RandomCategorical.*2D"):
        op(Tensor(X[0]), 2, 5)
    with pytest.raises(TypeError, match="RandomCategorical.*logits"):
        op(Tensor(X.astype(np.int32)), 2, 5)
    with pytest.raises(TypeError, match="RandomCategorical.*dtype"):
        P.RandomCategorical(ms.float32)


def test_threads_take_whole_calls_of_one_stream():
    op, x = P.RandomCategorical(ms.int32), Tensor(X)
    results = []

    def work():
        for _ in range(5):
            results.append(tuple(op(x, 3, 9).asnumpy()[0]))
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ref = P.RandomCategorical(ms.int32)
    want = [tuple(ref(x, 3, 9).asnumpy()[0]) for _ in range(20)]
    assert sorted(results) == sorted(want)


def test_stream_table_is_bounded():
    op = P.RandomCategorical(ms.int32)
    for s in range(1, 100):
        op(Tensor(X), 1, s)
    assert len(op._streams) <= K._MAX_STREAMS
