"""Gradients of the reductions (reduce_ops): float64 finite-difference checks of ReduceSum,
ReduceMean, ReduceProd, ReduceMax, ReduceMin and ArgMax/ArgMinWithValue for every axis
combination (negative axes, axis left out, keep_dims both ways) on hypothesis inputs (0-d,
empty); exact values at the conventions' edge cases (ties shared equally, zeros in products);
second-order gradients; every primitive has a bprop or a non-differentiable mark."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradcheck import check_grad

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.ops.operations import reduce_ops
from mindlite.ops.operations.reduce_ops import (ArgMaxWithValue, ArgMinWithValue, ReduceMax,
                                                ReduceMean, ReduceMin, ReduceProd, ReduceSum)
from mindlite.ops.primitive import Primitive
from mindlite.pynative.grad import BPROPS, NON_DIFFERENTIABLE

F64 = np.float64
FEW = settings(max_examples=15)
NO_AXIS = object()
any_shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3)
full_shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)


def arr(shape, lo=-2.0, hi=2.0):
    return hnp.arrays(F64, shape, elements=st.floats(lo, hi, allow_nan=False, allow_infinity=False))


def distinct(shape, data):
    """Values at least 0.25 apart (finite differences never cross a tie)."""
    n = int(np.prod(shape))
    perm = data.draw(st.permutations(range(n)))
    return (np.array(perm, F64) * 0.25 - n / 8).reshape(shape)


def axis_arg(ndim, data):
    """An axis argument for rank ndim: left out, (), an int, a tuple or a list, with negative
    axes mixed in."""
    if ndim == 0:
        return data.draw(st.sampled_from([NO_AXIS, (), 0, -1, (0,)]))
    axes = data.draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim))
    axes = [a - ndim if data.draw(st.booleans()) else a for a in axes]
    form = data.draw(st.sampled_from(["none", "tuple", "list", "int"]))
    if form == "none":
        return NO_AXIS
    if form == "int" and len(axes) == 1:
        return axes[0]
    return list(axes) if form == "list" else tuple(axes)


def reducer(cls, keep, axis):
    prim = cls(keep)
    return (lambda x: prim(x)) if axis is NO_AXIS else (lambda x: prim(x, axis))


def grad_check(fn, x, **kw):
    """check_grad; for an empty x (nothing to difference) the analytic gradient must still
    come back with x's shape and dtype, all zeros."""
    if x.size == 0:
        g = ms.grad(fn)(Tensor(x))
        assert g.shape == x.shape and g.dtype == ms.float64
        return
    check_grad(fn, x, **kw)


def all_axis_combos(ndim):
    for k in range(ndim + 1):
        yield from itertools.combinations(range(ndim), k)


# ---- first order -----------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [ReduceSum, ReduceMean, ReduceProd, ReduceMax, ReduceMin])
@pytest.mark.parametrize("keep", [False, True])
def test_every_axis_combination(cls, keep):
    x = np.random.default_rng(0).permutation(12).reshape(2, 3, 2) * 0.2 + 0.3
    for axes in all_axis_combos(3):
        axis = tuple(a - 3 if a % 2 else a for a in axes)      # some negative
        check_grad(reducer(cls, keep, axis), x)
    check_grad(reducer(cls, keep, NO_AXIS), x)


@given(st.data())
@pytest.mark.parametrize("cls", [ReduceSum, ReduceMean])
def test_sum_mean_grad(cls, data):
    shape = data.draw(any_shapes)
    x = data.draw(arr(shape))
    grad_check(reducer(cls, data.draw(st.booleans()), axis_arg(len(shape), data)), x)


@given(st.data())
def test_prod_grad_with_zeros(data):
    """The product is multilinear, so central differences are exact even at zeros."""
    shape = data.draw(any_shapes)
    x = data.draw(hnp.arrays(F64, shape, elements=st.one_of(
        st.just(0.0), st.floats(-1.5, 1.5, allow_nan=False))))
    grad_check(reducer(ReduceProd, data.draw(st.booleans()), axis_arg(len(shape), data)), x)


def test_prod_grad_exact_at_zeros():
    x = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 2.0], [1.0, 2.0, 4.0], [5.0, 0.0, -1.0]])
    g = ms.grad(lambda x: ops.ReduceProd()(x, 1))(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(g, [[6, 0, 0], [0, 0, 0], [8, 4, 2], [0, -5, 0]])


@given(st.data())
@pytest.mark.parametrize("cls", [ReduceMax, ReduceMin])
def test_max_min_grad(cls, data):
    shape = data.draw(full_shapes)
    grad_check(reducer(cls, data.draw(st.booleans()), axis_arg(len(shape), data)),
               distinct(shape, data))


@pytest.mark.parametrize("cls,pick", [(ReduceMax, np.max), (ReduceMin, np.min)])
@pytest.mark.parametrize("keep", [False, True])
def test_max_min_ties_share_the_gradient(cls, pick, keep):
    x = np.array([[[1.0, 3.0], [3.0, 0.0]], [[2.0, 2.0], [2.0, 2.0]], [[5.0, -1.0], [0.0, 5.0]]])
    for axis in [(1,), (1, 2), (0, 2), ()]:
        axes = axis or (0, 1, 2)
        dout = np.arange(1.0, 1.0 + np.prod(pick(x, axis=axes, keepdims=keep).shape))
        dout = dout.reshape(pick(x, axis=axes, keepdims=keep).shape)
        g = ops.GradOperation(sens_param=True)(lambda x: cls(keep)(x, axis))(Tensor(x),
                                                                             Tensor(dout))
        hit = x == pick(x, axis=axes, keepdims=True)
        want = hit / hit.sum(axis=axes, keepdims=True) * dout.reshape(
            pick(x, axis=axes, keepdims=True).shape)
        np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-15)
    g = ms.grad(lambda x: cls()(x))(Tensor(np.full((2, 2), 7.0))).asnumpy()
    np.testing.assert_array_equal(g, np.full((2, 2), 0.25))


@given(st.data())
@pytest.mark.parametrize("cls", [ArgMaxWithValue, ArgMinWithValue])
def test_arg_with_value_grad(cls, data):
    shape = data.draw(full_shapes)
    axis = data.draw(st.integers(-max(len(shape), 1), max(len(shape), 1) - 1))
    keep = data.draw(st.booleans())
    x = distinct(shape, data)
    check_grad(lambda x: cls(axis, keep)(x)[1], x)
    check_grad(lambda x: cls(axis, keep)(x), x)          # both outputs: the index carries none


@pytest.mark.parametrize("cls,want", [(ArgMaxWithValue, [[1, 0, 0], [0, 0, 1]]),
                                      (ArgMinWithValue, [[0, 0, 1], [1, 0, 0]])])
def test_arg_with_value_ties_go_to_the_first_index(cls, want):
    x = np.array([[3.0, 3.0, 1.0], [1.0, 1.0, 3.0]])
    g = ms.grad(lambda x: ops.ReduceSum()(cls(1)(x)[1]))(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(g, want)
    if cls is ArgMaxWithValue:
        g = ms.grad(lambda x: ops.ReduceSum()(cls(0)(x)[1]))(Tensor(x[:, :2])).asnumpy()
        np.testing.assert_array_equal(g, [[1, 1], [0, 0]])


def test_int_inputs_get_no_gradient():
    x, k = Tensor(np.array([1.0, 2.0])), Tensor(np.array([[1, 2], [3, 4]], np.int32))

    def f(x, k):
        return x * ops.Cast()(ops.ReduceSum()(k, 0) + ops.ReduceProd()(k, 1), ms.float64)
    gx, gk = ops.GradOperation(get_all=True)(f)(x, k)
    np.testing.assert_array_equal(gx.asnumpy(), [6.0, 18.0])
    np.testing.assert_array_equal(gk.asnumpy(), np.zeros((2, 2)))


# ---- second order ----------------------------------------------------------------------------
@FEW
@given(st.data())
@pytest.mark.parametrize("cls", [ReduceSum, ReduceMean])
def test_sum_mean_second_order(cls, data):
    shape = data.draw(full_shapes)
    x = data.draw(arr(shape))
    keep, axis = data.draw(st.booleans()), axis_arg(len(shape), data)
    red = reducer(cls, keep, axis)

    def f(x):
        return red(x * x * x)
    check_grad(lambda x: ms.grad(f)(x), x)                       # grad of a grad
    s = data.draw(arr(red(Tensor(x)).shape))
    vjp = ops.GradOperation(sens_param=True)(red)
    check_grad(lambda x, s: vjp(x, s), x, s)                       # the bprop's own bprops


@pytest.mark.parametrize("cls", [ReduceProd, ReduceMax, ReduceMin])
def test_prod_max_min_second_order(cls):
    # positive and distinct (no ties in x * x); no exact zeros, where ReduceProd's second
    # derivative is not exact
    x = np.random.default_rng(2).permutation(12).reshape(3, 4) * 0.2 + 0.3
    red = cls(True)
    check_grad(lambda x: ms.grad(lambda x: ops.ReduceSum()(red(x * x, 1) * x))(x), x)
    vjp = ops.GradOperation(sens_param=True)(lambda x: red(x, (0, 1)))
    check_grad(lambda x, s: vjp(x, s), x, np.array([[1.5]]))


# ---- completeness ----------------------------------------------------------------------------
def test_every_primitive_has_a_bprop_or_is_non_differentiable():
    prims = [c for c in vars(reduce_ops).values() if isinstance(c, type)
             and issubclass(c, Primitive) and c.__module__ == reduce_ops.__name__
             and not c.__name__.startswith("_")]
    assert len(prims) == 11
    missing = [c.__name__ for c in prims if c not in BPROPS and c not in NON_DIFFERENTIABLE]
    assert not missing, f"no bprop and no non-differentiable mark: {missing}"
    assert {c.__name__ for c in prims if c in NON_DIFFERENTIABLE} == {
        "ReduceAll", "ReduceAny", "Argmax", "Argmin"}


def test_prod_grad_with_subnormals_and_underflow():
    """Found by hypothesis: [5e-324, 0.5] has product 0 (underflow), so prod / x_i gave 0 for
    every element; the prefix/suffix products are exact."""
    g = ms.grad(lambda x: ops.ReduceProd()(x))(Tensor(np.array([5e-324, 0.5]))).asnumpy()
    np.testing.assert_array_equal(g, [0.5, 5e-324])
    g = ms.grad(lambda x: ops.ReduceProd()(x))(Tensor(np.array([1e-200, 1e-200, 3.0])))
    np.testing.assert_array_equal(g.asnumpy(), [3e-200, 3e-200, 0.0])
