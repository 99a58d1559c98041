"""numba kernels for small Cross and ReduceStd (provider "numba", at most SMALL elements),
issue 13's cross and std rows; the jitted loops are in _stat_jit.py.

Cross: the numpy kernel's four takes, two products and a subtraction under np.errstate cost
~20 µs at 4x3 under load; one loop over (A, 3, B) views of the broadcast inputs computes the
same products and difference in the same dtype, so the values are bitwise the numpy kernel's.
ReduceStd over one axis of fewer than 8 elements (float32 / float64): the numpy kernel's ten
calls (~8 µs at 4x4) become one loop. numpy sums fewer than 8 terms sequentially from 0, in
the dtype (measured: its pairwise / vector sums start at 8 terms), and this loop does the
same, so mean and std are bitwise the numpy kernel's; longer or several reduced axes, float16
and empty reductions keep the numpy kernel.
"""
import functools
import math

import numpy as np

from ...common import dtype as mstype
from ..registry import register_kernel
from .linalg_numpy import cross_numpy
from .linalg_stat_numpy import reduce_std_numpy

SMALL = 1 << 14

_J = None


def _load():
    global _J
    from . import _stat_jit
    _J = _stat_jit
    return _J


def _small(x, y, *rest):
    return math.prod(x.shape) <= SMALL and math.prod(y.shape) <= SMALL


@functools.lru_cache(maxsize=256)
def _cross_plan(x_shape, y_shape, shape, dim):
    """(A, 3, B) of the output, and whether x / y must be broadcast to it first."""
    return ((math.prod(shape[:dim]), 3, math.prod(shape[dim + 1:])), x_shape != shape,
            y_shape != shape)


@register_kernel("Cross", provider="numba", when=_small,
                 dtypes=(mstype.float32, mstype.float64, mstype.int32, mstype.int64))
def cross_small_numba(x, y, out, dim):
    size = out.size
    if size > SMALL or not out.flags.c_contiguous:
        cross_numpy(x, y, out, dim)
        return
    if size == 0:
        return
    shape = out.shape
    view, bx, by = _cross_plan(x.shape, y.shape, shape, dim)
    if bx:
        x = np.broadcast_to(x, shape)
    if by:
        y = np.broadcast_to(y, shape)
    (_J or _load()).cross(x.reshape(view), y.reshape(view), out.reshape(view))


SEQUENTIAL = 8            # numpy sums fewer terms than this in order (pairwise from here)
_FLOATS = (mstype.float32, mstype.float64)


def _one_short_axis(x, *rest):
    return math.prod(x.shape) <= SMALL


@register_kernel("ReduceStd", provider="numba", dtypes=_FLOATS, when=_one_short_axis)
def reduce_std_small_numba(x, out_std, out_mean, axis, ddof, keep_dims):
    plan = _std_plan(x.shape, axis, ddof, x.dtype)
    if plan is None or not (out_std.flags.c_contiguous and out_mean.flags.c_contiguous):
        reduce_std_numpy(x, out_std, out_mean, axis, ddof, keep_dims)
        return
    x3, o2, scalars = plan
    (_J or _load()).reduce_std(np.ascontiguousarray(x).reshape(x3), out_std.reshape(o2),
                               out_mean.reshape(o2), *scalars)


@functools.lru_cache(maxsize=256)
def _std_plan(shape, axis, ddof, dtype):
    """x's (A, n, B) shape, the outputs' (A, B) and the loop's scalars in x's dtype; None
    where the numpy kernel runs (several axes, 0 or >= SEQUENTIAL terms, a large input)."""
    if len(axis) != 1 or not 0 < shape[axis[0]] < SEQUENTIAL or math.prod(shape) > SMALL:
        return None
    dim = axis[0]
    before, n, after = math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1:])
    t = dtype.type
    return (before, n, after), (before, after), (t(0), t(n), t(n - ddof))
