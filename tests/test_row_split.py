"""Kernels that split a large input's rows across two threads (kernels/cpu/_rows.py: topk,
cumsum / cumprod, pad constant and reflect, the numba resizes) give the bits of the same
kernel on one thread, above and below the split size, and the helper runs both halves."""
import numpy as np
import pytest
from helpers import run_threads

from mindlite import _C
from mindlite.kernels.cpu import _rows
from mindlite.kernels.cpu.cum_cpp import cumprod_cpp, cumsum_cpp
from mindlite.kernels.cpu.cum_numba import cumprod_numba, cumsum_numba
from mindlite.kernels.cpu.pad_cpp import pad_v3_cpp
from mindlite.kernels.cpu.resize_numba import _kernel as resize_numba
from mindlite.kernels.cpu.resize_pad_numpy import _forward_kernel as resize_numpy
from mindlite.kernels.cpu.resize_pad_numpy import pad_v3_numpy
from mindlite.kernels.cpu.sort_numpy import topk_numpy

RNG = np.random.default_rng(0)


def _split_result(run):
    """run() with the split, then on one thread (_C's forced thread count): the two give the
    same bits and dtypes; returns the split run's result."""
    split = run()
    _C.set_num_threads(1)
    try:
        single = run()
    finally:
        _C.set_num_threads(0)
    _same(split, single)
    return split


def _same(a, b):
    for x, y in zip(a, b):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
        assert np.asarray(x).dtype == np.asarray(y).dtype


def test_split_rows_covers_every_row_once(monkeypatch):
    seen = []
    monkeypatch.setattr(_rows, "MIN_ELEMENTS", 1)
    _rows.split_rows(lambda lo, hi: seen.append((lo, hi)), 7, 10)
    if _rows.two_threads():
        assert sorted(seen) == [(0, 3), (3, 7)]
    else:
        assert seen == [(0, 7)]
    seen.clear()
    _rows.split_rows(lambda lo, hi: seen.append((lo, hi)), 1, 10)
    assert seen == [(0, 1)]


@pytest.mark.parametrize("shape", [(1100, 1000), (3, 400, 1000)])
def test_topk_split_equals_one_thread(shape):
    x = RNG.standard_normal(shape).astype(np.float32)
    x.reshape(-1)[::97] = np.nan
    x.reshape(-1)[5::89] = 0.5                   # ties
    k = 37

    def run():
        v, i = np.empty(shape[:-1] + (k,), np.float32), np.empty(shape[:-1] + (k,), np.int32)
        topk_numpy(x, v, i, k)
        return v, i
    _split_result(run)


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("fn", [cumsum_numba, cumprod_numba, cumsum_cpp, cumprod_cpp])
def test_cumulative_split_equals_one_thread(fn, axis):
    x = RNG.uniform(0.9, 1.1, (64, 130, 130)).astype(np.float32)

    def run():
        out = np.empty_like(x)
        fn(x, out, axis, False, axis == 1)
        return (out,)
    _split_result(run)


@pytest.mark.parametrize("mode", ["reflect", "edge", "circular", "constant"])
def test_pad_gather_split_equals_one_thread(mode):
    x = RNG.standard_normal((2, 800, 700)).astype(np.float32)
    pads = ((0, 0), (3, 2), (2, -1))

    def run():
        out = np.empty((2, 805, 701), np.float32)
        pad_v3_cpp(x, out, pads, mode, 2.5 if mode == "constant" else None)
        return (out,)
    _split_result(run)


@pytest.mark.parametrize("mode", ["reflect", "edge", "circular"])
@pytest.mark.parametrize("pads", [((0, 0), (3, 2), (2, 4)), ((0, 0), (0, 1), (4, 0))])
def test_pad_rows_equal_numpy_pad(mode, pads):
    """Paddings >= 0 of a large input (C++ row gather, rows split across the pool or not):
    np.pad's values."""
    x = RNG.standard_normal((2, 700, 800)).astype(np.float32)
    x[0, 0, :3] = [np.nan, np.inf, -0.0]
    shape = tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, pads))
    np_mode = {"circular": "wrap"}.get(mode, mode)

    def run():
        out = np.empty(shape, np.float32)
        pad_v3_cpp(x, out, pads, mode, None)
        return (out,)
    split = _split_result(run)
    np.testing.assert_array_equal(split[0], np.pad(x, pads, mode=np_mode))


def test_pad_constant_split_equals_one_thread():
    x = RNG.standard_normal((1030, 1030)).astype(np.float32)
    pads = ((2, 3), (-1, 4))

    def run():
        out = np.empty((1035, 1033), np.float32)
        pad_v3_numpy(x, out, pads, "constant", 1.5)
        return (out,)
    split = _split_result(run)
    np.testing.assert_array_equal(split[0][2:1032, :1029], x[:, 1:])
    assert (split[0][:2] == 1.5).all() and (split[0][:, 1029:] == 1.5).all()


def test_four_threads_splitting_at_once_share_the_helper_thread():
    """Four callers split big topk calls at once: the one helper thread serves their second
    halves in turn (no deadlock, no crossed rows); each gets the one-thread result."""
    xs = [RNG.standard_normal((1100, 1000)).astype(np.float32) for _ in range(4)]
    k = 5

    def topk(x):
        v, i = np.empty((1100, k), np.float32), np.empty((1100, k), np.int32)
        topk_numpy(x, v, i, k)
        return v, i
    _C.set_num_threads(1)
    try:
        wants = [topk(x) for x in xs]
    finally:
        _C.set_num_threads(0)
    got = {}

    def work(t):
        for _ in range(3):
            got[t] = topk(xs[t])
    assert not run_threads(work)
    for t in range(4):
        _same(got[t], wants[t])


def test_pad_rows_rejects_bad_arguments_before_writing():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = np.zeros((5, 6), np.float32)
    rows, cols = np.array([1, 0, 1, 2, 1]), np.array([1, 0, 1, 2, 3, 2])
    with pytest.raises(ValueError, match="PadV3.*'rows' must index an axis of size 3"):
        _C.pad_rows(x, out, np.array([0, 1, 2, 3, 0]), cols, 1, 5, 1)
    with pytest.raises(TypeError, match="PadV3.*'cols' must be a 1-D C-contiguous int64"):
        _C.pad_rows(x, out, rows, cols.astype(np.int32), 1, 5, 1)
    with pytest.raises(ValueError, match="PadV3.*kept block"):
        _C.pad_rows(x, out, rows, cols, 1, 6, 0)
    with pytest.raises(TypeError, match="PadV3.*dtype of 'x'"):
        _C.pad_rows(x, out.astype(np.float64), rows, cols, 1, 5, 1)
    with pytest.raises(TypeError, match="PadV3.*dtype of 'x'"):
        _C.pad_rows(x.astype(object), out.astype(object), rows, cols, 1, 5, 1)
    assert not out.any()
    _C.pad_rows(x, out, rows, cols, 1, 5, 1)
    np.testing.assert_array_equal(out, np.pad(x, ((1, 1), (1, 1)), mode="reflect"))


@pytest.mark.parametrize("linear,align,half", [(True, False, True), (False, False, False),
                                               (True, True, False)])
@pytest.mark.parametrize("shape,out_hw", [((1, 1, 700, 650), (1400, 1300)),
                                          ((2, 3, 300, 200), (500, 450))])
def test_resize_rows_split_equals_one_thread_and_reference(linear, align, half, shape, out_hw):
    """Bilinear / nearest resizes of 1M+ output elements split their output rows; every
    row as on one thread, and the numpy kernel's gather form bitwise."""
    x = RNG.standard_normal(shape).astype(np.float32)
    x.reshape(-1)[::101] = np.nan
    out_shape = shape[:2] + out_hw

    def run():
        out = np.empty(out_shape, np.float32)
        resize_numba(x, out, linear, align, half)
        return (out,)
    split = _split_result(run)
    want = np.empty(out_shape, np.float32)
    resize_numpy(x, want, linear, align, half)
    assert split[0].tobytes() == want.tobytes()
