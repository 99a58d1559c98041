"""Lerp (elementwise_ops.py, MindSpore's ops.operations.math_ops.Lerp): start + weight * (end -
start) against numpy with broadcasting and a float or Tensor weight, MindSpore's checks (same
float dtype for start and end, a float weight), its gradient by finite differences and its
vmap (elementwise batch rule) against a loop."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import Tensor, ops
from mindlite.ops.operations.math_ops import Lerp

from gradcheck import check_grad


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([((3,), (3,), ()), ((2, 3), (3,), (2, 1)), ((3, 1), (3,), (3,))]),
       st.sampled_from([np.float16, np.float32, np.float64]), st.booleans(),
       st.integers(0, 2 ** 31 - 1))
def test_equals_numpy(shapes, dtype, scalar_weight, seed):
    rs = np.random.RandomState(seed)
    s, e = rs.randn(*shapes[0]).astype(dtype), rs.randn(*shapes[1]).astype(dtype)
    w = 0.3 if scalar_weight else np.asarray(rs.rand(*shapes[2])).astype(dtype)
    got = Lerp()(Tensor(s), Tensor(e), w if scalar_weight else Tensor(w)).asnumpy()
    want = s.astype(np.float64) + np.asarray(w, np.float64) * (e - s.astype(np.float64))
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=3e-3 if dtype == np.float16 else 1e-6,
                               atol=3e-3 if dtype == np.float16 else 1e-6)


def test_mindspore_checks():
    f32 = Tensor(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="'end'"):
        Lerp()(f32, Tensor(np.ones(3, np.float16)), 0.5)
    with pytest.raises(TypeError, match="'start'"):
        Lerp()(Tensor(np.ones(3, np.int32)), Tensor(np.ones(3, np.int32)), 0.5)
    with pytest.raises(TypeError, match="'weight'"):
        Lerp()(f32, f32, 1)
    assert Lerp()(f32, f32, Tensor(np.array(0.5, np.float16))).asnumpy().dtype == np.float32


def test_gradient_and_vmap():
    rs = np.random.RandomState(0)
    check_grad(lambda a, b, w: Lerp()(a, b, w), rs.randn(2, 3), rs.randn(3), rs.rand(2, 1))
    check_grad(lambda a, b: Lerp()(a, b, 0.3), rs.randn(3), rs.randn(3))
    start = Tensor(np.array([[1., 1], [2, 3], [3, 5], [4, 7]], np.float32))
    end = Tensor(np.array([[10., 4], [10, 4], [10, 4], [10, 4]], np.float32))
    weight = Tensor(np.array([0.5, 0.4], np.float32))
    got = ops.vmap(lambda a, b, w: Lerp()(a, b, w), in_axes=(1, 1, 0))(start, end, weight)
    np.testing.assert_allclose(got.asnumpy(), [[5.5, 6, 6.5, 7], [2.2, 3.4, 4.6, 5.8]],
                               rtol=1e-6)
