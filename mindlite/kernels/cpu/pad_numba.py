"""numba PadV3 kernel (provider "numba") for the reflect / edge / circular modes of inputs
whose padding touches only the last two axes, issue 13's "pad reflect" rows.

Such a padding is a gather: output (a, i, j) = x (a, rows[i], cols[j]) over the (A, H, W)
view of x, with the per-axis index tables of resize_pad_numpy._pad_index (negative padding
included). One jitted loop (_pad_jit.py) writes each output row once: the kept block
as a slice copy, the padded columns gathered (the reference copies the block, then takes
each border of each axis). The values are copies of input elements, bitwise the
reference's. Constant mode and other paddings take the numpy
kernels (pad_small_numpy.py, which falls back to resize_pad_numpy.py).
"""
import functools

import numpy as np

from ..registry import register_kernel
from ._rows import split_rows
from .pad_small_numpy import pad_v3_small_numpy
from .resize_pad_numpy import _pad_index

_J = None


def _not_empty(x, *rest):
    return 0 not in x.shape


@functools.lru_cache(maxsize=64)
def _plan(shape, pads, mode):
    """(x's (A, H, W), out's (A, Ho, Wo), the loop's (rows, cols, ks, ke, lo)), or None when
    the padding touches more than the last two axes."""
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
    return (a, h, w), (a, h + lo_h + hi_h, w + lo + hi), (rows, cols, ks, ke, lo)


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
    x3, o3, (rows, cols, ks, ke, lo) = plan
    xv, ov = np.ascontiguousarray(x).reshape(x3), out.reshape(o3)

    def part(r0, r1):                    # output rows [r0, r1) of every (A) plane
        _J.pad_gather(xv, ov[:, r0:r1], rows[r0:r1], cols, ks, ke, lo)
    split_rows(part, o3[1], out.size)
