"""L2Loss and SigmoidCrossEntropyWithLogits (ops/operations/loss_pointwise_ops.py) against
float64 numpy references (0-d, empty, NaN/inf inputs, float16 through float64), their
gradients by finite differences, and the checks MindSpore 2.10 makes (observed there: L2Loss
of an int32 tensor is a TypeError, SCE's label must have logits' shape and dtype)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import Tensor, ops
from mindlite.ops import operations as P

from gradcheck import check_grad

SHAPES = st.sampled_from([(), (0,), (3,), (2, 3), (2, 0, 3)])
FLOATS = st.sampled_from([np.float16, np.float32, np.float64])


def _sce(x, y):
    x, y = x.astype(np.float64), y.astype(np.float64)
    return np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))


@settings(max_examples=30, deadline=None)
@given(SHAPES, FLOATS, st.integers(0, 2 ** 31 - 1), st.booleans())
def test_forward_equals_numpy(shape, dtype, seed, specials):
    rs = np.random.RandomState(seed)
    x = np.asarray(rs.randn(*shape) * 30).astype(dtype)
    y = np.asarray(rs.rand(*shape)).astype(dtype)
    if specials and x.size:
        x.flat[0] = np.inf
        x.flat[-1] = -np.inf
    tol = 2e-3 if dtype == np.float16 else 1e-6
    l2 = P.L2Loss()(Tensor(x))
    assert l2.shape == () and l2.dtype == Tensor(x).dtype
    np.testing.assert_allclose(l2.asnumpy(), (x.astype(np.float64) ** 2).sum() / 2, rtol=tol)
    sce = P.SigmoidCrossEntropyWithLogits()(Tensor(x), Tensor(y))
    with np.errstate(invalid="ignore"):
        want = _sce(x, y)
    np.testing.assert_allclose(sce.asnumpy(), want.astype(dtype), rtol=tol, atol=tol)


def test_mindspore_values():
    """Values MindSpore 2.10 printed: L2Loss([1, 2, 3, 4] float16) = 15, SCE of the
    docs' example."""
    assert float(P.L2Loss()(Tensor(np.array([1., 2., 3., 4.], np.float16))).asnumpy()) == 15.0
    out = P.SigmoidCrossEntropyWithLogits()(Tensor(np.array([1., 2.])), Tensor(np.array([0., 1.])))
    np.testing.assert_allclose(out.asnumpy(), [1.3132617473602295, 0.12692800164222717],
                               rtol=1e-7)


def test_gradients():
    check_grad(lambda x: P.L2Loss()(x), np.random.randn(2, 3))
    check_grad(lambda x, y: P.SigmoidCrossEntropyWithLogits()(x, y), np.random.randn(2, 3),
               np.random.rand(2, 3))


def test_checks_as_mindspore():
    with pytest.raises(TypeError, match="L2Loss.*input_x"):
        P.L2Loss()(Tensor(np.array([1, 2], np.int32)))
    with pytest.raises(ValueError, match="SigmoidCrossEntropyWithLogits.*'label'.*shape"):
        P.SigmoidCrossEntropyWithLogits()(Tensor(np.ones((1, 2), np.float32)),
                                          Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="SigmoidCrossEntropyWithLogits"):
        P.SigmoidCrossEntropyWithLogits()(Tensor(np.ones(2, np.float32)),
                                          Tensor(np.ones(2, np.float16)))


def test_grad_through_l2_loss_in_a_cell_graph():
    x = Tensor(np.array([2.4, 3.2, 1.2], np.float32))
    np.testing.assert_allclose(ops.grad(P.L2Loss())(x).asnumpy(), x.asnumpy())
