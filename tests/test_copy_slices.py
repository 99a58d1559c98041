"""TensorCopySlices (copy_slices_ops.py): x with a strided slice set to value, against numpy
(0-d value, empty slices, negative bounds, strides, non-contiguous x), MindSpore 2.10's values
and gradients (printed by MindSpore), float64 finite differences, and its checks."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import Tensor
from mindlite.ops.operations import _inner_ops as I

from gradcheck import check_grad

OP = I.TensorCopySlices()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 5), st.integers(-5, 6), st.integers(1, 3)),
                min_size=1, max_size=3), st.booleans(), st.booleans(),
       st.sampled_from([np.float32, np.int64, np.bool_]))
def test_equals_numpy(spec, scalar, strided, dtype):
    shape = (4, 3, 5)[:len(spec)] + (2,)
    x = (np.random.RandomState(len(spec)).rand(*shape) * 10).astype(dtype)
    slices = tuple(slice(b, e, s) for b, e, s in spec)
    want = x.copy()
    target = want[slices].shape
    value = np.full(() if scalar else target, 7).astype(dtype)
    want[slices] = value
    xt = Tensor(np.repeat(x, 2, axis=-1)[..., ::2]) if strided else Tensor(x)
    got = OP(xt, Tensor(value), tuple(b for b, _, _ in spec), tuple(e for _, e, _ in spec),
             tuple(s for _, _, s in spec))
    np.testing.assert_array_equal(got.asnumpy(), want)
    np.testing.assert_array_equal(xt.asnumpy(), x)                  # x is not written


def test_mindspore_values_and_gradients():
    x, v = Tensor(np.zeros((5, 5), np.float32)), Tensor(np.ones((2, 5), np.float32))
    got = OP(x, v, (3,), (5,), (1,)).asnumpy()
    np.testing.assert_array_equal(got, [[0] * 5] * 3 + [[1] * 5] * 2)
    w = Tensor(np.arange(25, dtype=np.float32).reshape(5, 5))
    dx, dv = ms.grad(lambda a, b: (OP(a, b, (3, 0), (5, 5), (1, 1)) * w).sum(), (0, 1))(x, v)
    np.testing.assert_array_equal(dx.asnumpy()[3:], 0)
    np.testing.assert_array_equal(dx.asnumpy()[:3], np.arange(15).reshape(3, 5))
    np.testing.assert_array_equal(dv.asnumpy(), np.arange(15, 25).reshape(2, 5))


def test_float64_gradients():
    rs = np.random.RandomState(0)
    check_grad(lambda a, b: OP(a, b, (1, 0), (4, 3), (2, 1)), rs.randn(4, 3), rs.randn(2, 3))
    check_grad(lambda a, b: OP(a, b, (1,), (4,), (1,)), rs.randn(4, 3), rs.randn(1, 3))


def test_checks():
    x = Tensor(np.zeros((5, 5), np.float32))
    with pytest.raises(TypeError, match="TensorCopySlices.*'value'"):
        OP(x, Tensor(np.ones((2, 5), np.int32)), (3,), (5,), (1,))
    with pytest.raises(ValueError, match="TensorCopySlices"):
        OP(x, Tensor(np.ones((3, 5), np.float32)), (3,), (5,), (1,))
    with pytest.raises(TypeError, match="TensorCopySlices.*'begin'"):
        OP(x, Tensor(np.ones((2, 5), np.float32)), (3.5,), (5,), (1,))
