"""SquaredDifference (math_ops.py), as MindSpore 2.10's CPU kernel: (x - y)**2 with
broadcasting and promotion of mixed dtypes (float32 with int32 -> float32, a Python scalar),
|x - y|**2 for complex inputs, the dtypes MindSpore accepts (float, int32/int64, complex; int8
or bool a TypeError); gradient (2 (x - y), -2 (x - y)) against finite differences and, for
complex, MindSpore's values (no conjugate)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import Tensor, ops
from mindlite.ops import operations as P

from gradcheck import check_grad

_OP = P.SquaredDifference()


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([((), ()), ((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 4)), ((0, 2), (2,))]),
       st.sampled_from([np.float16, np.float32, np.float64, np.int32, np.int64]),
       st.integers(0, 2 ** 31 - 1))
def test_equals_numpy(shapes, dtype, seed):
    rs = np.random.RandomState(seed)
    x = np.asarray(rs.randn(*shapes[0]) * 10).astype(dtype)
    y = np.asarray(rs.randn(*shapes[1]) * 10).astype(dtype)
    got = _OP(Tensor(x), Tensor(y)).asnumpy()
    diff = x - y
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, diff * diff)


def test_complex_mixed_and_scalar():
    x = np.array([1 + 2j, 3 - 1j], np.complex64)
    y = np.array([0j, 1 + 1j], np.complex64)
    got = _OP(Tensor(x), Tensor(y)).asnumpy()
    np.testing.assert_allclose(got, np.abs(x - y) ** 2)
    assert got.dtype == np.complex64
    out = _OP(Tensor(np.array([1, 2, 3], np.float32)), Tensor(np.array([3, 1, 1], np.int32)))
    assert out.asnumpy().dtype == np.float32 and out.asnumpy().tolist() == [4, 1, 4]
    assert _OP(Tensor(np.array([1, 2, 3], np.float32)), 2.0).asnumpy().tolist() == [1, 0, 1]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.bool_])
def test_mindspore_rejects(dtype):
    with pytest.raises(TypeError, match="SquaredDifference"):
        _OP(Tensor(np.ones(2, dtype)), Tensor(np.ones(2, dtype)))


def test_gradient():
    rs = np.random.RandomState(0)
    check_grad(lambda a, b: _OP(a, b), rs.randn(2, 3), rs.randn(3))
    # complex: MindSpore 2.10's values, 2 (x - y) for x and its negation for y
    x = Tensor(np.array([1 + 2j, 3 - 1j], np.complex64))
    y = Tensor(np.array([0.5j, 1], np.complex64))
    gx, gy = ops.grad(lambda a, b: _OP(a, b), grad_position=(0, 1))(x, y)
    np.testing.assert_allclose(gx.asnumpy(), [2 + 3j, 4 - 2j])
    np.testing.assert_allclose(gy.asnumpy(), [-2 - 3j, -4 + 2j])
