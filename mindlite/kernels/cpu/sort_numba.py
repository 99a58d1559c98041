"""numba kernels for Cummax and Cummin (provider "numba"; the loop is in _sort_jit.py).

This module does not import numba: the jitted loop is loaded on the first launch. The numpy
kernel steps along the scanned axis in Python (one vectorised step per position), which is
slow for long axes (measured 10**5 float32 elements, 1-D: numpy ~2 s under load, PyTorch
0.1 ms); this loop visits each element once. x is viewed as the flat C-order data of an
(outer, axis, inner) array (copied first when it is not C-contiguous).
"""
import numpy as np

from ..registry import register_kernel
from ._scan import DTYPES, MIN_SIZE, geometry  # noqa: F401  (the scan kernels' threshold)
from ._scan import big as _big

_J = None


def _load():
    global _J
    from . import _sort_jit
    _J = _sort_jit
    return _J


def _launch(x, values, indices, axis, is_max):
    if x.size == 0:
        return
    outer, n, inner = geometry(x.shape, axis)
    (_J or _load()).cum_extreme(np.ascontiguousarray(x).reshape(-1), values.reshape(-1),
                                indices.reshape(-1), outer, n, inner, is_max)


@register_kernel("Cummax", provider="numba", dtypes=DTYPES, when=_big)
def cummax_numba(x, values, indices, axis):
    _launch(x, values, indices, axis, True)


@register_kernel("Cummin", provider="numba", dtypes=DTYPES, when=_big)
def cummin_numba(x, values, indices, axis):
    _launch(x, values, indices, axis, False)
