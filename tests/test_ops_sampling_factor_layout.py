"""Samplers (random_dist_ops RandomGamma / RandomPoisson, sampling_func.py), factorization helpers
(linalg_factor_ops Geqrf / Eig, linalg_factor_func.py) and layout helpers (layout_func.py)
against numpy / torch references of MindSpore 2.10's observed behaviour, with float64 gradient
checks of the differentiable compositions."""
import numpy as np
import pytest
import torch

import mindlite as ms
from mindlite import Tensor, ops

from gradcheck import check_grad

RNG = np.random.default_rng(21)


def test_gamma_and_poisson_shapes_dtypes_and_moments():
    ms.set_seed(4)
    g = ops.random_gamma(Tensor(np.array([4000], np.int32)), Tensor(np.array([0.5, 3.0])))
    assert g.shape == (4000, 2) and g.dtype == ms.float64
    np.testing.assert_allclose(g.asnumpy().mean(0), [0.5, 3.0], rtol=0.1)
    g = ops.gamma((3, 1, 2), Tensor(np.array([[3, 4], [5, 6]], np.float32)),
                  Tensor(np.array([1.0, 2.0], np.float32)), seed=5)
    assert g.shape == (3, 2, 2) and g.dtype == ms.float32
    p = ops.random_poisson(Tensor(np.array([4000], np.int32)),
                           Tensor(np.array([1.0, 7.0], np.float32)), dtype=ms.int32)
    assert p.dtype == ms.int32 and p.shape == (4000, 2)
    np.testing.assert_allclose(p.asnumpy().mean(0), [1.0, 7.0], rtol=0.1)
    assert ops.poisson((4, 1), Tensor(np.array([5.0, 10.0], np.float32))).shape == (4, 2)
    a = ops.random_gamma((2,), Tensor(np.array([2.0])), seed=3)
    b = ops.random_gamma((2,), Tensor(np.array([2.0])), seed=3)
    ms.set_seed(4)
    c = ops.random_gamma((2,), Tensor(np.array([2.0])), seed=3)
    assert a.shape == b.shape == (2, 1) and c.shape == (2, 1)
    g = ops.random_gamma((2,), Tensor(np.array([-1.0, 0.0]))).asnumpy()
    assert np.isnan(g[:, 0]).all() and (g[:, 1] == 0).all()


def test_categorical_choice_and_candidate_samplers():
    ms.set_seed(1)
    logits = Tensor(np.log(np.array([[0.1, 0.9], [0.5, 0.5]], np.float32)))
    s = ops.random_categorical(logits, 2000, 1)
    assert s.dtype == ms.int64 and s.shape == (2, 2000)
    np.testing.assert_allclose(s.asnumpy().mean(1), [0.9, 0.5], atol=0.05)
    m = ops.multinomial_with_replacement(Tensor(np.array([[0., 9., 4., 0.]], np.float32)),
                                         2, 5, 2, True)
    assert m.dtype == ms.int64 and set(m.asnumpy().ravel()) <= {1, 2}
    mask_in = np.array([[True, False], [True, True]])
    idx, mask = ops.choice_with_mask(Tensor(mask_in), 5, 1)
    assert idx.dtype == ms.int32 and idx.shape == (5, 2) and mask.asnumpy().sum() == 3
    got = {tuple(r) for r in idx.asnumpy()[mask.asnumpy()]}
    assert got == {tuple(r) for r in np.argwhere(mask_in)}
    true = Tensor(np.array([[1], [3]], np.int64))
    cand, t_exp, s_exp = ops.uniform_candidate_sampler(true, 1, 3, True, 5, 1)
    assert len(set(cand.asnumpy())) == 3 and cand.asnumpy().max() < 5
    np.testing.assert_allclose(t_exp.asnumpy(), [[0.6], [0.6]])
    cand, t_exp, s_exp = ops.log_uniform_candidate_sampler(true, 1, 3, True, 5, 1)
    p = lambda k: np.log((k + 2) / (k + 1)) / np.log(6)    # noqa: E731
    np.testing.assert_allclose(t_exp.asnumpy(), 3 * p(np.array([[1], [3]])), rtol=1e-6)
    np.testing.assert_allclose(s_exp.asnumpy(), 3 * p(cand.asnumpy()), rtol=1e-6)


@pytest.mark.parametrize("shape", [(3, 2), (2, 3), (2, 4, 4)])
def test_geqrf_orgqr_ormqr(shape):
    a = RNG.standard_normal(shape)
    h, tau = ops.geqrf(Tensor(a))
    th, ttau = torch.geqrf(torch.tensor(a))
    np.testing.assert_allclose(h.asnumpy(), th.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tau.asnumpy(), ttau.numpy(), rtol=1e-10, atol=1e-12)
    if shape[-2] >= shape[-1]:
        np.testing.assert_allclose(ops.orgqr(h, tau).asnumpy(),
                                   torch.linalg.householder_product(th, ttau).numpy(),
                                   rtol=1e-10, atol=1e-12)
    else:
        with pytest.raises(ValueError, match="rows"):
            ops.orgqr(h, tau)
    c = RNG.standard_normal(shape[:-2] + (shape[-2], 3))
    for transpose in (False, True):
        np.testing.assert_allclose(
            ops.ormqr(h, tau, Tensor(c), True, transpose).asnumpy(),
            torch.ormqr(th, ttau, torch.tensor(c), True, transpose).numpy(),
            rtol=1e-10, atol=1e-12)
    hh = h.asnumpy().reshape((-1,) + shape[-2:])[0]
    k = min(shape[-2:])
    check_grad(lambda u, t: ops.ormqr(u, t, Tensor(np.eye(shape[-2]))), hh,
               tau.asnumpy().reshape(-1, k)[0])


def test_lu_unpack_and_solve_against_torch():
    a = RNG.standard_normal((2, 4, 4))
    lu, piv = torch.linalg.lu_factor(torch.tensor(a))
    P, L, U = ops.lu_unpack(Tensor(lu.numpy()), Tensor(piv.numpy()))
    tP, tL, tU = torch.lu_unpack(lu, piv)
    for got, want in ((P, tP), (L, tL), (U, tU)):
        np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-12, atol=1e-14)
    b = RNG.standard_normal((2, 4, 3))
    x = ops.lu_solve(Tensor(b), Tensor(lu.numpy()), Tensor(piv.numpy()))
    np.testing.assert_allclose(x.asnumpy(), np.linalg.solve(a, b), rtol=1e-10, atol=1e-12)
    x2 = Tensor(b).lu_solve(Tensor(lu.numpy()), Tensor(piv.numpy()))
    np.testing.assert_allclose(x2.asnumpy(), x.asnumpy())


def test_eig_and_eigvals():
    a = RNG.standard_normal((2, 3, 3))
    w, v = ops.eig(Tensor(a))
    assert w.dtype == ms.complex128 and v.shape == (2, 3, 3)
    av = np.einsum("bij,bjk->bik", a, v.asnumpy())
    np.testing.assert_allclose(av, v.asnumpy() * w.asnumpy()[:, None, :], atol=1e-10)
    ev = ops.eigvals(Tensor(a.astype(np.float32)))
    assert ev.dtype == ms.complex64
    np.testing.assert_allclose(np.sort_complex(ev.asnumpy().ravel()),
                               np.sort_complex(np.linalg.eigvals(a).ravel()), rtol=1e-4)
    # MindSpore 2.10's order (Eigen's ComplexEigenSolver: by increasing modulus)
    c = np.array([[1.0, 2.0, 0.0], [0.5, 3.0, 1.0], [0.0, 0.3, 2.0]])
    np.testing.assert_allclose(ops.eigvals(Tensor(c)).asnumpy(),
                               [0.55341251, 1.86857832, 3.57800918], rtol=1e-7)
    sym = np.array([[0.0, 2.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    np.testing.assert_allclose(ops.eigvals(Tensor(sym)).asnumpy(), [1, -2, 2], atol=1e-12)


@pytest.mark.parametrize("block, pads", [(2, [[0, 0], [0, 0]]), ((2, 2), [[1, 1], [0, 2]]),
                                         ((1, 3), [[0, 1], [1, 1]])])
def test_space_batch_round_trip_and_gradient(block, pads):
    x = RNG.standard_normal((2, 3, 6, 4))
    y = ops.space_to_batch_nd(Tensor(x), block, pads)
    back = ops.batch_to_space_nd(y, block, pads)
    np.testing.assert_array_equal(back.asnumpy(), x)
    check_grad(lambda u: ops.space_to_batch_nd(u, block, pads), x[:1, :1])


def test_space_to_batch_matches_mindspore_order():
    x = Tensor(np.arange(16).reshape(1, 1, 4, 4).astype(np.float32))
    y = ops.space_to_batch_nd(x, 2, [[0, 0], [0, 0]]).asnumpy()
    np.testing.assert_array_equal(y[:, 0].reshape(4, 4),
                                  [[0, 2, 8, 10], [1, 3, 9, 11], [4, 6, 12, 14],
                                   [5, 7, 13, 15]])


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_loss_against_torch(reduction):
    x = RNG.standard_normal((3, 5))
    t = np.array([[3, 0, -1, 1, 2], [4, -1, 0, 0, 0], [0, 1, 2, 3, 4]])
    got = ops.multilabel_margin_loss(Tensor(x), Tensor(t.astype(np.int32)), reduction)
    want = torch.nn.functional.multilabel_margin_loss(torch.tensor(x), torch.tensor(t),
                                                      reduction=reduction)
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-12)
    check_grad(lambda u: ops.multilabel_margin_loss(u, Tensor(t.astype(np.int32)), reduction),
               x)
