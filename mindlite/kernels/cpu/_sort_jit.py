"""numba loops behind kernels/cpu/sort_numba.py (imported on the first launch, never at import).

Cummax / Cummin: `x` arrives as the flat C-order data of an (O, N, I) array, N the scanned
axis, so one compiled loop serves every rank and axis of a dtype. Each of the O * I lanes
keeps its running extreme and index; position j replaces them when it is at least as good
(the later index on ties) or NaN (a NaN then sticks until a later NaN), as the numpy kernel.
"""
from .._numba_jit import njit

_jit = njit(nogil=True, error_model="numpy")


@_jit
def _better(v, cur, is_max):
    return v != v or (v >= cur if is_max else v <= cur)


@_jit
def cum_extreme(x, values, indices, outer, n, inner, is_max):
    """inner == 1: one lane per row in registers; else whole rows of `inner` lanes at a
    time (contiguous), the running extremes and indices kept in the output's previous row."""
    for a in range(outer):
        base = a * n * inner
        if inner == 1:
            cur = x[base]
            idx = 0
            for j in range(n):
                v = x[base + j]
                if _better(v, cur, is_max):
                    cur = v
                    idx = j
                values[base + j] = cur
                indices[base + j] = idx
            continue
        for k in range(inner):
            values[base + k] = x[base + k]
            indices[base + k] = 0
        for j in range(1, n):
            row = base + j * inner
            for k in range(inner):
                v = x[row + k]
                if _better(v, values[row - inner + k], is_max):
                    values[row + k] = v
                    indices[row + k] = j
                else:
                    values[row + k] = values[row - inner + k]
                    indices[row + k] = indices[row - inner + k]
