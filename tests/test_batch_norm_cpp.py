"""The C++ BatchNorm / BatchNormGrad kernels (csrc/kernels/batch_norm.cc, registered by
mindlite/kernels/cpu/batch_norm_cpp.py) against a float64 reference: ranks 2 to 5, training
and inference, the fused ReLU / ReLU6 of _C.batch_norm, the moving statistics' update, a mean
far larger than the spread, the same bits on 1 and 2 threads, errors, and float64
finite-difference gradients through the BatchNorm primitive."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, _C
from mindlite.kernels import registry
from mindlite.ops.operations.norm_ops import BatchNorm

from gradcheck import check_grad

ACT = {0: lambda v: v, 1: lambda v: np.maximum(v, 0), 2: lambda v: np.clip(v, 0, 6)}


def _reference(x, scale, bias, mean, var, training, eps, momentum, act):
    xd = x.astype(np.float64)
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if training:
        m, v = xd.mean(axis=axes), xd.var(axis=axes)
        n = x.size // x.shape[1]
        mean = (1 - momentum) * mean + momentum * m
        var = (1 - momentum) * var + momentum * v * n / max(n - 1, 1)
    else:
        m, v = mean.astype(np.float64), var.astype(np.float64)
    y = (xd - m.reshape(shape)) / np.sqrt(v.reshape(shape) + eps) * scale.reshape(shape) \
        + bias.reshape(shape)
    return ACT[act](y), m, v, mean, var


def _grad_reference(dy, x, y, scale, m, v, training, eps, act):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    g = dy.astype(np.float64)
    if act:
        g = g * ((y > 0) & ((y < 6) if act == 2 else True))
    r = 1 / np.sqrt(v.astype(np.float64) + eps)
    xh = (x - m.reshape(shape)) * r.reshape(shape)
    db, ds = g.sum(axis=axes), (g * xh).sum(axis=axes)
    k = (scale * r).reshape(shape)
    if not training:
        return g * k, ds, db
    n = x.size // x.shape[1]
    return k * (g - db.reshape(shape) / n - xh * ds.reshape(shape) / n), ds, db


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([(5, 3), (2, 4, 7), (3, 5, 4, 6), (2, 3, 2, 3, 2), (16, 8, 1, 1),
                        (1, 6, 1, 1), (2, 4, 17, 3)]),
       st.booleans(), st.sampled_from([0, 1, 2]), st.sampled_from([np.float32, np.float64]),
       st.integers(0, 2**31))
def test_matches_float64_reference(shape, training, act, dtype, seed):
    rng = np.random.default_rng(seed)
    c = shape[1]
    x = (rng.standard_normal(shape) * 2 + 1).astype(dtype)
    scale, bias = rng.standard_normal(c).astype(dtype), rng.standard_normal(c).astype(dtype)
    mean, var = rng.standard_normal(c).astype(dtype), rng.uniform(0.5, 2, c).astype(dtype)
    y = np.empty_like(x)
    mm, mv, bm, bv = mean.copy(), var.copy(), np.empty(c, dtype), np.empty(c, dtype)
    _C.batch_norm(x, scale, bias, mm, mv, y, bm, bv, act, training, 1e-5, 0.1)
    want, m, v, new_mean, new_var = _reference(x, scale, bias, mean, var, training, 1e-5, 0.1,
                                               act)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    # y = x * a + (bias - mean * a) with a = scale / sqrt(var + eps), as PyTorch computes it:
    # the rounding is relative to the terms x * a, which are large where var ~ 0 (N = 1)
    a = np.abs(scale.astype(np.float64)) / np.sqrt(v + 1e-5)
    terms = np.abs(x.astype(np.float64)).max(axis=tuple(i for i in range(x.ndim) if i != 1)) * a
    y_atol = max(tol["atol"], 8 * np.finfo(dtype).eps * terms.max())
    np.testing.assert_allclose(y, want, rtol=tol["rtol"], atol=y_atol)
    np.testing.assert_allclose(bm, m, **tol)
    np.testing.assert_allclose(bv, v, **tol)
    np.testing.assert_allclose(mm, new_mean, **tol)
    np.testing.assert_allclose(mv, new_var, **tol)
    dy = rng.standard_normal(shape).astype(dtype)
    dx, ds, db = np.empty_like(x), np.empty(c, dtype), np.empty(c, dtype)
    _C.batch_norm_grad(dy, x, y if act else None, scale, bm, bv, dx, ds, db, act, training,
                       1e-5)
    for got, exp in zip((dx, ds, db), _grad_reference(dy, x, y, scale, bm, bv, training, 1e-5,
                                                      act)):
        np.testing.assert_allclose(got, exp, **tol)


def test_large_mean_does_not_cancel_the_variance():
    rng = np.random.default_rng(0)
    x = (1e4 + rng.standard_normal((8, 3, 16, 16))).astype(np.float32)
    y, bm, bv = np.empty_like(x), np.empty(3, np.float32), np.empty(3, np.float32)
    _C.batch_norm(x, np.ones(3, np.float32), np.zeros(3, np.float32), np.zeros(3, np.float32),
                  np.ones(3, np.float32), y, bm, bv, 0, True, 1e-5, 0.1)
    np.testing.assert_allclose(bv, x.astype(np.float64).var(axis=(0, 2, 3)), rtol=1e-5)


@pytest.mark.parametrize("c", [64, 144, 7])
def test_same_bits_on_any_thread_count(c):
    """Channels split evenly over the threads (64 / 144: MobileNetV2's counts, which the old
    64-aligned chunks gave mostly to one thread; 7 on 3 threads: uneven parts)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((16, c, 8, 8)).astype(np.float32)
    dy = rng.standard_normal(x.shape).astype(np.float32)
    runs = []
    for threads in (1, 2, 3):
        _C.set_num_threads(threads)
        try:
            y, bm, bv = np.empty_like(x), np.empty(c, np.float32), np.empty(c, np.float32)
            one = np.ones(c, np.float32)
            mm, mv = one * 0, one.copy()
            _C.batch_norm(x, one, one * 0, mm, mv, y, bm, bv, 1, True, 1e-5, 0.1)
            dx, ds, db = np.empty_like(x), np.empty(c, np.float32), np.empty(c, np.float32)
            _C.batch_norm_grad(dy, x, y, one, bm, bv, dx, ds, db, 1, True, 1e-5)
            yi = np.empty_like(x)
            _C.batch_norm(x, one, one * 0, bm, bv, yi, np.empty(c, np.float32),
                          np.empty(c, np.float32), 0, False, 1e-5, 0.1)
            runs.append((y, bm, bv, mm, mv, dx, ds, db, yi))
        finally:
            _C.set_num_threads(0)
    for run in runs[1:]:
        for a, b in zip(run, runs[0]):
            np.testing.assert_array_equal(a, b)


def test_errors_name_the_function_and_argument():
    x = np.zeros((2, 3, 4, 4), np.float32)
    v = np.zeros(3, np.float32)
    with pytest.raises(ValueError, match="batch_norm.*'scale'"):
        _C.batch_norm(x, np.zeros(4, np.float32), v, v, v, x.copy(), v.copy(), v.copy(), 0,
                      True, 1e-5, 0.1)
    with pytest.raises(TypeError, match="batch_norm.*'bias'"):
        _C.batch_norm(x, v, v.astype(np.float64), v, v, x.copy(), v.copy(), v.copy(), 0, True,
                      1e-5, 0.1)
    with pytest.raises(ValueError, match="batch_norm.*'act'"):
        _C.batch_norm(x, v, v, v, v, x.copy(), v.copy(), v.copy(), 3, True, 1e-5, 0.1)
    with pytest.raises(ValueError, match="batch_norm_grad.*'dx'"):
        _C.batch_norm_grad(x, x, None, v, v, v, np.zeros((2, 3, 4, 5), np.float32), v.copy(),
                           v.copy(), 0, True, 1e-5)


@pytest.mark.parametrize("training", [True, False])
def test_float64_gradients_through_the_primitive(training):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 2, 2, 3))
    scale, bias = rng.uniform(0.5, 1.5, 2), rng.standard_normal(2)
    mean, var = np.zeros(2), np.ones(2)
    bn = BatchNorm(is_training=training, epsilon=1e-5, momentum=0.1)

    def fn(a, s, b):
        return bn(a, s, b, Tensor(mean.copy()), Tensor(var.copy()))[0]
    check_grad(fn, x, scale, bias)
    abstracts = [Tensor(x)._abs, Tensor(scale)._abs]
    assert registry.select_kernel("BatchNorm", "CPU", ms.float64,
                                  input_abstracts=abstracts).name == "batch_norm_cpp"
    assert registry.select_kernel("BatchNormGrad", "CPU", ms.float64,
                                  input_abstracts=[abstracts[0]] + abstracts).name \
        == "batch_norm_grad_cpp"
