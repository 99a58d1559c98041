"""Decompositions and solves (linalg_decomp_ops.py / linalg_decomp_func.py: Cholesky, Qr,
MatrixTriangularSolve, LogMatrixDeterminant, pinv, lstsq) and the image / embedding ops
(nn_vision_func.py, pool_adaptive_func.py: unfold, fold, grid_sample, affine_grid,
embedding, group_norm, rms_norm, adaptive pools, max_unpool) against numpy and torch, with
float64 gradients."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, ops

from gradcheck import check_grad

RNG = np.random.default_rng(7)


def _spd(n, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


@settings(max_examples=10, deadline=None)
@given(n=st.integers(1, 4), batch=st.sampled_from([(), (2,)]), upper=st.booleans())
def test_cholesky_and_solves_against_numpy(n, batch, upper):
    a = _spd(n, batch)
    low = np.linalg.cholesky(a)
    got = ops.cholesky(Tensor(a), upper).asnumpy()
    np.testing.assert_allclose(got, np.swapaxes(low, -1, -2) if upper else low, rtol=1e-10)
    b = RNG.standard_normal(batch + (n, 2))
    x = ops.cholesky_solve(Tensor(b), Tensor(got), upper).asnumpy()
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ops.cholesky_inverse(Tensor(got), upper).asnumpy(),
                               np.linalg.inv(a), rtol=1e-8, atol=1e-10)
    sign, logdet = ops.slogdet(Tensor(a))
    ws, wl = np.linalg.slogdet(a)
    np.testing.assert_allclose(sign.asnumpy(), ws)
    np.testing.assert_allclose(logdet.asnumpy(), wl, rtol=1e-10)


def test_cholesky_refuses_non_positive_definite():
    with pytest.raises(ValueError, match="Cholesky.*positive definite"):
        ops.cholesky(Tensor(-np.eye(2)))


@pytest.mark.parametrize("shape, mode", [((4, 3), "reduced"), ((3, 3), "complete"),
                                         ((2, 3, 2), "reduced"), ((2, 4), "reduced")])
def test_qr_reconstructs(shape, mode):
    a = RNG.standard_normal(shape)
    q, r = ops.qr(Tensor(a), mode)
    wq, wr = np.linalg.qr(a, mode=mode)
    np.testing.assert_allclose(np.abs(r.asnumpy()), np.abs(wr), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(q.asnumpy() @ r.asnumpy(), a, rtol=1e-10, atol=1e-12)


def test_triangular_solve_pinv_lstsq():
    a = np.triu(_spd(3))
    b = RNG.standard_normal((3, 2))
    for upper, trans in ((True, False), (True, True)):
        x, a_out = ops.triangular_solve(Tensor(b), Tensor(a), upper, trans)
        want = torch.linalg.solve_triangular(torch.from_numpy(a.T if trans else a),
                                             torch.from_numpy(b), upper=upper != trans)
        np.testing.assert_allclose(x.asnumpy(), want.numpy(), rtol=1e-10)
    m = RNG.standard_normal((4, 3))
    np.testing.assert_allclose(ops.pinv(Tensor(m)).asnumpy(), np.linalg.pinv(m), rtol=1e-8)
    y = RNG.standard_normal((4, 2))
    np.testing.assert_allclose(ops.lstsq(Tensor(m), Tensor(y)).asnumpy(),
                               np.linalg.lstsq(m, y, rcond=None)[0], rtol=1e-8)
    assert np.isnan(ops.logdet(Tensor(-np.eye(3))).asnumpy())


def test_decomposition_gradients():
    a = _spd(3)
    check_grad(lambda x: ops.cholesky(ops.add(x, ops.transpose(x, (1, 0)))), a / 2)
    check_grad(lambda x: ops.qr(x)[0] + ops.qr(x)[1].sum(), RNG.standard_normal((4, 3)))
    check_grad(lambda x: ops.slogdet(x)[1], a)
    t = np.triu(a)
    check_grad(lambda m, b: ops.triangular_solve(b, m)[0], t, RNG.standard_normal((3, 2)))
    check_grad(lambda m, b: ops.triangular_solve(b, m, True, True)[0], t,
               RNG.standard_normal((3, 2)))


# ---- images and embeddings ---------------------------------------------------------------------
IMG = RNG.standard_normal((2, 3, 6, 5))


@pytest.mark.parametrize("kernel, dilation, padding, stride",
                         [(2, 1, 0, 1), ((3, 2), (1, 2), 1, (2, 1)), (1, 1, 0, 2)])
def test_unfold_fold_against_torch(kernel, dilation, padding, stride):
    x = torch.from_numpy(IMG)
    want = TF.unfold(x, kernel, dilation, padding, stride)
    got = ops.unfold(Tensor(IMG), kernel, dilation, padding, stride)
    np.testing.assert_allclose(got.asnumpy(), want.numpy())
    back = ms.mint.nn.functional.fold(got, (6, 5), kernel, dilation, padding, stride)
    np.testing.assert_allclose(back.asnumpy(),
                               TF.fold(want, (6, 5), kernel, dilation, padding, stride).numpy())
    check_grad(lambda t: ops.unfold(t, kernel, dilation, padding, stride), IMG[:1, :1])


def test_grid_sample_and_affine_grid_against_torch():
    theta = RNG.standard_normal((2, 2, 3)) * 0.5
    for ac in (False, True):
        grid = ops.affine_grid(Tensor(theta), (2, 3, 4, 5), ac)
        want = TF.affine_grid(torch.from_numpy(theta), (2, 3, 4, 5), align_corners=ac)
        np.testing.assert_allclose(grid.asnumpy(), want.numpy(), rtol=1e-12)
        g = RNG.uniform(-1.3, 1.3, (2, 4, 5, 2))
        for mode in ("bilinear", "nearest"):
            for pad in ("zeros", "border", "reflection"):
                got = ops.grid_sample(Tensor(IMG), Tensor(g), mode, pad, ac)
                ref = TF.grid_sample(torch.from_numpy(IMG), torch.from_numpy(g), mode, pad, ac)
                np.testing.assert_allclose(got.asnumpy(), ref.numpy(), rtol=1e-10, atol=1e-12,
                                           err_msg=f"{mode} {pad} {ac}")
    g = RNG.uniform(-0.9, 0.9, (1, 2, 3, 2))
    check_grad(lambda x, gr: ops.grid_sample(x, gr, "bilinear", "zeros", False),
               IMG[:1, :1], g)


def test_norms_embedding_shuffles_against_torch():
    x = torch.from_numpy(IMG)
    w, b = RNG.standard_normal(3), RNG.standard_normal(3)
    np.testing.assert_allclose(
        ops.group_norm(Tensor(IMG), 3, Tensor(w), Tensor(b)).asnumpy(),
        TF.group_norm(x, 3, torch.from_numpy(w), torch.from_numpy(b)).numpy(), rtol=1e-10)
    y, rstd = ops.rms_norm(Tensor(IMG), Tensor(np.ones(5)))
    np.testing.assert_allclose(y.asnumpy(), TF.rms_norm(x, (5,), eps=1e-6).numpy(), rtol=1e-10)
    np.testing.assert_allclose(ops.normalize(Tensor(IMG), 2.0, 1).asnumpy(),
                               TF.normalize(x, 2.0, 1).numpy(), rtol=1e-12)
    table = RNG.standard_normal((5, 3))
    ids = np.array([[0, 4], [2, 2]])
    np.testing.assert_array_equal(ops.embedding(Tensor(ids), Tensor(table)).asnumpy(),
                                  table[ids])
    np.testing.assert_allclose(ops.pixel_unshuffle(Tensor(IMG[:, :, :4, :4]), 2).asnumpy(),
                               TF.pixel_unshuffle(x[:, :, :4, :4], 2).numpy())
    s8 = RNG.standard_normal((1, 8, 2, 3))
    np.testing.assert_allclose(ops.pixel_shuffle(Tensor(s8), 2).asnumpy(),
                               TF.pixel_shuffle(torch.from_numpy(s8), 2).numpy())
    check_grad(lambda t, ww: ops.group_norm(t, 3, ww), IMG[:1], w)
    check_grad(lambda t: ops.rms_norm(t, Tensor(np.ones(5)))[0], IMG[:1, :1])


def test_embedding_max_norm_and_padding_idx():
    table = Tensor(np.array([[3.0, 4.0], [0.3, 0.4], [1.0, 0.0]]))
    ids = Tensor(np.array([0, 1, 2]))
    out = ops.embedding(ids, table, max_norm=1.0)
    np.testing.assert_allclose(np.linalg.norm(out.asnumpy(), axis=1)[0], 1.0, rtol=1e-6)
    np.testing.assert_allclose(table.asnumpy()[0], [0.6, 0.8], rtol=1e-6)   # written back
    w = ms.Parameter(Tensor(np.ones((3, 2))), name="w")
    g = ms.grad(lambda t: ops.embedding(ids, t, padding_idx=1).sum())(w)
    np.testing.assert_array_equal(g.asnumpy(), [[1, 1], [0, 0], [1, 1]])


def test_adaptive_pools_and_unpool_against_torch():
    vol = RNG.standard_normal((1, 2, 5, 6, 7))
    np.testing.assert_allclose(ops.adaptive_avg_pool3d(Tensor(vol), (2, 3, 4)).asnumpy(),
                               TF.adaptive_avg_pool3d(torch.from_numpy(vol), (2, 3, 4)).numpy(),
                               rtol=1e-12)
    seq = RNG.standard_normal((2, 3, 9))
    v, i = ops.adaptive_max_pool1d(Tensor(seq), 3, True)
    wv, wi = TF.adaptive_max_pool1d(torch.from_numpy(seq), 3, True)
    np.testing.assert_array_equal(v.asnumpy(), wv.numpy())
    np.testing.assert_array_equal(i.asnumpy(), wi.numpy())
    with pytest.raises(ValueError, match="divisible"):
        ops.adaptive_max_pool1d(Tensor(seq), 4)
    got = ms.mint.nn.functional.adaptive_max_pool1d(Tensor(seq), 4, True)[0]   # torch's windows
    np.testing.assert_array_equal(got.asnumpy(),
                                  TF.adaptive_max_pool1d(torch.from_numpy(seq), 4).numpy())
    pooled, idx = TF.max_pool2d(torch.from_numpy(IMG), 2, return_indices=True)
    un = ops.max_unpool2d(Tensor(pooled.numpy()), Tensor(idx.numpy()), 2, output_size=(6, 5))
    np.testing.assert_array_equal(un.asnumpy(),
                                  TF.max_unpool2d(pooled, idx, 2, output_size=(6, 5)).numpy())
    check_grad(lambda t: ops.adaptive_avg_pool3d(t, (2, 2, 3)), vol[:, :1, :3, :3, :4])
