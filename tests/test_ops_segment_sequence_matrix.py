"""Segment reductions (segment_ops.py UnsortedSegmentMax/Min/Prod, segment_func.py), sequence
helpers (sequence_func.py), matrix helpers (matrix_func.py) and MindSpore 2.10's alias names
(alias_func.py) against numpy / torch references of MindSpore 2.10's observed behaviour, with
float64 gradient checks."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, ops

from gradcheck import check_grad

RNG = np.random.default_rng(5)


def _segments(x, ids, n, fn, start):
    out = np.full((n,) + x.shape[ids.ndim:], start, x.dtype)
    flat = x.reshape((ids.size,) + x.shape[ids.ndim:])
    for i, k in enumerate(ids.reshape(-1)):
        if k >= 0:
            out[k] = fn(out[k], flat[i])
    return out


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 5), rows=st.integers(1, 6), dtype=st.sampled_from(
    [np.float32, np.float64, np.int32, np.int64]), data=st.data())
def test_unsorted_segment_reductions_match_numpy(n, rows, dtype, data):
    ids = np.array(data.draw(st.lists(st.integers(-1, n - 1), min_size=rows, max_size=rows)))
    x = (RNG.standard_normal((rows, 3)) * 5).astype(dtype)
    kinds = {"max": (np.maximum, np.finfo(dtype).min if dtype in (np.float32, np.float64)
                     else np.iinfo(dtype).min),
             "min": (np.minimum, np.finfo(dtype).max if dtype in (np.float32, np.float64)
                     else np.iinfo(dtype).max),
             "prod": (np.multiply, 1)}
    for kind, (fn, start) in kinds.items():
        got = getattr(ops, f"unsorted_segment_{kind}")(Tensor(x), Tensor(ids), n)
        assert got.dtype == ms.Tensor(x).dtype
        np.testing.assert_allclose(got.asnumpy(), _segments(x, ids, n, fn, start), rtol=1e-6)
    np.testing.assert_allclose(ops.unsorted_segment_sum(Tensor(x), Tensor(ids), n).asnumpy(),
                               _segments(x, ids, n, np.add, 0), rtol=1e-5)


def test_unsorted_segment_errors_and_tensor_count():
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="less than num_segments"):
        ops.unsorted_segment_max(x, Tensor(np.array([0, 5])), 2)
    with pytest.raises(TypeError):
        ops.unsorted_segment_max(Tensor(np.ones((2, 3), bool)), Tensor(np.array([0, 1])), 2)
    assert ops.unsorted_segment_sum(x, Tensor(np.array([0, 2])), Tensor(4)).shape == (4, 3)


@pytest.mark.parametrize("kind", ["max", "min", "prod"])
def test_unsorted_segment_gradients(kind):
    ids = np.array([0, 1, 0, 1, -1])      # no empty segment (it holds the dtype's extreme)
    x = RNG.standard_normal((5, 3))
    if kind == "prod":
        x[0, 1] = 0.0                     # one zero in a segment: the others' product
    check_grad(lambda a: getattr(ops, f"unsorted_segment_{kind}")(a, Tensor(ids), 2), x)


def test_segment_max_gradient_splits_ties_and_prod_with_two_zeros():
    x = Tensor(np.array([[1.0, 2.0], [1.0, 0.5]]))
    g = ms.grad(lambda a: ops.unsorted_segment_max(a, Tensor(np.array([0, 0])), 1).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [[0.5, 1.0], [0.5, 0.0]])
    z = Tensor(np.array([[0.0], [0.0], [3.0]]))
    g = ms.grad(lambda a: ops.unsorted_segment_prod(a, Tensor(np.array([0, 0, 0])), 1).sum())(z)
    np.testing.assert_allclose(g.asnumpy(), np.zeros((3, 1)))


def test_sparse_segment_mean():
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    idx, seg = np.array([0, 1, 1, 3]), np.array([0, 0, 2, 2])
    want = np.zeros((3, 3), np.float32)
    want[0] = x[[0, 1]].mean(0)
    want[2] = x[[1, 3]].mean(0)
    np.testing.assert_allclose(ops.sparse_segment_mean(Tensor(x), Tensor(idx),
                                                       Tensor(seg)).asnumpy(), want, rtol=1e-6)


# ---- sequence helpers ------------------------------------------------------------------------
@settings(max_examples=20, deadline=None)
@given(lens=st.lists(st.integers(0, 5), min_size=1, max_size=4), maxlen=st.one_of(
    st.none(), st.integers(0, 6)))
def test_sequence_mask(lens, maxlen):
    got = ops.sequence_mask(Tensor(np.array(lens)), maxlen).asnumpy()
    m = max(lens) if maxlen is None else maxlen
    np.testing.assert_array_equal(got, np.arange(m)[None, :] < np.array(lens)[:, None])


@pytest.mark.parametrize("seq_dim, batch_dim", [(1, 0), (0, 1), (2, 0)])
def test_reverse_sequence_and_gradient(seq_dim, batch_dim):
    x = RNG.standard_normal((3, 4, 5))
    b, n = x.shape[batch_dim], x.shape[seq_dim]
    lens = RNG.integers(0, n + 1, b)
    want = x.copy()
    for i, L in enumerate(lens):
        sl = [slice(None)] * 3
        sl[batch_dim] = i
        sub = np.moveaxis(want[tuple(sl)], seq_dim - (seq_dim > batch_dim), 0)
        sub[:L] = sub[:L][::-1].copy()
    got = ops.reverse_sequence(Tensor(x), Tensor(lens), seq_dim, batch_dim)
    np.testing.assert_array_equal(got.asnumpy(), want)
    check_grad(lambda a: ops.reverse_sequence(a, Tensor(lens), seq_dim, batch_dim), x)


@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC"])
def test_mirror_pad_matches_numpy(mode):
    x = RNG.standard_normal((3, 4, 5))
    pads = np.array([[0, 1], [2, 1], [1, 3]])
    got = ops.mirror_pad(Tensor(x), Tensor(pads), mode)
    np.testing.assert_array_equal(got.asnumpy(), np.pad(x, pads, mode=mode.lower()))
    check_grad(lambda a: ops.mirror_pad(a, Tensor(pads), mode), x[:2, :3, :4])


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8])
def test_population_count(dtype):
    info = np.iinfo(dtype)
    v = np.array([0, 1, 7, info.max, info.min, -1 if info.min < 0 else 200], dtype)
    want = np.unpackbits(v.view(np.uint8)).reshape(v.size, -1).sum(1).astype(np.uint8)
    got = ops.population_count(Tensor(v))
    assert got.dtype == ms.uint8
    np.testing.assert_array_equal(got.asnumpy(), want)


def test_small_sequence_helpers():
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(ops.repeat_elements(Tensor(x), 2, 1).asnumpy(),
                                  np.repeat(x, 2, 1))
    col = Tensor(np.array([[1.0], [2.0]], np.float32))
    np.testing.assert_array_equal(ops.padding(col, 4).asnumpy(), [[1, 0, 0, 0], [2, 0, 0, 0]])
    y, idx = ops.unique_with_pad(Tensor(np.array([3, 1, 1, 2])), 9)
    np.testing.assert_array_equal(y.asnumpy(), [3, 1, 2, 9])
    np.testing.assert_array_equal(idx.asnumpy(), [0, 1, 1, 2])
    scores = Tensor(np.array([[0.1, 0.9, 0.9], [0.8, 0.1, 0.2], [1, 1, 1],
                              [0.1, np.nan, 0.9]], np.float32))
    np.testing.assert_array_equal(
        ops.intopk(scores, Tensor(np.array([2, 2, 0, 1], np.int32)), 1).asnumpy(),
        [True, False, True, False])


# ---- matrix helpers --------------------------------------------------------------------------
def test_trapz_vecdot_against_numpy_and_gradients():
    y = RNG.standard_normal((3, 5))
    xs = np.sort(RNG.standard_normal(5))
    np.testing.assert_allclose(ops.trapz(Tensor(y)).asnumpy(), np.trapezoid(y, axis=-1))
    np.testing.assert_allclose(ops.trapz(Tensor(y), Tensor(xs)).asnumpy(),
                               np.trapezoid(y, xs, axis=-1))
    np.testing.assert_allclose(ops.trapz(Tensor(y), dx=0.5, dim=0).asnumpy(),
                               np.trapezoid(y, dx=0.5, axis=0))
    check_grad(lambda a, b: ops.trapz(a, b), y, xs)
    np.testing.assert_allclose(ops.vecdot(Tensor(y), Tensor(y * 2), axis=0).asnumpy(),
                               (y * y * 2).sum(0))
    check_grad(lambda a, b: ops.vecdot(a, b), y, y[::-1].copy())


@pytest.mark.parametrize("s1, s2, axes", [((2, 3), (2, 3), None), ((2, 3, 4), (2, 4, 5), None),
                                          ((2, 3), (2, 3, 4), None), ((2, 3, 4), (2, 4), None),
                                          ((2, 3, 4), (2, 3, 4), (1, 1))])
def test_batch_dot(s1, s2, axes):
    a, b = RNG.standard_normal(s1), RNG.standard_normal(s2)
    a1 = len(s1) - 1 if axes is None else axes[0]
    a2 = (len(s2) - 1 if len(s2) == 2 else len(s2) - 2) if axes is None else axes[1]
    want = np.stack([np.tensordot(a[i], b[i], (a1 - 1, a2 - 1)) for i in range(2)])
    got = ops.batch_dot(Tensor(a), Tensor(b), axes)
    np.testing.assert_allclose(got.asnumpy(), want.reshape(got.shape), rtol=1e-10)
    assert got.shape == (want.shape if want.ndim > 1 else (2, 1))
    check_grad(lambda u, w: ops.batch_dot(u, w, axes), a, b)


def test_dist_pdist_against_torch():
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    for p in (0, 1, 2, 3):
        np.testing.assert_allclose(ops.dist(Tensor(a), Tensor(b), p).asnumpy(),
                                   torch.dist(torch.tensor(a), torch.tensor(b), p).numpy())
    for p in (1.0, 2.0, 3.0):
        np.testing.assert_allclose(ops.pdist(Tensor(a), p).asnumpy(),
                                   torch.pdist(torch.tensor(a), p).numpy(), rtol=1e-10)
    check_grad(lambda u: ops.pdist(u), a)
    with pytest.raises(TypeError):
        ops.dist(Tensor(a), Tensor(b), float("inf"))


def test_matrix_exp_against_torch_and_gradient():
    a = RNG.standard_normal((2, 3, 3)) * 1.5
    np.testing.assert_allclose(ops.matrix_exp(Tensor(a)).asnumpy(),
                               torch.matrix_exp(torch.tensor(a)).numpy(), rtol=1e-10,
                               atol=1e-12)
    check_grad(ops.matrix_exp, a[0] * 0.5, rtol=1e-4)


def test_matrix_diag_family():
    v = RNG.standard_normal((2, 3))
    got = ops.matrix_diag(Tensor(v), k=-1, padding_value=9).asnumpy()
    want = np.full((2, 4, 4), 9.0)
    for b in range(2):
        want[b][np.arange(1, 4), np.arange(3)] = v[b]
    np.testing.assert_array_equal(got, want)
    x = RNG.standard_normal((2, 3, 4))
    for k in (-1, 0, 2):
        d = np.diagonal(x, k, -2, -1)
        np.testing.assert_array_equal(ops.matrix_diag_part(x=Tensor(x), k=k,
                                                           padding_value=0).asnumpy(), d)
        new = RNG.standard_normal(d.shape)
        want = x.copy()
        i = np.arange(max(0, -k), min(3, 4 - k))
        want[:, i, i + k] = new
        np.testing.assert_array_equal(ops.matrix_set_diag(Tensor(x), Tensor(new), k).asnumpy(),
                                      want)
    check_grad(lambda a, d: ops.matrix_set_diag(a, d, 1), x[0], RNG.standard_normal(3))


def test_matrix_solve_and_cond():
    a = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
    b = RNG.standard_normal((3, 2))
    np.testing.assert_allclose(ops.matrix_solve(Tensor(a), Tensor(b)).asnumpy(),
                               np.linalg.solve(a, b), rtol=1e-10)
    np.testing.assert_allclose(ops.matrix_solve(Tensor(a), Tensor(b), True).asnumpy(),
                               np.linalg.solve(a.T, b), rtol=1e-10)
    for p in (None, 1, -1, 2, -2, "fro", np.inf):
        np.testing.assert_allclose(ops.cond(Tensor(a), p).asnumpy(), np.linalg.cond(a, p),
                                   rtol=1e-10)


# ---- aliases ---------------------------------------------------------------------------------
def test_aliases_and_queries():
    x = Tensor(RNG.standard_normal((2, 3)).astype(np.float32))
    i = Tensor(np.array([[1, 2, 3]]))
    np.testing.assert_array_equal(ops.eq(x, x).asnumpy(), np.ones((2, 3), bool))
    assert ops.expand_as(i, x).shape == (2, 3)
    assert ops.view_as(x, Tensor(np.ones((3, 2)))).shape == (3, 2)
    assert ops.type_as(i, x).dtype == ms.float32
    assert ops.is_floating_point(x) and not ops.is_floating_point(i)
    assert ops.is_tensor(x) and not ops.is_tensor(1)
    assert ops.is_nonzero(Tensor([1.0])) and not ops.is_nonzero(Tensor(0))
    with pytest.raises(ValueError, match="numel"):
        ops.is_nonzero(x)
    v, idx = ops.top_k(x, 2)
    tv, ti = torch.topk(torch.tensor(x.asnumpy()), 2)
    np.testing.assert_array_equal(v.asnumpy(), tv.numpy())
    assert ops.rank(x) == 2 and ops.shape_(x) == (2, 3) and ops.dtype(x) == ms.float32
    np.testing.assert_array_equal(ops.eps(x).asnumpy(), np.full((2, 3), np.finfo(np.float32).eps))
    np.testing.assert_array_equal(ops.fills(x, 2).asnumpy(), np.full((2, 3), 2, np.float32))
    a = x.asnumpy()
    np.testing.assert_allclose(ops.fast_gelu(x).asnumpy(),
                               a / (1 + np.exp(-1.702 * np.abs(a))) *
                               np.exp(0.851 * (a - np.abs(a))), rtol=1e-6)
    check_grad(ops.fast_gelu, RNG.standard_normal((2, 3)))
    p = ms.Parameter(Tensor(np.ones(3, np.float32)), name="p")
    ops.assign_sub(p, Tensor(np.full(3, 0.25, np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), np.full(3, 0.75))
