"""numba kernels for reduce_ops: ReduceSum/Mean/Max/Min/Prod/All/Any, Argmax/Argmin,
ArgMaxWithValue (provider "numba"; the loops live in _reduce_jit.py).

This module does not import numba: the jitted loops are loaded on the first launch and
kept in the module global `_J`. Each launch canonicalises the input to the flat C-order
data of an (outer, reduced, inner) array: adjacent reduced axes merge into one; otherwise
the kept axes are moved in front of the reduced ones (a copy). So every loop compiles
once per dtype, not per rank or axis set.
"""
from ...common import dtype as mstype
from ..registry import register_kernel

FLOATS = (mstype.float32, mstype.float64)
INTS = (mstype.int32, mstype.int64)
NUMBERS = FLOATS + INTS

_J = None                 # the module _reduce_jit, once loaded
_PLANS = {}               # (shape, axes) -> (outer, reduced, inner, perm or None)
_MAX_PLANS = 4096


def _load():
    global _J
    from . import _reduce_jit
    _J = _reduce_jit
    return _J


def _plan(shape, axes):
    """(O, R, I, perm): x.transpose(perm) (when perm is not None) is (O, R, I) in C order."""
    key = (shape, axes)
    plan = _PLANS.get(key)
    if plan is not None:
        return plan
    o = r = i = 1
    perm = None
    if axes and axes[-1] - axes[0] + 1 != len(axes):
        kept = tuple(a for a in range(len(shape)) if a not in axes)
        perm = kept + tuple(axes)
        for a in kept:
            o *= shape[a]
        for a in axes:
            r *= shape[a]
    else:
        lo, hi = (axes[0], axes[-1] + 1) if axes else (len(shape), len(shape))
        for d in shape[:lo]:
            o *= d
        for d in shape[lo:hi]:
            r *= d
        for d in shape[hi:]:
            i *= d
    if len(_PLANS) >= _MAX_PLANS:
        _PLANS.clear()
    plan = _PLANS[key] = (o, r, i, perm)
    return plan


def _canon(x, axes):
    """(flat x, O, R, I); full reductions skip the plan lookup."""
    if len(axes) == x.ndim:
        return x.ravel(), 1, x.size, 1
    o, r, i, perm = _plan(x.shape, axes)
    if perm is not None:
        x = x.transpose(perm)
    return x.ravel(), o, r, i


def _empty_extreme(op):
    raise ValueError(f"For '{op}', the reduced axes of 'x' must not be empty (there is no "
                     f"identity for the maximum or minimum), but got a reduction over 0 elements")


@register_kernel("ReduceSum", provider="numba", dtypes=FLOATS)
def reduce_sum_numba(x, out, axis, keep_dims):
    xf, o, r, i = _canon(x, axis)
    if r == 0:
        out.fill(0)
        return
    (_J or _load()).reduce_sum(xf, out.ravel(), o, r, i, False)


@register_kernel("ReduceSum", provider="numba", dtypes=INTS)
def reduce_sum_int_numba(x, out, axis, keep_dims):
    xf, o, r, i = _canon(x, axis)
    if r == 0:
        out.fill(0)
        return
    (_J or _load()).reduce_sum_int(xf, out.ravel(), o, r, i)


@register_kernel("ReduceMean", provider="numba", dtypes=NUMBERS)
def reduce_mean_numba(x, out, axis, keep_dims):
    """float64 accumulation for every dtype; integer means truncate toward zero.
    The mean of nothing is nan for floats (numpy) and 0 for integers."""
    xf, o, r, i = _canon(x, axis)
    if r == 0:
        out.fill(float("nan") if out.dtype.kind == "f" else 0)
        return
    (_J or _load()).reduce_sum(xf, out.ravel(), o, r, i, True)


@register_kernel("ReduceProd", provider="numba", dtypes=NUMBERS)
def reduce_prod_numba(x, out, axis, keep_dims):
    xf, o, r, i = _canon(x, axis)
    if r == 0:
        out.fill(1)
        return
    (_J or _load()).reduce_prod(xf, out.ravel(), o, r, i)


@register_kernel("ReduceMax", provider="numba", dtypes=NUMBERS)
def reduce_max_numba(x, out, axis, keep_dims):
    xf, o, r, i = _canon(x, axis)
    if r == 0:
        if out.size:
            _empty_extreme("ReduceMax")
        return
    (_J or _load()).reduce_max(xf, out.ravel(), o, r, i)


@register_kernel("ReduceMin", provider="numba", dtypes=NUMBERS)
def reduce_min_numba(x, out, axis, keep_dims):
    xf, o, r, i = _canon(x, axis)
    if r == 0:
        if out.size:
            _empty_extreme("ReduceMin")
        return
    (_J or _load()).reduce_min(xf, out.ravel(), o, r, i)


@register_kernel("ReduceAll", provider="numba", dtypes=(mstype.bool_,))
def reduce_all_numba(x, out, axis, keep_dims):
    xf, o, r, i = _canon(x, axis)
    if r == 0:
        out.fill(True)
        return
    (_J or _load()).reduce_all(xf, out.ravel(), o, r, i)


@register_kernel("ReduceAny", provider="numba", dtypes=(mstype.bool_,))
def reduce_any_numba(x, out, axis, keep_dims):
    xf, o, r, i = _canon(x, axis)
    if r == 0:
        out.fill(False)
        return
    (_J or _load()).reduce_any(xf, out.ravel(), o, r, i)


def _canon_axis(x, axis, op):
    """(flat x, O, R, I) for a single reduced axis; raises on an empty one."""
    o, r, i, _ = _plan(x.shape, (axis,) if x.ndim else ())
    if r == 0 and o * i:
        _empty_extreme(op)
    return x.ravel(), o, r, i


@register_kernel("Argmax", provider="numba", dtypes=NUMBERS)
def argmax_numba(x, out, axis):
    """index of the first maximum along `axis` (the first NaN, as np.argmax)."""
    xf, o, r, i = _canon_axis(x, axis, "Argmax")
    if o * i:
        (_J or _load()).argmax(xf, out.ravel(), o, r, i)


@register_kernel("Argmin", provider="numba", dtypes=NUMBERS)
def argmin_numba(x, out, axis):
    """index of the first minimum along `axis` (the first NaN, as np.argmin)."""
    xf, o, r, i = _canon_axis(x, axis, "Argmin")
    if o * i:
        (_J or _load()).argmin(xf, out.ravel(), o, r, i)


@register_kernel("ArgMaxWithValue", provider="numba", dtypes=NUMBERS)
def arg_max_with_value_numba(x, out_index, out_values, axis, keep_dims):
    """(index, value) of the first maximum along `axis`, one pass over x."""
    xf, o, r, i = _canon_axis(x, axis, "ArgMaxWithValue")
    if o * i:
        (_J or _load()).argmax_with_value(xf, out_index.ravel(), out_values.ravel(), o, r, i)
