"""L2Loss, SigmoidCrossEntropyWithLogits and KLDivLoss (loss_pointwise_ops.py) against float64
numpy references (0-d, empty, NaN/inf inputs, float16 through float64), their gradients by
finite differences, and the checks MindSpore 2.10 makes (observed there: L2Loss of an int32
tensor is a TypeError, SCE's label must have logits' shape and dtype, KLDivLoss's values on
its op test's inputs)."""
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


def _kl_reference(x, y, reduction):
    with np.errstate(all="ignore"):
        loss = np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x), 0)
        return {"none": loss, "sum": loss.sum(), "mean": loss.sum() / loss.size,
                "batchmean": loss.sum() / x.shape[0]}[reduction]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(3,), (2, 3), (4, 1, 2), (0, 2)]),
       st.sampled_from([np.float16, np.float32, np.float64]),
       st.sampled_from(["none", "sum", "mean", "batchmean"]), st.integers(0, 2 ** 31 - 1))
def test_kl_div_loss_equals_numpy(shape, dtype, reduction, seed):
    rs = np.random.RandomState(seed)
    x = np.log(rs.uniform(0.05, 1, shape)).astype(dtype)
    y = rs.uniform(-0.5, 1.5, shape).astype(dtype)                # some labels <= 0: 0 loss
    got = P.KLDivLoss(reduction)(Tensor(x), Tensor(y)).asnumpy()
    want = _kl_reference(x.astype(np.float64), y.astype(np.float64), reduction)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=2e-3 if dtype == np.float16 else 1e-5,
                               atol=1e-3 if dtype == np.float16 else 1e-6)


def test_kl_div_loss_mindspore_values_and_checks():
    x = np.log(np.array([[0.3, 0.7], [0.5, 0.5]], np.float32))
    y = np.array([[-1, 1], [1, -1]], np.float32)
    for reduction, want in (("none", [[0, 0.35667494], [0.69314718, 0]]),
                            ("mean", 0.26245553), ("sum", 1.04982212),
                            ("batchmean", 0.52491106)):
        np.testing.assert_allclose(P.KLDivLoss(reduction)(Tensor(x), Tensor(y)).asnumpy(), want,
                                   rtol=1e-6)
    with pytest.raises(ValueError, match="reduction"):
        P.KLDivLoss("max")
    with pytest.raises(ValueError, match="must be equal"):
        P.KLDivLoss()(Tensor(np.ones(2, np.float32)), Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="KLDivLoss"):
        P.KLDivLoss()(Tensor(np.ones(2, np.int32)), Tensor(np.ones(2, np.int32)))
    with pytest.raises(RuntimeError, match="batchmean"):
        P.KLDivLoss("batchmean")(Tensor(np.float32(0.5)), Tensor(np.float32(2)))


@pytest.mark.parametrize("reduction", ["none", "sum", "mean", "batchmean"])
def test_kl_div_loss_gradient(reduction):
    rs = np.random.RandomState(1)
    x = np.log(rs.uniform(0.1, 1, (2, 3)))
    y = rs.uniform(0.2, 1.5, (2, 3))                                # y > 0: smooth in both
    check_grad(lambda a, b: P.KLDivLoss(reduction)(a, b), x, y, rtol=1e-4)
    # MindSpore's dx where y <= 0 is still -y (its KLDivLossGrad); the label gets 0 there
    from mindlite import ops
    gx, gy = ops.grad(lambda a, b: P.KLDivLoss("sum")(a, b), (0, 1))(
        Tensor(np.array([-1.2, -0.7], np.float32)), Tensor(np.array([-1.0, 0.0], np.float32)))
    assert gx.asnumpy().tolist() == [1.0, 0.0] and gy.asnumpy().tolist() == [0.0, 0.0]
