"""reduce_ops against numpy: ReduceSum/Mean/Max/Min/Prod/All/Any, Argmax/Argmin,
ArgMaxWithValue/ArgMinWithValue and the functional ops.sum/mean/amax/.../max/min and Tensor
methods; inference-only tests and error messages. Forward tests run under "ms" (the winning
kernel, e.g. numba) and "vm" (the numpy reference kernels)."""
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from helpers import FLOAT_DTYPES, INT_DTYPES, arrays, noncontig, shapes, tensor  # noqa: E402

import mindlite as ms  # noqa: E402
from mindlite import Tensor, ops  # noqa: E402
from mindlite.abstract import abstract_tensor  # noqa: E402

NUM = INT_DTYPES + FLOAT_DTYPES
with_fixture = settings(suppress_health_check=list(settings.default.suppress_health_check)
                        + [HealthCheck.function_scoped_fixture])
EPS = {2: 1e-3, 4: 1e-6, 8: 1e-14}




@st.composite
def reduce_case(draw, dtypes=NUM, min_side=0, lo=None, hi=None):
    """(array, axis argument, normalised axes, keep_dims)."""
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    if dtype == np.float16 and lo is None:
        lo, hi = -10, 10                 # sums stay finite in float16
    a = draw(arrays(dtype, shapes(0, 4, min_side), min_value=lo, max_value=hi))
    if draw(st.booleans()):
        a = noncontig(a)
    n = a.ndim
    kind = draw(st.sampled_from(["all", "int", "tuple"]))
    if kind == "all" or n == 0:
        axis, axes = draw(st.sampled_from([(), None] if n else [(), None, 0, -1])), tuple(range(n))
    elif kind == "int":
        axis = draw(st.integers(-n, n - 1))
        axes = (axis % n,)
    else:
        axes = tuple(sorted(draw(st.sets(st.integers(0, n - 1), min_size=1))))
        axis = tuple(a_ - n if draw(st.booleans()) else a_ for a_ in axes)
    return a, axis, axes, draw(st.booleans())


def check_float(got, want64, a, axes, keep, scale):
    """got (input dtype) vs a float64 reference, tolerance relative to `scale`."""
    got = got.asnumpy()
    assert got.dtype == a.dtype and got.shape == want64.shape
    g = got.astype(np.float64)
    special = ~np.isfinite(want64)
    np.testing.assert_array_equal(g[special], want64[special])
    tol = EPS[a.dtype.itemsize] * 16 * (scale + 1)
    with np.errstate(invalid="ignore"):
        err = np.abs(g - want64)
    assert np.all(err[~special] <= tol[~special]), (g, want64)


def _call(prim_cls, a, axis, keep):
    x = tensor(a)
    return prim_cls(keep)(x) if axis is None else prim_cls(keep)(x, axis)


@with_fixture
@given(case=reduce_case())
def test_sum_mean(policy, case):
    a, axis, axes, keep = case
    with np.errstate(all="ignore"):
        if a.dtype.kind == "f":
            a64 = a.astype(np.float64)
            scale = np.sum(np.abs(np.where(np.isfinite(a64), a64, 0)), axes, keepdims=keep)
            check_float(_call(ops.ReduceSum, a, axis, keep), np.sum(a64, axes, keepdims=keep),
                        a, axes, keep, scale)
            count = int(np.prod([a.shape[i] for i in axes]))
            want = np.sum(a64, axes, keepdims=keep) / count if count else \
                np.full(scale.shape, np.nan)
            check_float(_call(ops.ReduceMean, a, axis, keep), want, a, axes, keep,
                        scale / max(count, 1))
        else:
            want = np.sum(a.astype(np.int64), axes, keepdims=keep).astype(a.dtype)
            np.testing.assert_array_equal(_call(ops.ReduceSum, a, axis, keep).asnumpy(), want)
            got = _call(ops.ReduceMean, a, axis, keep).asnumpy()
            n = int(np.prod([a.shape[i] for i in axes]))
            mean = np.trunc(np.sum(a.astype(np.float64), axes, keepdims=keep) / max(n, 1))
            assert got.dtype == a.dtype
            np.testing.assert_array_equal(got, mean.astype(a.dtype))


@with_fixture
@given(case=reduce_case(min_side=1))
def test_max_min(policy, case):
    a, axis, axes, keep = case
    for prim, ref in ((ops.ReduceMax, np.max), (ops.ReduceMin, np.min)):
        got = _call(prim, a, axis, keep).asnumpy()
        want = ref(a, axis=axes, keepdims=keep)
        assert got.dtype == a.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)          # NaN propagates


@with_fixture
@given(case=reduce_case(lo=-2, hi=2))
def test_prod(policy, case):
    a, axis, axes, keep = case
    got = _call(ops.ReduceProd, a, axis, keep)
    if a.dtype.kind == "f":
        with np.errstate(all="ignore"):
            want = np.prod(a.astype(np.float64), axes, keepdims=keep)
            # beyond the dtype's range the product overflows to +-inf (float16: 2**16 > max)
            big = np.abs(want) > np.finfo(a.dtype).max
            want = np.where(big, np.sign(want) * np.inf, want)
            # an infinity times terms whose product underflows to 0 in the dtype is inf or
            # NaN by the order of the multiplications (numpy's prod of [inf, 1e-45, 1e-45]
            # is inf, of the reversed array NaN): either is right
            a64 = a.astype(np.float64)
            rest = np.abs(np.prod(np.where(np.isinf(a64), 1.0, a64), axes, keepdims=keep))
            order = np.isinf(a64).any(axes, keepdims=keep) & (
                rest < np.finfo(a.dtype).smallest_subnormal)
            want = np.where(order & np.isnan(got.asnumpy()), np.nan, want)
        n = max(int(np.prod([a.shape[i] for i in axes])), 1)
        check_float(got, want, a, axes, keep, np.abs(want) * n)
    else:
        want = np.prod(a.astype(np.int64), axes, keepdims=keep).astype(a.dtype)
        np.testing.assert_array_equal(got.asnumpy(), want)


@with_fixture
@given(case=reduce_case(dtypes=[np.bool_]))
def test_all_any(policy, case):
    a, axis, axes, keep = case
    for prim, ref in ((ops.ReduceAll, np.all), (ops.ReduceAny, np.any)):
        got = _call(prim, a, axis, keep).asnumpy()
        want = ref(a, axis=axes, keepdims=keep)
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got, want)


@with_fixture
@given(case=reduce_case(min_side=1), data=st.data())
def test_arg_reductions(policy, case, data):
    a, _, _, keep = case
    axis = data.draw(st.integers(-max(a.ndim, 1), max(a.ndim, 1) - 1))
    out_type = data.draw(st.sampled_from([ms.int32, ms.int64]))
    for prim, ref in ((ops.Argmax, np.argmax), (ops.Argmin, np.argmin)):
        got = prim(axis, out_type)(tensor(a)).asnumpy()
        want = ref(a, axis=axis % a.ndim) if a.ndim else np.array(0)
        assert got.dtype == out_type.np
        np.testing.assert_array_equal(got, want)
    for prim, ref in ((ops.ArgMaxWithValue, np.argmax), (ops.ArgMinWithValue, np.argmin)):
        index, values = prim(axis, keep)(tensor(a))
        if a.ndim:
            idx = np.expand_dims(ref(a, axis=axis), axis)
            vals = np.take_along_axis(a, idx, axis)
            if not keep:
                idx, vals = np.squeeze(idx, axis), np.squeeze(vals, axis)
        else:
            idx, vals = np.array(0), a
        assert index.dtype is ms.int64 and values.asnumpy().dtype == a.dtype   # MindSpore 2.10
        np.testing.assert_array_equal(index.asnumpy(), idx)
        np.testing.assert_array_equal(values.asnumpy(), vals)


def test_reduce_edge_values(policy):
    same = np.testing.assert_array_equal
    e = Tensor(np.zeros((0, 3), np.float32))
    same(ops.ReduceSum()(e, 0).asnumpy(), np.zeros(3, np.float32))
    same(ops.ReduceProd()(e, 0).asnumpy(), np.ones(3, np.float32))
    assert np.isnan(ops.ReduceMean()(e, 0).asnumpy()).all()
    same(ops.ReduceMean()(Tensor(np.zeros((0, 2), np.int32)), 0).asnumpy(), np.zeros(2, np.int32))
    same(ops.ReduceMax()(e, 1).asnumpy(), np.zeros(0, np.float32))
    same(ops.ReduceAll()(Tensor(np.zeros(0, bool)), 0).asnumpy(), np.array(True))
    same(ops.ReduceAny()(Tensor(np.zeros(0, bool))).asnumpy(), np.array(False))
    same(ops.ReduceMean()(Tensor(np.array([-3, -4, 5], np.int8))).asnumpy(), np.int8(0))
    same(ops.ReduceMean()(Tensor(np.array([-3, -4], np.int64))).asnumpy(), np.int64(-3))
    x = Tensor(np.array([1.0, np.nan, 3.0, np.nan], np.float32))
    assert ops.Argmax()(x).asnumpy() == 1 and np.isnan(ops.ReduceMax()(x, 0).asnumpy())
    s = Tensor(np.float64(2.5))
    assert ops.ReduceSum(True)(s).shape == () and ops.Argmin()(s).asnumpy() == 0


# ---- functional and Tensor methods -----------------------------------------------------------
def test_functional(policy):
    a = np.array([[1, 5, 2], [7, 0, 7]], np.float32)
    x = Tensor(a)
    same = np.testing.assert_array_equal
    same(ops.sum(x).asnumpy(), np.float32(22))
    same(ops.sum(x, 1, True).asnumpy(), a.sum(1, keepdims=True))
    same(ops.sum(x, dim=[0, 1]).asnumpy(), np.float32(22))
    assert ops.sum(x, dtype=ms.float64).dtype is ms.float64
    b = ops.sum(Tensor(np.array([True, True, False])))
    assert b.dtype is ms.int64 and b.asnumpy() == 2
    same(ops.mean(x, 0).asnumpy(), a.mean(0))
    same(ops.amax(x, 1, keepdims=True).asnumpy(), a.max(1, keepdims=True))
    same(ops.amin(x).asnumpy(), np.float32(0))
    same(ops.prod(x, (0, 1)).asnumpy(), np.float32(0))
    same(ops.all(x > -1, 1).asnumpy(), [True, True])
    same(ops.any(x > 6, 0, True).asnumpy(), [[True, False, True]])
    am = ops.argmax(x)
    assert am.dtype is ms.int64 and am.shape == () and am.asnumpy() == 3
    same(ops.argmax(x, 1, keepdim=True).asnumpy(), [[1], [0]])
    same(ops.argmax(Tensor(np.array([False, True]))).asnumpy(), 1)
    assert ops.argmin(x, 0).dtype is ms.int32
    same(ops.argmin(x, 1, keepdims=True).asnumpy(), [[0], [1]])
    values, index = ops.max(x, 1)
    same(values.asnumpy(), [5, 7])
    same(index.asnumpy(), [1, 0])
    values, index = ops.min(x, 0, keepdims=True)
    same(values.asnumpy(), [[1, 0, 2]])
    same(index.asnumpy(), [[0, 1, 0]])
    values, index = ops.max(x)
    assert values.asnumpy() == 7 and index.asnumpy() == 0
    same(x.sum(0).asnumpy(), a.sum(0))
    same(x.mean().asnumpy(), a.mean())
    values, index = x.max(1)                  # MindSpore 2.10: Tensor.max(dim) -> (values, indices)
    same(values.asnumpy(), a.max(1))
    same(index.asnumpy(), a.argmax(1))
    same(x.max(axis=1).asnumpy(), a.max(1))   # the older overload: values only
    same(x.min(0, True)[0].asnumpy(), a.min(0, keepdims=True))
    same(x.prod(1).asnumpy(), a.prod(1))
    same(x.argmax(0).asnumpy(), a.argmax(0))
    same(x.argmin().asnumpy(), a.argmin())
    same((x > 0).all().asnumpy(), False)
    same((x > 0).any(1).asnumpy(), [True, True])


# ---- inference only and errors ---------------------------------------------------------------
def test_infer_only():
    a = abstract_tensor(ms.float16, (2, 0, 4))
    assert ops.ReduceSum().infer(a, 1).shape == (2, 4)
    assert ops.ReduceMean(True).infer(a).shape == (1, 1, 1)
    assert ops.ReduceMax().infer(a, (0, -1)).shape == (0,)
    assert ops.Argmax(0, ms.int64).infer(a).dtype is ms.int64
    idx, val = ops.ArgMaxWithValue(-1, True).infer(a)
    assert idx.dtype is ms.int64 and val.dtype is ms.float16 and val.shape == (2, 0, 1)
    assert ops.ReduceAll().infer(abstract_tensor(ms.bool_, ()), ()).shape == ()


@pytest.mark.parametrize("call, exc, pattern", [
    (lambda x: ops.ReduceSum()(x, 2), ValueError,
     r"For 'ReduceSum', 'axis' must be in range \[-2, 2\), but got 2"),
    (lambda x: ops.ReduceMean()(x, (0, -2)), ValueError, "For 'ReduceMean', 'axis' has duplicate"),
    (lambda x: ops.ReduceSum()(x, 1.5), TypeError, "For 'ReduceSum', 'axis' must be"),
    (lambda x: ops.ReduceSum("yes"), TypeError, "For 'ReduceSum', 'keep_dims' must be a bool"),
    (lambda x: ops.ReduceSum()(x, 0, 1), TypeError, "For 'ReduceSum', expected the inputs"),
    (lambda x: ops.ReduceAll()(x), TypeError, "For 'ReduceAll', the type of 'x'"),
    (lambda x: ops.ReduceAny()(ops.cast(x, ms.int32)), TypeError, "For 'ReduceAny'"),
    (lambda x: ops.ReduceSum()(x > 0), TypeError, "For 'ReduceSum', the type of 'x'"),
    (lambda x: ops.ReduceMax()(Tensor(np.zeros((0, 2), np.float32)), 0), ValueError,
     "For 'ReduceMax', the reduced axes"),
    (lambda x: ops.ReduceMin()(Tensor(np.zeros((0, 2), np.float32))), ValueError,
     "For 'ReduceMin'"),
    (lambda x: ops.Argmax()(Tensor(np.zeros((2, 0), np.float32))), ValueError,
     "For 'Argmax', 'x' must not be empty"),
    (lambda x: ops.Argmin(0)(Tensor(np.zeros((0,), np.int32))), ValueError, "For 'Argmin'"),
    (lambda x: ops.ArgMaxWithValue(1)(Tensor(np.zeros((2, 0), np.float32))), ValueError,
     "For 'ArgMaxWithValue'"),
    (lambda x: ops.Argmax(output_type=ms.float32), TypeError,
     "For 'Argmax', 'output_type' must be int32 or int64"),
    (lambda x: ops.Argmax(3)(x), ValueError, "For 'Argmax', 'axis' must be in range"),
    (lambda x: ops.mean(x, 0, 1), TypeError, "'keepdims' / 'keep_dims' must be a bool"),
])
def test_errors(call, exc, pattern):
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(exc, match=pattern):
        call(x)
