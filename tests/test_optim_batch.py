"""ApplyGradientDescent (var -= alpha * delta, in place), optimizer primitives under vmap
(MindSpore's batch_rank: one hyper-parameter per example, states updated in place, also
through a vmap of a vmap), and the gradient's dtype promotion of the optimizer primitives
(a lower dtype is cast up to the variable's as in MindSpore; a cast of the variable is a
TypeError). Values checked against numpy and against values MindSpore 2.10 printed."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import Parameter, Tensor, context, nn, ops
from mindlite.ops import operations as P

DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int64, np.uint16, np.complex64]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(DTYPES), st.sampled_from([(), (0,), (3,), (2, 3)]),
       st.integers(0, 2 ** 31 - 1))
def test_apply_gradient_descent_equals_numpy(dtype, shape, seed):
    rs = np.random.RandomState(seed)
    v0 = np.asarray(rs.rand(*shape) * 10).astype(dtype)
    d = np.asarray(rs.rand(*shape) * 10).astype(dtype)
    alpha = np.array(2 if np.dtype(dtype).kind in "iu" else 0.25, dtype)
    var = Parameter(Tensor(v0.copy()), name="v")
    out = P.ApplyGradientDescent()(var, Tensor(alpha), Tensor(d))
    want = (v0 - alpha * d).astype(dtype)
    np.testing.assert_allclose(var.asnumpy(), want, rtol=1e-3 if dtype == np.float16 else 1e-6)
    np.testing.assert_array_equal(out.asnumpy(), var.asnumpy())


def test_apply_gradient_descent_refuses_bool_and_mismatched_shapes():
    var = Parameter(Tensor(np.ones(3, np.float32)), name="v")
    with pytest.raises(ValueError, match="ApplyGradientDescent.*'delta'"):
        P.ApplyGradientDescent()(var, 0.5, Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="ApplyGradientDescent"):
        P.ApplyGradientDescent()(Parameter(Tensor(np.ones(3, np.bool_)), name="b"), 1,
                                 Tensor(np.ones(3, np.bool_)))
    np.testing.assert_array_equal(var.asnumpy(), 1)


@pytest.mark.parametrize("mode", [context.PYNATIVE_MODE, context.GRAPH_MODE])
def test_gradient_of_a_lower_dtype_is_cast_up(mode):
    """MindSpore casts a float16 gradient to a float32 variable's dtype (ApplyAdagrad gives
    0.92928934 there); a float64 gradient would need the variable cast: TypeError."""
    context.set_context(mode=mode)
    try:
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.var = Parameter(Tensor(np.ones(2, np.float32)), name="var")
                self.accum = Parameter(Tensor(np.ones(2, np.float32)), name="accum")
                self.op = P.ApplyAdagrad()

            def construct(self, g):
                return self.op(self.var, self.accum, 0.1, g)

        net = Net()
        net(Tensor(np.ones(2, np.float16)))
        np.testing.assert_allclose(net.var.asnumpy(), 0.92928934, rtol=1e-6)
        with pytest.raises(TypeError, match="ApplyAdagrad.*'var'.*Float32.*Float64"):
            net(Tensor(np.ones(2, np.float64)))
        np.testing.assert_allclose(net.var.asnumpy(), 0.92928934, rtol=1e-6)
    finally:
        context.set_context(mode=context.PYNATIVE_MODE)


def _descent(var, alpha, delta):
    return P.ApplyGradientDescent()(var, alpha, delta)


def test_vmap_of_an_optimizer_uses_one_alpha_per_example():
    """MindSpore's test_vmap_apply_gradient_descent values."""
    var = Parameter(np.arange(30).reshape(3, 2, 5).astype(np.float32) / 10, name="var")
    alpha = Tensor(np.array([0.0001, 0.1, 3]).astype(np.float32))
    delta = Tensor(np.arange(34, 64).reshape(3, 2, 5).astype(np.float32))
    v0 = var.asnumpy().copy()
    out = ops.vmap(_descent, in_axes=(0, 0, 0))(var, alpha, delta)
    want = v0 - alpha.asnumpy()[:, None, None] * delta.asnumpy()
    np.testing.assert_allclose(var.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)


def _adadelta(var, accum, accum_update, lr, rho, epsilon, grad):
    return P.ApplyAdadelta()(var, accum, accum_update, lr, rho, epsilon, grad)


def test_vmap_of_a_vmap_of_an_optimizer_updates_the_parameters():
    """MindSpore's test_apply_adadelta_vmap2 values (lr per (outer, inner) example, rho per
    outer example)."""
    var = Parameter(Tensor(np.tile(np.array([0.1, 0.2], np.float32), (2, 2, 1))), name="var")
    accum = Parameter(Tensor(np.tile(np.array([0.2, 0.3], np.float32), (2, 2, 1))), name="a")
    acc_up = Parameter(Tensor(np.tile(np.array([0.3, 0.4], np.float32), (2, 2, 1))), name="u")
    grad = Tensor(np.tile(np.array([0.4, 0.5], np.float32), (2, 2, 1)))
    lr = Tensor(np.array([[0.01, 0.02], [0.03, 0.04]], np.float32))
    rho = Tensor(np.array([0.9, 0.95], np.float32))
    f = ops.vmap(ops.vmap(_adadelta, in_axes=(0, 0, 0, 0, 0, None, 0)),
                 in_axes=(0, 0, 0, 0, None, None, 0))
    out = f(var, accum, acc_up, lr, rho, Tensor(1e-6), grad)
    want = np.array([[[0.09505129, 0.19417778], [0.09015269, 0.18840459]],
                     [[0.08515386, 0.18253334], [0.08030538, 0.17680918]]], np.float32)
    np.testing.assert_allclose(var.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(out[0].asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(accum.asnumpy()[:, 0], [[0.196, 0.295]] * 2, rtol=1e-6)


def test_vmap_of_an_optimizer_needs_its_state_mapped():
    var = Parameter(Tensor(np.ones(3, np.float32)), name="v")
    with pytest.raises(NotImplementedError, match="ApplyGradientDescent.*'var'"):
        ops.vmap(_descent, in_axes=(None, 0, 0))(var, Tensor(np.ones(2, np.float32)),
                                                 Tensor(np.ones((2, 3), np.float32)))
    np.testing.assert_array_equal(var.asnumpy(), 1)
