"""mindlite._C's conv_* loops (csrc/kernels/conv_loops.cc, csrc/bind/conv_bind.cc) called
directly: results equal a plain numpy statement of each loop's docstring, and every entry point
rejects a bad argument (type, dtype, ndim, shape, layout, read-only output, an offset or a
table entry out of range) with TypeError / ValueError naming the function and the argument,
before touching memory.
"""
import numpy as np
import pytest

from mindlite import _C

FLOATS = [np.float32, np.float64]
RNG = np.random.default_rng(0)


def rand(shape, dtype):
    return RNG.standard_normal(shape).astype(dtype)


def table(k, p, plane):
    return RNG.integers(0, plane, size=(k, p)).astype(np.intp)


@pytest.mark.parametrize("dtype", FLOATS)
def test_sample_major_loops_match_numpy(dtype):
    n, c, h, w, top, left, hp, wp = 3, 2, 4, 5, 1, 2, 7, 8
    x = rand((n, c, h, w), dtype)
    xp = np.full((n, c, hp, wp), 9.0, dtype)
    _C.conv_pad(x, xp, top, left)
    want = np.zeros_like(xp)
    want[:, :, top:top + h, left:left + w] = x
    np.testing.assert_array_equal(xp, want)

    k, p = 4, 6
    tab = table(k, p, hp * wp)
    cols = np.empty((c * k, n * p), dtype)
    _C.conv_im2col(xp.reshape(n, c, hp * wp), cols, tab)
    want = xp.reshape(n, c, -1)[:, :, tab]                      # (n, c, k, p)
    np.testing.assert_array_equal(cols, want.transpose(1, 2, 0, 3).reshape(c * k, n * p))

    dxp = np.full((n, c, hp * wp), 9.0, dtype)
    _C.conv_col2im(cols, dxp, tab)
    want = np.zeros_like(dxp)
    c4 = cols.reshape(c, k, n, p)
    for kk in range(k):                                        # kernel-offset order
        for nn in range(n):
            for pp in range(p):
                want[nn, :, tab[kk, pp]] += c4[:, kk, nn, pp]
    np.testing.assert_array_equal(dxp, want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_batch_inner_loops_match_numpy(dtype):
    n, c, h, w, top, left, hp, wp = 5, 3, 3, 4, 1, 1, 6, 7
    x = rand((n, c, h, w), dtype)
    xt = np.full((c, hp * wp, n), 9.0, dtype)
    _C.conv_pad_t(x, xt, top, left, wp)
    padded = np.zeros((n, c, hp, wp), dtype)
    padded[:, :, top:top + h, left:left + w] = x
    np.testing.assert_array_equal(xt, padded.reshape(n, c, -1).transpose(1, 2, 0))

    k, p = 3, 4
    tab = table(k, p, hp * wp)
    cols = np.empty((c * k, p * n), dtype)
    _C.conv_im2col_t(xt, cols, tab)
    np.testing.assert_array_equal(cols, xt[:, tab, :].reshape(c * k, p * n))

    dxt = np.full(xt.shape, 9.0, dtype)
    _C.conv_col2im_t(cols, dxt, tab)
    want = np.zeros_like(dxt)
    c4 = cols.reshape(c, k, p, n)
    for kk in range(k):
        for pp in range(p):
            want[:, tab[kk, pp], :] += c4[:, kk, pp, :]
    np.testing.assert_array_equal(dxt, want)

    dx = np.full(x.shape, 9.0, dtype)
    _C.conv_crop_t(xt, dx, top, left, wp)
    np.testing.assert_array_equal(dx, x)

    d = rand((n, 4, 6), dtype)
    dt = np.empty((4, 6 * n), dtype)
    _C.conv_to_batch_inner(d, dt)
    np.testing.assert_array_equal(dt, d.transpose(1, 2, 0).reshape(4, -1))
    back = np.empty_like(d)
    _C.conv_from_batch_inner(dt, back)
    np.testing.assert_array_equal(back, d)


def test_empty_sizes_are_fine():
    _C.conv_pad(np.empty((0, 2, 3, 3)), np.empty((0, 2, 5, 5)), 1, 1)
    _C.conv_im2col(np.empty((2, 0, 9)), np.empty((0, 8)), np.zeros((4, 4), np.intp))
    _C.conv_to_batch_inner(np.empty((0, 3, 4)), np.empty((3, 0)))


# ---- validation -------------------------------------------------------------------------------
def sample_major_args(dtype=np.float64):
    n, c, hp, wp, k, p = 2, 3, 4, 4, 2, 5
    return (np.zeros((n, c, hp * wp), dtype), np.zeros((c * k, n * p), dtype),
            table(k, p, hp * wp))


def check(exc, pattern, fn, *args):
    with pytest.raises(exc, match=pattern):
        fn(*args)


def test_bad_dtype():
    xp, cols, tab = sample_major_args()
    check(TypeError, r"conv_im2col', 'cols' dtype must be float32 or float64", _C.conv_im2col,
          xp, cols.astype(np.int64), tab)
    check(TypeError, r"conv_im2col', 'xp' dtype must be float64", _C.conv_im2col,
          xp.astype(np.float32), cols, tab)
    check(TypeError, r"conv_im2col', 'xp' dtype must be float64", _C.conv_im2col,
          xp.astype(">f8"), cols, tab)
    check(TypeError, r"conv_im2col', 'tab' dtype must be intp", _C.conv_im2col,
          xp, cols, tab.astype(np.int32))
    check(TypeError, r"conv_pad', 'x' must be a numpy.ndarray", _C.conv_pad,
          [[1.0]], np.zeros((1, 1, 1, 1)), 0, 0)
    check(TypeError, r"conv_pad', 'top' must be an int", _C.conv_pad,
          np.zeros((1, 1, 1, 1)), np.zeros((1, 1, 1, 1)), 0.5, 0)
    check(TypeError, r"conv_to_batch_inner', 'dt' dtype", _C.conv_to_batch_inner,
          np.zeros((2, 3, 4), np.float32), np.zeros((3, 8)))
    check(TypeError, r"conv_im2col', expected 3 arguments", _C.conv_im2col, xp, cols)


def test_bad_shape_or_offset():
    xp, cols, tab = sample_major_args()
    check(ValueError, r"conv_im2col', 'cols' shape must be \(6, 10\)", _C.conv_im2col,
          xp, cols[:, :9].copy(), tab)
    check(ValueError, r"conv_im2col', 'xp' must be 3-D", _C.conv_im2col, xp[0], cols, tab)
    check(ValueError, r"conv_col2im', 'cols' shape", _C.conv_col2im, cols[:5].copy(), xp, tab)
    x = np.zeros((2, 3, 4, 4))
    check(ValueError, r"conv_pad', 'xp' shape", _C.conv_pad, x, np.zeros((2, 3, 5, 5)), 2, 0)
    check(ValueError, r"conv_pad', 'xp' shape", _C.conv_pad, x, np.zeros((2, 2, 6, 6)), 1, 1)
    check(ValueError, r"conv_pad', 'left' must be an int in", _C.conv_pad,
          x, np.zeros((2, 3, 6, 6)), 1, -1)
    xt = np.zeros((3, 36, 2))
    check(ValueError, r"conv_pad_t', 'xt' shape", _C.conv_pad_t, x, xt, 3, 1, 6)   # 7 rows
    check(ValueError, r"conv_pad_t', 'xt' shape", _C.conv_pad_t, x, xt, 1, 3, 6)   # 3 + 4 > 6
    check(ValueError, r"conv_crop_t', 'dxt' shape", _C.conv_crop_t, xt, x, 0, 0, 10)
    check(ValueError, r"conv_from_batch_inner', 'dt' shape must be \(3, 8\)",
          _C.conv_from_batch_inner, np.zeros((3, 9)), np.zeros((2, 3, 4)))


@pytest.mark.parametrize("bad", [-1, 16, 1 << 40, -(1 << 62)])
def test_out_of_range_table_entry(bad):
    xp, cols, tab = sample_major_args()
    tab[1, 3] = bad
    for fn, args in ((_C.conv_im2col, (xp, cols, tab)), (_C.conv_col2im, (cols, xp, tab))):
        check(ValueError, r"every 'tab' entry must be in \[0, 16\).*tab\[1, 3\]", fn, *args)
    xt, cols_t = np.zeros((3, 16, 2)), np.zeros((6, 10))
    check(ValueError, r"conv_im2col_t', every 'tab' entry", _C.conv_im2col_t, xt, cols_t, tab)
    check(ValueError, r"conv_col2im_t', every 'tab' entry", _C.conv_col2im_t, cols_t, xt, tab)


def test_non_contiguous_or_read_only():
    xp, cols, tab = sample_major_args()
    wide = np.zeros((cols.shape[0], cols.shape[1] * 2))
    check(ValueError, r"conv_im2col', 'cols' must be C-contiguous", _C.conv_im2col,
          xp, wide[:, ::2], tab)
    check(ValueError, r"conv_im2col', 'xp' must be C-contiguous", _C.conv_im2col,
          np.zeros((2, 3, 32))[:, :, ::2], cols, tab)
    check(ValueError, r"conv_im2col', 'tab' must be a 2-D C-contiguous",
          _C.conv_im2col, xp, cols, np.zeros((2, 10), np.intp)[:, ::2])
    ro = cols.copy()
    ro.flags.writeable = False
    check(ValueError, r"conv_im2col', 'cols' must be writeable", _C.conv_im2col, xp, ro, tab)
    d = np.zeros((2, 3, 4))
    check(ValueError, r"conv_from_batch_inner', 'd' must be C-contiguous",
          _C.conv_from_batch_inner, np.zeros((3, 8)), np.zeros((2, 3, 8))[:, :, ::2])
    check(ValueError, r"conv_to_batch_inner', 'd' must be C-contiguous",
          _C.conv_to_batch_inner, d.transpose(0, 2, 1).copy().transpose(0, 2, 1),
          np.zeros((3, 8)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_long_k_filter_gradient_and_channels_last(dtype, monkeypatch):
    """The filter gradient of a long-K GEMM (batch x positions >= 2048: ResNet18's stem at 32 x
    32) as cols @ dout channels-last (_C.conv_channels_last): the float64 reference's values
    (within the GEMM's rounding), the same bits on 1 and 2 threads, and close to the NT GEMM it
    replaced."""
    from mindlite.kernels.cpu import conv_cpp
    from mindlite.kernels.cpu import conv_numpy as ref
    rng = np.random.default_rng(2)
    x = rng.standard_normal((16, 3, 32, 32)).astype(dtype)
    d = rng.standard_normal((16, 8, 16, 16)).astype(dtype)
    geo = ((2, 2), (1, 1), (3, 3, 3, 3), 1)
    want = np.empty((8, 3, 7, 7))
    ref.conv2d_backprop_filter_numpy(d.astype(np.float64), x.astype(np.float64), want, *geo)
    got = {}
    try:
        for t in (1, 2):
            _C.set_num_threads(t)
            got[t] = np.empty((8, 3, 7, 7), dtype)
            conv_cpp.conv2d_backprop_filter_cpp(d, x, got[t], *geo)
    finally:
        _C.set_num_threads(0)
    np.testing.assert_array_equal(got[2], got[1])
    tol = 1e-3 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(got[1], want, rtol=tol, atol=tol)
    monkeypatch.setattr(conv_cpp, "_LONG_K", 1 << 40)
    old = np.empty((8, 3, 7, 7), dtype)
    conv_cpp.conv2d_backprop_filter_cpp(d, x, old, *geo)
    np.testing.assert_allclose(got[1], old, rtol=tol, atol=tol)
    dl = np.empty((16, 256, 8), dtype)
    _C.conv_channels_last(d.reshape(16, 8, 256), dl)
    np.testing.assert_array_equal(dl, d.reshape(16, 8, 256).transpose(0, 2, 1))
    with pytest.raises(ValueError, match="conv_channels_last"):
        _C.conv_channels_last(d.reshape(16, 8, 256), np.empty((16, 8, 256), dtype))
