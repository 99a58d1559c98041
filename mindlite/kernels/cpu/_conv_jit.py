"""numba loops behind kernels/cpu/conv_numba.py (imported on the first launch, never at import).

The column matrix is cols (K, N * P), K = C * kh * kw (row (c * kh + i) * kw + j), P = OH * OW
(column n * P + y * OW + x): cols[r, n P + y OW + x] = xp[n, c, y sh + i dh, x sw + j dw] with
xp the zero-padded input. A table tab (kh * kw, P) holds, per kernel offset, the flat index
into an (Hp, Wp) plane that each output position reads, so a copy is one loop of P per
(c, offset, n) whatever the stride, dilation or padding.
NOTE: no array views inside the loops (each is a reference-counted array struct: im2col of a
64 x 16 x 4 x 4 input took 480 us with a row view per output row), and every index that is
computed or read from the table is unsigned (_u): numba wraps a signed index that might be
negative (x[-1]) with a check per access, which also stops the loop from vectorising; the
table gather of the digits CNN's first layer ran 23 -> 13 us, the second 96 -> 48 us.
Unsigned and signed integers must not mix in one expression (numba makes that float64).
"""
import numba as nb
import numpy as np

_jit = nb.njit(cache=True, nogil=True, error_model="numpy")
_u = np.uint64


@_jit
def pad(x, xp, top, left):
    """xp = 0, then xp[:, :, top:top + H, left:left + W] = x (xp at least that large)."""
    n_, c_, h, w = x.shape
    hp, wp = xp.shape[2], xp.shape[3]
    for n in range(n_):
        for c in range(c_):
            for r in range(hp):
                for s in range(wp):
                    xp[n, c, r, s] = 0
            for r in range(h):
                row = _u(r + top)
                for s in range(_u(w)):
                    xp[n, c, row, s + _u(left)] = x[n, c, r, s]


@_jit
def im2col(xp, cols, tab):
    """cols[(c * K + k), n * P + p] = xp[n, c, tab[k, p]], xp (N, C, Hp * Wp)."""
    n_, c_ = xp.shape[0], xp.shape[1]
    k_, p_ = tab.shape
    for c in range(c_):
        for k in range(k_):
            row = c * k_ + k
            for n in range(n_):
                base = _u(n * p_)
                for p in range(_u(p_)):
                    cols[row, base + p] = xp[n, c, _u(tab[k, p])]


@_jit
def col2im(cols, dxp, tab):
    """dxp = 0, then dxp[n, c, tab[k, p]] += cols[(c * K + k), n * P + p] (the adjoint of
    im2col); each element sums its terms in kernel-offset order."""
    n_, c_, hw = dxp.shape
    k_, p_ = tab.shape
    for n in range(n_):
        for c in range(c_):
            for s in range(hw):
                dxp[n, c, s] = 0
    for c in range(c_):
        for k in range(k_):
            row = c * k_ + k
            for n in range(n_):
                base = _u(n * p_)
                for p in range(_u(p_)):
                    dxp[n, c, _u(tab[k, p])] += cols[row, base + p]


# ---- batch-innermost layout: column p * N + n, for small planes (P < N) ----
# Every copy below runs along n, so the runs are N long instead of OW or P. The strided side of
# each transpose always steps by N elements: a step of O * P elements (4 KB on the digits CNN)
# maps every access to one cache set and ran 5x slower.
@_jit
def pad_t(x, xt, top, left, wp):
    """xt (C, Hp * Wp, N) = x (N, C, H, W) zero-padded, batch innermost."""
    n_, c_, h, w = x.shape
    for c in range(c_):
        for s in range(xt.shape[1]):
            for n in range(n_):
                xt[c, s, n] = 0
    for n in range(n_):
        for c in range(c_):
            for r in range(h):
                row = _u((r + top) * wp + left)
                for s in range(_u(w)):
                    xt[c, row + s, n] = x[n, c, r, s]


@_jit
def im2col_t(xt, cols, tab):
    """cols[c * K + k, p * N + n] = xt[c, tab[k, p], n]."""
    c_, _, n_ = xt.shape
    k_, p_ = tab.shape
    for c in range(c_):
        for k in range(k_):
            row = c * k_ + k
            for p in range(p_):
                src = _u(tab[k, p])
                base = _u(p * n_)
                for n in range(_u(n_)):
                    cols[row, base + n] = xt[c, src, n]


@_jit
def col2im_t(cols, dxt, tab):
    """dxt = 0, then dxt[c, tab[k, p], n] += cols[c * K + k, p * N + n] (kernel-offset
    order per element, as col2im)."""
    c_, hw, n_ = dxt.shape
    k_, p_ = tab.shape
    for c in range(c_):
        for s in range(hw):
            for n in range(n_):
                dxt[c, s, n] = 0
    for c in range(c_):
        for k in range(k_):
            row = c * k_ + k
            for p in range(p_):
                dst = _u(tab[k, p])
                base = _u(p * n_)
                for n in range(_u(n_)):
                    dxt[c, dst, n] += cols[row, base + n]


@_jit
def crop_t(dxt, dx, top, left, wp):
    """dx (N, C, H, W) = the unpadded part of dxt (C, Hp * Wp, N)."""
    n_, c_, h, w = dx.shape
    for n in range(n_):
        for c in range(c_):
            for r in range(h):
                row = _u((r + top) * wp + left)
                for s in range(_u(w)):
                    dx[n, c, r, s] = dxt[c, row + s, n]


@_jit
def to_batch_inner(d, dt):
    """dt (O, P * N) = d (N, O, P) with column p * N + n."""
    n_, o_, p_ = d.shape
    for n in range(n_):
        for o in range(o_):
            for p in range(_u(p_)):
                dt[o, p * _u(n_) + _u(n)] = d[n, o, p]


@_jit
def from_batch_inner(dt, d):
    """d (N, O, P) = dt (O, P * N) with column p * N + n (the inverse of to_batch_inner)."""
    n_, o_, p_ = d.shape
    for n in range(n_):
        for o in range(o_):
            for p in range(_u(p_)):
                d[n, o, p] = dt[o, p * _u(n_) + _u(n)]
