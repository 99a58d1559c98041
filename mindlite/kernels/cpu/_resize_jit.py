"""numba loops behind kernels/cpu/resize_numba.py (imported on the first launch, never
at import): small resizes of the resize ops.

`x` arrives as (B, H, W) (B = N * C; H = 1 for 1-D resizes) and `out` as (B, Ho, Wo). Each
axis has a mode: 0 identity (skipped, as the numpy kernel skips it), 1 nearest (out[j] =
y[i0[j]]), 2 linear (out[j] = lo + (hi - lo) * w[j], lo = y[i0[j]], hi = y[i1[j]], in x's
dtype). H is resampled first, then W: the operations and their order of the numpy kernel's
gather form (hi -= lo; hi *= w; hi += lo), so the values are the same bitwise.
"""
import numpy as np

from .._numba_jit import njit

_jit = njit(nogil=True, error_model="numpy")


@_jit
def _rows(y, out, i0, i1, w, mode):
    """Resample axis 1 of y (B, n_in, W) into out (B, n_out, W)."""
    for a in range(y.shape[0]):
        for j in range(out.shape[1]):
            r0 = i0[j]
            if mode == 2:
                r1 = i1[j]
                wj = w[j]
                for b in range(y.shape[2]):
                    lo = y[a, r0, b]
                    out[a, j, b] = (y[a, r1, b] - lo) * wj + lo
            else:
                for b in range(y.shape[2]):
                    out[a, j, b] = y[a, r0, b]


@_jit
def _cols(y, out, i0, i1, w, mode):
    """Resample axis 2 of y (B, H, n_in) into out (B, H, n_out)."""
    for a in range(y.shape[0]):
        for r in range(y.shape[1]):
            for j in range(out.shape[2]):
                lo = y[a, r, i0[j]]
                if mode == 2:
                    lo = (y[a, r, i1[j]] - lo) * w[j] + lo
                out[a, r, j] = lo


@_jit
def resize(x, out, i0h, i1h, wh, mode_h, i0w, i1w, ww, mode_w):
    if mode_h == 0:
        if mode_w == 0:
            out[...] = x
        else:
            _cols(x, out, i0w, i1w, ww, mode_w)
        return
    if mode_w == 0:
        _rows(x, out, i0h, i1h, wh, mode_h)
        return
    tmp = np.empty((x.shape[0], out.shape[1], x.shape[2]), x.dtype)
    _rows(x, tmp, i0h, i1h, wh, mode_h)
    _cols(tmp, out, i0w, i1w, ww, mode_w)
