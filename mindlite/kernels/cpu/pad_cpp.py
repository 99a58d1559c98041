"""C++ PadV3 kernel (provider "cpp") for every mode, for inputs whose padding touches only the
last two axes: issue 13's "pad" and "pad reflect" rows.

Such a padding is a gather: output (a, i, j) = x (a, rows[i], cols[j]) over the (A, H, W)
view of x, with the per-axis index tables of resize_pad_numpy._pad_index (negative padding
included; in constant mode -1 outside the input, where the value goes).
_C.pad_rows (csrc/kernels/pad_rows.cc) writes each output row once: the kept block [ks, ke)
as one memcpy from the contiguous input columns [ks - lo, ke - lo), the padded columns one
element each (a constant row by doubling copies), rows split across the thread pool. The
values are copies of input elements or of the value cast as the reference casts it, bitwise
the reference's. Other paddings take the numpy kernels (pad_small_numpy.py, which falls back
to resize_pad_numpy.py).
NOTE: constant mode was numpy's fill then a block copy, which wrote the output twice:
1024 x 1024 took 150-250 µs against PyTorch's 100-120.
NOTE: a numba loop did this before: its slice copy of the kept block ran at ~60% of memcpy
speed, and numpy's block copy with a jitted pass for the borders walked each row twice
(2048 x 2048 reflect: 1.08-1.21x PyTorch against its single pass).
"""
import functools

import numpy as np

from ..registry import register_kernel
from ._cext import _C
from .pad_small_numpy import pad_v3_small_numpy
from .resize_pad_numpy import _pad_index, fill_value


CONST_SMALL = 1 << 13  # output elements up to which numpy's fill and copy take less time
                       # (64x64 padded by 2: 1.95 µs against 2.23, 124x124: 3.77 against 3.46)


def _not_empty(x, *rest):
    return 0 not in x.shape


@functools.lru_cache(maxsize=64)
def _plan(shape, pads, mode):
    """(x's (A, H, W), out's (A, Ho, Wo), the gather's (rows, cols, ks, ke, lo)), or None when
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
    ke = max(ks, ks + w - max(-lo, 0) - max(-hi, 0))  # the kept block: cols[j] == j - lo
    return ((a, h, w), (a, h + lo_h + hi_h, w + lo + hi),
            (np.ascontiguousarray(rows, np.int64), np.ascontiguousarray(cols, np.int64),
             ks, ke, lo))


@register_kernel("PadV3", provider="cpp", when=_not_empty)
def pad_v3_cpp(x, out, pads, mode, value):
    plan = None
    if out.size and out.flags.c_contiguous and (mode != "constant" or out.size > CONST_SMALL):
        plan = _plan(x.shape, pads, mode)
    if plan is None:
        pad_v3_small_numpy(x, out, pads, mode, value)
        return
    x3, o3, (rows, cols, ks, ke, lo) = plan
    fill = (np.full(1, fill_value(value, out.dtype)),) if mode == "constant" else ()
    _C.pad_rows(np.ascontiguousarray(x).reshape(x3), out.reshape(o3), rows, cols, ks, ke, lo,
                *fill)


register_kernel("Pad", provider="cpp", when=_not_empty, kernel=pad_v3_cpp)  # ops.Pad
