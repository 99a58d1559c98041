"""BatchNorm / BatchNormGrad, LayerNorm / LayerNormGrad and Dropout / DropoutGrad against numpy
references: training and inference BatchNorm (2-D to 4-D) with the in-place moving-statistics
update and MindSpore's momentum convention, LayerNorm over various axes, Dropout statistics and
seeds; float64 finite-difference checks of every differentiable input (the gradient primitives'
own bprops included), and inference errors."""
import numpy as np
import pytest
from gradcheck import check_grad
from helpers import arrays, noncontig, tensor
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Parameter, Tensor
from mindlite.ops.operations import norm_ops as N

RNG = np.random.default_rng(0)


def bn_ref(x, scale, bias, mean, var, eps, training):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if training:
        mean, var = x.mean(axis=axes), x.var(axis=axes)
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * scale.reshape(shape) \
        + bias.reshape(shape)
    return y, mean, var


def bn_inputs(shape, dtype=np.float64):
    c = shape[1]
    return (RNG.standard_normal(shape).astype(dtype), RNG.uniform(0.5, 1.5, c),
            RNG.standard_normal(c), RNG.standard_normal(c) * 0.1, RNG.uniform(0.5, 1.5, c))


@settings(max_examples=20)
@given(shape=st.sampled_from([(4, 3), (2, 3, 5), (2, 3, 4, 5), (1, 2, 2, 2, 3), (3, 1, 1, 1)]),
       training=st.booleans(), momentum=st.sampled_from([0.0, 0.1, 0.5, 1.0]))
def test_batch_norm_forward_and_moving_update(shape, training, momentum):
    x, s, b, m, v = bn_inputs(shape)
    mean, var = Parameter(m.copy()), Parameter(v.copy())
    prim = N.BatchNorm(is_training=training, epsilon=1e-3, momentum=momentum)
    y, bm, bv, r1, r2 = prim(Tensor(x), Tensor(s), Tensor(b), mean, var)
    want, wm, wv = bn_ref(x, s, b, m, v, 1e-3, training)
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-10, atol=1e-10)
    for t, w in ((bm, wm), (bv, wv), (r1, wm), (r2, wv)):
        np.testing.assert_allclose(t.asnumpy(), w, rtol=1e-10, atol=1e-12)
    if training:     # moving = (1 - momentum) * moving + momentum * batch (unbiased variance,
        n = x.size // x.shape[1]                  # as MindSpore 2.10; bv is the biased one)
        np.testing.assert_allclose(mean.asnumpy(), (1 - momentum) * m + momentum * wm)
        np.testing.assert_allclose(var.asnumpy(),
                                   (1 - momentum) * v + momentum * wv * n / max(n - 1, 1))
    else:
        np.testing.assert_array_equal(mean.asnumpy(), m)
        np.testing.assert_array_equal(var.asnumpy(), v)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_batch_norm_dtypes_and_noncontiguous(dtype):
    x, s, b, m, v = bn_inputs((4, 3, 2, 5), dtype)
    s32, b32, m32, v32 = (a.astype(np.float32) for a in (s, b, m, v))
    out = N.BatchNorm(is_training=True)(tensor(noncontig(x)), Tensor(s32), Tensor(b32),
                                         Tensor(m32), Tensor(v32))
    assert out[0].dtype == ms.common.dtype.from_numpy_dtype(np.dtype(dtype))
    assert out[1].dtype == ms.float32
    want, _, _ = bn_ref(x.astype(np.float64), s32, b32, m32, v32, 1e-5, True)
    tol = 5e-3 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(out[0].asnumpy().astype(np.float64), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(3, 2), (2, 3, 3, 2)])
def test_batch_norm_gradients(training, shape):
    x, s, b, m, v = bn_inputs(shape)
    prim = N.BatchNorm(is_training=training)

    def f(x_, s_, b_, m_, v_):
        if training:      # keep the checked statistics out of the in-place update
            m_, v_ = Tensor(m_.asnumpy().copy()), Tensor(v_.asnumpy().copy())
        return prim(x_, s_, b_, m_, v_)
    # every output is weighted, so the statistics outputs' gradients are checked too
    check_grad(f, x, s, b, m, v, positions=(0, 1, 2) if training else None)
    out = prim(Tensor(x), Tensor(s), Tensor(b), Tensor(m.copy()), Tensor(v.copy()))
    sm, sv = (out[3].asnumpy(), out[4].asnumpy()) if training else (m, v)
    grad = N.BatchNormGrad(is_training=training)
    check_grad(lambda *a: grad(*a), RNG.standard_normal(shape), x, s, sm, sv)


def test_batch_norm_grad_matches_its_formula():
    x, s, b, m, v = bn_inputs((4, 3, 2, 2))
    dy = RNG.standard_normal(x.shape)
    _, bm, bv = bn_ref(x, s, b, m, v, 1e-5, True)
    dx, ds, db = N.BatchNormGrad(True)(Tensor(dy), Tensor(x), Tensor(s), Tensor(bm), Tensor(bv))
    xh = (x - bm.reshape(1, 3, 1, 1)) / np.sqrt(bv.reshape(1, 3, 1, 1) + 1e-5)
    axes = (0, 2, 3)
    np.testing.assert_allclose(db.asnumpy(), dy.sum(axes))
    np.testing.assert_allclose(ds.asnumpy(), (dy * xh).sum(axes))
    want = s.reshape(1, 3, 1, 1) / np.sqrt(bv.reshape(1, 3, 1, 1) + 1e-5) * (
        dy - dy.mean(axes, keepdims=True) - xh * (dy * xh).mean(axes, keepdims=True))
    np.testing.assert_allclose(dx.asnumpy(), want, atol=1e-12)


def test_batch_norm_errors():
    x = Tensor(np.zeros((2, 3, 4, 4), np.float32))
    c3, c4 = Tensor(np.ones(3, np.float32)), Tensor(np.ones(4, np.float32))
    bn = N.BatchNorm()
    with pytest.raises(ValueError, match="For 'BatchNorm', 'scale' must be a 1-D tensor of "
                                         "length 3"):
        bn(x, c4, c3, c3, c3)
    with pytest.raises(ValueError, match="For 'BatchNorm', 'x' must be 2-D to 5-D"):
        bn(Tensor(np.zeros(3, np.float32)), c3, c3, c3, c3)
    with pytest.raises(TypeError, match="For 'BatchNorm', the type of 'variance' should be"):
        bn(x, c3, c3, c3, Tensor(np.ones(3)))
    with pytest.raises(TypeError, match="For 'BatchNorm', the type of 'x'"):
        bn(Tensor(np.zeros((2, 3), np.int32)), c3, c3, c3, c3)
    with pytest.raises(ValueError, match="For 'BatchNorm', training needs at least one value"):
        N.BatchNorm(True)(Tensor(np.zeros((0, 3), np.float32)), c3, c3, c3, c3)
    for kw, exc, match in (({"is_training": 1}, TypeError, "'is_training' must be a bool"),
                           ({"epsilon": 0.0}, ValueError, "'epsilon' must be in range"),
                           ({"momentum": 1.5}, ValueError, "'momentum' must be in range"),
                           ({"momentum": "a"}, TypeError, "'momentum' must be a float"),
                           ({"data_format": "NHWC"}, ValueError, "the 'NHWC' format")):
        with pytest.raises(exc, match="For 'BatchNorm', " + match):
            N.BatchNorm(**kw)
    mean = Parameter(np.ones(3, np.float32))
    with pytest.raises(ValueError):
        N.BatchNorm(True)(x, c3, c3, mean, c4)
    np.testing.assert_array_equal(mean.asnumpy(), 1)    # a failed call changes nothing


def ln_ref(x, gamma, beta, bna, eps):
    axes = tuple(range(bna, x.ndim))
    m = x.mean(axis=axes, keepdims=True)
    v = x.var(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * gamma + beta, m, v


@pytest.mark.parametrize("shape, bna, bpa", [((4, 5), 1, 1), ((2, 3, 4), -1, -1),
                                             ((2, 3, 4), 1, 1), ((2, 3, 4), 2, 1),
                                             ((2, 3, 4), 1, 2), ((6,), 0, 0)])
def test_layer_norm_forward_and_gradients(shape, bna, bpa):
    x = RNG.standard_normal(shape)
    rank = len(shape)
    pshape = shape[bpa % rank:]
    gamma, beta = RNG.standard_normal(pshape), RNG.standard_normal(pshape)
    prim = N.LayerNorm(bna, bpa, 1e-5)
    y, m, v = prim(Tensor(x), Tensor(gamma), Tensor(beta))
    wy, wm, wv = ln_ref(x, gamma, beta, bna % rank, 1e-5)
    np.testing.assert_allclose(y.asnumpy(), wy, atol=1e-12)
    np.testing.assert_allclose(m.asnumpy(), wm, atol=1e-12)
    np.testing.assert_allclose(v.asnumpy(), wv, atol=1e-12)
    check_grad(lambda *a: prim(*a), x, gamma, beta)
    grad = N.LayerNormGrad(bna, bpa, 1e-5)
    check_grad(lambda *a: grad(*a), x, RNG.standard_normal(shape), wv, wm, gamma)


def test_layer_norm_float32_and_errors():
    x = RNG.standard_normal((3, 8)).astype(np.float32)
    g = np.ones(8, np.float32)
    y = N.LayerNorm(-1, -1)(tensor(noncontig(x)), Tensor(g), Tensor(g * 0))[0]
    assert y.dtype == ms.float32
    np.testing.assert_allclose(y.asnumpy(), ln_ref(x.astype(np.float64), 1, 0, 1, 1e-7)[0],
                               rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="For 'LayerNorm', 'gamma' must have shape"):
        N.LayerNorm(1, 1)(Tensor(x), Tensor(np.ones(7, np.float32)), Tensor(g))
    with pytest.raises(ValueError, match="For 'LayerNorm', 'begin_norm_axis' must be in range"):
        N.LayerNorm(2, 1)(Tensor(x), Tensor(g), Tensor(g))
    with pytest.raises(TypeError, match="For 'LayerNorm', the type of 'gamma' should be"):
        N.LayerNorm(1, 1)(Tensor(x), Tensor(np.ones(8)), Tensor(g))
    with pytest.raises(TypeError, match="For 'LayerNorm', 'begin_norm_axis' must be an int"):
        N.LayerNorm(1.0)
    with pytest.raises(ValueError, match="For 'LayerNorm', 'epsilon' must be in range"):
        N.LayerNorm(epsilon=-1.0)


def test_dropout_statistics_mask_and_gradient():
    ms.set_seed(3)
    x = np.ones((200, 100), np.float32)
    out, mask = N.Dropout(keep_prob=0.8)(Tensor(x))
    o, mk = out.asnumpy(), mask.asnumpy()
    assert mask.dtype == ms.float32 and set(np.unique(mk)) <= {0.0, 1.0}
    assert abs(mk.mean() - 0.8) < 0.01
    np.testing.assert_allclose(o, x * mk / 0.8, rtol=1e-6)
    # same global seed -> same mask; own seeds give their own reproducible stream
    ms.set_seed(3)
    np.testing.assert_array_equal(N.Dropout(0.8)(Tensor(x))[1].asnumpy(), mk)
    ms.set_seed(3)
    a = N.Dropout(0.8, 5, 7)(Tensor(x))[1].asnumpy()
    ms.set_seed(3)
    np.testing.assert_array_equal(N.Dropout(0.8, 5, 7)(Tensor(x))[1].asnumpy(), a)
    assert not np.array_equal(a, mk)
    one = N.Dropout(1.0)(Tensor(x))
    np.testing.assert_array_equal(one[0].asnumpy(), x)
    xd = RNG.standard_normal((4, 5))
    prim = N.Dropout(0.6)
    ms.set_seed(1)
    m = prim(Tensor(xd))[1].asnumpy()

    def f(a):
        ms.set_seed(1)          # the same mask on every evaluation
        return prim(a)[0]
    g = check_grad(f, xd)[0].asnumpy()
    np.testing.assert_allclose(g.shape, xd.shape)
    assert (g[m == 0] == 0).all()
    grad = N.DropoutGrad(0.6)
    check_grad(lambda d: grad(d, Tensor(m)), RNG.standard_normal((4, 5)))


def test_dropout_errors():
    with pytest.raises(ValueError, match=r"For 'Dropout', 'keep_prob' must be in range \(0"):
        N.Dropout(0.0)
    with pytest.raises(TypeError, match="For 'Dropout', 'keep_prob' must be a float"):
        N.Dropout("0.5")
    with pytest.raises(ValueError, match="For 'Dropout', 'Seed0'"):
        N.Dropout(0.5, -1)
    with pytest.raises(TypeError, match="For 'Dropout', the type of 'x'"):
        N.Dropout(0.5)(Tensor(np.ones(3, np.int32)))
    with pytest.raises(ValueError, match="For 'DropoutGrad', 'mask' must have the shape"):
        N.DropoutGrad(0.5)(Tensor(np.ones(3)), Tensor(np.ones(4)))


def test_empty_batch_in_inference():
    x = Tensor(np.zeros((0, 3, 2, 2), np.float32))
    c = Tensor(np.ones(3, np.float32))
    assert [t.shape for t in N.BatchNorm()(x, c, c, c, c)] == [(0, 3, 2, 2)] + [(3,)] * 4
    g = Tensor(np.ones((3, 2, 2), np.float32))
    assert [t.shape for t in N.LayerNorm(1, 1)(x, g, g)] == [(0, 3, 2, 2)] + [(0, 1, 1, 1)] * 2
    assert [t.shape for t in N.Dropout(0.5)(x)] == [(0, 3, 2, 2)] * 2


def _close(got, want, tol):
    """|got - want| <= tol elementwise (tol broadcasts), NaN where want is NaN, infinities
    equal."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    with np.errstate(invalid="ignore"):
        ok = nan | (got == want) | (np.abs(got - want) <= tol)
    assert ok.all(), (got[~ok], want[~ok])


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_layer_norm_c_kernels_match_a_float64_reference(data):
    """norm_cpp.py's C loops (trailing-axes layouts, empty rows included, NaN / inf, a strided
    x, float32 / float64) against norm_numpy.py's kernels run in float64, within the rounding
    of the dtype amplified by 1 / sqrt(var + eps) (a constant float32 row: x - mean is its
    rounding error, 3e-5 after the division; the C loops' double mean makes it 0)."""
    from mindlite.kernels.cpu import norm_cpp, norm_numpy
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    shape = tuple(data.draw(st.lists(st.integers(0, 6), min_size=1, max_size=3)))
    shape = shape[:-1] + (max(shape[-1], 1),)
    k = data.draw(st.integers(0, len(shape) - 1))           # the first normalised axis
    x = data.draw(arrays(dtype, shape, allow_special=True, min_value=-4, max_value=4))
    if data.draw(st.booleans()):
        x = noncontig(x)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    gshape = shape[k:]
    gamma, beta = (rng.standard_normal(gshape).astype(dtype) for _ in range(2))
    dy = rng.standard_normal(shape).astype(dtype)
    axes, params, eps = tuple(range(k, len(shape))), tuple(range(k)), 1e-5
    stat = shape[:k] + (1,) * (len(shape) - k)
    got = [np.empty(shape, dtype), np.empty(stat, dtype), np.empty(stat, dtype)]
    want = [np.empty(shape), np.empty(stat), np.empty(stat)]
    with np.errstate(all="ignore"):
        norm_cpp.layer_norm_cpp(x, gamma, beta, *got, axes, eps)
        norm_numpy.layer_norm_numpy(x.astype(np.float64), gamma.astype(np.float64),
                                    beta.astype(np.float64), *want, axes, eps)
        r = 1 / np.sqrt(np.abs(want[2]) + eps)
    e = 16 * np.finfo(dtype).eps
    big = 1 + np.nan_to_num(np.abs(x), posinf=0).max(initial=0)
    gb = 1 + np.abs(gamma).max(initial=0) + np.abs(beta).max(initial=0)
    _close(got[0], want[0], e * (1 + r) * big * gb)
    _close(got[1], want[1], e * big)
    _close(got[2], want[2], e * big * big)
    gg = [np.empty(shape, dtype), np.empty(gshape, dtype), np.empty(gshape, dtype)]
    gw = [np.empty(shape), np.empty(gshape), np.empty(gshape)]
    with np.errstate(all="ignore"):
        # both from the same (float32-rounded) statistics, as the backward pass gets them
        m, v = got[1], got[2]
        norm_cpp.layer_norm_grad_cpp(x, dy, v, m, gamma, *gg, axes, params, eps)
        norm_numpy.layer_norm_grad_numpy(x.astype(np.float64), dy.astype(np.float64),
                                         v.astype(np.float64), m.astype(np.float64),
                                         gamma.astype(np.float64), *gw, axes, params, eps)
        r = 1 / np.sqrt(np.abs(v.astype(np.float64)) + eps)
    d = 1 + np.abs(dy).max(initial=0)
    rows = max(int(np.prod(shape[:k], dtype=np.int64)), 1)
    cols = int(np.prod(gshape, dtype=np.int64))
    _close(gg[0], gw[0], e * cols * (1 + r) ** 2 * big * big * gb * d)
    rmax = r.max(initial=0) if r.size else 0
    _close(gg[1], gw[1], e * rows * (1 + rmax) * big * d)
    _close(gg[2], gw[2], e * rows * d)


def test_layer_norm_layers_run_the_c_loops(monkeypatch):
    """nn.LayerNorm's forward and backward reach _C (not the numpy fallback)."""
    from mindlite import nn
    from mindlite.kernels import registry
    from mindlite.kernels.cpu import norm_numpy
    for op in ("LayerNorm", "LayerNormGrad"):
        assert registry.registered_kernels(op)[0].provider == "cpp"

    def refuse(*a, **k):
        raise AssertionError("the numpy LayerNorm kernel ran")
    monkeypatch.setattr(norm_numpy, "layer_norm_numpy", refuse)
    monkeypatch.setattr(norm_numpy, "layer_norm_grad_numpy", refuse)
    ln = nn.LayerNorm((8,))
    x = Tensor(RNG.standard_normal((3, 4, 8)).astype(np.float32))
    y = ln(x)
    assert y.shape == (3, 4, 8)
    g = ms.grad(lambda t: (ln(t) * ln(t)).sum())(x)
    assert np.isfinite(g.asnumpy()).all()
