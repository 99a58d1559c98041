"""Functional elementwise spellings, bitwise / integer ops (elementwise_func.py, bitwise_ops.py)
and the scatter / indexed-write family (scatter_func.py, tensor_scatter_ops.py) against numpy
and torch, with MindSpore 2.10's conventions, and float64 gradients."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, ops

from gradcheck import check_grad
from helpers import arrays, broadcast_pairs, shapes, tensor


@settings(max_examples=25, deadline=None)
@given(pair=broadcast_pairs(max_side=4), dtype=st.sampled_from([np.int8, np.int32, np.int64]),
       data=st.data())
def test_bitwise_and_integer_ops_against_numpy(pair, dtype, data):
    a = data.draw(arrays(dtype, pair[0]))
    b = data.draw(arrays(dtype, pair[1], min_value=0, max_value=6))
    ta, tb = tensor(a), tensor(b)
    for fn, ref in ((ops.bitwise_and, np.bitwise_and), (ops.bitwise_or, np.bitwise_or),
                    (ops.bitwise_xor, np.bitwise_xor), (ops.gcd, np.gcd), (ops.lcm, np.lcm),
                    (ops.bitwise_left_shift, np.left_shift),
                    (ops.bitwise_right_shift, np.right_shift)):
        got = fn(ta, tb)
        assert got.dtype.np == np.dtype(dtype)
        np.testing.assert_array_equal(got.asnumpy(), ref(a, b), err_msg=fn.__name__)
    np.testing.assert_array_equal(ops.invert(ta).asnumpy(), np.invert(a))
    np.testing.assert_array_equal((ta & tb).asnumpy(), a & b)        # & | ^: bitwise on ints


def test_bool_and_float_operands():
    b, c = Tensor([True, False, True]), Tensor([True, True, False])
    np.testing.assert_array_equal(ops.bitwise_and(b, c).asnumpy(), [True, False, False])
    np.testing.assert_array_equal((b ^ c).asnumpy(), [False, True, True])
    np.testing.assert_array_equal(ops.bitwise_not(b).asnumpy(), [False, True, False])
    with pytest.raises(TypeError, match="BitwiseAnd"):
        ops.bitwise_and(Tensor([1.0]), Tensor([1.0]))
    np.testing.assert_array_equal((~Tensor([1, 0])).asnumpy(), [False, True])   # logical not
    np.testing.assert_array_equal(ops.logical_and(Tensor([1.0, 0.0]), Tensor([2, 3])).asnumpy(),
                                  [True, False])


@settings(max_examples=25, deadline=None)
@given(pair=broadcast_pairs(max_side=4), data=st.data())
def test_float_elementwise_against_torch(pair, data):
    a = data.draw(arrays(np.float64, pair[0], min_value=-6.0, max_value=6.0))
    b = data.draw(arrays(np.float64, pair[1], min_value=-6.0, max_value=6.0))
    ta, tb, qa, qb = tensor(a), tensor(b), torch.from_numpy(a), torch.from_numpy(b)
    cases = [(ops.remainder, torch.remainder), (ops.floor_divide, torch.floor_divide),
             (ops.copysign, torch.copysign), (ops.fmax, torch.fmax), (ops.fmin, torch.fmin),
             (ops.nextafter, torch.nextafter), (ops.truncate_mod, torch.fmod),
             (ops.float_power, torch.float_power)]
    with np.errstate(all="ignore"):
        for fn, ref in cases:
            np.testing.assert_allclose(fn(ta, tb).asnumpy(), ref(qa, qb).numpy(), rtol=1e-12,
                                       atol=1e-12, equal_nan=True, err_msg=fn.__name__)
    with np.errstate(all="ignore"):                        # heaviside(nan) = nan, as numpy
        np.testing.assert_array_equal(ops.heaviside(ta, tb).asnumpy(), np.heaviside(a, b))
    x = tensor(a)
    for fn, ref in ((ops.frac, torch.frac), (ops.signbit, torch.signbit),
                    (ops.isneginf, torch.isneginf), (ops.isposinf, torch.isposinf)):
        np.testing.assert_array_equal(fn(x).asnumpy(), ref(qa).numpy(), err_msg=fn.__name__)
    np.testing.assert_array_equal(ops.sgn(x).asnumpy(), np.sign(a))   # sign(nan) = nan (2.10)


def test_nan_to_num_and_conversions():
    x = Tensor(np.array([np.nan, np.inf, -np.inf, 1.5], np.float32))
    got = ops.nan_to_num(x, 0.5).asnumpy()
    big = np.finfo(np.float32).max
    np.testing.assert_array_equal(got, [0.5, big, -big, 1.5])
    assert ops.nan_to_num(x.astype(ms.float16)).dtype == ms.float16
    with pytest.raises(TypeError, match="NanToNum"):
        ops.nan_to_num(x.astype(ms.float64))
    assert ops.float_power(Tensor([2, 3]), 2).dtype == ms.float64
    assert ops.frac(Tensor([True])).dtype == ms.int64
    np.testing.assert_array_equal(ops.subtract(Tensor([5.0]), Tensor([1.0]), alpha=2).asnumpy(),
                                  [3.0])
    np.testing.assert_array_equal(ops.divide(Tensor([7]), 2, rounding_mode="floor").asnumpy(),
                                  [3])


@pytest.mark.parametrize("fn", [ops.addcmul, ops.addcdiv])
def test_fused_forms(fn):
    a, b, c = np.array([1.0, -2.0]), np.array([0.5, 3.0]), np.array([2.0, -4.0])
    ref = torch.addcmul if fn is ops.addcmul else torch.addcdiv
    want = ref(*map(torch.from_numpy, (a, b, c)), value=0.5).numpy()
    np.testing.assert_allclose(fn(Tensor(a), Tensor(b), Tensor(c), 0.5).asnumpy(), want)
    check_grad(lambda x, y, z: fn(x, y, z, 0.5), a, b, c)


def test_lerp_and_arith_gradients():
    a, b = np.array([[1.0, -2.0], [0.3, 4.0]]), np.array([[0.5, 3.0], [2.0, -1.0]])
    np.testing.assert_allclose(ops.lerp(Tensor(a), Tensor(b), 0.25).asnumpy(),
                               torch.lerp(torch.from_numpy(a), torch.from_numpy(b), 0.25))
    check_grad(lambda x, y: ops.lerp(x, y, 0.25), a, b)
    check_grad(lambda x, y: ops.fmax(x, y), a, b)
    check_grad(lambda x, y: ops.copysign(x, y), a, b)


# ---- scatter family --------------------------------------------------------------------------
X = np.arange(12.0).reshape(3, 4) - 5
IDX = np.array([[0, 1], [2, 3], [0, 1]])
UPD = np.array([2.0, -3.0, 0.5])


@pytest.mark.parametrize("name, ufunc", [("sub", np.subtract), ("mul", np.multiply),
                                          ("div", np.divide), ("max", np.maximum),
                                          ("min", np.minimum), ("add", np.add)])
def test_tensor_scatter_ops_against_numpy(name, ufunc):
    want = X.copy()
    ufunc.at(want, (IDX[:, 0], IDX[:, 1]), UPD)          # repeated index (0, 1): in turn
    got = getattr(ops, f"tensor_scatter_{name}")(Tensor(X), Tensor(IDX), Tensor(UPD))
    np.testing.assert_allclose(got.asnumpy(), want)
    with pytest.raises(ValueError, match="indices"):
        getattr(ops, f"tensor_scatter_{name}")(Tensor(X), Tensor(np.array([[5, 0]])),
                                              Tensor(np.array([1.0])))


@pytest.mark.parametrize("name", ["sub", "mul", "div", "max", "min"])
def test_tensor_scatter_gradients_distinct_indices(name):
    idx = Tensor(np.array([[0, 1], [2, 3]]))
    upd = np.array([2.5, -0.7])
    check_grad(lambda x, u: getattr(ops, f"tensor_scatter_{name}")(x, idx, u), X + 0.3, upd)


def test_ref_scatters_write_back_and_scatter_nd():
    p = ms.Parameter(Tensor(X), name="p")
    out = ops.scatter_update(p, Tensor(np.array([2])), Tensor(np.ones((1, 4))))
    np.testing.assert_array_equal(p.asnumpy()[2], np.ones(4))
    np.testing.assert_array_equal(out.asnumpy(), p.asnumpy())
    p2 = ms.Parameter(Tensor(X), name="p2")
    ops.scatter_nd_max(p2, Tensor(IDX[:2]), Tensor(np.array([100.0, -100.0])))
    assert p2.asnumpy()[0, 1] == 100.0 and p2.asnumpy()[2, 3] == X[2, 3]
    got = ops.scatter_nd(Tensor(IDX), Tensor(UPD), (3, 4)).asnumpy()
    want = np.zeros((3, 4))
    np.add.at(want, (IDX[:, 0], IDX[:, 1]), UPD)
    np.testing.assert_array_equal(got, want)
    got = ops.inplace_update(Tensor(X), Tensor(np.zeros((2, 4))), Tensor(np.array([0, 2])))
    assert (got.asnumpy()[[0, 2]] == 0).all() and (got.asnumpy()[1] == X[1]).all()
    with pytest.raises(TypeError, match="InplaceAdd"):
        ops.inplace_add(Tensor(X), Tensor(np.zeros((1, 4))), Tensor(np.array([0])))


@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_dim_indexed_writes_against_torch(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    a = data.draw(arrays(np.float64, shape, allow_special=False))
    dim = data.draw(st.integers(0, len(shape) - 1))
    n = shape[dim]
    index = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n,
                                        unique=True)), np.int64)
    src_shape = shape[:dim] + (index.size,) + shape[dim + 1:]
    src = data.draw(arrays(np.float64, src_shape, allow_special=False))
    ta, qa = tensor(a), torch.from_numpy(a)
    ti, qi = Tensor(index), torch.from_numpy(index)
    np.testing.assert_array_equal(ops.index_copy(ta, dim, ti, Tensor(src)).asnumpy(),
                                  qa.index_copy(dim, qi, torch.from_numpy(src)).numpy())
    np.testing.assert_array_equal(ops.index_fill(ta, dim, ti, 2.5).asnumpy(),
                                  qa.index_fill(dim, qi, 2.5).numpy())
    np.testing.assert_allclose(
        ops.index_add_ext(ta, dim, Tensor(index.astype(np.int32)), Tensor(src), alpha=2).asnumpy(),
        qa.index_add(dim, qi, torch.from_numpy(src), alpha=2).numpy())


def test_other_writes_against_torch():
    a, q = Tensor(X), torch.from_numpy(X)
    mask = np.array([[True, False, True, False]] * 3)
    src = np.arange(12.0) * 10
    np.testing.assert_array_equal(
        ops.masked_scatter(a, Tensor(mask), Tensor(src)).asnumpy(),
        q.masked_scatter(torch.from_numpy(mask), torch.from_numpy(src)).numpy())
    np.testing.assert_array_equal(
        ops.put(a, Tensor(np.array([0, -1])), Tensor(np.array([7.0, 8.0]))).asnumpy(),
        q.clone().put_(torch.tensor([0, -1]), torch.tensor([7.0, 8.0], dtype=torch.float64))
        .numpy())
    np.testing.assert_array_equal(
        ops.select_scatter(a, Tensor(np.ones(4)), 0, 1).asnumpy(),
        torch.select_scatter(q, torch.ones(4, dtype=torch.float64), 0, 1).numpy())
    np.testing.assert_array_equal(
        ops.slice_scatter(a, Tensor(np.ones((3, 2))), 1, 0, 4, 2).asnumpy(),
        torch.slice_scatter(q, torch.ones(3, 2, dtype=torch.float64), 1, 0, 4, 2).numpy())
    np.testing.assert_array_equal(
        ops.diagonal_scatter(a, Tensor(np.ones(3)), 1).asnumpy(),
        torch.diagonal_scatter(q, torch.ones(3, dtype=torch.float64), 1).numpy())
    np.testing.assert_array_equal(ops.fill_diagonal(a, 9.0).asnumpy(),
                                  q.clone().fill_diagonal_(9.0).numpy())
    got = ops.index_put(a, (Tensor(np.array([0, 2])), Tensor(np.array([1, 3]))),
                        Tensor(np.array([1.0, 2.0])), True).asnumpy()
    want = q.clone().index_put_((torch.tensor([0, 2]), torch.tensor([1, 3])),
                                torch.tensor([1.0, 2.0], dtype=torch.float64), True).numpy()
    np.testing.assert_array_equal(got, want)
    g = np.array([[0, 3], [1, 1], [2, 0]])
    srcm = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_array_equal(
        ops.scatter_add_ext(a, 1, Tensor(g), Tensor(srcm)).asnumpy(),
        q.scatter_add(1, torch.from_numpy(g), torch.from_numpy(srcm)).numpy())


def test_write_gradients():
    i1 = Tensor(np.array([0, 2]))
    check_grad(lambda x, s: ops.index_copy(x, 0, i1, s), X, np.ones((2, 4)) * 0.5)
    check_grad(lambda x: ops.index_fill(x, 1, i1, 3.0), X)
    check_grad(lambda x, s: ops.slice_scatter(x, s, 1, 0, 4, 2), X, np.ones((3, 2)))
    check_grad(lambda x, s: ops.diagonal_scatter(x, s), X, np.ones(3))
    mask = Tensor(np.array([[True, False, True, False]] * 3))
    check_grad(lambda x, s: ops.masked_scatter(x, mask, s), X, np.arange(6.0))
