"""numba kernels for the resizes (provider "numba"): ResizeNearestNeighborV2, ResizeBilinearV2
and ResizeLinear1D of 3-D / 4-D float32 / float64 inputs, issue 13's interpolate rows.

The numpy kernel (resize_pad_numpy.py) runs small finite inputs as two matmuls with cached
interpolation matrices behind an isfinite scan and cache lookups (~9 µs at 4x4 -> 8x8
bilinear), larger ones as a take, a subtraction, a product and a sum per axis over whole
arrays; here one jitted call (_resize_jit.py) resamples both spatial axes from a
plan cached per geometry: the per-axis tables of resize_pad_numpy._axis_table (MindSpore's
coordinate rules), each axis skipped where the numpy kernel skips it (same size, all weights
0). The values are the numpy kernel's gather form bitwise (its matmul form agrees to
rounding); NaN and inf stay where the gather form puts them. From 1M output elements the
output rows are split in two halves, one on a helper thread (_rows.split_rows: each row is
computed as in one call, so the bits do not depend on the split): 2x bilinear of 1024x1024
went 4.0 -> 2.0-2.9 ms, of 2048x2048 30.6-31.1 -> 8.7-9.2 ms (each half's intermediate
fits the caches better, beyond the second thread). Measured 2x bilinear float32,
kernel alone, under load: 256x256 numpy ~1.85 ms, this ~0.2 ms; 2048x2048 ~136 ms / ~64 ms.
"""
import functools

import numpy as np

from ...common import dtype as mstype
from ..registry import register_kernel
from ._rows import MIN_ELEMENTS, split_rows
from .resize_pad_numpy import _axis_table, _forward_kernel

_J = None
_IDLE = (np.zeros(1, np.int64), np.zeros(1, np.int64))    # index tables of a skipped axis


def _load():
    global _J
    from . import _resize_jit
    _J = _resize_jit
    return _J


def _axis_plan(n_in, n_out, linear, align_corners, half_pixel, dtype):
    """(i0, i1, w in dtype, mode) of one axis: mode 0 identity, 1 nearest, 2 linear."""
    i0, i1, w = _axis_table(n_in, n_out, linear, align_corners, half_pixel)
    if n_in == n_out and (i1 is None or not w.any()):
        return (*_IDLE, np.zeros(1, dtype), 0)
    if i1 is None:
        return i0, _IDLE[1], np.zeros(1, dtype), 1
    return i0, i1, w.astype(dtype), 2


@functools.lru_cache(maxsize=256)
def _plan(in_shape, out_shape, linear, align_corners, half_pixel, dtype):
    """(x's 3-D shape, out's 3-D shape, the H axis' plan + the W axis' plan)."""
    spatial = len(in_shape) - 2
    b = in_shape[0] * in_shape[1]
    h, ho = (in_shape[2], out_shape[2]) if spatial == 2 else (1, 1)
    w, wo = in_shape[-1], out_shape[-1]
    key = (linear, align_corners, half_pixel, dtype)
    rows = _axis_plan(h, ho, *key) if spatial == 2 else (*_IDLE, np.zeros(1, dtype), 0)
    return (b, h, w), (b, ho, wo), rows + _axis_plan(w, wo, *key)


def _rank_3_4(x, *rest):
    return len(x.shape) in (3, 4)


def _kernel(x, out, linear, align_corners, half_pixel):
    if x.ndim not in (3, 4) or not out.flags.c_contiguous:
        _forward_kernel(x, out, linear, align_corners, half_pixel)
        return
    if out.size == 0:
        return
    x3, o3, tables = _plan(x.shape, out.shape, linear, align_corners, half_pixel, x.dtype)
    if out.size < MIN_ELEMENTS or tables[3] == 0:
        (_J or _load()).resize(np.ascontiguousarray(x).reshape(x3), out.reshape(o3), *tables)
        return
    _split(np.ascontiguousarray(x).reshape(x3), out.reshape(o3), tables)


def _split(xs, os_, tables):
    """resize over two halves of the output rows, one on the helper thread."""
    resize = (_J or _load()).resize
    i0h, i1h, wh, mode_h = tables[:4]
    linear_h = mode_h == 2

    def rows(lo, hi):              # output rows [lo, hi): each computed as in one call
        resize(xs, os_[:, lo:hi], i0h[lo:hi], i1h[lo:hi] if linear_h else i1h,
               wh[lo:hi] if linear_h else wh, mode_h, *tables[4:])
    split_rows(rows, os_.shape[1], os_.size)


for _name in ("ResizeNearestNeighborV2", "ResizeBilinearV2", "ResizeLinear1D",
              "ResizeNearestNeighbor"):
    register_kernel(_name, provider="numba", dtypes=(mstype.float32, mstype.float64),
                    when=_rank_3_4, kernel=_kernel)
