"""numba kernels for small CumSum and CumProd (provider "numba", below cum_numba.MIN_SIZE
elements; cum_numba.py serves the large ones with the same loop).

Issue 13's latency row: np.cumsum(x, axis, dtype=, out=) under np.errstate costs ~3 µs of
Python and dispatch at 4x4, while a jitted loop (_cum_issue13_jit.py) dispatches in ~0.5 µs
when it is handed the flat arrays and the (outer, n, inner) geometry directly (math.prod, not
np.prod; the identity element kept per dtype). The loop is numpy's sequential accumulate in
x's dtype, signed zeros included, so results equal the numpy kernel's bitwise. numba is
imported on the first launch.
"""
import math

import numpy as np

from ..registry import register_kernel
from .cum_numba import DTYPES, MIN_SIZE

_J = None
_IDENT = {}          # (dtype, prod) -> the 1-element identity array the loop starts from


def _load():
    global _J
    from . import _cum_issue13_jit
    _J = _cum_issue13_jit
    return _J


def _small(x, *rest):
    return math.prod(x.shape) < MIN_SIZE


def _launch(x, out, axis, exclusive, reverse, prod):
    shape = x.shape
    if 0 in shape:
        return
    key = (x.dtype, prod)
    ident = _IDENT.get(key)
    if ident is None:
        ident = _IDENT.setdefault(key, np.full(1, 1 if prod else 0, x.dtype))
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)
    dst = out if out.flags.c_contiguous else np.empty(shape, out.dtype)
    (_J or _load()).cumulative(x.reshape(-1), dst.reshape(-1), math.prod(shape[:axis]),
                               shape[axis], math.prod(shape[axis + 1:]), prod, exclusive,
                               reverse, ident)
    if dst is not out:
        np.copyto(out, dst)


@register_kernel("CumSum", provider="numba", dtypes=DTYPES, when=_small)
def cumsum_small_numba(x, out, axis, exclusive, reverse):
    _launch(x, out, axis, exclusive, reverse, False)


@register_kernel("CumProd", provider="numba", dtypes=DTYPES, when=_small)
def cumprod_small_numba(x, out, axis, exclusive, reverse):
    _launch(x, out, axis, exclusive, reverse, True)
