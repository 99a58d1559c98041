"""Issue 13's sort / argsort / topk / cummax / cummin / gather_elements through the public
API: hypothesis against numpy (and PyTorch, optional, for topk and the cumulative extremes;
ties and NaN included), MindSpore 2.10's printed values, non-contiguous inputs, Tensor
methods, float64 finite-difference gradients, inference only, errors naming
op/argument/expected/given. Forward tests run under the "ms" and "vm" policies."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcheck import check_grad
from helpers import FLOAT_DTYPES, INT_DTYPES, arrays, noncontig, shapes, tensor

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.abstract import abstract_tensor
from mindlite.kernels.cpu import sort_numba, sort_numpy
from mindlite.ops.operations import sort_ops

with_fixture = settings(suppress_health_check=list(settings.default.suppress_health_check)
                        + [HealthCheck.function_scoped_fixture], max_examples=25,
                        deadline=None)
NUM = [np.int8, np.int32, np.int64, np.uint8] + FLOAT_DTYPES


def _nan_last_order(x, axis, descending):
    """Reference stable order, NaN largest, ties by increasing index (numpy lexsort)."""
    x = np.moveaxis(x, axis, -1)
    n = x.shape[-1]
    pos = np.broadcast_to(np.arange(n), x.shape)
    key = x.astype(np.float64) if x.dtype.kind == "f" else x.astype(np.int64)
    isn = np.isnan(key) if x.dtype.kind == "f" else np.zeros(x.shape, bool)
    key = np.where(isn, 0, key)
    if descending:
        order = np.lexsort((pos, -key, ~isn), axis=-1)
    else:
        order = np.lexsort((pos, key, isn), axis=-1)
    return np.moveaxis(order, -1, axis)


@pytest.fixture(params=["small", "packed"])
def path(request, monkeypatch):
    """Sort / TopK kernels: numpy's stable sorts (small inputs) or the packed keys."""
    if request.param == "packed":
        monkeypatch.setattr(sort_numpy, "SMALL", 0)
    return request.param


def _rank1(data, dtype, **kw):
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_side=6), **kw))
    return noncontig(x) if data.draw(st.booleans()) else x


# ---- sort / argsort ----------------------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_sort_against_reference(policy, path, data):
    dtype = data.draw(st.sampled_from(NUM))
    x = _rank1(data, dtype)
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    desc = data.draw(st.booleans())
    values, indices = ops.sort(tensor(x), axis, desc)
    order = _nan_last_order(x, axis, desc)
    assert indices.dtype == ms.int32 and values.dtype == Tensor(x).dtype
    np.testing.assert_array_equal(indices.asnumpy(), order)
    np.testing.assert_array_equal(values.asnumpy(), np.take_along_axis(x, order, axis))
    np.testing.assert_array_equal(ops.argsort(tensor(x), axis, desc).asnumpy(), order)


def test_sort_matches_mindspore_without_nan(policy):
    x = Tensor(np.array([[3., 1., 3., -np.inf], [2., 2., np.inf, 0.]], np.float32))
    v, i = ops.sort(x, descending=True)
    np.testing.assert_array_equal(v.asnumpy(), [[3, 3, 1, -np.inf], [np.inf, 2, 2, 0]])
    np.testing.assert_array_equal(i.asnumpy(), [[0, 2, 1, 3], [2, 0, 1, 3]])
    v, i = ops.sort(Tensor(np.array([3, 1, 2], np.int32)))
    assert v.asnumpy().tolist() == [1, 2, 3] and i.asnumpy().tolist() == [1, 2, 0]


def test_sort_nan_is_largest(policy):
    x = Tensor(np.array([1., np.nan, -np.inf, 0.], np.float32))
    v, i = ops.sort(x)
    assert i.asnumpy().tolist() == [2, 3, 0, 1]
    v, i = ops.sort(x, descending=True)
    assert i.asnumpy().tolist() == [1, 0, 3, 2]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_sort_signed_zero_ties_and_nan_payloads(policy, path, dtype):
    neg_nan = np.array(np.nan, dtype)
    neg_nan = -neg_nan                                   # sign bit set: must still sort last
    x = np.array([0.0, -0.0, neg_nan, 1.0, np.nan, -0.0], dtype)
    v, i = ops.sort(Tensor(x))
    assert i.asnumpy().tolist() == [0, 1, 5, 3, 2, 4]     # 0.0 == -0.0: index order
    assert np.signbit(v.asnumpy()[1])                    # values are the inputs' own
    v, i = ops.topk(Tensor(x), 4)
    assert i.asnumpy().tolist() == [2, 4, 3, 0]


def test_tensor_sort_argsort_methods(policy):
    y = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    v, i = y.sort(dim=0, descending=True)
    np.testing.assert_array_equal(v.asnumpy(), [[3, 4, 5], [0, 1, 2]])
    np.testing.assert_array_equal(y.sort(axis=0)[1].asnumpy(), [[0, 0, 0], [1, 1, 1]])
    np.testing.assert_array_equal(y.argsort(dim=0, descending=True).asnumpy(),
                                  [[1, 1, 1], [0, 0, 0]])


# ---- topk ----------------------------------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_topk_against_reference(policy, path, data):
    dtype = data.draw(st.sampled_from(NUM))
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_side=40), min_value=-3, max_value=3))
    x = noncontig(x) if data.draw(st.booleans()) else x
    if x.size == 0 or 0 in x.shape:
        return
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1))
    k = data.draw(st.integers(1, x.shape[dim]))
    largest = data.draw(st.booleans())
    v, i = ops.topk(tensor(x), k, dim, largest)
    order = np.take(_nan_last_order(x, dim, largest), np.arange(k), axis=dim)
    np.testing.assert_array_equal(i.asnumpy(), order)
    np.testing.assert_array_equal(v.asnumpy(), np.take_along_axis(x, order, dim))


def test_topk_partition_path_ties_match_full_sort(policy, path):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, (5, 300)).astype(np.float32)       # k << n: partition path
    v, i = ops.topk(Tensor(x), 7)
    order = _nan_last_order(x, -1, True)[:, :7]
    np.testing.assert_array_equal(i.asnumpy(), order)


def test_topk_against_torch(policy):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(1).standard_normal((6, 50)).astype(np.float32)
    for largest in (True, False):
        v, i = ops.topk(Tensor(x), 5, 0, largest)
        tv, ti = torch.topk(torch.from_numpy(x), 5, 0, largest)
        np.testing.assert_array_equal(v.asnumpy(), tv.numpy())
        np.testing.assert_array_equal(i.asnumpy(), ti.numpy())


def test_topk_mindspore_values_and_primitive(policy):
    x = Tensor(np.array([[3., 1., 3., -np.inf], [2., 2., np.inf, 0.]], np.float32))
    v, i = ops.TopK()(x, 3)
    np.testing.assert_array_equal(v.asnumpy(), [[3, 3, 1], [np.inf, 2, 2]])
    assert i.dtype == ms.int32 and i.asnumpy().tolist() == [[0, 2, 1], [2, 0, 1]]
    v, i = x.topk(2, dim=1, largest=False)
    np.testing.assert_array_equal(v.asnumpy(), [[-np.inf, 1], [0, 2]])


# ---- cummax / cummin -------------------------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_cummax_cummin_against_torch(policy, data):
    torch = pytest.importorskip("torch")
    dtype = data.draw(st.sampled_from([np.int32, np.int64, np.float32, np.float64]))
    x = _rank1(data, dtype, min_value=-3, max_value=3)
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    for ours, theirs, idx in ((ops.cummax, torch.cummax, ms.int64),
                              (ops.cummin, torch.cummin, ms.int32)):
        v, i = ours(tensor(x), axis)
        tv, ti = theirs(torch.from_numpy(np.ascontiguousarray(x)), axis)
        assert i.dtype == idx
        np.testing.assert_array_equal(v.asnumpy(), tv.numpy())
        np.testing.assert_array_equal(i.asnumpy(), ti.numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_cum_extreme_large_fast_kernel_matches_reference(dtype):
    """Arrays above sort_numba.MIN_SIZE take the numba loop under "ms": the numpy
    reference's results ("vm") for every axis and layout, ties and NaN included."""
    rng = np.random.default_rng(7)
    base = rng.integers(-3, 4, (40, 30, 24)).astype(dtype)
    if dtype in (np.float32, np.float64):
        base[rng.random(base.shape) < 0.01] = np.nan
    for x in (base, base[:, ::-1, :], np.swapaxes(base, 0, 2), base.reshape(-1)):
        for prim in (ops.Cummax, ops.Cummin):
            for axis in range(-x.ndim, x.ndim):
                got = [o.asnumpy() for o in prim(axis)(tensor(x))]
                ms.set_context(backend_policy="vm")
                try:
                    want = [o.asnumpy() for o in prim(axis)(tensor(x))]
                finally:
                    ms.set_context(backend_policy="ms")
                for g, w in zip(got, want):
                    assert g.tobytes() == w.tobytes(), (prim.__name__, axis)
    assert sort_numba._J is not None                     # the numba loop did run


def test_cummax_mindspore_values(policy):
    v, i = ops.cummax(Tensor([[1., 3., 2., 3., np.nan, 1.]]), 1)
    np.testing.assert_array_equal(v.asnumpy(), [[1, 3, 3, 3, np.nan, np.nan]])
    assert i.asnumpy().tolist() == [[0, 1, 1, 3, 4, 4]]
    v, i = Tensor([[1., 3., 0., 0., np.nan, 1.]]).cummin(1)
    assert i.asnumpy().tolist() == [[0, 0, 2, 3, 4, 4]]


# ---- gather_elements -------------------------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_gather_elements_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from([np.bool_] + INT_DTYPES[:4] + FLOAT_DTYPES))
    x = _rank1(data, dtype)
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[dim]
    ishape = tuple(data.draw(st.integers(0, s)) if d != dim % x.ndim else
                   data.draw(st.integers(0 if n else 0, 4 if n else 0))
                   for d, s in enumerate(x.shape))
    idx = data.draw(arrays(np.int64, ishape, min_value=-n, max_value=n - 1)) if n else \
        np.zeros(ishape, np.int64)
    got = ops.gather_elements(tensor(x), dim, Tensor(idx))
    d = dim % x.ndim
    sub = x[tuple(slice(None) if a == d else slice(0, s) for a, s in enumerate(ishape))]
    want = np.take_along_axis(sub, np.where(idx < 0, idx + n, idx), d)
    np.testing.assert_array_equal(got.asnumpy(), want)


def test_gather_elements_mindspore_values(policy):
    y = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    got = ops.gather_elements(y, 1, Tensor(np.array([[0, 0], [1, 0]], np.int32)))
    np.testing.assert_array_equal(got.asnumpy(), [[0, 0], [4, 3]])
    np.testing.assert_array_equal(y.gather_elements(1, Tensor([[-1], [0]])).asnumpy(),
                                  [[2], [3]])


# ---- gradients -------------------------------------------------------------------------------
def test_sort_topk_grads():
    x = np.random.default_rng(2).permutation(24).reshape(4, 6) * 0.37
    check_grad(lambda t: ops.sort(t, 0, True)[0], x)
    check_grad(lambda t: ops.topk(t, 3)[0], x)
    check_grad(lambda t: ops.topk(t, 2, 0, False)[0], x)


def test_cum_extreme_and_gather_elements_grads():
    x = np.random.default_rng(3).permutation(24).reshape(4, 6) * 0.37
    check_grad(lambda t: ops.cummax(t, 1)[0], x)
    check_grad(lambda t: ops.cummin(t, 0)[0], x)
    idx = np.array([[0, 0, 3], [1, 2, 2]])                     # repeats accumulate
    check_grad(lambda t: ops.gather_elements(t, 0, Tensor(idx)), x[:, :3])


def test_gather_d_grad_second_order():
    idx = Tensor(np.array([[0, 2], [1, 1]]))
    x = Tensor(np.zeros((2, 3)))
    check_grad(lambda g: sort_ops.GatherDGradV2(1)(x, idx, g), np.ones((2, 2)) * 0.5)


# ---- inference and errors ----------------------------------------------------------------------
def test_inference_only():
    x = abstract_tensor(ms.float32, (3, 5))
    v, i = ops.Sort(0, True).infer(x)
    assert v.shape == (3, 5) and i.dtype == ms.int32
    v, i = ops.TopK().infer(x, 2)
    assert v.shape == (3, 2) and i.dtype == ms.int32
    assert ops.Cummax(1).infer(x)[1].dtype == ms.int64
    assert ops.Cummin(1).infer(x)[1].dtype == ms.int32
    assert ops.GatherD().infer(x, 1, abstract_tensor(ms.int64, (2, 7))).shape == (2, 7)


@pytest.mark.parametrize("call, exc, words", [
    (lambda: ops.topk(Tensor(np.ones(4, np.float32)), 5), ValueError, ["'k'", "(0, 4]", "5"]),
    (lambda: ops.TopK()(Tensor(np.ones(4, np.float32)), 0), ValueError, ["TopK", "'k'", "0"]),
    (lambda: ops.TopK()(Tensor([True]), 1), TypeError, ["TopK", "input_x", "Bool"]),
    (lambda: ops.sort(Tensor(1.0)), ValueError, ["Sort", "'x'", "0-d"]),
    (lambda: ops.sort(Tensor(np.ones(3)), 3), ValueError, ["Sort", "'axis'", "3"]),
    (lambda: ops.Sort(descending=1), TypeError, ["Sort", "descending", "bool"]),
    (lambda: ops.cummax(Tensor(1.0), 0), ValueError, ["Cummax", "'x'", "0-d"]),
    (lambda: ops.gather_elements(Tensor(np.ones((2, 3))), 1, Tensor([[5], [0]])), ValueError,
     ["GatherD", "'index'", "[-3, 3)", "5"]),
    (lambda: ops.gather_elements(Tensor(np.ones((2, 3))), 1, Tensor([[0], [1], [0]])),
     ValueError, ["GatherD", "'index'", "<= 'x'.shape[0]"]),
    (lambda: ops.gather_elements(Tensor(np.ones((2, 3))), 1, Tensor([0.5])), TypeError,
     ["GatherD", "'index'", "Float32"]),
])
def test_errors_name_op_argument_expected_given(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_failed_gather_leaves_inputs_unchanged():
    x = np.arange(6.0).reshape(2, 3)
    t = Tensor(x.copy())
    with pytest.raises(ValueError):
        ops.gather_elements(t, 0, Tensor([[0, 9, 0]]))
    np.testing.assert_array_equal(t.asnumpy(), x)
