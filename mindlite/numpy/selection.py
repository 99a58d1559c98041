"""mindlite.numpy's selection: `take`, `take_along_axis`, `choose`, `where`, `select`,
`piecewise`, `apply_along_axis` and `apply_over_axes`, over `ops` primitives (Gather,
GatherElements, Select, ...), so gradients flow; array_ops.py holds the shape functions they
use.
"""
import numpy as onp

from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..ops import functional as F
from .array_ops import _axis, atleast_1d, ravel, stack
from .dtypes import to_tensor

__all__ = ["take", "take_along_axis", "choose", "where", "select", "piecewise",
           "apply_along_axis", "apply_over_axes"]


def _index_mode(indices, n, mode, name):
    if mode == "clip":
        return F.clamp(indices, 0, n - 1)
    if mode == "wrap":
        return F.floor_mod(indices, n)
    if mode == "raise":
        bad = onp.asarray(indices.asnumpy())
        if bad.size and (bad.min() < -n or bad.max() >= n):
            raise IndexError(f"For 'mindlite.numpy.{name}', an index is out of range "
                             f"[{-n}, {n})")
        return F.select(indices < 0, indices + n, indices)
    raise ValueError(f"For 'mindlite.numpy.{name}', 'mode' must be 'clip', 'wrap' or 'raise', "
                     f"but got {mode!r}")


def take(a, indices, axis=None, mode="clip"):
    """Elements of `a` at `indices` along `axis` (None: of the flattened `a`); out-of-range
    indices clipped (mode='clip', MindSpore's default) or wrapped."""
    a = to_tensor(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis(axis, a.ndim, "take")
    idx = F.cast(to_tensor(indices), mstype.int32)
    idx = _index_mode(idx, a.shape[axis], mode, "take")
    return F.gather(a, idx, axis)


def take_along_axis(arr, indices, axis):
    arr, idx = to_tensor(arr), to_tensor(indices)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = _axis(axis, arr.ndim, "take_along_axis")
    shape = tuple(max(a, b) if d != axis else b
                  for d, (a, b) in enumerate(zip(arr.shape, idx.shape)))
    arr = F.broadcast_to(arr, shape[:axis] + (arr.shape[axis],) + shape[axis + 1:])
    idx = F.broadcast_to(idx, shape)
    return F.gather_elements(arr, axis, F.select(idx < 0, idx + arr.shape[axis], idx))


def choose(a, choices, mode="clip"):
    """out[i] = choices[a[i]][i] (broadcast), indices clipped or wrapped."""
    a = F.cast(to_tensor(a), mstype.int32)
    cs = [to_tensor(c) for c in choices] if not isinstance(choices, Tensor) else \
        [choices[k] for k in range(choices.shape[0])]
    a = _index_mode(a, len(cs), mode, "choose")
    shape = onp.broadcast_shapes(a.shape, *[c.shape for c in cs])
    stacked = F.stack(tuple(F.broadcast_to(c, shape) for c in cs), 0)
    idx = F.expand_dims(F.broadcast_to(a, shape), 0)
    return F.squeeze(F.gather_elements(stacked, 0, idx), 0)


def where(condition, x=None, y=None):
    """x where condition holds, else y (broadcast); with only `condition`, its nonzero
    indices, as a tuple of int64 Tensors."""
    cond = to_tensor(condition)
    if x is None and y is None:
        return F.nonzero(cond, as_tuple=True)
    if x is None or y is None:
        raise ValueError("For 'mindlite.numpy.where', 'x' and 'y' must both be given or both "
                         "be None")
    if cond.dtype != mstype.bool_:
        cond = F.cast(cond, mstype.bool_)
    x = x if isinstance(x, Tensor) else to_tensor(x)
    y = y if isinstance(y, Tensor) else to_tensor(y)
    dtype = mstype.promote(x.dtype, y.dtype)
    shape = onp.broadcast_shapes(cond.shape, x.shape, y.shape)
    return F.select(F.broadcast_to(cond, shape), F.broadcast_to(F.cast(x, dtype), shape),
                    F.broadcast_to(F.cast(y, dtype), shape))


def select(condlist, choicelist, default=0):
    """The first choice whose condition holds, per element; `default` where none does."""
    if len(condlist) != len(choicelist):
        raise ValueError("For 'mindlite.numpy.select', 'condlist' and 'choicelist' must have "
                         f"the same length, but got {len(condlist)} and {len(choicelist)}")
    choices = [to_tensor(c) for c in choicelist]
    out = to_tensor(default, choices[0].dtype if choices else None)
    for cond, choice in reversed(list(zip(condlist, choices))):
        out = where(cond, choice, out)
    return out


def _stack_arrays(arrs):
    if isinstance(arrs, (tuple, list)):
        if not any(isinstance(a, Tensor) for a in arrs):
            return to_tensor(arrs)      # numbers: one array, their dtypes promoted
        return stack([to_tensor(a) for a in arrs])
    return atleast_1d(to_tensor(arrs))


def piecewise(x, condlist, funclist, *args, **kw):
    """select(condlist, funclist's values), as MindSpore 2.10's: functions (when the first
    entry is one) are called on x; conditions and values are stacked along a new first axis
    (a lone Tensor is already stacked: its rows are the cases); one value more than
    conditions is the default. The result has the values' dtype and select's shape."""
    x = to_tensor(x)
    choicelist = funclist
    if isinstance(funclist, (tuple, list)) and funclist and callable(funclist[0]):
        choicelist = [fn(x, *args, **kw) for fn in funclist]
    conds, choices = _stack_arrays(condlist), _stack_arrays(choicelist)
    n1, n2 = conds.shape[0], len(funclist)
    default = 0
    if n1 + 1 == n2:
        default, choices = choices[-1], choices[:-1]
    elif n1 != n2:
        raise ValueError(f"For 'mindlite.numpy.piecewise', the number of choices should be "
                         f"either equal to conditions or {n1 + 1}, but got {n2}")
    return select(conds, choices, default)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d applied to every 1-D slice of `arr` along `axis` (one call per slice)."""
    arr = to_tensor(arr)
    axis = _axis(axis, arr.ndim, "apply_along_axis")
    moved = F.moveaxis(arr, axis, -1)
    lead = moved.shape[:-1]
    flat = F.reshape(moved, (-1, moved.shape[-1]))
    results = [to_tensor(func1d(flat[k], *args, **kwargs)) for k in range(flat.shape[0])]
    out = F.stack(tuple(results), 0)
    out = F.reshape(out, lead + out.shape[1:])
    if out.ndim == len(lead):
        return out
    nres = out.ndim - len(lead)
    return F.moveaxis(out, tuple(range(len(lead), len(lead) + nres)),
                      tuple(range(axis, axis + nres)))


def apply_over_axes(func, a, axes):
    """func(a, axis) applied for each axis in turn, keeping the reduced axes."""
    a = to_tensor(a)
    for axis in ((axes,) if isinstance(axes, int) else axes):
        res = func(a, axis)
        if res.ndim == a.ndim - 1:
            res = F.expand_dims(res, axis)
        elif res.ndim != a.ndim:
            raise ValueError("For 'mindlite.numpy.apply_over_axes', 'func' must keep the "
                             "rank or reduce one axis")
        a = res
    return a
