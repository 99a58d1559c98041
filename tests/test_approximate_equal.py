"""ApproximateEqual (logic_ops.py): |x1 - x2| < tolerance against numpy for the float dtypes
(mixed ones promoted, as MindSpore 2.10 accepts float16 with float32), NaN giving False; the
checks MindSpore makes (same shapes, float inputs, a float tolerance). Pow of complex
operands (MindSpore 2.10 supports them on the CPU) against numpy, with its gradient."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import Tensor, ops
from mindlite.ops import operations as P


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([(), (0,), (5,), (2, 3)]), st.sampled_from([np.float16, np.float32,
                                                                  np.float64]),
       st.sampled_from([np.float16, np.float32, np.float64]), st.floats(1e-3, 2.0),
       st.integers(0, 2 ** 31 - 1))
def test_equals_numpy(shape, d1, d2, tol, seed):
    rs = np.random.RandomState(seed)
    x1, x2 = np.asarray(rs.rand(*shape)).astype(d1), np.asarray(rs.rand(*shape)).astype(d2)
    if x1.size:
        x1.flat[0] = np.nan
    got = P.ApproximateEqual(tol)(Tensor(x1), Tensor(x2)).asnumpy()
    t = np.result_type(x1, x2)
    with np.errstate(invalid="ignore"):
        want = np.abs(x1.astype(t) - x2.astype(t)) < tol
    np.testing.assert_array_equal(got, want)


def test_mindspore_checks():
    with pytest.raises(TypeError, match="the type of 'tolerance' should be 'float'"):
        P.ApproximateEqual("str")
    with pytest.raises(TypeError, match="the type of 'tolerance' should be 'float'"):
        P.ApproximateEqual(1)
    with pytest.raises(ValueError, match="'x1' must have the same shape as 'x2'"):
        P.ApproximateEqual(0.5)(Tensor(np.ones((1, 2), np.float32)), Tensor(np.ones(2)))
    with pytest.raises(TypeError, match="ApproximateEqual.*'x1'"):
        P.ApproximateEqual(0.5)(Tensor(np.ones(2, np.int32)), Tensor(np.ones(2, np.int32)))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_pow_equals_numpy(dtype):
    x = np.array([1 + 1j, 1 - 1j, -1 + 1j, -1 - 1j, 0.5j], dtype)
    y = np.array([1 + 1j, 2 - 1j, -1 + 0.5j, 3, 2], dtype)
    np.testing.assert_allclose(ops.pow(Tensor(x), Tensor(y)).asnumpy(), np.power(x, y),
                               rtol=1e-5)
    # the gradient follows the complex convention of the holomorphic bprops (complex_ops.py):
    # the same as through exp(y log x)
    gx, gy = ops.grad(lambda a, b: ops.pow(a, b), (0, 1))(Tensor(x), Tensor(y))
    wx, wy = ops.grad(lambda a, b: ops.exp(b * ops.log(a)), (0, 1))(Tensor(x), Tensor(y))
    np.testing.assert_allclose(gx.asnumpy(), wx.asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(gy.asnumpy(), wy.asnumpy(), rtol=1e-5)
