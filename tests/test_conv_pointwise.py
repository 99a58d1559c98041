"""The direct pointwise path of the convolution engine (csrc/kernels/conv_forward.cc,
GemmTile::direct: 1 x 1, stride 1, unpadded, one group; weights and input rows read in place)
and the depthwise loops (conv_depthwise_loops.inc: the partial last vector of a row, the
unrolled 3 x 3 kernel), against a float64 numpy reference: hypothesis over batch (0 included),
channels (0 included), output channels around the register tile's rows, planes around its
column panel (1 x 1 included), strides and paddings, the fused bias / residual / activation;
NaN / inf; the same bits on 1 to 4 threads."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import _C

ACTS = {0: lambda v: v, 1: lambda v: np.maximum(v, 0), 2: lambda v: np.clip(v, 0, 6),
        3: lambda v: v * np.clip(v + 3, 0, 6) / 6, 4: lambda v: v / (1 + np.exp(-v)),
        5: lambda v: np.clip(v, 0, 6)}


def _pointwise_ref(x, w, b, r, act):
    y = np.einsum("oc,nchw->nohw", w[:, :, 0, 0].astype(np.float64), x.astype(np.float64))
    if b is not None:
        y = y + b.astype(np.float64).reshape(-1, 1, 1)
    if r is not None:
        y = y + r
    bound = np.einsum("oc,nchw->nohw", np.abs(w[:, :, 0, 0]).astype(np.float64),
                      np.abs(x).astype(np.float64))
    return ACTS[act](y), bound


def _fused(x, w, b, r, act, out=None):
    out = np.full((x.shape[0], w.shape[0]) + x.shape[2:], 7, x.dtype) if out is None else out
    _C.conv_forward_fused(x, w, b, r, out, (1, 1), (1, 1), (0, 0, 0, 0), 1, act)
    return out


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 3), c=st.integers(0, 40), o=st.integers(1, 40),
       hw=st.sampled_from([(1, 1), (1, 31), (4, 8), (5, 7), (3, 11), (7, 7), (14, 14), (2, 33),
                           (4, 12), (3, 16), (28, 28)]),
       act=st.sampled_from(sorted(ACTS)), bias=st.booleans(), residual=st.booleans(),
       dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**31))
def test_pointwise_matches_reference(n, c, o, hw, act, bias, residual, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c) + hw).astype(dtype)
    w = rng.standard_normal((o, c, 1, 1)).astype(dtype)
    b = rng.standard_normal(o).astype(dtype) if bias else None
    r = rng.standard_normal((n, o) + hw).astype(dtype) if residual else None
    got = _fused(x, w, b, r, act)
    want, bound = _pointwise_ref(x, w, b, r, act)
    eps = 8 * np.finfo(dtype).eps
    # the terms' magnitudes (plus the bias / residual / activation's rounding)
    np.testing.assert_array_less(np.abs(got - want), eps * (bound + 1) * 4 + 1e-30)
    plain = np.full(got.shape, 7, dtype)
    _C.conv_forward(x, w, plain, (1, 1), (1, 1), (0, 0, 0, 0), 1)
    want0, _ = _pointwise_ref(x, w, None, None, 0)
    np.testing.assert_array_less(np.abs(plain - want0), eps * (bound + 1) * 4 + 1e-30)


@pytest.mark.parametrize("shape, o", [
    ((2, 24, 9, 13), 40), ((1, 16, 56, 56), 96), ((1, 320, 7, 7), 64),
    ((1, 64, 14, 14), 384),       # a 4-column tail on one vector, split in rows
    ((1, 32, 28, 28), 30),        # a 16-column tail, split in columns (3 row units)
    ((3, 20, 3, 7), 150),         # planes narrower than the tail's vector
    ((1, 40, 1, 17), 200),        # a 17-column plane: one panel, the window is the plane
    ((16, 320, 1, 1), 64),        # planes under a vector, a batch: the packed engine
    ((4, 300, 2, 2), 40),
    ((1, 32, 4, 5), 50),          # 20 columns: a vector in place, 4 as dot products
    ((2, 48, 2, 4), 30)])         # 8 columns, all dot products
def test_pointwise_same_bits_on_any_thread_count(shape, o):
    """The thread split (rows, columns; the partial panel's window) never changes a bit."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((o, shape[1], 1, 1)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    r = rng.standard_normal((shape[0], o) + shape[2:]).astype(np.float32)
    runs = []
    for threads in (1, 2, 3, 4):
        _C.set_num_threads(threads)
        try:
            runs.append(_fused(x, w, b, r, 2))
        finally:
            _C.set_num_threads(0)
    for got in runs[1:]:
        np.testing.assert_array_equal(runs[0], got)
    want, bound = _pointwise_ref(x, w, b, r, 2)
    np.testing.assert_array_less(np.abs(runs[0] - want), 64 * np.finfo(np.float32).eps
                                 * (bound + 1) + 1e-30)


def test_pointwise_nan_and_inf_propagate():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 5, 6, 7))
    w = rng.standard_normal((13, 5, 1, 1))
    x[0, 0, 2, 2], x[0, 1, 0, 0] = np.nan, np.inf
    got = _fused(x, w, None, None, 0)
    want, _ = _pointwise_ref(x, w, None, None, 0)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pointwise_dot_tail_nan_and_inf(dtype):
    """A plane's last columns summed as dot products (7 x 7: 49 = 32 + 16 + 1, K a whole number
    of vectors) carry NaN and inf as the reference does."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 32, 7, 7)).astype(dtype)
    w = rng.standard_normal((20, 32, 1, 1)).astype(dtype)
    x[0, 3, 6, 6], x[0, 5, 6, 5] = np.nan, np.inf       # the last column, and the one before
    got = _fused(x, w, None, None, 0)
    want, bound = _pointwise_ref(x, w, None, None, 0)
    assert np.isnan(got[0, :, 6, 6]).all() and np.isinf(got[0, :, 6, 5]).all()
    finite = np.isfinite(want)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    np.testing.assert_array_less(np.abs(got - want)[finite],
                                 16 * np.finfo(dtype).eps * (bound[finite] + 1))


def test_pointwise_strided_and_noncontiguous_inputs():
    """Inputs of any layout are made dense first; the output must be written in place."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 14, 9, 6)).astype(np.float32).transpose(0, 1, 3, 2)
    w = rng.standard_normal((20, 14, 1, 1)).astype(np.float32)[:, :, :, ::-1]
    got = _fused(x, w, None, None, 1)
    want, _ = _pointwise_ref(np.ascontiguousarray(x), np.ascontiguousarray(w), None, None, 1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("width", [13, 14, 15, 17, 28, 31])
def test_depthwise_partial_vectors(width):
    """Rows whose last vector is partial (14 of 16 lanes): the outputs past the row are not
    written (the next row's are right), with the fused ReLU6, and accumulated in the input
    gradient."""
    rng = np.random.default_rng(width)
    c = 6
    x = rng.standard_normal((2, c, 5, width)).astype(np.float32) * 4
    w = rng.standard_normal((c, 1, 3, 3)).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    got = np.full((2, c, 5, width), 7, np.float32)
    _C.conv_forward_fused(x, w, b, None, got, (1, 1), (1, 1), (1, 1, 1, 1), c, 2)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = sum(xp[:, :, i:i + 5, j:j + width] * w[:, 0, i, j].reshape(1, c, 1, 1)
            for i in range(3) for j in range(3))
    np.testing.assert_allclose(got, np.clip(y + b.reshape(1, c, 1, 1), 0, 6), rtol=1e-5,
                               atol=1e-5)
    dx = np.full(x.shape, 7, np.float32)
    _C.conv_depthwise_input(x, w, dx, (1, 1), (1, 1), (1, 1, 1, 1), c)
    flip = w[:, :, ::-1, ::-1]
    want = sum(xp[:, :, i:i + 5, j:j + width] * flip[:, 0, i, j].reshape(1, c, 1, 1)
               for i in range(3) for j in range(3))
    np.testing.assert_allclose(dx, want, rtol=1e-5, atol=1e-5)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(0, 2), c=st.integers(1, 20), h=st.integers(1, 12), w=st.integers(1, 40),
       stride=st.sampled_from([1, 2]), pads=st.tuples(*[st.integers(0, 2)] * 4),
       act=st.sampled_from(sorted(ACTS)), dtype=st.sampled_from([np.float32, np.float64]),
       seed=st.integers(0, 2**31))
def test_depthwise_3x3_matches_reference(n, c, h, w, stride, pads, act, dtype, seed):
    """The unrolled 3 x 3 depthwise loop (any stride, padding, plane; every epilogue)."""
    from mindlite.kernels.cpu import conv_numpy as ref
    oh = (h + pads[0] + pads[1] - 3) // stride + 1
    ow = (w + pads[2] + pads[3] - 3) // stride + 1
    if oh < 1 or ow < 1:
        return
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((n, c, h, w)) * 3).astype(dtype)
    wt = rng.standard_normal((c, 1, 3, 3)).astype(dtype)
    b = rng.standard_normal(c).astype(dtype)
    y = np.empty((n, c, oh, ow), np.float64)
    ref.conv2d_numpy(x.astype(np.float64), wt.astype(np.float64), y, (stride, stride), (1, 1),
                     pads, c)
    m = np.empty_like(y)
    ref.conv2d_numpy(np.abs(x).astype(np.float64), np.abs(wt).astype(np.float64), m,
                     (stride, stride), (1, 1), pads, c)
    got = np.full((n, c, oh, ow), 7, dtype)
    _C.conv_forward_fused(x, wt, b, None, got, (stride, stride), (1, 1), pads, c, act)
    want = ACTS[act](y + b.astype(np.float64).reshape(-1, 1, 1))
    eps = 8 * np.finfo(dtype).eps
    np.testing.assert_array_less(np.abs(got - want), eps * (m + np.abs(want) + 1) * 4)
