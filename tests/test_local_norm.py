"""LRN, LRNGrad and L2Normalize (local_norm_ops.py), HShrink (activation_ops.py) and
EmbeddingLookup (mask_ops.py): values against numpy references, MindSpore 2.10's
values and checks, gradients by finite differences (LRN's through LRNGrad, whose own bprop is
checked too), and their vmap rules against a loop."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import Tensor, ops
from mindlite.ops import operations as P
from mindlite.ops.operations import _grad_ops as G

from gradcheck import check_grad


def _lrn_ref(x, r, bias, alpha, beta):
    out = np.zeros_like(x, dtype=np.float64)
    c = x.shape[1]
    for ch in range(c):
        lo, hi = max(0, ch - r), min(c, ch + r + 1)
        window = (x[:, lo:hi].astype(np.float64) ** 2).sum(1)
        out[:, ch] = x[:, ch] / (bias + alpha * window) ** beta
    return out


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 3), st.integers(1, 6), st.floats(0.5, 2), st.floats(1e-4, 1),
       st.floats(0.25, 1), st.sampled_from([np.float16, np.float32]), st.integers(0, 2 ** 31 - 1))
def test_lrn_equals_numpy(r, c, bias, alpha, beta, dtype, seed):
    x = np.random.RandomState(seed).randn(2, c, 2, 3).astype(dtype)
    got = P.LRN(r, bias, alpha, beta)(Tensor(x)).asnumpy()
    assert got.dtype == dtype
    np.testing.assert_allclose(got, _lrn_ref(x, r, bias, alpha, beta),
                               rtol=2e-3 if dtype == np.float16 else 1e-5, atol=1e-3)


def test_lrn_mindspore_values_checks_and_gradients():
    x = np.array([[[[1.6243454, -0.6117564], [-0.5281718, -1.0729686]],
                   [[0.86540765, -2.3015387], [1.7448118, -0.7612069]],
                   [[0.3190391, -0.24937038], [1.4621079, -2.0601406]]]], np.float32)
    dy = np.array([[[[-0.3224172, -0.38405436], [1.1337694, -1.0998913]],
                    [[-0.1724282, -0.8778584], [0.04221375, 0.58281523]],
                    [[-1.1006192, 1.1447237], [0.9015907, 0.50249434]]]], np.float32)
    lrn = P.LRN(depth_radius=2, bias=1.0, alpha=0.0001, beta=0.75)
    np.testing.assert_allclose(lrn(Tensor(x)).asnumpy().ravel()[:3],
                               [1.6239204, -0.61149347, -0.5279556], rtol=1e-6)
    dx = ops.grad(lambda a: lrn(a) * Tensor(dy))(Tensor(x)).asnumpy()
    np.testing.assert_allclose(dx.ravel()[:3], [-0.3220835, -0.3837087, 1.133368], rtol=1e-5)
    rs = np.random.RandomState(0)
    check_grad(lambda a: P.LRN(1, 1.0, 0.5, 0.75)(a), rs.randn(1, 4, 2, 2))
    x64, d = rs.randn(1, 4, 2, 2), rs.randn(1, 4, 2, 2)      # LRNGrad is LRN's vjp
    y = P.LRN(1, 1.0, 0.5, 0.75)(Tensor(x64))
    vjp = ops.grad(lambda a: P.LRN(1, 1.0, 0.5, 0.75)(a) * Tensor(d))(Tensor(x64))
    np.testing.assert_allclose(G.LRNGrad(1, 1.0, 0.5, 0.75)(Tensor(d), Tensor(x64), y).asnumpy(),
                               vjp.asnumpy(), rtol=1e-12)
    with pytest.raises(TypeError, match="LRN"):
        lrn(Tensor(x.astype(np.int32)))
    with pytest.raises(ValueError, match="rank"):
        lrn(Tensor(x[0]))
    with pytest.raises(ValueError, match="norm_region"):
        P.LRN(norm_region="WITHIN")


@pytest.mark.parametrize("axis", [0, 1, -1, (1,)])
def test_l2_normalize(axis):
    rs = np.random.RandomState(1)
    x = rs.randn(3, 4)
    a = axis[0] if isinstance(axis, tuple) else axis
    want = x / np.sqrt(np.maximum((x ** 2).sum(a, keepdims=True), 1e-4))
    np.testing.assert_allclose(P.L2Normalize(axis)(Tensor(x)).asnumpy(), want, rtol=1e-12)
    check_grad(lambda t: P.L2Normalize(axis)(t), x)
    check_grad(lambda t: P.L2Normalize(axis, 10.0)(t), x * 0.1)        # below epsilon
    np.testing.assert_allclose(P.L2Normalize(1, 1e-4)(Tensor(np.array([[3., 4.], [0, 0]],
                                                                      np.float32))).asnumpy(),
                               [[0.6, 0.8], [0, 0]])
    with pytest.raises(TypeError, match="length of 'axis'"):
        P.L2Normalize((0, 1))


def test_hshrink_and_embedding_lookup():
    x = np.array([-1, -0.5, 0, 0.5, 0.7], np.float32)
    assert P.HShrink(0.5)(Tensor(x)).asnumpy().tolist() == [-1, 0, 0, 0, np.float32(0.7)]
    g = ops.grad(lambda a: P.HShrink(0.5)(a))(Tensor(x)).asnumpy()
    assert g.tolist() == [1, 0, 0, 0, 1]
    assert P.HShrink(-1.0)(Tensor(x)).asnumpy().tolist() == x.tolist()
    with pytest.raises(TypeError, match="lambd"):
        P.HShrink(1)
    params = np.array([[8, 9], [10, 11], [12, 13], [14, 15]], np.float32)
    out = P.EmbeddingLookup()(Tensor(params), Tensor(np.array([[5, 2], [8, 5]], np.int32)), 4)
    assert out.asnumpy().tolist() == [[[10, 11], [0, 0]], [[0, 0], [10, 11]]]
    rs = np.random.RandomState(2)
    idx = Tensor(np.array([5, 2, 5, 7], np.int32))
    check_grad(lambda p: P.EmbeddingLookup()(p, idx, 4), rs.randn(4, 3))


def test_vmap_rules():
    rs = np.random.RandomState(4)
    x = rs.randn(3, 2, 4, 2, 2).astype(np.float32)
    got = ops.vmap(lambda t: P.LRN(2, 1.0, 0.1, 0.75)(t))(Tensor(x)).asnumpy()
    want = np.stack([P.LRN(2, 1.0, 0.1, 0.75)(Tensor(e)).asnumpy() for e in x])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    y = rs.randn(2, 3, 4)
    got = ops.vmap(lambda t: P.L2Normalize(-1, 0.5)(t), in_axes=1)(Tensor(y)).asnumpy()
    want = np.stack([P.L2Normalize(-1, 0.5)(Tensor(y[:, i])).asnumpy() for i in range(3)])
    np.testing.assert_allclose(got, want, rtol=1e-12)
