"""Gradients of the nn family (nn_ops): float64 finite-difference checks of every activation,
Softmax / LogSoftmax (any axis, 0-d included) and BiasAdd (every data_format) on hypothesis
inputs away from the kinks; exact values at the kinks (ReLU at 0, ReLU6 at 0 and 6);
second-order gradients of Tanh, Sigmoid, Softmax, LogSoftmax, ReLU, GeLU; every nn primitive
has a bprop or a non-differentiable mark."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradcheck import check_grad

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.ops.operations import nn_ops
from mindlite.ops.primitive import Primitive
from mindlite.pynative.grad import BPROPS, NON_DIFFERENTIABLE

F64 = np.float64
FEW = settings(max_examples=12)
small_shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)


def floats(lo, hi):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def arr(shape, elements):
    return hnp.arrays(F64, shape, elements=elements)


def t(values, dtype=F64):
    return Tensor(np.array(values, dtype=dtype))


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


away_from_kinks = floats(-8, 8).filter(lambda v: abs(v) > 0.1 and abs(v - 6) > 0.1)
ACTIVATIONS = [
    ("relu", ops.relu, away_from_kinks),
    ("relu6", ops.relu6, away_from_kinks),
    ("sigmoid", ops.sigmoid, floats(-6, 6)),
    ("tanh", ops.tanh, floats(-3, 3)),
    ("gelu", ops.GeLU(), floats(-4, 4)),
    ("silu", ops.silu, floats(-6, 6)),
    ("softplus", ops.softplus, floats(-6, 6)),
]


@pytest.mark.parametrize("name,fn,elements", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
@FEW
@given(data=st.data())
def test_activation_grad(name, fn, elements, data):
    check_grad(fn, data.draw(small_shapes.flatmap(lambda s: arr(s, elements))))


def test_gelu_grad_matches_tanh_formula():
    x = np.linspace(-5, 5, 11)
    c, a = np.sqrt(2 / np.pi), 0.044715
    th = np.tanh(c * (x + a * x ** 3))
    want = 0.5 * (1 + th) + 0.5 * x * (1 - th ** 2) * c * (1 + 3 * a * x ** 2)
    np.testing.assert_allclose(ms.grad(ops.GeLU())(t(x)).asnumpy(), want, rtol=1e-13,
                               atol=1e-14)


def test_exact_values_at_kinks():
    g = ms.grad(ops.relu)(t([-1.0, 0.0, -0.0, 2.0]))
    np.testing.assert_array_equal(g.asnumpy(), [0.0, 0.0, 0.0, 1.0])
    g = ms.grad(ops.relu6)(t([-1.0, 0.0, 3.0, 6.0, 7.0]))     # at 6: 1, as MindSpore 2.10
    np.testing.assert_array_equal(g.asnumpy(), [0.0, 0.0, 1.0, 1.0, 0.0])
    g = ms.grad(ops.sigmoid)(t([0.0]))
    np.testing.assert_array_equal(g.asnumpy(), [0.25])
    g = ms.grad(ops.tanh)(t(0.0))
    assert g.shape == () and float(g.asnumpy()) == 1.0


def test_large_inputs_give_finite_gradients():
    x = t([-800.0, 800.0])
    for fn, want in ((ops.sigmoid, [0.0, 0.0]), (ops.softplus, [0.0, 1.0]),
                     (ops.silu, [0.0, 1.0]), (ops.tanh, [0.0, 0.0])):
        np.testing.assert_array_equal(ms.grad(fn)(x).asnumpy(), want)


def test_float32_relu_and_int_relu():
    g = ms.grad(ops.relu)(t([-1.0, 2.0], np.float32))
    assert g.dtype == ms.float32
    np.testing.assert_array_equal(g.asnumpy(), [0.0, 1.0])
    xi = Tensor(np.array([-1, 2], np.int32))
    gi = ms.grad(lambda a, b: ops.relu(a) * b, (0, 1))(xi, t([1.0, 1.0]))
    np.testing.assert_array_equal(gi[0].asnumpy(), [0, 0])          # ints get no gradient
    np.testing.assert_array_equal(gi[1].asnumpy(), [0.0, 2.0])


# ---- Softmax, LogSoftmax, BiasAdd ---------------------------------------------------------
@pytest.mark.parametrize("cls", [nn_ops.Softmax, nn_ops.LogSoftmax])
@FEW
@given(data=st.data())
def test_softmax_log_softmax_grad(cls, data):
    x = data.draw(small_shapes.flatmap(lambda s: arr(s, floats(-4, 4))))
    ndim = max(x.ndim, 1)
    axis = data.draw(st.integers(-ndim, ndim - 1))
    if data.draw(st.booleans()):
        axis = (axis,)
    check_grad(cls(axis), x)


def test_softmax_grad_rows_sum_to_zero():
    x = t([[1.0, 2.0, 3.0], [-1.0, 0.0, 5.0]])
    g = ms.grad(lambda a: ops.softmax(a) * t([1.0, 2.0, 3.0]))(x).asnumpy()
    y = np.exp(x.asnumpy()) / np.exp(x.asnumpy()).sum(-1, keepdims=True)
    want = y * (np.array([1.0, 2.0, 3.0]) - (y * [1.0, 2.0, 3.0]).sum(-1, keepdims=True))
    np.testing.assert_allclose(g, want, rtol=1e-13)
    np.testing.assert_allclose(ms.grad(ops.log_softmax)(x).asnumpy(), 1 - 3 * y, rtol=1e-13)


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC", "NCDHW"])
@FEW
@given(data=st.data())
def test_bias_add_grad(fmt, data):
    rank = 5 if fmt == "NCDHW" else data.draw(st.integers(2, 4))
    shape = data.draw(hnp.array_shapes(min_dims=rank, max_dims=rank, min_side=1, max_side=2))
    channels = shape[-1] if fmt == "NHWC" else shape[1]
    x = data.draw(arr(shape, floats(-3, 3)))
    b = data.draw(arr((channels,), floats(-3, 3)))
    check_grad(lambda p, q: ops.BiasAdd(fmt)(p, q) * p, x, b)


# ---- second order -------------------------------------------------------------------------
def second_order(fn, sens):
    """x -> d/dx sum(fn(x) * sens): its gradient is fn's second derivative (a grad of a grad)."""
    inner = ops.GradOperation(sens_param=True)(fn)
    return lambda x: inner(x, Tensor(sens))


def test_second_order_against_analytic():
    x = np.array([[-2.0, -0.5, 0.0], [0.3, 1.0, 2.5]])
    th, s = np.tanh(x), sigmoid(x)
    cases = [(ops.tanh, -2 * th * (1 - th ** 2)), (ops.sigmoid, s * (1 - s) * (1 - 2 * s)),
             (ops.softplus, s * (1 - s)), (ops.silu, s * (1 - s) * (2 + x * (1 - 2 * s)))]
    for fn, want in cases:
        np.testing.assert_allclose(ms.grad(ms.grad(fn))(Tensor(x)).asnumpy(), want, rtol=1e-12,
                                   atol=1e-15)
    # relu'' = 0 away from 0; d/dy of relu'(x) * y-weighted grads is still exact
    x = np.array([-2.0, -0.5, 0.3, 2.5])
    np.testing.assert_array_equal(ms.grad(ms.grad(ops.relu))(Tensor(x)).asnumpy(), np.zeros(4))


SECOND = [
    ("tanh", ops.tanh, floats(-2, 2)),
    ("sigmoid", ops.sigmoid, floats(-4, 4)),
    ("softmax", nn_ops.Softmax(-1), floats(-3, 3)),
    ("softmax_axis0", nn_ops.Softmax(0), floats(-3, 3)),
    ("log_softmax", nn_ops.LogSoftmax(-1), floats(-3, 3)),
    ("relu", lambda a: ops.relu(a) * ops.relu(a), away_from_kinks),
    ("relu6", lambda a: ops.relu6(a) * ops.tanh(a), away_from_kinks),
    ("gelu", ops.GeLU(), floats(-3, 3)),
    ("silu", ops.silu, floats(-3, 3)),
]


@pytest.mark.parametrize("name,fn,elements", SECOND, ids=[s[0] for s in SECOND])
@settings(max_examples=6)
@given(data=st.data())
def test_second_order_against_finite_differences(name, fn, elements, data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=3))
    x = data.draw(arr(shape, elements))
    sens = data.draw(arr(shape, floats(0.5, 1.5)))
    check_grad(second_order(fn, sens), x)


def test_second_order_bias_add():
    rng = np.random.default_rng(0)
    x, b = rng.normal(size=(2, 3, 2)), rng.normal(size=3)
    sens = rng.uniform(0.5, 1.5, (2, 3, 2))
    inner = ops.GradOperation(get_all=True, sens_param=True)(
        lambda p, q: ops.tanh(ops.BiasAdd()(p, q)))
    check_grad(lambda p, q: inner(p, q, Tensor(sens)), x, b)


# ---- completeness -------------------------------------------------------------------------
def test_every_nn_primitive_has_bprop_or_mark():
    missing = [name for name in nn_ops.__all__
               if issubclass(getattr(nn_ops, name), Primitive)
               and getattr(nn_ops, name) not in BPROPS
               and getattr(nn_ops, name) not in NON_DIFFERENTIABLE]
    assert not missing, missing
