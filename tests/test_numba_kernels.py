"""numba kernels (kernels/cpu/reduce_numba.py, softmax_numba.py) against numpy functions.

The registered kernel functions are called directly with preallocated C-contiguous outputs,
as the runtime calls them: 0-d, empty, 1..4-D, non-contiguous and transposed inputs, every
axis combination, keep_dims both ways, NaN/inf, each registered dtype. Also: importing
mindlite and the kernel modules does not import numba.
"""
import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

sys.path.insert(0, str(Path(__file__).parent))
from helpers import arrays, noncontig, shapes  # noqa: E402

import mindlite as ms  # noqa: E402
from mindlite.common import dtype as mstype  # noqa: E402
from mindlite.kernels.registry import kernels_for, select_kernel  # noqa: E402

FLOATS = [np.float32, np.float64]
INTS = [np.int32, np.int64]
NUMBERS = FLOATS + INTS
TOL = {4: 2e-6, 8: 1e-12}
pytest.importorskip("numba", reason="numba is not installed: its kernels are skipped by "
                    "selection (tests/test_install_robustness.py checks the fallback)")
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def kernel(op, dtype):
    """The numba kernel registered for `op` and numpy dtype `dtype`."""
    k = select_kernel(op, "CPU", mstype.from_numpy_dtype(dtype), provider="numba")
    assert k.provider == "numba" and k.alloc == "runtime", k
    return k.fn


def run_reduce(op, x, axes, keep, out_dtype=None):
    shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape)) if keep else \
        tuple(d for i, d in enumerate(x.shape) if i not in axes)
    out = np.full(shape, 7, out_dtype or x.dtype)       # garbage the kernel must overwrite
    kernel(op, x.dtype)(x, out, axis=axes, keep_dims=keep)
    return out


def assert_same(got, want):
    """exact equality (NaN == NaN), shape and dtype included."""
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape,
                                                                 got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def assert_sum_close(got, want, x, axes, keep):
    """float sums: numpy's float32 sum is pairwise in float32, ours accumulates in float64;
    the tolerance scales with the sum of |x| (the size of the rounding errors)."""
    assert got.shape == want.shape and got.dtype == want.dtype
    scale = np.sum(np.abs(np.where(np.isfinite(x), x, 0)), axis=axes, keepdims=keep,
                   dtype=np.float64)
    tol = TOL[x.dtype.itemsize]
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * (1 + np.max(scale, initial=0)),
                               equal_nan=True)
    assert np.array_equal(np.isinf(got), np.isinf(want))


def layout(draw, x):
    """x itself, or the same values with a strided, permuted or reversed layout."""
    kind = draw(st.sampled_from(["c", "noncontig", "permuted", "reversed"]))
    if kind == "noncontig":
        return noncontig(x)
    if kind == "permuted" and x.ndim >= 2:
        perm = draw(st.permutations(range(x.ndim)))
        y = np.ascontiguousarray(x.transpose(perm)).transpose(np.argsort(perm))
        assert np.array_equal(y, x, equal_nan=True)
        return y
    if kind == "reversed" and x.ndim >= 1:
        return np.flip(np.flip(x, 0).copy(), 0)
    return x


@st.composite
def reduce_inputs(draw, dtypes, **elements):
    dtype = draw(st.sampled_from(dtypes))
    x = layout(draw, draw(arrays(dtype, shapes(0, 4), **elements)))
    axes = tuple(sorted(draw(st.sets(st.integers(0, max(x.ndim - 1, 0)), max_size=x.ndim))))
    if draw(st.booleans()):
        axes = tuple(range(x.ndim))
    return x, axes, draw(st.booleans())


# ---------------------------------------------------------------- sums, means, products


@given(reduce_inputs(NUMBERS))
def test_reduce_sum(case):
    x, axes, keep = case
    got = run_reduce("ReduceSum", x, axes, keep)
    want = np.sum(x, axis=axes, keepdims=keep).astype(x.dtype)
    if x.dtype.kind == "f":
        assert_sum_close(got, want, x, axes, keep)
    else:
        assert_same(got, want)


@given(reduce_inputs(NUMBERS))
def test_reduce_mean(case):
    x, axes, keep = case
    got = run_reduce("ReduceMean", x, axes, keep)
    if x.dtype.kind == "f":
        want = np.mean(x, axis=axes, keepdims=keep)        # nan for an empty set
        assert_sum_close(got, want, x, axes, keep)
    else:
        mean = np.mean(x, axis=axes, keepdims=keep, dtype=np.float64)
        want = np.trunc(np.nan_to_num(mean, nan=0.0)).astype(x.dtype)   # empty -> 0
        assert_same(got, want)


PROD_VALUES = [-1.0, -0.5, 0.0, 0.5, 1.0, 1.125, np.nan]   # no overflow for <= 625 factors


@given(st.data())
def test_reduce_prod(data):
    dtype = data.draw(st.sampled_from(NUMBERS))
    if np.dtype(dtype).kind == "f":
        x = data.draw(hnp.arrays(dtype, shapes(0, 4), elements=st.sampled_from(PROD_VALUES)))
    else:
        x = data.draw(arrays(dtype, shapes(0, 4)))       # integer products wrap like numpy's
    axes = tuple(sorted(data.draw(st.sets(st.integers(0, max(x.ndim - 1, 0)),
                                          max_size=x.ndim))))
    keep = data.draw(st.booleans())
    got = run_reduce("ReduceProd", layout(data.draw, x), axes, keep)
    want = np.prod(x, axis=axes, keepdims=keep).astype(x.dtype)
    if x.dtype.kind == "f":
        tol = TOL[x.dtype.itemsize]
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)
    else:
        assert_same(got, want)


def test_integer_sums_and_products_wrap_like_numpy():
    for dtype in INTS:
        x = np.full((3, 7), np.iinfo(dtype).max // 3 + 5, dtype)
        for op, ref in (("ReduceSum", np.sum), ("ReduceProd", np.prod)):
            for axes in ((1,), (0,), (0, 1)):
                assert_same(run_reduce(op, x, axes, False), ref(x, axis=axes, dtype=dtype))
        big = np.full((3, 7), 2**30 + 5, dtype) - np.arange(7, dtype=dtype)  # sum > int32 max
        assert_same(run_reduce("ReduceMean", big, (1,), False), np.full(3, 2**30 + 2, dtype))
        assert_same(run_reduce("ReduceMean", -big, (1,), False), np.full(3, -2**30 - 2, dtype))
        odd = np.array([[-3, -4], [3, 4]], dtype)                        # -3.5, 3.5 -> -3, 3
        assert_same(run_reduce("ReduceMean", odd, (1,), False), np.array([-3, 3], dtype))


def test_empty_reductions_use_the_identities():
    for dtype in NUMBERS:
        x = np.ones((2, 0, 3), dtype)
        for keep in (False, True):
            assert_same(run_reduce("ReduceSum", x, (1,), keep),
                        np.sum(x, 1, keepdims=keep, dtype=dtype))
            assert_same(run_reduce("ReduceProd", x, (1,), keep),
                        np.prod(x, 1, keepdims=keep, dtype=dtype))
            mean = run_reduce("ReduceMean", x, (0, 1), keep)
            assert mean.shape == ((1, 1, 3) if keep else (3,))
            if x.dtype.kind == "f":
                assert np.isnan(mean).all()
            else:
                assert (mean == 0).all()
        assert run_reduce("ReduceSum", x, (0, 1, 2), False).shape == ()
    b = np.ones((0, 4), bool)
    assert_same(run_reduce("ReduceAll", b, (0,), False), np.ones(4, bool))
    assert_same(run_reduce("ReduceAny", b, (0,), False), np.zeros(4, bool))


# ---------------------------------------------------------------- max, min, all, any


@given(reduce_inputs(NUMBERS))
def test_reduce_max_min(case):
    x, axes, keep = case
    n = int(np.prod([x.shape[a] for a in axes]))
    if n == 0:
        return
    assert_same(run_reduce("ReduceMax", x, axes, keep), np.max(x, axis=axes, keepdims=keep))
    assert_same(run_reduce("ReduceMin", x, axes, keep), np.min(x, axis=axes, keepdims=keep))


@given(reduce_inputs([np.bool_]))
def test_reduce_all_any(case):
    x, axes, keep = case
    assert_same(run_reduce("ReduceAll", x, axes, keep), np.all(x, axis=axes, keepdims=keep))
    assert_same(run_reduce("ReduceAny", x, axes, keep), np.any(x, axis=axes, keepdims=keep))


@pytest.mark.parametrize("dtype", NUMBERS + [np.bool_])
def test_every_axis_combination(dtype):
    """Every axis subset of a 4-D input (adjacent axes merged or gathered), C-ordered and
    permuted in memory, keep_dims both ways; the last axis is longer than a 256-lane block
    so lanes, tree fold and tail all run."""
    rng = np.random.default_rng(0)
    x0 = (rng.standard_normal((2, 3, 2, 300)) * 100).astype(dtype)
    if x0.dtype.kind == "f":
        x0[1, 2, 1, 17] = np.nan
        x0[0, 1, 0, 299] = np.inf
    ops = ([("ReduceAll", np.all), ("ReduceAny", np.any)] if dtype == np.bool_ else
           [("ReduceMax", np.max), ("ReduceMin", np.min)])
    permuted = np.ascontiguousarray(x0.transpose(2, 0, 3, 1)).transpose(1, 3, 0, 2)
    for n, x in itertools.product(range(5), (x0, permuted)):
        for axes in itertools.combinations(range(4), n):
            for keep in (False, True):
                for op, ref in ops:
                    assert_same(run_reduce(op, x, axes, keep), ref(x, axis=axes, keepdims=keep))
                if dtype != np.bool_:
                    got = run_reduce("ReduceSum", x, axes, keep)
                    want = np.sum(x, axis=axes, keepdims=keep).astype(x.dtype)
                    if x.dtype.kind == "f":
                        assert_sum_close(got, want, x, axes, keep)
                    else:
                        assert_same(got, want)


@pytest.mark.parametrize("dtype", NUMBERS)
def test_max_and_argmax_long_rows(dtype):
    """Rows longer than a lane block: ties keep the first index, the first NaN wins."""
    rng = np.random.default_rng(1)
    for length in (1, 255, 256, 257, 511, 700, 1100):
        x = rng.integers(-3, 4, (3, length)).astype(dtype)
        if x.dtype.kind == "f":
            x[1, rng.integers(0, length, 2)] = np.nan
            x[2, rng.integers(0, length)] = -np.inf
        for keep in (False, True):
            assert_same(run_reduce("ReduceMax", x, (1,), keep), np.max(x, 1, keepdims=keep))
            assert_same(run_reduce("ReduceMin", x, (1,), keep), np.min(x, 1, keepdims=keep))
        for op, ref in (("Argmax", np.argmax), ("Argmin", np.argmin)):
            out = np.empty(3, np.int64)
            kernel(op, x.dtype)(x, out, axis=1)
            assert_same(out, ref(x, axis=1))


def test_max_min_over_an_empty_axis_raise():
    x = np.ones((3, 0), np.float32)
    for op in ("ReduceMax", "ReduceMin"):
        with pytest.raises(ValueError, match=op):
            run_reduce(op, x, (1,), False)
        assert run_reduce(op, x, (0,), False).shape == (0,)     # nothing to compute
    for op in ("Argmax", "Argmin"):
        with pytest.raises(ValueError, match=op):
            kernel(op, x.dtype)(x, np.empty(3, np.int32), axis=1)


# ---------------------------------------------------------------- arg-reductions


@st.composite
def arg_inputs(draw):
    dtype = draw(st.sampled_from(NUMBERS))
    x = layout(draw, draw(arrays(dtype, shapes(0, 4, min_side=1))))
    axis = draw(st.integers(0, max(x.ndim - 1, 0)))
    return x, axis, draw(st.sampled_from([np.int32, np.int64])), draw(st.booleans())


def np_arg(ref, x, axis):
    return np.zeros((), np.int64) if x.ndim == 0 else ref(x, axis=axis)


@given(arg_inputs())
def test_argmax_argmin(case):
    x, axis, index_dtype, _ = case
    for op, ref in (("Argmax", np.argmax), ("Argmin", np.argmin)):
        want = np_arg(ref, x, axis).astype(index_dtype)
        out = np.full(want.shape, -5, index_dtype)
        kernel(op, x.dtype)(x, out, axis=axis)
        assert_same(out, want)


@given(arg_inputs())
def test_arg_with_value(case):
    x, axis, index_dtype, keep = case
    for op, ref in (("ArgMaxWithValue", np.argmax), ("ArgMinWithValue", np.argmin)):
        idx = np_arg(ref, x, axis)
        if x.ndim:
            values = np.take_along_axis(x, np.expand_dims(idx, axis), axis)
            idx = np.expand_dims(idx, axis) if keep else idx
            values = values if keep else np.squeeze(values, axis)
        else:
            values = x.copy()
        out_index = np.full(idx.shape, -5, index_dtype)
        out_values = np.full(values.shape, 3, x.dtype)
        kernel(op, x.dtype)(x, out_index, out_values, axis=axis, keep_dims=keep)
        assert_same(out_index, idx.astype(index_dtype))
        assert_same(out_values, values)


# ---------------------------------------------------------------- softmax


def np_softmax(x, axis):
    x = x.reshape(1) if x.ndim == 0 else x
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def np_log_softmax(x, axis):
    x = x.reshape(1) if x.ndim == 0 else x
    y = x - np.max(x, axis=axis, keepdims=True)
    return y - np.log(np.sum(np.exp(y), axis=axis, keepdims=True))


@given(st.data())
def test_softmax_log_softmax(data):
    dtype = data.draw(st.sampled_from(FLOATS))
    x = layout(data.draw, data.draw(arrays(dtype, shapes(0, 4))))
    axis = data.draw(st.integers(0, max(x.ndim - 1, 0)))
    tol = TOL[np.dtype(dtype).itemsize]
    for op, ref in (("Softmax", np_softmax), ("LogSoftmax", np_log_softmax)):
        out = np.full(x.shape, 5, dtype)
        kernel(op, x.dtype)(x, out, axis=axis)
        if x.size:
            want = ref(x, axis).reshape(x.shape)
            np.testing.assert_allclose(out, want, rtol=tol, atol=tol, equal_nan=True)
            assert np.array_equal(np.isnan(out), np.isnan(want))


@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax_long_rows_and_extremes(dtype):
    """Rows past a lane block, values far below the max (exp underflow), -inf entries,
    a +inf or NaN making its slice NaN, an all -inf slice (NaN, as numpy)."""
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((6, 700)) * 40).astype(dtype)
    x[0, 5] = -np.inf
    x[1, 9] = np.inf
    x[2, 300] = np.nan
    x[3] = -np.inf
    x[4, :] = np.linspace(-800, 0, 700)
    tol = TOL[np.dtype(dtype).itemsize]
    for axis in (0, 1):
        for op, ref in (("Softmax", np_softmax), ("LogSoftmax", np_log_softmax)):
            out = np.empty_like(x)
            kernel(op, x.dtype)(x, out, axis=axis)
            want = ref(x, axis)
            np.testing.assert_allclose(out, want, rtol=tol, atol=tol, equal_nan=True)
            assert np.array_equal(np.isnan(out), np.isnan(want))
    out = np.empty_like(x)
    kernel("Softmax", x.dtype)(x, out, axis=1)
    np.testing.assert_allclose(out[[0, 4, 5]].sum(1, dtype=np.float64), 1.0, rtol=tol)


# ---------------------------------------------------------------- registration, imports


def test_numba_kernels_rank_above_numpy():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    got = ms.ops.ReduceSum(keep_dims=True)(ms.Tensor(x), (0, 2)).asnumpy()
    np.testing.assert_allclose(got, x.sum((0, 2), keepdims=True))
    got = ms.ops.Softmax(axis=1)(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, np_softmax(x, 1), rtol=2e-6)
    for op in ("ReduceSum", "ReduceMean", "ReduceProd", "ReduceAll", "ReduceAny", "Softmax",
               "LogSoftmax"):
        dtype = mstype.bool_ if op in ("ReduceAll", "ReduceAny") else mstype.float32
        assert select_kernel(op, "CPU", dtype).provider != "numpy"    # numba (or faster)
        ranked = [k.provider for k in kernels_for(op) if k.supports(dtype)]
        assert ranked.index("numba") < ranked.index("numpy")
    # measured slower than numpy (benchmarks/numba_vs_numpy.py): ranked below it, still requestable
    for op in ("ReduceMax", "ReduceMin", "Argmax", "Argmin", "ArgMaxWithValue", "ArgMinWithValue"):
        ranked = [k.provider for k in kernels_for(op) if k.supports(mstype.int32)]
        assert ranked.index("numpy") < ranked.index("numba"), (op, ranked)
        assert select_kernel(op, "CPU", mstype.float32, provider="numba").provider == "numba"
    # numba has no float16 loop: the request falls back to the best kernel that has one
    assert select_kernel("ReduceSum", "CPU", mstype.float16,
                         provider="numba").provider in ("numpy", "cpp_f16")


def test_importing_mindlite_and_the_kernel_modules_does_not_import_numba():
    code = ("import sys, mindlite\n"
            "from mindlite.kernels.registry import load_builtin_kernels\n"
            "load_builtin_kernels()\n"
            "from mindlite.kernels.cpu import reduce_numba, softmax_numba\n"
            "assert reduce_numba._J is None and softmax_numba._J is None\n"
            "print('numba' in sys.modules)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                         cwd=str(Path(__file__).parent.parent), timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "False"
