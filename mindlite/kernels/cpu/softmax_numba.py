"""numba kernels for Softmax and LogSoftmax (provider "numba"; loops in _softmax_jit.py).

This module does not import numba: the jitted loops are loaded on the first launch and
kept in the module global `_J`. Each launch views x and out as the flat C-order data of
an (outer, axis, inner) array, so a loop compiles once per dtype, not per rank or axis.
"""
from ...common import dtype as mstype
from ..registry import register_kernel

FLOATS = (mstype.float32, mstype.float64)

_J = None                 # the module _softmax_jit, once loaded
_PLANS = {}               # (shape, axis) -> (outer, axis length, inner)
_MAX_PLANS = 4096


def _load():
    global _J
    from . import _softmax_jit
    _J = _softmax_jit
    return _J


def _plan(shape, axis):
    plan = _PLANS.get((shape, axis))
    if plan is None:
        if not shape:
            plan = (1, 1, 1)
        else:
            o = i = 1
            for d in shape[:axis]:
                o *= d
            for d in shape[axis + 1:]:
                i *= d
            plan = (o, shape[axis], i)
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        _PLANS[(shape, axis)] = plan
    return plan


@register_kernel("Softmax", provider="numba", dtypes=FLOATS)
def softmax_numba(x, out, axis):
    """exp(x - max) / sum(exp(x - max)) along `axis` (NaN or +inf in a slice: all NaN)."""
    if x.size:
        o, r, i = _plan(x.shape, axis)
        (_J or _load()).softmax(x.ravel(), out.ravel(), o, r, i, False)


@register_kernel("LogSoftmax", provider="numba", dtypes=FLOATS)
def log_softmax_numba(x, out, axis):
    """(x - max) - log(sum(exp(x - max))) along `axis`."""
    if x.size:
        o, r, i = _plan(x.shape, axis)
        (_J or _load()).softmax(x.ravel(), out.ravel(), o, r, i, True)
