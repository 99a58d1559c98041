"""numba loop behind kernels/cpu/pad_numba.py (imported on the first launch, never at
import): PadV3's reflect / edge / circular modes over the last two axes as one gather.

x arrives as (A, H, W), out as (A, Ho, Wo); output row i reads input row rows[i], and output
column j reads input column cols[j]. Columns [ks, ke) read the contiguous input columns
[ks - lo, ke - lo) (the kept block: one slice copy per row); the others are gathered.
"""
from .._numba_jit import njit

_jit = njit(nogil=True, error_model="numpy")


@_jit
def pad_gather(x, out, rows, cols, ks, ke, lo):
    wo = out.shape[2]
    for a in range(out.shape[0]):
        for i in range(out.shape[1]):
            r = rows[i]
            for j in range(ks):
                out[a, i, j] = x[a, r, cols[j]]
            out[a, i, ks:ke] = x[a, r, ks - lo:ke - lo]
            for j in range(ke, wo):
                out[a, i, j] = x[a, r, cols[j]]


@_jit
def pad_columns(x, out, cols, ks, ke, r0, r1, lo_h):
    """The padded columns (j < ks, j >= ke) of the output rows lo_h + [r0, r1), which read
    input rows [r0, r1)."""
    wo = out.shape[2]
    for a in range(out.shape[0]):
        for r in range(r0, r1):
            i = lo_h + r
            for j in range(ks):
                out[a, i, j] = x[a, r, cols[j]]
            for j in range(ke, wo):
                out[a, i, j] = x[a, r, cols[j]]
