"""numba loops behind kernels/cpu/cum_numba.py (imported on the first launch, never at import).

`x` and `out` arrive as the flat C-order data of an (O, N, I) array, N the cumulative axis,
so the loop compiles once per dtype whatever the rank or axis. Rows of I elements are
combined with the previous output row (contiguous: the inner loop vectorises); the order
of operations is numpy's sequential accumulate, so results match the numpy kernels.
"""
from .._numba_jit import njit

_jit = njit(nogil=True, error_model="numpy")


@_jit
def _last_axis(x, out, outer, n, prod, exclusive, reverse, ident):
    """inner == 1: one running value per row, kept in a register; ident[0] is 0 or 1 in
    x's dtype (float32 stays float32; ints are wider here but stored wrapped, as numpy)."""
    for a in range(outer):
        base = a * n
        acc = ident[0]
        for step in range(n):
            i = base + (n - 1 - step if reverse else step)
            if exclusive:
                out[i] = acc
            if step == 0 and not exclusive:
                acc = x[i]              # as numpy: the first element itself (keeps a -0.0)
            elif prod:
                acc = acc * x[i]
            else:
                acc = acc + x[i]
            if not exclusive:
                out[i] = acc


@_jit
def cumulative(x, out, outer, n, inner, prod, exclusive, reverse, ident):
    if inner == 1:
        _last_axis(x, out, outer, n, prod, exclusive, reverse, ident)
        return
    for a in range(outer):
        base = a * n * inner
        for step in range(n):
            j = n - 1 - step if reverse else step
            row = base + j * inner
            if step == 0:
                for k in range(inner):
                    if exclusive:
                        out[row + k] = 1 if prod else 0
                    else:
                        out[row + k] = x[row + k]
                continue
            prev = row + inner if reverse else row - inner
            src = prev if exclusive else row
            if prod:
                for k in range(inner):
                    out[row + k] = out[prev + k] * x[src + k]
            else:
                for k in range(inner):
                    out[row + k] = out[prev + k] + x[src + k]
