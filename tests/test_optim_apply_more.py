"""ApplyProximalGradientDescent, ApplyAdagradV2 and ApplyAdamWithAmsgrad (optim_adaptive_ops.py)
against numpy references of their update rules over random states (in place, the states
returned), MindSpore 2.10's values on one step, its dtype checks, and vmap (batch_rank)
against a loop."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import Parameter, Tensor, ops
from mindlite.ops import operations as P


def _par(a, dtype=np.float32):
    return Parameter(Tensor(np.asarray(a, dtype)), name="p")


def _ref_pgd(var, alpha, l1, l2, delta):
    prox = var - alpha * delta
    return np.sign(prox) * np.maximum(np.abs(prox) - alpha * l1, 0) / (1 + alpha * l2)


def _ref_adagrad_v2(var, accum, lr, grad, eps, update_slots):
    accum = accum + grad * grad if update_slots else accum
    return var - lr * grad / (np.sqrt(accum) + eps), accum


def _ref_amsgrad(var, m, v, vhat, b1p, b2p, lr, grad, b1, b2, eps):
    m = b1 * m + (1 - b1) * grad
    v = b2 * v + (1 - b2) * grad * grad
    vhat = np.maximum(vhat, v)
    return var - lr * np.sqrt(1 - b2p) / (1 - b1p) * m / (np.sqrt(vhat) + eps), m, v, vhat


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 31 - 1), st.sampled_from([np.float32, np.float64]))
def test_updates_equal_numpy(seed, dtype):
    rs = np.random.RandomState(seed)
    shape = (2, 3)
    var, g = rs.randn(*shape), rs.randn(*shape)
    acc, m, vhat = rs.rand(*shape) + 0.1, rs.randn(*shape), rs.rand(*shape)
    v = rs.rand(*shape)
    tol = dict(rtol=1e-5, atol=1e-6)
    p = _par(var, dtype)
    out = P.ApplyProximalGradientDescent()(p, 0.1, 0.2, 0.3, Tensor(g.astype(dtype)))
    np.testing.assert_allclose(out.asnumpy(), _ref_pgd(var, 0.1, 0.2, 0.3, g), **tol)
    np.testing.assert_allclose(p.asnumpy(), out.asnumpy())
    for slots in (True, False):
        p, a = _par(var, dtype), _par(acc, dtype)
        P.ApplyAdagradV2(1e-6, slots)(p, a, 0.05, Tensor(g.astype(dtype)))
        want_var, want_acc = _ref_adagrad_v2(var, acc, 0.05, g, 1e-6, slots)
        np.testing.assert_allclose(p.asnumpy(), want_var, **tol)
        np.testing.assert_allclose(a.asnumpy(), want_acc, **tol)
    if dtype == np.float32:
        states = [_par(a) for a in (var, m, v, vhat)]
        P.ApplyAdamWithAmsgrad()(*states, Tensor(np.float32(0.9)), Tensor(np.float32(0.999)),
                                 Tensor(np.float32(0.01)), Tensor(g.astype(np.float32)))
        for got, want in zip(states, _ref_amsgrad(var, m, v, vhat, 0.9, 0.999, 0.01, g, 0.9,
                                                   0.999, 1e-8)):
            np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_mindspore_values_and_checks():
    g = Tensor(np.array([0.5, -1., 2.], np.float32))
    p = _par([1., 2., -3.])
    out = P.ApplyProximalGradientDescent()(p, 0.1, 0.2, 0.3, g)
    np.testing.assert_allclose(out.asnumpy(), [0.9029126, 2.0194175, -3.0873787], rtol=1e-6)
    p, a = _par([1., 2., -3.]), _par([0.1, 0.2, 0.3])
    var, acc = P.ApplyAdagradV2(epsilon=1e-6)(p, a, Tensor(np.float32(0.1)), g)
    np.testing.assert_allclose(var.asnumpy(), [0.9154847, 2.091287, -3.0964484], rtol=1e-6)
    np.testing.assert_allclose(acc.asnumpy(), [0.35, 1.2, 4.3], rtol=1e-6)
    states = [_par(a) for a in ([1., 2., -3.], [.1, .2, .3], [.5, .1, .2], [.3, .3, .3])]
    out = P.ApplyAdamWithAmsgrad()(*states, Tensor(np.float32(0.9)), Tensor(np.float32(0.999)),
                                   Tensor(np.float32(0.01)), g)
    assert len(out) == 4
    np.testing.assert_allclose(out[0].asnumpy(), [0.99937373, 1.9995381, -3.0027134], rtol=1e-6)
    np.testing.assert_allclose(out[3].asnumpy(), [0.49975002, 0.3, 0.3], rtol=1e-6)
    with pytest.raises(TypeError, match="var"):
        P.ApplyAdamWithAmsgrad()(*[_par(np.ones(2), np.float64) for _ in range(4)],
                                 Tensor(0.9), Tensor(0.9), Tensor(0.9), Tensor(np.ones(2)))
    with pytest.raises(TypeError, match="epsilon"):
        P.ApplyAdagradV2("eps")
    with pytest.raises(ValueError, match="shape"):
        P.ApplyAdagradV2(1e-6)(_par([1., 2.]), _par([1.]), 0.1, Tensor(np.ones(2, np.float32)))


def test_vmap_equals_a_loop_and_not_differentiable():
    rs = np.random.RandomState(3)
    var, acc, g = rs.randn(3, 4), rs.rand(3, 4) + 0.1, rs.randn(3, 4)
    lr = np.array([0.01, 0.1, 0.5], np.float32)
    p, a = _par(var), _par(acc)
    ops.vmap(lambda *t: P.ApplyAdagradV2(1e-6)(*t), in_axes=0)(p, a, Tensor(lr),
                                                              Tensor(g.astype(np.float32)))
    for i in range(3):
        want_var, want_acc = _ref_adagrad_v2(var[i], acc[i], lr[i], g[i], 1e-6, True)
        np.testing.assert_allclose(p.asnumpy()[i], want_var, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a.asnumpy()[i], want_acc, rtol=1e-5, atol=1e-6)
    from mindlite.ir.rules import NON_DIFFERENTIABLE
    assert {P.ApplyProximalGradientDescent, P.ApplyAdagradV2,
            P.ApplyAdamWithAmsgrad} <= NON_DIFFERENTIABLE
