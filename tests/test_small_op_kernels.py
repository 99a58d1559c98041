"""The small-op latency kernels and fast wrappers (kernels/cpu/: cum_small_numba, pad_cpp,
pad_small_numpy, resize_numba, sort_cpp, stat_numba): each gives the numpy reference kernel's
results bitwise, NaN, ties and signed zeros included."""
import importlib.util
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.kernels.cpu.clip_cum_numpy import cumprod_numpy, cumsum_numpy
from mindlite.kernels.cpu.linalg_numpy import cross_numpy
from mindlite.kernels.cpu.linalg_stat_numpy import reduce_std_numpy
from mindlite.kernels.cpu.cum_small_numba import cumprod_small_numba, cumsum_small_numba
from mindlite.kernels.cpu.pad_small_numpy import pad_v3_small_numpy
from mindlite.kernels.cpu import pad_cpp
from mindlite.kernels.cpu._cext import _C
from mindlite.kernels.cpu.pad_cpp import pad_v3_cpp
from mindlite.kernels.cpu.resize_numba import _kernel as resize_small_numba
from mindlite.kernels.cpu.resize_pad_numpy import _forward_kernel as resize_numpy
from mindlite.kernels.cpu.resize_pad_numpy import pad_v3_numpy
from mindlite.kernels.cpu.sort_cpp import topk_cpp
from mindlite.kernels.cpu.stat_numba import cross_small_numba, reduce_std_small_numba
from mindlite.kernels.cpu.sort_numpy import topk_numpy

_DTYPES = st.sampled_from([np.float32, np.float64, np.int32, np.int64])


@st.composite
def _arrays(draw, min_last=1):
    dtype = draw(_DTYPES)
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=6))
    shape = shape[:-1] + (max(shape[-1], min_last),)
    # few distinct values: ties are common; floats may hold NaN and -0.0
    pool = [0, 1, -2, 3] if np.dtype(dtype).kind == "i" else [0.0, -0.0, 1.5, -2.0, np.nan,
                                                                np.inf, -np.inf]
    return draw(hnp.arrays(dtype, shape, elements=st.sampled_from(pool)))


def _run(kernel, x, k):
    shape = x.shape[:-1] + (k,)
    values, indices = np.empty(shape, x.dtype), np.empty(shape, np.int32)
    kernel(x, values, indices, k)
    return values, indices


@settings(max_examples=40, deadline=None)
@given(_arrays(), st.integers(1, 3), st.booleans())
def test_topk_cpp_matches_numpy_kernel(x, k, transposed):
    if transposed and x.ndim > 1:
        x = np.swapaxes(x, 0, -1)           # a non-contiguous input
    k = min(k, x.shape[-1])
    got, want = _run(topk_cpp, x, k), _run(topk_numpy, x, k)
    assert got[0].tobytes() == want[0].tobytes()
    assert np.array_equal(got[1], want[1])


def test_topk_k1_picks_first_nan_and_lowest_tied_index():
    x = Tensor(np.array([[1.0, 3.0, 3.0, 2.0], [np.nan, 5.0, np.nan, 1.0]], np.float32))
    values, indices = ops.topk(x, 1)
    assert indices.asnumpy().tolist() == [[1], [0]]
    assert values.asnumpy()[0, 0] == 3.0 and np.isnan(values.asnumpy()[1, 0])
    assert indices.dtype == ops.topk(x, 2)[1].dtype


def test_topk_fast_wrapper_keeps_checks():
    x = Tensor(np.ones((2, 3), np.float32))
    for bad, exc in ((0, ValueError), (4, ValueError), (1.0, TypeError), (True, TypeError)):
        try:
            ops.topk(x, bad)
        except exc as e:
            assert "k" in str(e)
        else:
            raise AssertionError(f"ops.topk(x, {bad!r}) did not raise {exc.__name__}")


@settings(max_examples=30, deadline=None)
@given(_arrays(), st.integers(0, 2), st.booleans(), st.booleans(), st.booleans(),
       st.booleans())
def test_small_cumulative_numba_matches_numpy_kernel(x, axis, exclusive, reverse, prod,
                                                     transposed):
    pytest.importorskip("numba", reason="the numba provider needs numba")
    if transposed and x.ndim > 1:
        x = np.swapaxes(x, 0, -1)
    axis %= x.ndim
    got, want = np.empty_like(x), np.empty_like(x)
    fast, ref = (cumprod_small_numba, cumprod_numpy) if prod else (cumsum_small_numba,
                                                                   cumsum_numpy)
    with np.errstate(all="ignore"):
        fast(x, got, axis, exclusive, reverse)
    ref(x, want, axis, exclusive, reverse)
    assert got.tobytes() == want.tobytes()


def test_cumsum_small_runs_numba_kernel_and_keeps_dtype():
    pytest.importorskip("numba", reason="the numba provider needs numba")
    x = Tensor(np.array([[1, 2, 3], [4, 5, 2**31 - 1]], np.int32))
    y = ops.cumsum(x, 1)
    assert y.dtype == x.dtype
    assert y.asnumpy().tolist() == np.cumsum(x.asnumpy(), 1, dtype=np.int32).tolist()


@settings(max_examples=40, deadline=None)
@given(st.data(), st.sampled_from(["constant", "reflect", "edge", "circular"]))
def test_small_pad_kernel_matches_reference(data, mode):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=2, max_side=5))
    x = data.draw(hnp.arrays(np.float32, shape, elements=st.sampled_from(
        [0.0, -0.0, 1.5, np.nan, -np.inf])))
    pads = tuple((0, 0) if axis < len(shape) - 2 else
                 (data.draw(st.integers(-1, n - 1)), data.draw(st.integers(-1, n - 1)))
                 for axis, n in enumerate(shape))
    out_shape = tuple(n + lo + hi for n, (lo, hi) in zip(shape, pads))
    got, want = np.empty(out_shape, x.dtype), np.empty(out_shape, x.dtype)
    pad_v3_numpy(x, want, pads, mode, 2.5)
    kernels = [pad_v3_small_numpy]
    if importlib.util.find_spec("numba") is not None:
        kernels.append(pad_v3_cpp)
    for kernel in kernels:
        kernel(x, got, pads, mode, 2.5)
        assert got.tobytes() == want.tobytes(), kernel.__name__


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int8, np.int32,
                                   np.uint8, np.bool_])
@pytest.mark.parametrize("pads", [((2, 2), (2, 2)), ((0, 3), (1, 0)), ((3, -2), (-1, 2)),
                                  ((0, 0), (4, 0)), ((-2, -3), (0, 0))])
def test_constant_pad_rows_match_reference(dtype, pads):
    """Constant mode through the C++ row gather (outputs past CONST_SMALL elements): the
    reference's bits, the value cast as it casts it, one plane and several."""
    rng = np.random.default_rng(1)
    for shape in ((120, 90), (3, 2, 70, 40)):
        x = (rng.standard_normal(shape) * 50).astype(dtype)
        full = ((0, 0),) * (len(shape) - 2) + pads
        out_shape = tuple(n + lo + hi for n, (lo, hi) in zip(shape, full))
        assert math.prod(out_shape) > pad_cpp.CONST_SMALL
        for value in (2.5, -3, True, 0, 300):
            got, want = np.empty(out_shape, x.dtype), np.empty(out_shape, x.dtype)
            pad_v3_numpy(x, want, full, "constant", value)
            pad_v3_cpp(x, got, full, "constant", value)
            assert got.tobytes() == want.tobytes(), (shape, value)


@pytest.mark.parametrize("shape", [(2, 2), (120, 100)])
def test_pad_value_cast_as_mindspore(shape):
    """MindSpore 2.10 wraps an integer value into the tensor's dtype and truncates a float one
    (uint8 -3 -> 253, int8 300 -> 44, int32 2.7 -> 2), on the small path and the C++ one."""
    for dtype, value, want in ((np.uint8, -3, 253), (np.int8, 300, 44), (np.int32, 2.7, 2),
                               (np.int64, -2.9, -2), (np.float16, 1e5, np.inf)):
        y = ops.pad(Tensor(np.ones(shape, dtype)), (1, 1, 1, 1), value=value).asnumpy()
        assert y.dtype == dtype and y[0, 0] == want and y[1, 1] == 1, (dtype, value)


def test_pad_rows_checks_fill():
    x = np.ones((4, 4), np.float32)
    out = np.empty((6, 4), np.float32)
    rows, cols = np.array([-1, 0, 1, 2, 3, -1]), np.arange(4)
    with pytest.raises(ValueError, match="'rows' must index"):
        _C.pad_rows(x, out, rows, cols, 0, 4, 0)           # -1 needs a fill
    with pytest.raises(TypeError, match="'fill' must be a one-element array"):
        _C.pad_rows(x, out, rows, cols, 0, 4, 0, np.zeros(1, np.float64))
    _C.pad_rows(x, out, rows, cols, 0, 4, 0, np.full(1, 7, np.float32))
    assert out[0].tolist() == [7.0] * 4 and out[1:5].tolist() == x.tolist()


def test_cum_rows_checks_and_empty_rows():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    with pytest.raises(TypeError, match="For 'CumSum', the dtype must be"):
        _C.cum_rows(x.astype(np.float16), np.empty((3, 4), np.float16), False, False, False)
    with pytest.raises(ValueError, match="'out' must have the shape of 'x'"):
        _C.cum_rows(x, np.empty((4, 3), np.float32), False, False, False)
    with pytest.raises(ValueError, match="C-contiguous"):
        _C.cum_rows(x.T, np.empty((4, 3), np.float32), False, False, False)
    with pytest.raises(TypeError, match="x's dtype"):
        _C.cum_rows(x, np.empty((3, 4), np.float64), False, False, False)
    _C.cum_rows(np.empty((3, 0), np.float32), np.empty((3, 0), np.float32), True, True, True)
    out = np.empty_like(x)
    _C.cum_rows(x, out, False, True, True)         # exclusive, reverse
    assert out.tolist() == (np.flip(np.cumsum(np.flip(x, -1), -1), -1) - x).tolist()


def test_pad_fast_wrapper_modes_and_values():
    x = Tensor(np.arange(12, dtype=np.float32).reshape(1, 3, 4))
    want = np.pad(x.asnumpy(), ((0, 0), (1, 1), (2, 1)), mode="reflect")
    assert np.array_equal(ops.pad(x, (2, 1, 1, 1), mode="reflect").asnumpy(), want)
    y = ops.pad(Tensor(np.ones((2, 2), np.int32)), (1, 1), value=7)
    assert y.dtype == ms.int32 and y.asnumpy().tolist() == [[7, 1, 1, 7], [7, 1, 1, 7]]
    for bad in ("wrap", "REFLECT"):
        with pytest.raises(ValueError, match="mode"):
            ops.pad(x, (1, 1), mode=bad)


_RESIZE_FLAGS = st.sampled_from([(True, False, True), (True, True, False), (True, False, False),
                                 (False, False, False), (False, True, False),
                                 (False, False, True)])


@settings(max_examples=40, deadline=None)
@given(hnp.array_shapes(min_dims=3, max_dims=4, min_side=1, max_side=6),
       st.lists(st.integers(1, 9), min_size=2, max_size=2), _RESIZE_FLAGS,
       st.sampled_from([np.float32, np.float64]), st.booleans())
def test_small_resize_numba_matches_gather_form(shape, sizes, flags, dtype, finite):
    pytest.importorskip("numba", reason="the numba provider needs numba")
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(dtype)
    if not finite:
        x.flat[0] = np.inf                 # the numpy kernel then takes its gather form
    out_shape = shape[:2] + tuple(sizes[:len(shape) - 2])
    got, want = np.empty(out_shape, dtype), np.empty(out_shape, dtype)
    resize_small_numba(x, got, *flags)
    with np.errstate(all="ignore"):
        resize_numpy(x, want, *flags)
    if finite:                             # the numpy kernel's matmul form: equal to rounding
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    else:
        assert got.tobytes() == want.tobytes()


def test_interpolate_plan_cache_keeps_checks():
    x = Tensor(np.ones((1, 1, 4, 4), np.float32))
    assert ops.interpolate(x, size=(8, 8), mode="bilinear").shape == (1, 1, 8, 8)
    with pytest.raises(TypeError, match="size"):
        ops.interpolate(x, size=(8.0, 8), mode="bilinear")
    with pytest.raises(TypeError, match="size"):
        ops.interpolate(x, size=(True, 8), mode="bilinear")
    y = ops.interpolate(x, scale_factor=2.0, mode="bilinear", recompute_scale_factor=True)
    assert y.shape == (1, 1, 8, 8)
    with pytest.raises(ValueError, match="recompute_scale_factor|scale_factor"):
        ops.interpolate(x, scale_factor=2.0, mode="bilinear")
    z = ops.interpolate(Tensor(np.ones((1, 1, 4, 5), np.float32)), size=(8, 8), mode="bilinear")
    assert z.shape == (1, 1, 8, 8)


@settings(max_examples=40, deadline=None)
@given(st.data(), st.sampled_from([np.float32, np.float64, np.int32, np.int64]))
def test_small_cross_numba_matches_numpy_kernel(data, dtype):
    pytest.importorskip("numba", reason="the numba provider needs numba")
    shape = list(data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)))
    dim = data.draw(st.integers(0, len(shape) - 1))
    shape[dim] = 3
    other = [1 if data.draw(st.booleans()) and i != dim else n for i, n in enumerate(shape)]
    elements = st.sampled_from([0, -3, 7, 2**20] if np.dtype(dtype).kind == "i" else
                               [0.0, -0.0, 1.5, -2.25, 1e30, np.nan, np.inf])
    x = data.draw(hnp.arrays(dtype, tuple(shape), elements=elements))
    y = data.draw(hnp.arrays(dtype, tuple(other), elements=elements))
    got, want = np.empty(x.shape, dtype), np.empty(x.shape, dtype)
    with np.errstate(all="ignore"):
        cross_small_numba(x, y, got, dim)
    cross_numpy(x, y, want, dim)
    assert got.tobytes() == want.tobytes()


@settings(max_examples=40, deadline=None)
@given(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=9), st.data(),
       st.sampled_from([np.float32, np.float64]), st.booleans(), st.booleans())
def test_small_reduce_std_numba_matches_numpy_kernel(shape, data, dtype, unbiased, keep):
    pytest.importorskip("numba", reason="the numba provider needs numba")
    axis = data.draw(st.integers(0, len(shape) - 1))
    rng = np.random.default_rng(sum(shape))
    x = (rng.standard_normal(shape) * 10.0 ** rng.uniform(-3, 3, shape)).astype(dtype)
    if data.draw(st.booleans()):
        x.flat[0] = data.draw(st.sampled_from([np.nan, np.inf, -0.0]))
    out_shape = tuple(1 if i == axis else n for i, n in enumerate(shape)) if keep else \
        tuple(n for i, n in enumerate(shape) if i != axis)
    got = [np.empty(out_shape, dtype) for _ in range(2)]
    want = [np.empty(out_shape, dtype) for _ in range(2)]
    with np.errstate(all="ignore"):
        reduce_std_small_numba(x, *got, (axis,), int(unbiased), keep)
    reduce_std_numpy(x, *want, (axis,), int(unbiased), keep)
    assert got[0].tobytes() == want[0].tobytes() and got[1].tobytes() == want[1].tobytes()


def test_std_and_cross_through_ops():
    x = Tensor(np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]], np.float32))
    np.testing.assert_array_equal(ops.std(x, -1).asnumpy(), np.std(x.asnumpy(), -1))
    np.testing.assert_array_equal(ops.std(x, 0, ddof=1).asnumpy(),
                                  np.std(x.asnumpy(), 0, ddof=1))
    np.testing.assert_array_equal(ops.cross(x, x[::-1], dim=1).asnumpy(),
                                  np.cross(x.asnumpy(), x.asnumpy()[::-1]))


def _g_std(a):
    return ops.std(a, -1)


def _g_pad(a):
    return ops.pad(a, (1, 1, 2, 2), value=1.5), ops.pad(a.reshape(1, 4, 4), (1, 1, 2, 2),
                                                        mode="reflect")


def _g_sort_topk(a):
    return ops.topk(a, 1), ops.sort(a)


def _g_interp(a):
    return ops.interpolate(a.reshape(1, 1, 4, 4), scale_factor=2.0, mode="bilinear",
                           recompute_scale_factor=True)


def _flat(v):
    if isinstance(v, tuple):
        return [t for e in v for t in _flat(e)]
    return [v]


@pytest.mark.parametrize("fn", [_g_std, _g_pad, _g_sort_topk, _g_interp])
def test_fast_wrappers_parse_in_graph_mode(fn):
    x = Tensor(np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32))
    eager, graph = _flat(fn(x)), _flat(ms.jit(fn)(x))
    assert len(eager) == len(graph)
    for e, g in zip(eager, graph):
        assert e.asnumpy().tobytes() == g.asnumpy().tobytes()


def test_large_resize_numba_matches_gather_form():
    pytest.importorskip("numba", reason="the numba provider needs numba")
    x = np.random.default_rng(3).standard_normal((2, 3, 130, 150)).astype(np.float32)
    x[0, 0, 5, 7] = np.nan                 # the numpy kernel's gather form
    for flags in ((True, False, True), (False, True, False), (True, True, False)):
        got, want = np.empty((2, 3, 257, 99), np.float32), np.empty((2, 3, 257, 99), np.float32)
        resize_small_numba(x, got, *flags)
        with np.errstate(all="ignore"):
            resize_numpy(x, want, *flags)
        assert got.tobytes() == want.tobytes()


def test_four_threads_share_plan_caches_from_first_use():
    """Four threads calling the wrappers at once, the kernels' per-geometry plans (and the
    interpolate plans) cleared first: every thread gets the single-threaded results."""
    import threading

    from mindlite.kernels.cpu import cum_small_numba, pad_cpp, resize_numba, stat_numba
    from mindlite.ops.function import nn_extra_func

    def calls(x):
        return [ops.interpolate(x, size=(7, 5), mode="bilinear"),
                ops.pad(x, (1, 2, 2, 1), mode="reflect"), ops.pad(x, (1, 0, 0, 1), value=0.5),
                ops.cumsum(x, 2), ops.std(x, 3), ops.cross(x[:, :, :3], x[:, :, 1:4], 2),
                ops.sort(x)[0], ops.topk(x, 1)[0]]

    rng = np.random.default_rng(7)
    xs = [Tensor(rng.standard_normal((2, 3, 5, 4)).astype(np.float32)) for _ in range(4)]
    for plan in (cum_small_numba._plan, pad_cpp._plan, resize_numba._plan,
                 stat_numba._cross_plan, stat_numba._std_plan):
        plan.cache_clear()
    nn_extra_func._INTERP_PLANS.clear()
    got, errors, start = [None] * 4, [], threading.Barrier(4)

    def work(i):
        try:
            start.wait(timeout=30)
            got[i] = [t.asnumpy() for _ in range(3) for t in calls(xs[i])]
        except Exception as exc:           # reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors and all(g is not None for g in got), errors
    for i in range(4):
        want = [t.asnumpy() for t in calls(xs[i])] * 3
        for g, w in zip(got[i], want):
            assert g.tobytes() == w.tobytes()


def test_large_last_axis_cumsum_keeps_a_leading_negative_zero():
    """The large-input loop (kernels/cpu/_cum_jit.py) starts each row from its first element,
    as numpy: -0.0 stays -0.0 (an identity start gave 0 + -0.0 = +0.0)."""
    x = np.zeros((2, 20000), np.float32)
    x[:, 0] = -0.0
    got = ops.cumsum(ms.Tensor(x), 1).asnumpy()
    np.testing.assert_array_equal(np.signbit(got), np.signbit(np.cumsum(x, 1)))
