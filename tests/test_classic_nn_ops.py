"""ops.Identity, L2Normalize, LpNorm, KLDivLoss, Pad, ResizeNearestNeighbor
(ops/operations/classic_nn_ops.py): numpy references under hypothesis (0-d where the op takes
it, empty, non-contiguous, NaN/inf), float64 finite-difference gradients, and values recorded
from MindSpore 2.10 (its gradient formulas where they are not the exact ones)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import Tensor, ops

from gradcheck import check_grad
from helpers import arrays, assert_close, noncontig, shapes, tensor

SETTINGS = settings(max_examples=25, deadline=None)
F32 = np.float32


def _t(a, nc):
    return tensor(noncontig(a)) if nc else Tensor(a)


@SETTINGS
@given(a=arrays(np.float32, shapes()), nc=st.booleans())
def test_identity_copies(a, nc):
    x = _t(a, nc)
    y = ops.Identity()(x)
    np.testing.assert_array_equal(y.asnumpy(), a)
    assert y is not x and y.dtype == x.dtype
    assert ops.Identity()(Tensor(np.array([True]))).dtype == ms.bool_


@SETTINGS
@given(data=st.data())
def test_l2_normalize_matches_numpy(data):
    a = data.draw(arrays(np.float32, shapes(min_dims=1, max_dims=3)))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    eps = data.draw(st.sampled_from([1e-4, 1e-12, 0.5]))
    got = ops.L2Normalize(axis, eps)(_t(a, data.draw(st.booleans()))).asnumpy()
    with np.errstate(all="ignore"):
        ss = np.square(a.astype(np.float64)).sum(axis=axis, keepdims=True)
        want = a / np.sqrt(np.maximum(ss, eps))
    assert_close(got, want.astype(F32))


@SETTINGS
@given(data=st.data())
def test_lp_norm_matches_numpy(data):
    a = data.draw(arrays(np.float32, shapes(min_dims=1, max_dims=3)))
    k = data.draw(st.integers(1, a.ndim))
    axes = data.draw(st.permutations(range(a.ndim)))[:k]
    p = data.draw(st.integers(0, 4))
    keep = data.draw(st.booleans())
    got = ops.LpNorm(list(axes), p, keep, 1e-12)(_t(a, data.draw(st.booleans()))).asnumpy()
    x = a.astype(np.float64)
    with np.errstate(all="ignore"):
        if p == 0:
            n = (x != 0).sum(axis=tuple(axes), keepdims=keep)
        else:
            n = np.power(np.power(np.abs(x), p).sum(axis=tuple(axes), keepdims=keep), 1.0 / p)
    assert_close(got, np.maximum(n, 1e-12).astype(F32), rtol=2e-5)


@SETTINGS
@given(data=st.data())
def test_kl_div_loss_matches_numpy(data):
    shape = data.draw(shapes(min_dims=1, max_dims=3))
    x = data.draw(arrays(np.float32, shape))
    t = data.draw(arrays(np.float32, shape))
    red = data.draw(st.sampled_from(["none", "mean", "batchmean", "sum"]))
    got = ops.KLDivLoss(red)(_t(x, data.draw(st.booleans())), Tensor(t)).asnumpy()
    xf, tf = x.astype(np.float64), t.astype(np.float64)
    with np.errstate(all="ignore"):
        loss = np.where(tf > 0, tf * (np.log(np.where(tf > 0, tf, 1)) - xf), 0.0)
        n = {"mean": loss.size, "batchmean": shape[0], "sum": 1}.get(red)
        want = loss if red == "none" else (loss.sum() / n if n else np.nan)
    assert_close(got, np.asarray(want, F32), rtol=1e-4, atol=1e-5)


@SETTINGS
@given(data=st.data())
def test_pad_matches_numpy(data):
    a = data.draw(arrays(data.draw(st.sampled_from([np.float32, np.int32, np.bool_])),
                         shapes(min_dims=1, max_dims=3)))
    pads = tuple((data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2)))
                 for _ in range(a.ndim))
    got = ops.Pad(pads)(_t(a, data.draw(st.booleans()))).asnumpy()
    np.testing.assert_array_equal(got, np.pad(a, pads))


@SETTINGS
@given(data=st.data())
def test_resize_nearest_neighbor_matches_numpy(data):
    a = data.draw(arrays(np.float32, shapes(min_dims=4, max_dims=4, min_side=1, max_side=4)))
    size = (data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6)))
    corners = data.draw(st.booleans())
    got = ops.ResizeNearestNeighbor(size, align_corners=corners)(_t(a, data.draw(st.booleans())))

    def index(n_in, n_out):
        d = np.arange(n_out)
        if corners:
            scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
            return np.minimum(np.floor(d * scale + 0.5).astype(int), n_in - 1)
        return np.minimum(np.floor(d * (n_in / n_out)).astype(int), n_in - 1)
    want = a[:, :, index(a.shape[2], size[0])][:, :, :, index(a.shape[3], size[1])]
    np.testing.assert_array_equal(got.asnumpy(), want)


# ---- gradients -----------------------------------------------------------------------------
def test_gradients_float64():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4)) + 0.1
    check_grad(lambda t: ops.Identity()(t), x)
    check_grad(lambda t: ops.L2Normalize(1, 1e-12)(t), x)
    check_grad(lambda t: ops.L2Normalize(0, 1e-12)(t), x)
    for p in (1, 2, 3):
        check_grad(lambda t: ops.LpNorm([1], p, False, 1e-12)(t), x)
    check_grad(lambda t: ops.LpNorm([0, 1], 2, True, 1e-12)(t), x)
    check_grad(lambda t: ops.KLDivLoss("batchmean")(t, Tensor(np.abs(x))), x)
    check_grad(lambda t: ops.Pad(((1, 0), (2, 1)))(t), x)
    check_grad(lambda t: ops.ResizeNearestNeighbor((5, 3))(t), rng.standard_normal((1, 2, 3, 4)))


def test_mindspore_gradient_formulas():
    """Values recorded from MindSpore 2.10 where its gradient is not the exact one."""
    g = ms.grad(lambda a: ops.LpNorm([1], 3, False, 1e-3)(a).sum())(
        Tensor(np.array([[1e-4, -2e-4]], F32)))
    assert_close(g.asnumpy(), np.array([[0.01, -0.04]], F32), rtol=1e-5)
    assert not ms.grad(lambda a: ops.LpNorm([1], 0)(a).sum())(Tensor(np.ones((2, 2), F32))) \
        .asnumpy().any()
    lx = Tensor(np.array([[-0.5, -1.2, 0.3], [0.2, -2.0, 1.0]], F32))
    tg = Tensor(np.array([[0.2, 0.0, 0.8], [0.5, 0.5, -1.0]], F32))
    dx = ms.grad(lambda a, b: ops.KLDivLoss("batchmean")(a, b))(lx, tg)
    assert_close(dx.asnumpy(), -tg.asnumpy() / 2)                     # -target, also where <= 0
    assert_close(ops.KLDivLoss("mean")(lx, tg).asnumpy(), np.float32(-0.0722583), rtol=1e-5)


@pytest.mark.xfail(strict=True, reason="main's L2Normalize (local_norm_ops) takes the exact "
                   "gradient below epsilon and its KLDivLoss (loss_pointwise_ops) gives the "
                   "target a gradient; MindSpore 2.10's kernels do neither (values recorded)")
def test_mindspore_gradient_formulas_below_epsilon_and_for_the_target():
    g = ms.grad(lambda a: (ops.L2Normalize(-1, 1e-2)(a) * Tensor(np.array(
        [[1, 2, 3], [1, 1, 1]], F32))).sum())(Tensor(np.array([[0.01, 0.02, -0.03], [1, 2, 3]],
                                                               F32)))
    assert_close(g.asnumpy(), np.array([[27.795168, 55.590336, 76.97125],
                                        [0.1527207, 0.03818019, -0.07636032]], F32), rtol=1e-5)
    zero = ms.grad(lambda a: ops.L2Normalize(-1)(a).sum())(Tensor(np.zeros((1, 3), F32)))
    assert_close(zero.asnumpy(), np.full((1, 3), 1e4, F32))            # dout / max(0, eps)
    lx = Tensor(np.array([[-0.5, -1.2, 0.3], [0.2, -2.0, 1.0]], F32))
    tg = Tensor(np.array([[0.2, 0.0, 0.8], [0.5, 0.5, -1.0]], F32))
    dt = ms.grad(lambda a, b: ops.KLDivLoss("batchmean")(a, b), 1)(lx, tg)
    assert not dt.asnumpy().any()                                      # none for the target


def test_argument_errors_name_the_op():
    x = Tensor(np.ones((2, 3), F32))
    with pytest.raises(TypeError, match="L2Normalize"):
        ops.L2Normalize(-1)(Tensor(np.ones(2, np.int32)))
    with pytest.raises(ValueError, match="L2Normalize.*axis"):
        ops.L2Normalize(2)(x)
    with pytest.raises(ValueError, match="LpNorm.*'p'"):
        ops.LpNorm([1], p=-1)
    with pytest.raises(TypeError, match="LpNorm.*'p'"):
        ops.LpNorm([1], p=2.0)
    with pytest.raises(ValueError, match="LpNorm.*duplicate"):
        ops.LpNorm([1, 1])(x)
    with pytest.raises(ValueError, match="LpNorm.*axis size"):
        ops.LpNorm([])(x)
    with pytest.raises(ValueError, match="KLDivLoss.*reduction"):
        ops.KLDivLoss("xx")
    with pytest.raises(ValueError, match="KLDivLoss.*shape"):
        ops.KLDivLoss()(x, Tensor(np.ones((1, 3), F32)))
    with pytest.raises(TypeError, match="Pad.*tuple"):
        ops.Pad([[1, 0], [0, 2]])
    with pytest.raises(ValueError, match="Pad.*>= 0"):
        ops.Pad(((1, 0), (0, -1)))
    with pytest.raises(ValueError, match="Pad.*rank"):
        ops.Pad(((1, 0),))(x)
    with pytest.raises(ValueError, match="ResizeNearestNeighbor.*size"):
        ops.ResizeNearestNeighbor((5,))
    with pytest.raises(ValueError, match="ResizeNearestNeighbor.*rank"):
        ops.ResizeNearestNeighbor((5, 7))(x)
    before = x.asnumpy().copy()
    with pytest.raises(ValueError):
        ops.Pad(((1, 0),))(x)
    np.testing.assert_array_equal(x.asnumpy(), before)


def test_special_values_and_empty():
    x = Tensor(np.array([[np.inf, 1.0], [np.nan, 0.0]], F32))
    out = ops.LpNorm([1])(x).asnumpy()
    assert np.isinf(out[0]) and np.isnan(out[1])
    assert ops.Pad(((1, 1),))(Tensor(np.zeros((0,), F32))).shape == (2,)
    assert ops.LpNorm([1], keep_dims=True)(Tensor(np.zeros((0, 3), F32))).shape == (0, 1)
    assert np.isnan(ops.KLDivLoss("mean")(Tensor(np.zeros((0, 3), F32)),
                                        Tensor(np.zeros((0, 3), F32))).asnumpy())
