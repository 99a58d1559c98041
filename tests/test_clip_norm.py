"""ops.clip_by_global_norm and ops.clip_by_norm: values MindSpore 2.10 printed, a numpy
reference over generated inputs, float64 gradients, graph mode, errors."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import mindlite as ms
from mindlite import Tensor, ops
from gradcheck import check_grad

X = (np.array([[3.0, 4.0]], np.float32), np.array([12.0], np.float32))


def _t(arrays):
    return tuple(Tensor(a) for a in arrays)


def test_values_printed_by_mindspore():
    got = ops.clip_by_global_norm(_t(X), 1.0)
    assert isinstance(got, tuple)
    np.testing.assert_array_equal(got[0].asnumpy(), np.float32([[0.230769232, 0.307692319]]))
    np.testing.assert_array_equal(got[1].asnumpy(), np.float32([0.923076928]))
    np.testing.assert_array_equal(ops.clip_by_norm(Tensor(X[0]), 1.0).asnumpy(),
                                  np.float32([[0.5999999, 0.79999983]]))
    np.testing.assert_array_equal(ops.clip_by_norm(_t(X), 1.0, norm_type=1)[1].asnumpy(),
                                  np.float32([0.631578863]))
    np.testing.assert_array_equal(
        ops.clip_by_norm(_t(X), 1.0, norm_type=math.inf)[1].asnumpy(), np.float32([0.99999994]))
    f16 = Tensor(np.array([3, 4], np.float16))
    np.testing.assert_array_equal(ops.clip_by_global_norm(f16, 1.0).asnumpy(),
                                  np.float16([0.6, 0.8]))
    np.testing.assert_array_equal(ops.clip_by_norm(f16, 1.0).asnumpy(), np.float16([0.5996, 0.8]))
    as_int = ops.clip_by_norm(Tensor(np.array([3, 4], np.int32)), 1.0)
    assert as_int.dtype == ms.float32
    mixed = ops.clip_by_global_norm((Tensor(np.array([3.0, 4.0])), Tensor(X[1])), 1.0)
    assert mixed[0].dtype == ms.float64
    np.testing.assert_array_equal(mixed[0].asnumpy(), [3 / 13, 4 / 13])
    assert isinstance(ops.clip_by_norm(list(_t(X)), 100.0), list)


arrays = hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, max_side=4),
                    elements=st.floats(-100, 100))


@settings(max_examples=40, deadline=None)
@given(st.lists(arrays, min_size=1, max_size=3), st.floats(0.01, 50.0),
       st.sampled_from([1.0, 2.0, 3.0, math.inf]))
def test_against_numpy(xs, limit, p):
    flat = np.concatenate([a.reshape(-1) for a in xs])
    gnorm = np.sqrt((flat ** 2).sum())
    for got, a in zip(ops.clip_by_global_norm(_t(xs), limit), xs):
        np.testing.assert_allclose(got.asnumpy(), a * limit / max(gnorm, limit), rtol=1e-6,
                                   atol=1e-12)
    total = np.abs(flat).max(initial=0.0) if p == math.inf else (np.abs(flat) ** p).sum() ** (1 / p)
    coef = min(limit / (total + 1e-6), 1.0)
    for got, a in zip(ops.clip_by_norm(_t(xs), limit, p), xs):
        np.testing.assert_allclose(got.asnumpy(), a * coef, rtol=1e-5, atol=1e-10)


def test_gradients_float64():
    """The norms are computed in float32, as MindSpore's (a float64 input clipped to 0.1 gives
    0.0999999985 there too), so the differences step by 1e-3 and compare to 1e-3: float32
    rounding over a 1e-6 step would swamp them."""
    a = np.array([[0.5, -1.5], [2.0, 0.25]])
    b = np.array([1.0, -3.0, 0.75])
    tol = {"eps": 1e-3, "rtol": 1e-3, "atol": 1e-4}
    check_grad(lambda x, y: ops.clip_by_global_norm((x, y), 1.5), a, b, **tol)
    check_grad(lambda x, y: ops.clip_by_norm((x, y), 1.5), a, b, **tol)
    check_grad(lambda x: ops.clip_by_norm(x, 0.5, norm_type=3.0), a, **tol)


def test_in_graph_mode_equals_eager():
    fn = ms.jit(lambda x, y: ops.clip_by_global_norm((x, y), 2.0))
    for got, want in zip(fn(*_t(X)), ops.clip_by_global_norm(_t(X), 2.0)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


def test_errors():
    with pytest.raises(ValueError, match="'clip_norm' must > 0.0, but got 0.0"):
        ops.clip_by_global_norm(_t(X), 0.0)
    with pytest.raises(ValueError, match="'use_norm' only supports None"):
        ops.clip_by_global_norm(_t(X), 1.0, use_norm=Tensor(2.0))
    with pytest.raises(TypeError, match="'x' must be a Tensor or a non-empty tuple"):
        ops.clip_by_norm([1.0, 2.0], 1.0)
    with pytest.raises(TypeError, match="'max_norm' must be a float or an int"):
        ops.clip_by_norm(Tensor(X[0]), "1")
    with pytest.raises(RuntimeError, match="total norm of order 2.0 from input is non-finite"):
        ops.clip_by_norm(Tensor(np.array([np.inf, 1.0], np.float32)), 1.0,
                         error_if_nonfinite=True)
    nan = ops.clip_by_norm(Tensor(np.array([np.inf, 1.0], np.float32)), 1.0).asnumpy()
    assert np.isnan(nan[0]) and nan[1] == 0.0            # as MindSpore: [nan, 0.]
