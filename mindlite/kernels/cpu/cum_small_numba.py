"""numba kernels for small CumSum and CumProd (provider "numba", below cum_numba.MIN_SIZE
elements; cum_numba.py serves the large ones with the same loop).

Issue 13's latency row: np.cumsum(x, axis, dtype=, out=) under np.errstate costs ~3 µs of
Python and dispatch at 4x4, while a jitted loop (_cum_small_jit.py) dispatches in ~0.5 µs
when it is handed the flat arrays and the (outer, n, inner) geometry directly (math.prod, not
np.prod; the geometry and identity element cached per signature). The loop is numpy's
sequential accumulate in x's dtype, signed zeros included, so results equal the numpy
kernel's bitwise. numba is imported on the first launch.
"""
import functools

import numpy as np

from ..registry import register_kernel
from ._scan import DTYPES, MIN_SIZE, geometry  # noqa: F401  (MIN_SIZE: the threshold it serves below)
from ._scan import small as _small

_J = None


def _load():
    global _J
    from . import _cum_small_jit
    _J = _cum_small_jit
    return _J


@functools.lru_cache(maxsize=256)
def _plan(shape, axis, dtype, prod):
    """(outer, n, inner, the identity as a 1-element array of dtype) of one geometry."""
    return geometry(shape, axis) + (np.full(1, 1 if prod else 0, dtype),)


def _launch(x, out, axis, exclusive, reverse, prod):
    if 0 in x.shape:
        return
    outer, n, inner, ident = _plan(x.shape, axis, x.dtype, prod)
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)
    if not out.flags.c_contiguous:
        dst = np.empty(out.shape, out.dtype)
        (_J or _load()).cumulative(x.reshape(-1), dst.reshape(-1), outer, n, inner, prod,
                                   exclusive, reverse, ident)
        np.copyto(out, dst)
    elif inner == 1 and not (exclusive or reverse):
        (_J or _load()).last_axis(x.reshape(-1), out.reshape(-1), outer, n, prod)
    else:
        (_J or _load()).cumulative(x.reshape(-1), out.reshape(-1), outer, n, inner, prod,
                                   exclusive, reverse, ident)


@register_kernel("CumSum", provider="numba", dtypes=DTYPES, when=_small)
def cumsum_small_numba(x, out, axis, exclusive, reverse):
    _launch(x, out, axis, exclusive, reverse, False)


@register_kernel("CumProd", provider="numba", dtypes=DTYPES, when=_small)
def cumprod_small_numba(x, out, axis, exclusive, reverse):
    _launch(x, out, axis, exclusive, reverse, True)
