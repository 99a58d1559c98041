"""What the numba kernels that scan one axis share (cum_numba.py: CumSum / CumProd,
cum_small_numba.py: the small ones, sort_numba.py: Cummax / Cummin): the dtypes they serve,
the size from which the jitted loop beats numpy's call, and the (outer, n, inner) view of an
array scanned along `axis` (its flat C-order data, one compiled loop for every rank and axis).
Imports no numba.
"""
import math

from ...common import dtype as mstype

DTYPES = (mstype.float32, mstype.float64, mstype.int32, mstype.int64)

# NOTE: below this many elements numpy's call is cheaper than the jitted loop's dispatch
# (measured: 4x4 numpy ~6 us, numba ~20 us); cum_small_numba.py serves those for CumSum/CumProd.
MIN_SIZE = 16384


def geometry(shape, axis):
    """(outer, n, inner): the sizes before, along and after `axis`."""
    return math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:])


def big(x, *rest):
    """The kernels' `when=`: at least MIN_SIZE elements."""
    return math.prod(x.shape) >= MIN_SIZE


def small(x, *rest):
    """The small kernels' `when=`: fewer than MIN_SIZE elements."""
    return math.prod(x.shape) < MIN_SIZE
