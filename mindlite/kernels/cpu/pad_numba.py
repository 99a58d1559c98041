"""numba PadV3 kernel (provider "numba") for the reflect / edge / circular modes of inputs
whose padding touches only the last two axes, issue 13's "pad reflect" rows.

Such a padding is a gather: output (a, i, j) = x (a, rows[i], cols[j]) over the (A, H, W)
view of x, with the per-axis index tables of resize_pad_numpy._pad_index (negative padding
included). Where no padding is negative (the usual case), the input block is copied by
numpy (a strided copy at memcpy speed: a 2048 x 2048 reflect pad on one thread 1230 -> 880 µs),
the padded columns of those rows are gathered by a jitted loop (_pad_jit.py), and each
padded row is a copy of the inner output row it reflects / repeats. Crops and small
outputs take one jitted gather per output row (the kept block as a slice copy). The values
are copies of input elements, bitwise the reference's. Constant mode and other paddings take
the numpy kernels (pad_small_numpy.py, which falls back to resize_pad_numpy.py).
"""
import functools

import numpy as np

from ..registry import register_kernel
from ._rows import split_rows
from .pad_small_numpy import pad_v3_small_numpy
from .resize_pad_numpy import _pad_index

_J = None
BLOCK_MIN = 1 << 16       # outputs from this size: numpy's block copy (a few calls per padded row)


def _not_empty(x, *rest):
    return 0 not in x.shape


@functools.lru_cache(maxsize=64)
def _plan(shape, pads, mode):
    """(x's (A, H, W), out's (A, Ho, Wo), the loop's (rows, cols, ks, ke, lo), whether every
    padding is >= 0), or None when the padding touches more than the last two axes."""
    if len(shape) < 2 or any(lo or hi for lo, hi in pads[:-2]):
        return None
    a = 1
    for n in shape[:-2]:
        a *= n
    (h, w), ((lo_h, hi_h), (lo, hi)) = shape[-2:], pads[-2:]
    rows = _pad_index(h, lo_h, hi_h, mode) if lo_h or hi_h else np.arange(h)
    cols = _pad_index(w, lo, hi, mode) if lo or hi else np.arange(w)
    ks = max(lo, 0)
    ke = ks + w - max(-lo, 0) - max(-hi, 0)           # the kept block: cols[j] == j - lo
    grow = min(lo_h, hi_h, lo, hi) >= 0           # no axis cropped: a block plus borders
    return (a, h, w), (a, h + lo_h + hi_h, w + lo + hi), (rows, cols, ks, ke, lo), grow


@register_kernel("PadV3", provider="numba", when=_not_empty)
def pad_v3_numba(x, out, pads, mode, value):
    plan = None
    if mode != "constant" and out.size and out.flags.c_contiguous:
        plan = _plan(x.shape, pads, mode)
    if plan is None:
        pad_v3_small_numpy(x, out, pads, mode, value)
        return
    global _J
    if _J is None:
        from . import _pad_jit
        _J = _pad_jit
    x3, o3, (rows, cols, ks, ke, lo), grow = plan
    xv, ov = np.ascontiguousarray(x).reshape(x3), out.reshape(o3)
    if out.size < BLOCK_MIN:             # one gather call: no split, no closure
        _J.pad_gather(xv, ov, rows, cols, ks, ke, lo)
        return
    if not grow:
        def part(r0, r1):                # output rows [r0, r1) of every (A) plane
            _J.pad_gather(xv, ov[:, r0:r1], rows[r0:r1], cols, ks, ke, lo)
        split_rows(part, o3[1], out.size)
        return
    h, lo_h = x3[1], pads[-2][0]

    def inner(r0, r1):                   # input rows [r0, r1) -> output rows lo_h + r
        ov[:, lo_h + r0:lo_h + r1, ks:ke] = xv[:, r0:r1]
        _J.pad_columns(xv, ov, cols, ks, ke, r0, r1, lo_h)
    split_rows(inner, h, out.size)
    for i in (*range(lo_h), *range(lo_h + h, o3[1])):    # padded rows: copies of inner rows
        ov[:, i] = ov[:, lo_h + rows[i]]
