"""numba kernels for reduce_ops: ReduceSum/Mean/Max/Min/Prod/All/Any, Argmax/Argmin,
ArgMaxWithValue/ArgMinWithValue (provider "numba"; the loops live in _reduce_jit.py).

This module does not import numba: the jitted loops are loaded on the first launch and
kept in the module global `_J`. Each launch canonicalises the input to the flat C-order
data of an (outer, reduced, inner) array: adjacent reduced axes merge into one; otherwise
the reduced axes are gathered next to each other (a copy). Non-contiguous inputs are
first viewed in memory order (a transposed array costs no copy; the small result is
permuted back). So every loop compiles once per dtype, not per rank or axis set.
"""
import numpy as np

from ...common import dtype as mstype
from ..registry import register_kernel

FLOATS = (mstype.float32, mstype.float64)
INTS = (mstype.int32, mstype.int64)
NUMBERS = FLOATS + INTS

# NOTE: ranked below the numpy reference (priority 0), so never chosen unless requested: the
# extreme-value loops lose to numpy's SIMD max/argmax where it matters. Float32 along the last
# axis (benchmarks/numba_vs_numpy.py, shared 2-core VM, fastest batch; numba / numpy time):
# ReduceMax 256x256 1.6x, 2048x2048 24x; ReduceMin 2.2x, 3.3x; Argmax 13x, 20x; Argmin 9x,
# 10x; ArgMaxWithValue 2.1x, 6.4x; ArgMinWithValue 3.1x, 20x (they win only at 4x4, by ~2 µs).
# The C++ kernels (reduce_cpp.py, arg_cpp.py) outrank both where they exist.
BELOW_NUMPY = -10

_J = None                 # the module _reduce_jit, once loaded
_PLANS = {}               # (shape, axes) or (shape, strides, axes) -> plan
_MAX_PLANS = 4096


def _load():
    global _J
    from . import _reduce_jit
    _J = _reduce_jit
    return _J


def _remember(key, plan):
    if len(_PLANS) >= _MAX_PLANS:
        _PLANS.clear()
    _PLANS[key] = plan
    return plan


def _plan(shape, axes):
    """(O, R, I, perm) for a C-ordered `shape`: x.transpose(perm) (when perm is not None) is
    (O, R, I) in C order and keeps the kept axes in their order."""
    plan = _PLANS.get((shape, axes))
    if plan is not None:
        return plan
    o = r = i = 1
    perm = None
    if axes and axes[-1] - axes[0] + 1 != len(axes):
        # NOTE: the last (fastest) axis stays last, so the gathering copy moves whole rows:
        # (kept, reduced) when it is reduced (I = 1), else (reduced, kept) (O = 1).
        kept = tuple(a for a in range(len(shape)) if a not in axes)
        n_kept = 1
        for a in kept:
            n_kept *= shape[a]
        for a in axes:
            r *= shape[a]
        if axes[-1] == len(shape) - 1:
            perm, o = kept + axes, n_kept
        else:
            perm, i = axes + kept, n_kept
    else:
        lo, hi = (axes[0], axes[-1] + 1) if axes else (len(shape), len(shape))
        for d in shape[:lo]:
            o *= d
        for d in shape[lo:hi]:
            r *= d
        for d in shape[hi:]:
            i *= d
    return _remember((shape, axes), (o, r, i, perm))


def _strided_plan(x, axes):
    """(perm, O, R, I, back) for a non-C-contiguous x, its axes taken in memory order (so a
    transposed array needs no copy). back is None when the kept axes keep their order,
    else (result shape in memory order, out shape without reduced dims, transpose axes)
    to copy a memory-order result into out."""
    key = (x.shape, x.strides, axes)
    plan = _PLANS.get(key)
    if plan is not None:
        return plan
    strides = x.strides
    p = tuple(sorted(range(x.ndim), key=lambda a: (-abs(strides[a]), a)))
    axes_p = tuple(sorted(p.index(a) for a in axes))
    o, r, i, perm = _plan(tuple(x.shape[a] for a in p), axes_p)
    kept = [a for a in p if a not in axes]              # the order _plan keeps
    back = None
    if kept != sorted(kept):
        back = (tuple(x.shape[a] for a in kept), tuple(x.shape[a] for a in sorted(kept)),
                tuple(sorted(range(len(kept)), key=kept.__getitem__)))
    full = p if perm is None else tuple(p[j] for j in perm)
    return _remember(key, (full, o, r, i, back))


def _canon(x, axes):
    """(flat C-order x, O, R, I, back): see _plan and _strided_plan."""
    if len(axes) == x.ndim:               # a full reduction reads x in memory order
        return x.ravel("K"), 1, x.size, 1, None
    return _canon_axes(x, axes)


def _canon_axes(x, axes):
    if x.flags.c_contiguous:
        o, r, i, perm = _PLANS.get((x.shape, axes)) or _plan(x.shape, axes)
        return (x if perm is None else x.transpose(perm)).ravel(), o, r, i, None
    perm, o, r, i, back = _strided_plan(x, axes)
    return x.transpose(perm).ravel(), o, r, i, back


def _restore(out, dst, back):
    """copy a result computed with the kept axes in memory order (dst) into out."""
    np.copyto(out.reshape(back[1]), dst.reshape(back[0]).transpose(back[2]))


def _empty_extreme(op):
    raise ValueError(f"For '{op}', the reduced axes of 'x' must not be empty (there is no "
                     f"identity for the maximum or minimum), but got a reduction over 0 elements")


def _reduce(op, loop, x, out, axis, empty, *args):
    """Run `_J.<loop>(x_flat, out_flat, O, R, I, *args)`; `empty`: the result of a reduction
    over nothing (None: an error, as for max/min)."""
    xf, o, r, i, back = _canon(x, axis)
    if r == 0:
        if empty is not None:
            out.fill(empty)
        elif out.size:
            _empty_extreme(op)
        return
    dst = out.ravel() if back is None else np.empty(out.size, out.dtype)
    getattr(_J or _load(), loop)(xf, dst, o, r, i, *args)
    if back is not None:
        _restore(out, dst, back)


@register_kernel("ReduceSum", provider="numba", dtypes=FLOATS)
def reduce_sum_numba(x, out, axis, keep_dims):
    _reduce("ReduceSum", "reduce_sum", x, out, axis, 0, False)


@register_kernel("ReduceSum", provider="numba", dtypes=INTS)
def reduce_sum_int_numba(x, out, axis, keep_dims):
    _reduce("ReduceSum", "reduce_sum_int", x, out, axis, 0)


@register_kernel("ReduceMean", provider="numba", dtypes=FLOATS)
def reduce_mean_numba(x, out, axis, keep_dims):
    """float64 accumulation; the mean of nothing is nan (numpy)."""
    _reduce("ReduceMean", "reduce_sum", x, out, axis, float("nan"), True)


@register_kernel("ReduceMean", provider="numba", dtypes=INTS)
def reduce_mean_int_numba(x, out, axis, keep_dims):
    """the float64 mean truncated toward zero; the mean of nothing is 0."""
    _reduce("ReduceMean", "reduce_sum", x, out, axis, 0, True)


@register_kernel("ReduceProd", provider="numba", dtypes=NUMBERS)
def reduce_prod_numba(x, out, axis, keep_dims):
    _reduce("ReduceProd", "reduce_prod", x, out, axis, 1)


@register_kernel("ReduceMax", provider="numba", dtypes=NUMBERS, priority=BELOW_NUMPY)
def reduce_max_numba(x, out, axis, keep_dims):
    _reduce("ReduceMax", "reduce_extreme", x, out, axis, None, True)


@register_kernel("ReduceMin", provider="numba", dtypes=NUMBERS, priority=BELOW_NUMPY)
def reduce_min_numba(x, out, axis, keep_dims):
    _reduce("ReduceMin", "reduce_extreme", x, out, axis, None, False)


@register_kernel("ReduceAll", provider="numba", dtypes=(mstype.bool_,))
def reduce_all_numba(x, out, axis, keep_dims):
    _reduce("ReduceAll", "reduce_logical", x, out, axis, True, True)


@register_kernel("ReduceAny", provider="numba", dtypes=(mstype.bool_,))
def reduce_any_numba(x, out, axis, keep_dims):
    _reduce("ReduceAny", "reduce_logical", x, out, axis, False, False)


def _canon_axis(x, axis, op):
    """(flat x, O, R, I, back) for one reduced axis (none for a 0-d x); raises on an empty
    one. Never the full-reduction shortcut: indices count in C order along the axis."""
    xf, o, r, i, back = _canon_axes(x, (axis,) if x.ndim else ())
    if r == 0 and o * i:
        _empty_extreme(op)
    return xf, o, r, i, back


def _arg(x, out_index, out_values, axis, is_max, op):
    xf, o, r, i, back = _canon_axis(x, axis, op)
    if o * i == 0:
        return
    idx = out_index.ravel() if back is None else np.empty(out_index.size, out_index.dtype)
    if out_values is None:
        vals = xf                         # unused; keeps one compile per dtype
    else:
        vals = out_values.ravel() if back is None else np.empty(out_values.size, x.dtype)
    (_J or _load()).arg_extreme(xf, idx, vals, o, r, i, is_max, out_values is not None)
    if back is not None:
        _restore(out_index, idx, back)
        if out_values is not None:
            _restore(out_values, vals, back)


@register_kernel("Argmax", provider="numba", dtypes=NUMBERS, priority=BELOW_NUMPY)
def argmax_numba(x, out, axis):
    """index of the first maximum along `axis` (the first NaN, as np.argmax)."""
    _arg(x, out, None, axis, True, "Argmax")


@register_kernel("Argmin", provider="numba", dtypes=NUMBERS, priority=BELOW_NUMPY)
def argmin_numba(x, out, axis):
    """index of the first minimum along `axis` (the first NaN, as np.argmin)."""
    _arg(x, out, None, axis, False, "Argmin")


@register_kernel("ArgMaxWithValue", provider="numba", dtypes=NUMBERS, priority=BELOW_NUMPY)
def arg_max_with_value_numba(x, out_index, out_values, axis, keep_dims):
    """(index, value) of the first maximum along `axis`, one pass over x."""
    _arg(x, out_index, out_values, axis, True, "ArgMaxWithValue")


@register_kernel("ArgMinWithValue", provider="numba", dtypes=NUMBERS, priority=BELOW_NUMPY)
def arg_min_with_value_numba(x, out_index, out_values, axis, keep_dims):
    """(index, value) of the first minimum along `axis`, one pass over x."""
    _arg(x, out_index, out_values, axis, False, "ArgMinWithValue")
