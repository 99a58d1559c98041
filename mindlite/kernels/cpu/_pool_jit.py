"""numba loops behind kernels/cpu/pool_numba.py (imported on the first launch, never at import).

x is (N, C, H, W) of any layout; a window (y, x) of the output reads rows
y * sh + i * dh - top and columns x * sw + j * dw - left (i < kh, j < kw) of x; positions
outside x are the padding and never count (pool_numpy.py pads with -inf, which never wins
and never receives a gradient). Same rules as pool_numpy.py:
- MaxPool: the window's maximum; a NaN in the window makes it NaN; an all-padding window
  (ceil_mode overhang) is -inf.
- MaxPoolGrad: grad[y, x] is added at the window's first position (row-major) whose value
  equals the forward output given (NaN matching NaN).
"""
import numba as nb
import numpy as np

_jit = nb.njit(cache=True, nogil=True, error_model="numpy")
# NOTE: computed indices are made unsigned before use: numba checks a signed index for
# negative wraparound on every access (which also stops vectorising); signed and unsigned must
# not mix in one expression (numba makes that float64).
_u = np.uint64


@_jit
def max_pool(x, out, kh, kw, sh, sw, dh, dw, top, left, ninf, v_nan):
    n_, c_, h, w = x.shape
    oh, ow = out.shape[2], out.shape[3]
    for n in range(n_):
        for c in range(c_):
            for y in range(oh):
                r0 = y * sh - top
                for q in range(ow):
                    c0 = q * sw - left
                    m = ninf
                    nan = False
                    for i in range(kh):
                        r = r0 + i * dh
                        if r < 0 or r >= h:
                            continue
                        for j in range(kw):
                            col = c0 + j * dw
                            if col < 0 or col >= w:
                                continue
                            v = x[n, c, _u(r), _u(col)]
                            # NOTE: selects, not branches: random data mispredicts a branch
                            # on every other element (4x slower)
                            m = v if v > m else m
                            nan |= v != v
                    out[n, c, y, q] = v_nan if nan else m


@_jit
def max_pool_grad(x, out, grad, dx, kh, kw, sh, sw, dh, dw, top, left):
    n_, c_, h, w = x.shape
    oh, ow = out.shape[2], out.shape[3]
    for n in range(n_):
        for c in range(c_):
            for r in range(h):
                for col in range(w):
                    dx[n, c, r, col] = 0
            for y in range(oh):
                r0 = y * sh - top
                for q in range(ow):
                    c0 = q * sw - left
                    o = out[n, c, y, q]
                    o_nan = o != o
                    hit_r = -1
                    hit_c = -1
                    # backwards, with selects: the last hit seen is the first in row-major
                    for i in range(kh - 1, -1, -1):
                        r = r0 + i * dh
                        if r < 0 or r >= h:
                            continue
                        for j in range(kw - 1, -1, -1):
                            col = c0 + j * dw
                            if col < 0 or col >= w:
                                continue
                            v = x[n, c, _u(r), _u(col)]
                            hit = (v == o) | (o_nan & (v != v))
                            hit_r = r if hit else hit_r
                            hit_c = col if hit else hit_c
                    if hit_r >= 0:
                        dx[n, c, _u(hit_r), _u(hit_c)] += grad[n, c, y, q]


# ---- 2 x 2 windows inside x (no padding reached, dilation 1): the common LeNet pooling ----
# NOTE: unrolled: the generic loops' runtime trip counts of 2 cost 5x on 2 x 2 windows.
@_jit
def max_pool_2x2(x, out, sh, sw, v_nan):
    n_, c_ = x.shape[0], x.shape[1]
    oh, ow = out.shape[2], out.shape[3]
    for n in range(n_):
        for c in range(c_):
            for y in range(oh):
                r = _u(y * sh)
                for q in range(ow):
                    col = _u(q * sw)
                    a = x[n, c, r, col]
                    b = x[n, c, r, col + _u(1)]
                    d = x[n, c, r + _u(1), col]
                    e = x[n, c, r + _u(1), col + _u(1)]
                    m = a if a > b else b
                    m = m if m > d else d
                    m = m if m > e else e
                    nan = (a != a) | (b != b) | (d != d) | (e != e)
                    out[n, c, y, q] = v_nan if nan else m


@_jit
def max_pool_grad_2x2(x, out, grad, dx, sh, sw):
    n_, c_, h, w = x.shape
    oh, ow = out.shape[2], out.shape[3]
    # windows tiling x exactly: each x element is written once, no zeroing pass
    tiled = sh == 2 and sw == 2 and h == 2 * oh and w == 2 * ow
    zero = dx.dtype.type(0)
    for n in range(n_):
        for c in range(c_):
            if not tiled:
                for r in range(h):
                    for col in range(w):
                        dx[n, c, r, col] = 0
            for y in range(oh):
                r = _u(y * sh)
                r1 = r + _u(1)
                for q in range(ow):
                    col = _u(q * sw)
                    col1 = col + _u(1)
                    o = out[n, c, y, q]
                    a = x[n, c, r, col]
                    b = x[n, c, r, col1]
                    d = x[n, c, r1, col]
                    e = x[n, c, r1, col1]
                    o_nan = o != o
                    # NOTE: & and |, never `and` / `or`: those short-circuit into branches
                    # that ReLU outputs (ties at 0) mispredict
                    ha = (a == o) | (o_nan & (a != a))
                    hb = (b == o) | (o_nan & (b != b))
                    hd = (d == o) | (o_nan & (d != d))
                    he = (e == o) | (o_nan & (e != e))
                    # the first hit, row-major
                    hb = hb & (not ha)
                    hd = hd & (not (ha | hb))
                    he = he & (not (ha | hb | hd))
                    g = grad[n, c, y, q]
                    if tiled:
                        dx[n, c, r, col] = g if ha else zero
                        dx[n, c, r, col1] = g if hb else zero
                        dx[n, c, r1, col] = g if hd else zero
                        dx[n, c, r1, col1] = g if he else zero
                    else:
                        dx[n, c, r, col] += g if ha else zero
                        dx[n, c, r, col1] += g if hb else zero
                        dx[n, c, r1, col] += g if hd else zero
                        dx[n, c, r1, col1] += g if he else zero
