"""numba loop behind kernels/cpu/cum_small_numba.py (imported on the first launch, never at
import): CumSum / CumProd of small arrays.

`x` and `out` arrive as the flat C-order data of an (O, N, I) array, N the cumulative axis.
Each of the O * I lanes is walked in order (reversed with `reverse`) exactly as numpy's
accumulate: the first element is copied, not added to an identity, so a leading -0.0 stays
-0.0; `exclusive` writes the identity first and then the running result of the elements
before each position (numpy's cumsum of x[:-1] into out[1:]). Accumulation in x's dtype
(ints are widened in registers and stored wrapped, which gives numpy's wrapped values).
"""
from .._numba_jit import njit

_jit = njit(nogil=True, error_model="numpy")


@_jit
def cumulative(x, out, outer, n, inner, prod, exclusive, reverse, ident):
    step = -inner if reverse else inner
    for a in range(outer):
        for k in range(inner):
            i = a * n * inner + (n - 1 if reverse else 0) * inner + k
            acc = x[i]
            out[i] = ident[0] if exclusive else acc
            for _ in range(1, n):
                j = i + step
                if exclusive:
                    out[j] = acc
                if prod:
                    acc = acc * x[j]
                else:
                    acc = acc + x[j]
                if not exclusive:
                    out[j] = acc
                i = j


@_jit
def last_axis(x, out, outer, n, prod):
    """cumulative() for inner == 1, inclusive, forward: the common call, with fewer
    arguments to dispatch."""
    for a in range(outer):
        i = a * n
        acc = x[i]
        out[i] = acc
        for j in range(i + 1, i + n):
            if prod:
                acc = acc * x[j]
            else:
                acc = acc + x[j]
            out[j] = acc
