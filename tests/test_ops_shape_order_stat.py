"""Functional shape / layout ops (shape_func.py), order statistics and counts
(order_stat_func.py, search_ops.py) and products (product_func.py) against numpy and torch,
with float64 gradients where they are differentiable."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, ops

from gradcheck import check_grad
from helpers import arrays, shapes, tensor

A = np.arange(24.0).reshape(2, 3, 4) * 0.37 - 3.0


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_diagonal_split_diff_against_numpy(data):
    shape = data.draw(shapes(min_dims=2, max_dims=3, min_side=1, max_side=5))
    a = data.draw(arrays(np.float32, shape, allow_special=False))
    off = data.draw(st.integers(-2, 2))
    np.testing.assert_array_equal(ops.diagonal(tensor(a), off, 0, 1).asnumpy(),
                                  np.diagonal(a, off, 0, 1))
    sections = data.draw(st.integers(1, 4))
    for got, want in zip(ops.tensor_split(tensor(a), sections, 1),
                         np.array_split(a, sections, 1)):
        np.testing.assert_array_equal(got.asnumpy(), want)
    n = data.draw(st.integers(0, 3))
    np.testing.assert_array_equal(ops.diff(tensor(a), n, -1).asnumpy(), np.diff(a, n, -1))
    k = data.draw(st.integers(-3, 3))
    np.testing.assert_array_equal(ops.rot90(tensor(a), k, (0, 1)).asnumpy(),
                                  np.rot90(a, k, (0, 1)))


def test_stacks_splits_and_constructions():
    x, y = np.ones((2, 3)), np.arange(6.0).reshape(2, 3)
    for fn, ref in ((ops.hstack, np.hstack), (ops.vstack, np.vstack), (ops.dstack, np.dstack),
                    (ops.column_stack, np.column_stack), (ops.row_stack, np.vstack)):
        np.testing.assert_array_equal(fn([Tensor(x), Tensor(y)]).asnumpy(), ref([x, y]))
    b = np.arange(48.0).reshape(2, 4, 6)
    for fn, ref in ((ops.hsplit, np.hsplit), (ops.vsplit, np.vsplit), (ops.dsplit, np.dsplit)):
        for got, want in zip(fn(Tensor(b), 2), ref(b, 2)):
            np.testing.assert_array_equal(got.asnumpy(), want)
    np.testing.assert_array_equal(ops.kron(Tensor(x), Tensor(y)).asnumpy(), np.kron(x, y))
    q = torch.from_numpy
    np.testing.assert_array_equal(ops.block_diag(Tensor(x), Tensor(y[:1])).asnumpy(),
                                  torch.block_diag(q(x), q(y[:1])).numpy())
    np.testing.assert_array_equal(ops.diag_embed(Tensor(y), 1).asnumpy(),
                                  torch.diag_embed(q(y), 1).numpy())
    np.testing.assert_array_equal(ops.diagflat(Tensor(y[0]), -1).asnumpy(),
                                  np.diagflat(y[0], -1))
    v, w = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0])
    np.testing.assert_array_equal(ops.cartesian_prod(Tensor(v), Tensor(w)).asnumpy(),
                                  torch.cartesian_prod(q(v), q(w)).numpy())
    np.testing.assert_array_equal(ops.combinations(Tensor(v), 2).asnumpy(),
                                  torch.combinations(q(v), 2).numpy())
    np.testing.assert_array_equal(ops.tril_indices(3, 4, 1).asnumpy(),
                                  np.stack(np.tril_indices(3, 1, 4)))
    np.testing.assert_array_equal(ops.triu_indices(4, 3).asnumpy(),
                                  np.stack(np.triu_indices(4, 0, 3)))
    np.testing.assert_array_equal(ops.vander(Tensor(v)).asnumpy(), np.vander(v))
    np.testing.assert_array_equal(ops.matrix_band_part(Tensor(A[0]), 1, 0).asnumpy(),
                                  np.tril(np.triu(A[0], -1)))
    f = Tensor(np.array([1.0, -2.0], np.float32))
    np.testing.assert_array_equal(f.view(ms.int32).asnumpy(),
                                  np.array([1.0, -2.0], np.float32).view(np.int32))
    np.testing.assert_array_equal(ops.tensor_dot(Tensor(A), Tensor(A), ((1, 2), (1, 2)))
                                  .asnumpy(), np.tensordot(A, A, ((1, 2), (1, 2))))
    assert ops.numel(Tensor(A)) == 24 and ops.t(Tensor(y)).shape == (3, 2)
    assert ops.expand(Tensor(v), Tensor(np.array([2, -1]))).shape == (2, 3)
    with pytest.raises(TypeError, match="reverse"):
        ops.reverse(Tensor(v), 0)


def test_shape_gradients():
    check_grad(lambda x: ops.diagonal(x, 1, 1, 2), A)
    check_grad(lambda x: ops.rot90(x, 1, (1, 2)), A)
    check_grad(lambda x: ops.diff(x, 2, 2), A)
    check_grad(lambda x, y: ops.kron(x, y), A[0, :2, :2], A[1, :2, :3])
    check_grad(lambda x: ops.diag_embed(x), A[0])
    check_grad(lambda x: ops.combinations(x), A[0, 0])
    check_grad(lambda x: ops.tensor_split(x, 3, 2)[1], A)


# ---- order statistics --------------------------------------------------------------------------
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_median_quantile_kthvalue_against_torch(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
    a = data.draw(arrays(np.float64, shape, allow_special=False))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    q = torch.from_numpy(a)
    values, index = ops.median(tensor(a), axis)
    np.testing.assert_array_equal(values.asnumpy(), q.median(axis).values.numpy())
    np.testing.assert_array_equal(np.take_along_axis(a, np.expand_dims(index.asnumpy(), axis),
                                                     axis).squeeze(axis), values.asnumpy())
    qs = data.draw(st.floats(0, 1))
    np.testing.assert_allclose(ops.quantile(tensor(a), qs, axis).asnumpy(),
                               np.quantile(a, qs, axis), rtol=1e-12, atol=1e-12)
    k = data.draw(st.integers(1, a.shape[axis]))
    kv, ki = ops.kthvalue(tensor(a), k, axis)
    np.testing.assert_array_equal(kv.asnumpy(), q.kthvalue(k, axis).values.numpy())
    assert ki.dtype == ms.int64


def test_nan_aware_reductions():
    a = np.array([[1.0, np.nan, 3.0, 8.0], [np.nan, np.nan, 2.0, -1.0]])
    q = torch.from_numpy(a)
    np.testing.assert_array_equal(ops.nansum(Tensor(a), 1).asnumpy(), np.nansum(a, 1))
    np.testing.assert_allclose(ops.nanmean(Tensor(a), 1).asnumpy(), np.nanmean(a, 1))
    np.testing.assert_array_equal(ops.nanmedian(Tensor(a), 1)[0].asnumpy(),
                                  q.nanmedian(1).values.numpy())
    np.testing.assert_allclose(ops.nanquantile(Tensor(a), 0.4, 1).asnumpy(),
                               np.nanquantile(a, 0.4, 1))


def test_counting_and_search_ops():
    s = np.array([[0.0, 1.0, 2.0, 3.0], [-1.0, 0.5, 0.5, 9.0]])
    v = np.array([[0.5, 2.0, 3.0], [0.5, -2.0, 10.0]])
    qs, qv = torch.from_numpy(s), torch.from_numpy(v)
    for right in (False, True):
        got = ops.searchsorted(Tensor(s), Tensor(v), right=right)
        assert got.dtype == ms.int64
        np.testing.assert_array_equal(got.asnumpy(), torch.searchsorted(qs, qv, right=right))
    assert ops.searchsorted(Tensor(s[0]), 1.5, out_int32=True).dtype == ms.int32
    np.testing.assert_array_equal(
        ops.bucketize(Tensor(v), [0.0, 1.0, 3.0]).asnumpy(),
        torch.bucketize(qv, torch.tensor([0.0, 1.0, 3.0], dtype=torch.float64)).numpy())
    runs = np.array([1, 1, 2, 2, 2, 3, 1, 1])
    out, inv, counts = ops.unique_consecutive(Tensor(runs), True, True)
    w_out, w_inv, w_counts = torch.unique_consecutive(torch.from_numpy(runs), True, True)
    for g, w in ((out, w_out), (inv, w_inv), (counts, w_counts)):
        np.testing.assert_array_equal(g.asnumpy(), w.numpy())
    x = np.array([0.1, 0.5, 0.52, 0.9, 2.0, -1.0])
    np.testing.assert_array_equal(ops.histc(Tensor(x), 4, 0.0, 1.0).asnumpy(),
                                  torch.histc(torch.from_numpy(x), 4, 0.0, 1.0).numpy())
    dup = np.array([3, 1, 3, 0])
    assert ops.bincount(Tensor(dup)).dtype == ms.float32          # as MindSpore's ops.bincount
    np.testing.assert_array_equal(ops.bincount(Tensor(dup), minlength=6).asnumpy(),
                                  np.bincount(dup, minlength=6))
    neg = Tensor(np.array([-1, 2]))       # MindSpore 2.10's ops.bincount skips negatives
    np.testing.assert_array_equal(ops.bincount(neg).asnumpy(), [0, 0, 1])
    np.testing.assert_array_equal(ops.bincount(Tensor(np.array([0.0, 2.0, 2.5]))).asnumpy(),
                                  [1, 0, 1])
    with pytest.raises(ValueError, match="non-negative"):
        ms.mint.bincount(neg)

    @ms.jit
    def counts(v):
        return ops.bincount(v)
    np.testing.assert_array_equal(counts(Tensor(dup)).asnumpy(), np.bincount(dup))
    np.testing.assert_array_equal(ms.mint.bincount(Tensor(dup)).asnumpy(), np.bincount(dup))
    y, inv, cnt = Tensor(np.array([3, 1, 3, 2])).unique(return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(y.asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(inv.asnumpy(), [2, 0, 2, 1])
    np.testing.assert_array_equal(cnt.asnumpy(), [1, 1, 2])
    y, inv = ops.unique(Tensor(np.array([3, 1, 3, 2])))         # ops.unique: first appearance
    np.testing.assert_array_equal(y.asnumpy(), [3, 1, 2])
    np.testing.assert_array_equal(inv.asnumpy(), [0, 1, 0, 2])


def test_statistics_against_torch():
    a = A[0]
    q = torch.from_numpy(a)
    np.testing.assert_allclose(ops.cov(Tensor(a)).asnumpy(), torch.cov(q).numpy())
    fw = np.array([1, 2, 1, 3])
    aw = np.array([0.5, 1.0, 2.0, 1.0])
    np.testing.assert_allclose(
        ops.cov(Tensor(a), fweights=Tensor(fw), aweights=Tensor(aw)).asnumpy(),
        torch.cov(q, fweights=torch.from_numpy(fw), aweights=torch.from_numpy(aw)).numpy())
    np.testing.assert_allclose(ops.logcumsumexp(Tensor(a), 1).asnumpy(),
                               torch.logcumsumexp(q, 1).numpy())
    np.testing.assert_allclose(ops.renorm(Tensor(a), 2, 0, 1.0).asnumpy(),
                               torch.renorm(q, 2, 0, 1.0).numpy(), rtol=1e-6)
    mn, mx = ops.aminmax(Tensor(a), axis=1)
    np.testing.assert_array_equal(mn.asnumpy(), a.min(1))
    np.testing.assert_array_equal(mx.asnumpy(), a.max(1))
    np.testing.assert_array_equal(ops.take(Tensor(a), Tensor(np.array([[0, -1]]))).asnumpy(),
                                  np.take(a, [[0, -1]]))


def test_order_stat_gradients():
    a = A[0]
    check_grad(lambda x: ops.median(x, 1)[0], a)
    check_grad(lambda x: ops.quantile(x, 0.3, 1), a)
    check_grad(lambda x: ops.kthvalue(x, 2, 1)[0], a)
    check_grad(lambda x: ops.logcumsumexp(x, 1), a)
    check_grad(lambda x: ops.cov(x), a)
    check_grad(lambda x: ops.renorm(x, 2, 0, 1.0), a)


# ---- products ------------------------------------------------------------------------------
def test_products_against_numpy():
    m, v, w = A[0], np.array([1.0, -2.0, 0.5, 3.0]), np.array([2.0, 1.0, 0.0, -1.0])
    np.testing.assert_allclose(ops.inner(Tensor(m), Tensor(m)).asnumpy(), np.inner(m, m))
    np.testing.assert_allclose(ops.dot(Tensor(m), Tensor(m.T)).asnumpy(), np.dot(m, m.T))
    with pytest.raises(ValueError, match="dot"):
        ops.dot(Tensor(v), Tensor(w))
    np.testing.assert_allclose(ms.mint.dot(Tensor(v), Tensor(w)).asnumpy(), np.dot(v, w))
    np.testing.assert_allclose(ops.mv(Tensor(m), Tensor(v)).asnumpy(), m @ v)
    r = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(ops.addmv(Tensor(r), Tensor(m), Tensor(v), beta=2, alpha=0.5)
                               .asnumpy(), 2 * r + 0.5 * (m @ v))
    np.testing.assert_allclose(ops.addr(Tensor(m.T[:, :3]), Tensor(v), Tensor(r)).asnumpy(),
                               m.T[:, :3] + np.outer(v, r))
    b1 = A[:, :2, :]                                                    # (2, 2, 4)
    b2 = np.concatenate([A[:, :, :3], A[:, :1, :3]], 1) * 0.1          # (2, 4, 3)
    np.testing.assert_allclose(
        ops.addbmm(Tensor(np.ones((2, 3))), Tensor(b1), Tensor(b2), beta=0.5).asnumpy(),
        0.5 + (b1 @ b2).sum(0))
    with pytest.raises(ValueError, match="ger"):
        ops.ger(Tensor(m), Tensor(v))
    np.testing.assert_array_equal(ops.hardshrink(Tensor(v), 1.0).asnumpy(),
                                  torch.nn.functional.hardshrink(torch.from_numpy(v), 1.0))
    np.testing.assert_array_equal(ops.softshrink(Tensor(v), 1.0).asnumpy(),
                                  torch.nn.functional.softshrink(torch.from_numpy(v), 1.0))
    check_grad(lambda x, y: ops.inner(x, y), m, m)
    check_grad(lambda x, y: ops.tensor_dot(x, y, 1), m, m.T)
