"""mindlite._C's max_pool* loops (csrc/kernels/pool_loops.cc, csrc/bind/pool_bind.cc) called
directly: results equal a plain numpy statement of each loop (NaN propagates, padding never
wins, an all-padding window is -inf, the gradient goes to the window's first position equal to
the given output, NaN matching NaN, ties to the first), and every entry point rejects a bad
argument (type, dtype, ndim, shape, layout, read-only output, an int out of range, 2 x 2
windows leaving x) with TypeError / ValueError naming the function and the argument, before
touching memory.
"""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import _C

FLOATS = [np.float32, np.float64]
RNG = np.random.default_rng(0)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def tie_data(shape, dtype):
    """Few distinct values (ties everywhere), NaN and infinities."""
    vals = np.array([-1.0, 0.0, 0.5, 2.0, 2.0, np.nan, np.inf, -np.inf])
    return RNG.choice(vals, size=shape).astype(dtype)


def windows(x, oh, ow, kh, kw, sh, sw, dh, dw, top, left):
    """Per (y, q): the list of (r, col) positions of the window inside x, row-major."""
    h, w = x.shape[2:]
    for y, q in itertools.product(range(oh), range(ow)):
        pos = [(y * sh + i * dh - top, q * sw + j * dw - left)
               for i in range(kh) for j in range(kw)]
        yield y, q, [(r, c) for r, c in pos if 0 <= r < h and 0 <= c < w]


def ref_pool(x, oh, ow, *geo):
    out = np.empty(x.shape[:2] + (oh, ow), x.dtype)
    for y, q, pos in windows(x, oh, ow, *geo):
        for n, c in np.ndindex(*x.shape[:2]):
            v = np.array([x[n, c, r, s] for r, s in pos], x.dtype)
            out[n, c, y, q] = (np.nan if np.isnan(v).any() else v.max()) if v.size else -np.inf
    return out


def ref_grad(x, out, grad, *geo):
    dx = np.zeros_like(x)
    oh, ow = out.shape[2:]
    for y, q, pos in windows(x, oh, ow, *geo):
        for n, c in np.ndindex(*x.shape[:2]):
            o = out[n, c, y, q]
            for r, s in pos:
                v = x[n, c, r, s]
                if v == o or (np.isnan(o) and np.isnan(v)):
                    dx[n, c, r, s] += grad[n, c, y, q]
                    break
    return dx


# (shape, out hw, kh, kw, sh, sw, dh, dw, top, left): padding, ceil-mode overhang (an
# all-padding window), dilation, stride 1, kernel 1
GEOMETRIES = [
    ((2, 3, 5, 6), (3, 3), 3, 3, 2, 2, 1, 1, 1, 1),
    ((1, 2, 4, 4), (3, 3), 2, 2, 2, 2, 1, 1, 1, 1),
    ((2, 1, 7, 5), (2, 3), 2, 3, 2, 1, 2, 1, 0, 1),
    ((1, 2, 3, 3), (3, 3), 1, 1, 1, 1, 1, 1, 0, 0),
    ((1, 1, 2, 2), (3, 3), 3, 3, 1, 1, 1, 1, 2, 2),   # windows of padding only
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", GEOMETRIES)
def test_generic_loops_match_numpy(dtype, case):
    shape, (oh, ow), *geo = case
    for x in (tie_data(shape, dtype), RNG.standard_normal(shape).astype(dtype)):
        out = np.full(shape[:2] + (oh, ow), 7.5, dtype)
        _C.max_pool(x, out, *geo)
        want = ref_pool(x, oh, ow, *geo)
        np.testing.assert_array_equal(out, want)
        grad = RNG.standard_normal(out.shape).astype(dtype)
        dx = np.full(shape, 7.5, dtype)
        _C.max_pool_grad(x, out, grad, dx, *geo)
        np.testing.assert_array_equal(dx, ref_grad(x, out, grad, *geo))


def ref_pool_scan(x, oh, ow, *geo):
    """The loop's own statement: the window scanned row-major, `v > m` keeping the first of
    equal values (so which signed zero wins is defined), NaN anywhere giving NaN."""
    out = np.empty(x.shape[:2] + (oh, ow), x.dtype)
    for y, q, pos in windows(x, oh, ow, *geo):
        m = np.full(x.shape[:2], -np.inf, x.dtype)
        nan = np.zeros(x.shape[:2], bool)
        for r, s in pos:
            v = x[:, :, r, s]
            m = np.where(v > m, v, m)
            nan |= np.isnan(v)
        out[:, :, y, q] = np.where(nan, np.nan, m)
    return out


@settings(max_examples=40, deadline=None)
@given(k=st.tuples(st.integers(1, 4), st.integers(1, 4)),
       s=st.tuples(st.integers(1, 3), st.integers(1, 3)),
       d=st.tuples(st.integers(1, 2), st.integers(1, 2)),
       pad=st.tuples(st.integers(0, 2), st.integers(0, 2)), h=st.integers(1, 9),
       w=st.integers(1, 40), dtype=st.sampled_from(FLOATS), seed=st.integers(0, 2**31))
def test_interior_columns_keep_the_scan_order(k, s, d, pad, h, w, dtype, seed):
    """Wide rows take the vectorised interior loop (every tap inside the row): the same
    values, NaNs and signed zeros as the scan of the border loop."""
    oh = max(1, (h + 2 * pad[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1)
    ow = max(1, (w + 2 * pad[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1)
    rng = np.random.default_rng(seed)
    x = rng.choice(np.array([-1.0, 0.0, -0.0, 0.5, 2.0, np.nan, np.inf, -np.inf]),
                   size=(2, 2, h, w)).astype(dtype)
    geo = (k[0], k[1], s[0], s[1], d[0], d[1], pad[0], pad[1])
    out = np.full((2, 2, oh, ow), 7.5, dtype)
    _C.max_pool(x, out, *geo)
    want = ref_pool_scan(x, oh, ow, *geo)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(np.signbit(out), np.signbit(want))


def test_all_padding_window_is_minus_inf_and_gets_no_gradient():
    x = np.array([[[[1.0, np.nan], [3.0, 2.0]]]])
    out = np.empty((1, 1, 3, 3))
    _C.max_pool(x, out, 1, 1, 2, 2, 1, 1, 0, 0)
    np.testing.assert_array_equal(out, ref_pool(x, 3, 3, 1, 1, 2, 2, 1, 1, 0, 0))
    assert out[0, 0, 0, 0] == 1.0 and np.isneginf(out[0, 0, 1:, :]).all()
    dx = np.full(x.shape, 9.0)
    _C.max_pool_grad(x, out, np.ones_like(out), dx, 1, 1, 2, 2, 1, 1, 0, 0)
    np.testing.assert_array_equal(dx, [[[[1.0, 0.0], [0.0, 0.0]]]])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, stride", [((2, 3, 8, 8), (2, 2)), ((3, 2, 7, 5), (2, 2)),
                                           ((2, 3, 5, 6), (1, 1)), ((1, 2, 6, 7), (2, 3))])
def test_2x2_loops_match_numpy(dtype, shape, stride):
    """Tiled (stride 2, even sides: no zeroing pass), odd sides, overlapping windows."""
    oh, ow = (shape[2] - 2) // stride[0] + 1, (shape[3] - 2) // stride[1] + 1
    geo = (2, 2, stride[0], stride[1], 1, 1, 0, 0)
    for x in (tie_data(shape, dtype), RNG.integers(-2, 3, shape).astype(dtype)):
        out = np.full(shape[:2] + (oh, ow), 7.5, dtype)
        _C.max_pool_2x2(x, out, *stride)
        np.testing.assert_array_equal(out, ref_pool(x, oh, ow, *geo))
        grad = RNG.standard_normal(out.shape).astype(dtype)
        dx = np.full(shape, 7.5, dtype)
        _C.max_pool_grad_2x2(x, out, grad, dx, *stride)
        np.testing.assert_array_equal(dx, ref_grad(x, out, grad, *geo))
        # the generic loops agree bit for bit
        out2, dx2 = np.empty_like(out), np.empty_like(dx)
        _C.max_pool(x, out2, *geo)
        _C.max_pool_grad(x, out, grad, dx2, *geo)
        np.testing.assert_array_equal(out2, out)
        np.testing.assert_array_equal(dx2, dx)


def test_gradient_uses_the_given_output_and_ties_go_first():
    x = np.array([[[[2.0, 2.0], [2.0, 2.0]]]], np.float32)
    out = np.array([[[[2.0]]]], np.float32)
    g = np.array([[[[3.0]]]], np.float32)
    for fn, args in ((_C.max_pool_grad_2x2, (2, 2)),
                     (_C.max_pool_grad, (2, 2, 2, 2, 1, 1, 0, 0))):
        dx = np.full(x.shape, 9.0, np.float32)
        fn(x, out, g, dx, *args)
        np.testing.assert_array_equal(dx, [[[[3.0, 0.0], [0.0, 0.0]]]])
        dx[...] = 9.0
        fn(x, np.array([[[[5.0]]]], np.float32), g, dx, *args)     # matches nothing
        np.testing.assert_array_equal(dx, np.zeros_like(x))
        x2 = np.array([[[[1.0, np.nan], [np.nan, 4.0]]]], np.float32)
        fn(x2, np.array([[[[np.nan]]]], np.float32), g, dx, *args)  # NaN matches NaN
        np.testing.assert_array_equal(dx, [[[[0.0, 3.0], [0.0, 0.0]]]])


def test_empty_sizes_are_fine():
    _C.max_pool(np.empty((0, 2, 3, 3)), np.empty((0, 2, 2, 2)), 2, 2, 1, 1, 1, 1, 0, 0)
    _C.max_pool_2x2(np.empty((2, 2, 1, 1)), np.empty((2, 2, 0, 0)), 2, 2)
    dx = np.full((1, 1, 3, 3), 9.0)
    _C.max_pool_grad(np.zeros((1, 1, 3, 3)), np.empty((1, 1, 0, 2)), np.empty((1, 1, 0, 2)), dx,
                     2, 2, 1, 1, 1, 1, 0, 0)
    np.testing.assert_array_equal(dx, 0.0)


# ---- validation -------------------------------------------------------------------------------
def check(exc, pattern, fn, *args):
    with pytest.raises(exc, match=pattern):
        fn(*args)


GEO = (2, 2, 2, 2, 1, 1, 0, 0)


def test_bad_type_or_dtype():
    x, out = np.zeros((1, 2, 4, 4)), np.zeros((1, 2, 2, 2))
    check(TypeError, r"max_pool', 'x' dtype must be float32 or float64", _C.max_pool,
          x.astype(np.int64), out, *GEO)
    check(TypeError, r"max_pool', 'out' dtype must be float64", _C.max_pool,
          x, out.astype(np.float32), *GEO)
    check(TypeError, r"max_pool_2x2', 'x' dtype must be float32 or float64", _C.max_pool_2x2,
          x.astype(">f8"), out, 2, 2)
    check(TypeError, r"max_pool_grad', 'grad' dtype must be float64", _C.max_pool_grad,
          x, out, out.astype(np.float32), x.copy(), *GEO)
    check(TypeError, r"max_pool_grad_2x2', 'dx' must be a numpy.ndarray", _C.max_pool_grad_2x2,
          x, out, out, [[1.0]], 2, 2)
    check(TypeError, r"max_pool', 'kh' must be an int", _C.max_pool, x, out, 2.0, *GEO[1:])
    check(TypeError, r"max_pool_2x2', 'sw' must be an int", _C.max_pool_2x2, x, out, 2, None)
    check(TypeError, r"max_pool', expected 10 arguments", _C.max_pool, x, out, 2)
    check(TypeError, r"max_pool_grad_2x2', expected 6 arguments", _C.max_pool_grad_2x2, x, out)


def test_bad_int_range():
    x, out = np.zeros((1, 2, 4, 4)), np.zeros((1, 2, 2, 2))
    names = ("kh", "kw", "sh", "sw", "dh", "dw", "top", "left")
    for i, name in enumerate(names):
        for bad in ((0 if i < 6 else -1), (1 << 40) + 1, -(1 << 70)):
            geo = list(GEO)
            geo[i] = bad
            check(ValueError, rf"max_pool', '{name}' must be an int in", _C.max_pool, x, out,
                  *geo)
            check(ValueError, rf"max_pool_grad', '{name}' must be an int in", _C.max_pool_grad,
                  x, out, out, x.copy(), *geo)
    check(ValueError, r"max_pool_2x2', 'sh' must be an int in \[1", _C.max_pool_2x2, x, out, 0, 2)


def test_windows_reaching_too_far():
    x = np.zeros((1, 1, 4, 4))
    out = np.zeros((1, 1, 1 << 23, 1))                   # (OH - 1) * sh > 2**62
    check(ValueError, r"max_pool', the windows reach too far", _C.max_pool, x, out,
          1, 1, 1 << 40, 1, 1, 1, 0, 0)
    check(ValueError, r"max_pool', the windows reach too far", _C.max_pool, x,
          np.zeros((1, 1, 2, 2)), 1 << 40, 1, 1, 1, 1 << 40, 1, 0, 0)


def test_bad_shape():
    x, out = np.zeros((2, 3, 4, 4)), np.zeros((2, 3, 2, 2))
    check(ValueError, r"max_pool', 'x' must be 4-D", _C.max_pool, x[0], out, *GEO)
    check(ValueError, r"max_pool', 'out' shape .* must have 'x' shape", _C.max_pool,
          x, np.zeros((2, 2, 2, 2)), *GEO)
    check(ValueError, r"max_pool_grad', 'grad' shape must be \(2, 3, 2, 2\)", _C.max_pool_grad,
          x, out, np.zeros((2, 3, 2, 3)), x.copy(), *GEO)
    check(ValueError, r"max_pool_grad', 'dx' shape must be \(2, 3, 4, 4\)", _C.max_pool_grad,
          x, out, out, np.zeros((2, 3, 4, 5)), *GEO)
    # 2 x 2 windows must stay inside x
    check(ValueError, r"max_pool_2x2', every 2 x 2 window must lie inside 'x'", _C.max_pool_2x2,
          x, np.zeros((2, 3, 3, 2)), 2, 2)
    check(ValueError, r"max_pool_2x2', every 2 x 2 window", _C.max_pool_2x2,
          x, np.zeros((2, 3, 2, 2)), 2, 3)
    check(ValueError, r"max_pool_grad_2x2', every 2 x 2 window", _C.max_pool_grad_2x2,
          np.zeros((1, 1, 1, 4)), np.zeros((1, 1, 1, 2)), np.zeros((1, 1, 1, 2)),
          np.zeros((1, 1, 1, 4)), 2, 2)
    check(ValueError, r"max_pool_grad_2x2', every 2 x 2 window", _C.max_pool_grad_2x2,
          x, np.zeros((2, 3, 2, 2)), np.zeros((2, 3, 2, 2)), x.copy(), 1 << 40, 1)


def test_non_contiguous_or_read_only():
    x, out = np.zeros((1, 2, 4, 4)), np.zeros((1, 2, 2, 2))
    check(ValueError, r"max_pool', 'x' must be C-contiguous", _C.max_pool,
          np.zeros((1, 2, 4, 8))[..., ::2], out, *GEO)
    check(ValueError, r"max_pool_2x2', 'out' must be C-contiguous", _C.max_pool_2x2,
          x, np.zeros((1, 2, 2, 4))[..., ::2], 2, 2)
    ro = out.copy()
    ro.flags.writeable = False
    check(ValueError, r"max_pool', 'out' must be writeable", _C.max_pool, x, ro, *GEO)
    dx = x.copy()
    dx.flags.writeable = False
    check(ValueError, r"max_pool_grad', 'dx' must be writeable", _C.max_pool_grad,
          x, out, out, dx, *GEO)
    buf = np.zeros(1 + 4 * 8, np.uint8)[1:].view(np.float64)   # misaligned
    check(ValueError, r"max_pool_2x2', 'x' must be aligned", _C.max_pool_2x2,
          buf.reshape(1, 1, 2, 2), np.zeros((1, 1, 1, 1)), 2, 2)
    # read-only inputs are fine
    xr = x.copy()
    xr.flags.writeable = False
    _C.max_pool(xr, out, *GEO)


@pytest.mark.parametrize("shape", [(3, 2, 8, 8), (2, 3, 4, 4), (1, 3, 4, 4), (1, 1, 6, 4),
                                   (2, 2, 6, 16), (1, 2, 2, 24), (2, 1, 4, 12), (2, 2, 10, 4)])
def test_float32_tiled_vector_loops_equal_the_scalar_loops_bit_for_bit(shape):
    """The 4-window vector loops of float32 (pool_2x2_simd.cc: W a multiple of 8, or W = 4
    with an even N C OH; the rest scalar) against the scalar _2x2 loops (run in float64 on
    the same values, exact): the same bits, signed zeros included (a tie of -0 and +0 keeps
    the scalar chain's pick), NaN to the quiet NaN, -0 gradients kept."""
    vals = np.array([-1.0, -0.0, 0.0, 0.5, 2.0, np.nan, np.inf, -np.inf], np.float32)
    oh, ow = shape[2] // 2, shape[3] // 2
    for seed in range(4):
        rng = np.random.default_rng(seed)
        x = rng.choice(vals[:5] if seed % 2 else vals, size=shape).astype(np.float32)
        out, want = np.empty(shape[:2] + (oh, ow), np.float32), np.empty(shape[:2] + (oh, ow))
        _C.max_pool_2x2(x, out, 2, 2)
        _C.max_pool_2x2(x.astype(np.float64), want, 2, 2)
        np.testing.assert_array_equal(out.view(np.uint32),
                                      want.astype(np.float32).view(np.uint32))
        grad = rng.choice(np.array([1.5, -0.0, 3.0, np.nan], np.float32), size=out.shape)
        dx, dx_want = np.full(shape, 7.5, np.float32), np.empty(shape)
        _C.max_pool_grad_2x2(x, out, grad, dx, 2, 2)
        _C.max_pool_grad_2x2(x.astype(np.float64), out.astype(np.float64),
                             grad.astype(np.float64), dx_want, 2, 2)
        np.testing.assert_array_equal(dx.view(np.uint32),
                                      dx_want.astype(np.float32).view(np.uint32))
