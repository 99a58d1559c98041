"""Gradients of the math family (math_ops, elementwise_ops, logic_ops): float64 finite-difference
checks of every differentiable primitive on hypothesis inputs (0-d, broadcast pairs, Python
scalars in tensor positions) kept away from kinks and poles; exact values at the kinks and
at the conventions' edge cases (Pow at x = 0, Maximum / Minimum ties split as MindSpore,
zero-gradient ops); second-order gradients; every primitive has a bprop or a
non-differentiable mark."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradcheck import check_grad

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.ops.operations import math_ops  # noqa: I001 (first: it re-exports the two below)
from mindlite.ops.operations import elementwise_ops, logic_ops
from mindlite.ir.primitive import Primitive
from mindlite.ir.rules import BPROPS, NON_DIFFERENTIABLE

F64 = np.float64
FEW = settings(max_examples=12)
small_shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
pairs = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1,
                                          max_side=3).map(lambda b: b.input_shapes)


def floats(lo, hi):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def away_from_zero(lo, hi):
    """|v| in [lo, hi], either sign."""
    return st.one_of(floats(lo, hi), floats(-hi, -lo))


def arr(shape, elements):
    return hnp.arrays(F64, shape, elements=elements)


def t(values, dtype=F64):
    return Tensor(np.array(values, dtype=dtype))


def grads(fn, *values, positions=None):
    """Gradients (numpy) of sum(fn(*xs)) for every input, or those in `positions`."""
    xs = [t(v) for v in values]
    positions = tuple(range(len(xs))) if positions is None else positions
    g = ms.grad(fn, positions)(*xs)
    return [r.asnumpy() for r in (g if isinstance(g, tuple) else (g,))]


# ---- unary --------------------------------------------------------------------------------
UNARY = [
    ("neg", ops.neg, floats(-3, 3)),
    ("abs", ops.abs, away_from_zero(0.1, 3)),
    ("exp", ops.exp, floats(-3, 3)),
    ("log", ops.log, floats(0.1, 3)),
    ("sqrt", ops.sqrt, floats(0.1, 3)),
    ("rsqrt", ops.rsqrt, floats(0.1, 3)),
    ("square", ops.square, floats(-3, 3)),
    ("sin", ops.sin, floats(-3, 3)),
    ("cos", ops.cos, floats(-3, 3)),
    ("reciprocal", ops.reciprocal, away_from_zero(0.1, 3)),
    ("erf", ops.erf, floats(-3, 3)),
]


@pytest.mark.parametrize("name,fn,elements", UNARY, ids=[u[0] for u in UNARY])
@FEW
@given(data=st.data())
def test_unary_grad(name, fn, elements, data):
    x = data.draw(small_shapes.flatmap(lambda s: arr(s, elements)))
    check_grad(fn, x)


@pytest.mark.parametrize("cls", [elementwise_ops.Sign, elementwise_ops.Floor,
                                 elementwise_ops.Ceil, elementwise_ops.Round])
def test_piecewise_constant_ops_have_zero_gradient(cls):
    assert cls in BPROPS                     # differentiable, with a zero gradient
    (g,) = grads(lambda a: cls()(a) * a, [-1.5, -0.0, 0.5, 2.5, 3.0])
    np.testing.assert_array_equal(g, cls()(t([-1.5, -0.0, 0.5, 2.5, 3.0])).asnumpy())


def test_exact_values_at_kinks():
    (g,) = grads(ops.abs, [-2.0, 0.0, 3.0])
    np.testing.assert_array_equal(g, [-1.0, 0.0, 1.0])
    (g,) = grads(ops.sqrt, [4.0, 0.25])
    np.testing.assert_allclose(g, [0.25, 1.0], rtol=1e-15)


def test_float32_input_gets_float32_gradient():
    x = t([0.5, 1.0, 2.0], np.float32)
    g = ms.grad(lambda a: ops.log(a) * ops.exp(a))(x)
    assert g.dtype == ms.float32
    xs = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(g.asnumpy(), np.exp(xs) * (1 / xs + np.log(xs)), rtol=1e-6)


# ---- binary arithmetic --------------------------------------------------------------------
BINARY = [
    ("add", ops.add, floats(-3, 3), floats(-3, 3)),
    ("sub", ops.sub, floats(-3, 3), floats(-3, 3)),
    ("mul", ops.mul, floats(-3, 3), floats(-3, 3)),
    ("div", ops.div, floats(-3, 3), away_from_zero(0.3, 3)),
    ("realdiv", ops.RealDiv(), floats(-3, 3), away_from_zero(0.3, 3)),
    ("pow", ops.pow, floats(0.2, 2), floats(-2, 2)),
]


@pytest.mark.parametrize("name,fn,ex,ey", BINARY, ids=[b[0] for b in BINARY])
@FEW
@given(data=st.data())
def test_binary_grad_broadcast(name, fn, ex, ey, data):
    sx, sy = data.draw(pairs)
    check_grad(fn, data.draw(arr(sx, ex)), data.draw(arr(sy, ey)))


# grid values: x and y are never equal (|x - y| >= 0.25), so no ties in the finite differences
grid_x = st.integers(-6, 6).map(lambda k: k * 0.5 + 0.25)
grid_y = st.integers(-6, 6).map(lambda k: k * 0.5)


@pytest.mark.parametrize("fn", [ops.maximum, ops.minimum])
@FEW
@given(data=st.data())
def test_maximum_minimum_grad(fn, data):
    sx, sy = data.draw(pairs)
    x, y = data.draw(arr(sx, grid_x)), data.draw(arr(sy, grid_y))
    if data.draw(st.booleans()):
        x, y = y, x
    check_grad(fn, x, y)


def test_maximum_minimum_ties_share_the_gradient():
    # MindSpore 2.10's MaximumGrad / MinimumGrad split a tie: half to each input
    x, y = [1.0, 2.0, 3.0], [1.0, 0.0, 5.0]
    gx, gy = grads(ops.maximum, x, y)
    np.testing.assert_array_equal(gx, [0.5, 1.0, 0.0])
    np.testing.assert_array_equal(gy, [0.5, 0.0, 1.0])
    gx, gy = grads(ops.minimum, x, y)
    np.testing.assert_array_equal(gx, [0.5, 0.0, 1.0])
    np.testing.assert_array_equal(gy, [0.5, 1.0, 0.0])
    (g,) = grads(lambda a: ops.maximum(a, 0.0), [-1.0, 0.0, 2.0])
    np.testing.assert_array_equal(g, [0.0, 0.5, 1.0])
    # clamp keeps the whole gradient at its bounds (MindSpore's clamp)
    (g,) = grads(lambda a: ops.clamp(a, 1.0, 2.0), [0.5, 1.0, 1.5, 2.0, 3.0])
    np.testing.assert_array_equal(g, [0.0, 1.0, 1.0, 1.0, 0.0])


@pytest.mark.parametrize("fn", [ops.floor_mod, ops.fmod])
@FEW
@given(data=st.data())
def test_floor_mod_and_mod_grad(fn, data):
    """x = y (k + f) with f in [0.1, 0.9]: x / y stays away from the jumps at integers."""
    shape = data.draw(small_shapes)
    y = data.draw(arr(data.draw(st.sampled_from([shape, ()])), away_from_zero(0.5, 2)))
    k = data.draw(hnp.arrays(F64, shape, elements=st.integers(-3, 3).map(float)))
    f = data.draw(arr(shape, floats(0.1, 0.9)))
    check_grad(fn, y * (k + f), y)


def test_floor_mod_mod_exact():
    x, y = [7.5, -7.5, 7.5], [2.0, 2.0, -2.0]
    gx, gy = grads(ops.floor_mod, x, y)
    np.testing.assert_array_equal(gx, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(gy, -np.floor(np.divide(x, y)))
    gx, gy = grads(ops.fmod, x, y)
    np.testing.assert_array_equal(gy, -np.trunc(np.divide(x, y)))


@pytest.mark.parametrize("fn", [ops.floor_div, ops.TruncateDiv()])
def test_floor_div_truncate_div_zero_gradient(fn):
    gx, gy = grads(fn, [7.5, -3.0], [2.0, 0.5])
    np.testing.assert_array_equal(gx, [0.0, 0.0])
    np.testing.assert_array_equal(gy, [0.0, 0.0])


def test_pow_conventions():
    # d/dx of x**0 is 0 (also at x = 0); d/dy is 0 where x <= 0
    gx, gy = grads(ops.pow, [0.0, 0.0, -2.0, 3.0], [0.0, 2.0, 2.0, 0.0])
    np.testing.assert_array_equal(gx, [0.0, 0.0, -4.0, 0.0])
    np.testing.assert_allclose(gy, [0.0, 0.0, 0.0, np.log(3.0)], rtol=1e-15, atol=0)
    (g,) = grads(lambda a: a ** 0, [0.0, 2.0])
    np.testing.assert_array_equal(g, [0.0, 0.0])


@FEW
@given(x=small_shapes.flatmap(lambda s: arr(s, floats(0.2, 2).filter(
    lambda v: abs(v - 1.0) > 0.05 and abs(v - 0.7) > 0.05))))      # no ties with 1.0 and 0.7
def test_python_scalars_in_tensor_positions(x):
    check_grad(lambda a: a * 2.0 + 3.0 / a - (1.0 - a) / 4.0 + (a - 0.5), x)
    check_grad(lambda a: a ** 3 + 2.0 ** a + ops.pow(a, -1.5) + ops.maximum(a, 1.0), x)
    check_grad(lambda a: ops.minimum(0.7, a) + ops.floor_mod(a, 10.0), x)


def test_int_input_gets_no_gradient():
    x, n = t([1.0, 2.0]), Tensor(np.array([3, 4], np.int32))
    gx, gn = ms.grad(lambda a, b: a * b + ops.pow(a, b), (0, 1))(x, n)
    np.testing.assert_allclose(gx.asnumpy(), [3.0 + 3.0, 4.0 + 4 * 2.0 ** 3])
    np.testing.assert_array_equal(gn.asnumpy(), [0, 0])


# ---- Select, comparisons, logical ---------------------------------------------------------
@FEW
@given(data=st.data())
def test_select_grad(data):
    sc, sx, sy = data.draw(hnp.mutually_broadcastable_shapes(
        num_shapes=3, min_dims=0, max_dims=3, min_side=1, max_side=3)).input_shapes
    cond = data.draw(hnp.arrays(np.bool_, sc))
    x, y = data.draw(arr(sx, floats(-3, 3))), data.draw(arr(sy, floats(-3, 3)))
    check_grad(lambda c, a, b: ops.select(c, a * a, b), cond, x, y)
    gc, gx, gy = ms.grad(ops.select, (0, 1, 2))(Tensor(cond), Tensor(x), Tensor(y))
    full = np.broadcast_to(cond, np.broadcast_shapes(sc, sx, sy))
    np.testing.assert_array_equal(gx.asnumpy(), _sum_to(full.astype(F64), sx))
    np.testing.assert_array_equal(gy.asnumpy(), _sum_to((~full).astype(F64), sy))
    assert not gc.asnumpy().any()


def _sum_to(a, shape):
    lead = a.ndim - len(shape)
    a = a.sum(axis=tuple(range(lead)))
    return a.sum(axis=tuple(i for i, s in enumerate(shape) if s == 1), keepdims=True)


def test_comparisons_and_logical_ops_are_not_recorded():
    for cls in (logic_ops.Equal, logic_ops.NotEqual, logic_ops.Less, logic_ops.LessEqual,
                logic_ops.Greater, logic_ops.GreaterEqual, logic_ops.LogicalNot,
                logic_ops.LogicalAnd, logic_ops.LogicalOr):
        assert cls in NON_DIFFERENTIABLE and cls not in BPROPS
    (g,) = grads(lambda a: ops.select(ops.logical_and(a > 0, ops.logical_not(a == 5.0)), a, -a),
                 [-2.0, 3.0, 5.0])
    np.testing.assert_array_equal(g, [-1.0, 1.0, -1.0])


# ---- AddN, MatMul, BatchMatMul ------------------------------------------------------------
@FEW
@given(data=st.data())
def test_addn_grad(data):
    shape = data.draw(small_shapes)
    xs = [data.draw(arr(shape, floats(-3, 3))) for _ in range(data.draw(st.integers(1, 3)))]
    check_grad(lambda *a: ops.addn(list(a)) * a[0], *xs)
    check_grad(lambda a: ops.addn((a, a, ops.square(a))), xs[0])     # fan-out inside the list


@FEW
@given(data=st.data(), ta=st.booleans(), tb=st.booleans())
def test_matmul_grad(data, ta, tb):
    m, k, n = (data.draw(st.integers(1, 3)) for _ in range(3))
    a = data.draw(arr((k, m) if ta else (m, k), floats(-2, 2)))
    b = data.draw(arr((n, k) if tb else (k, n), floats(-2, 2)))
    check_grad(ops.MatMul(ta, tb), a, b)


@FEW
@given(data=st.data(), ta=st.booleans(), tb=st.booleans())
def test_batch_matmul_grad_broadcast_batch(data, ta, tb):
    bx, by = data.draw(hnp.mutually_broadcastable_shapes(
        num_shapes=2, min_dims=0, max_dims=2, min_side=1, max_side=2)).input_shapes
    m, k, n = (data.draw(st.integers(1, 3)) for _ in range(3))
    a = data.draw(arr(bx + ((k, m) if ta else (m, k)), floats(-2, 2)))
    b = data.draw(arr(by + ((n, k) if tb else (k, n)), floats(-2, 2)))
    check_grad(ops.BatchMatMul(ta, tb), a, b)


# ---- second order -------------------------------------------------------------------------
def second_order(fn, sens):
    """x -> d/dx sum(fn(x) * sens): its gradient is fn's second derivative (a grad of a grad)."""
    inner = ops.GradOperation(get_all=True, sens_param=True)(fn)
    return lambda *xs: inner(*xs, Tensor(sens))


def test_second_order_exp_against_analytic():
    x = np.array([[-1.0, 0.5], [2.0, 0.0]])
    g2 = ms.grad(ms.grad(ops.exp))(Tensor(x))
    np.testing.assert_allclose(g2.asnumpy(), np.exp(x), rtol=1e-14)
    g3 = ms.grad(ms.grad(ms.grad(ops.exp)))(Tensor(x))
    np.testing.assert_allclose(g3.asnumpy(), np.exp(x), rtol=1e-14)


def test_second_order_mul_against_analytic():
    x, y = t([1.0, -2.0, 3.0]), t([4.0, 5.0, -6.0])
    # d/dx sum(x * x * y) = 2 x y; its gradient w.r.t. (x, y) is (2 y, 2 x)
    gx, gy = ms.grad(lambda a, b: ms.grad(lambda p, q: p * p * q)(a, b), (0, 1))(x, y)
    np.testing.assert_allclose(gx.asnumpy(), 2 * y.asnumpy())
    np.testing.assert_allclose(gy.asnumpy(), 2 * x.asnumpy())


SECOND = [
    ("mul", lambda a, b: ops.mul(ops.mul(a, a), b), (2, 3), (2, 3)),
    ("exp", lambda a, b: ops.exp(a * b), (2, 3), (2, 3)),
    ("div", lambda a, b: ops.div(a, b), (3,), (3,)),
    ("matmul", ops.MatMul(False, True), (2, 3), (4, 3)),
    ("batch_matmul", ops.BatchMatMul(True, False), (2, 3, 2), (2, 3, 2)),
    ("pow", ops.pow, (3,), (3,)),
    ("sin_log_sqrt", lambda a, b: ops.sin(a) * ops.log(b) + ops.sqrt(a * b), (3,), (3,)),
]


@pytest.mark.parametrize("name,fn,sx,sy", SECOND, ids=[s[0] for s in SECOND])
def test_second_order_against_finite_differences(name, fn, sx, sy):
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0.5, 2.0, sx), rng.uniform(0.5, 2.0, sy)
    sens = rng.uniform(0.5, 1.5, fn(Tensor(a), Tensor(b)).shape)
    check_grad(second_order(fn, sens), a, b)


def test_second_order_with_broadcasting():
    rng = np.random.default_rng(2)
    a, b = rng.uniform(0.5, 2.0, (2, 3)), rng.uniform(0.5, 2.0, (3,))
    sens = rng.uniform(0.5, 1.5, (2, 3))
    check_grad(second_order(lambda p, q: ops.mul(ops.mul(p, p), q), sens), a, b)
    check_grad(second_order(lambda p, q: ops.div(ops.exp(p), q), sens), a, b)


# ---- completeness -------------------------------------------------------------------------
def test_every_math_primitive_has_bprop_or_mark():
    missing = []
    for module in (math_ops, elementwise_ops, logic_ops):
        for name in module.__all__:
            cls = getattr(module, name)
            if (isinstance(cls, type) and issubclass(cls, Primitive)
                    and cls not in BPROPS and cls not in NON_DIFFERENTIABLE):
                missing.append(name)
    assert not missing, missing


@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("xshape", [(2, 3, 4), (2, 1, 3, 4), (0, 3, 4)])
def test_batch_matmul_with_a_broadcast_weight(xshape, transpose_b):
    """A 2-D y broadcast over x's batch: the kernel folds the batch into rows and the bprop
    takes y's gradient as one MatMul (not a batch of products summed afterwards): values,
    float64 finite differences, and graph mode's gradient equal eager's."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xshape)
    y = rng.standard_normal((5, 4) if transpose_b else (4, 5))
    prim = math_ops.BatchMatMul(transpose_b=transpose_b)
    got = prim(Tensor(x), Tensor(y)).asnumpy()
    np.testing.assert_allclose(got, np.matmul(x, y.T if transpose_b else y), rtol=1e-12)
    if x.size:
        check_grad(lambda a, b: prim(a, b), x, y)
    w = ms.Parameter(Tensor(y), name="w")
    gf = ms.grad(lambda t: (prim(t, w) ** 2).sum(), grad_position=0, weights=[w])

    def step(t):
        return gf(t)
    eager = gf(Tensor(x))
    graph = ms.jit(step)(Tensor(x))
    for e, g in zip([eager[0]] + list(eager[1]), [graph[0]] + list(graph[1])):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-12, atol=1e-12)
