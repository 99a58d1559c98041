"""mindlite.numpy's reductions and scans: `sum`, `mean`, `amax` / `amin` (`max` / `min`,
with `initial` and `where`), `argmax`, `argmin`, `std`, `var`, `ptp`, `average`,
`count_nonzero`, `sometrue`, `cumsum`, `cumprod`, and the nan-ignoring `nansum`,
`nanmean`, `nanmax`, `nanmin`, `nanstd`, `nanvar`, `nancumsum`.

`axis=None` reduces every axis; dtypes follow MindSpore 2.10's numpy module (an int sum is
int64, an int mean keeps the int dtype, an int var / std is float32). All run on the
Reduce* / CumSum / Select primitives, so the float ones are differentiable.
"""
import builtins
import numbers

from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..ops import functional as F
from .dtypes import as_dtype, float_input, to_tensor

__all__ = ["sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "std", "var",
           "ptp", "average", "count_nonzero", "sometrue", "cumsum", "cumprod", "nansum",
           "nanmean", "nanmax", "nanmin", "nanstd", "nanvar", "nancumsum"]


def _axes(axis, ndim, name):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    out = []
    for ax in axes:
        if not isinstance(ax, numbers.Integral) or not -ndim <= ax < builtins.max(ndim, 1):
            raise ValueError(f"For 'mindlite.numpy.{name}', 'axis' must be in "
                             f"[{-ndim}, {ndim}), but got {axis!r}")
        out.append(ax % builtins.max(ndim, 1))
    if len(set(out)) != len(out):
        raise ValueError(f"For 'mindlite.numpy.{name}', 'axis' repeats an axis: {axis!r}")
    return tuple(out)


def _count(a, axes):
    n = 1
    for ax in axes:
        n *= a.shape[ax]
    return n


def sum(a, axis=None, dtype=None, keepdims=False, initial=None):  # noqa: A001
    a = to_tensor(a)
    if a.dtype == mstype.bool_ or (dtype is None and a.dtype in mstype.INT_TYPES):
        a = F.cast(a, mstype.int64 if dtype is None else mstype.to_type(dtype))
    elif dtype is not None:
        a = as_dtype(a, dtype)
    axes = _axes(axis, a.ndim, "sum")
    out = F.sum(a, axes, keepdims) if axes else a
    if initial is not None:
        out = out + initial
    return out


def mean(a, axis=None, keepdims=False, dtype=None):
    a = to_tensor(a)
    axes = _axes(axis, a.ndim, "mean")
    src = a if a.dtype in mstype.FLOAT_TYPES else F.cast(a, mstype.float32)
    out = F.mean(src, axes, keepdims) if axes else src
    return as_dtype(out, a.dtype if dtype is None else dtype)


def _extreme(fn, name, a, axis, keepdims, initial, where):
    a = to_tensor(a)
    axes = _axes(axis, a.ndim, name)
    if where is not True:
        if initial is None:
            raise ValueError(f"For 'mindlite.numpy.{name}', 'initial' is needed when 'where' "
                             f"is given")
        fill = F.fill(a.dtype, a.shape, initial) if a.ndim else to_tensor(initial, a.dtype)
        a = F.select(F.broadcast_to(to_tensor(where, mstype.bool_), a.shape), a, fill)
    if a.size == 0 and initial is None:
        raise ValueError(f"For 'mindlite.numpy.{name}', a zero-size array has no extreme "
                         f"(give 'initial')")
    out = fn(a, axes, keepdims) if axes else a
    if initial is not None:
        other = to_tensor(initial, a.dtype)
        out = F.maximum(out, other) if fn is F.amax else F.minimum(out, other)
    return out


def amax(a, axis=None, keepdims=False, initial=None, where=True):
    """The maximum over `axis` (nan propagates); `initial` joins the comparison, `where`
    masks elements out (with `initial`)."""
    return _extreme(F.amax, "amax", a, axis, keepdims, initial, where)


def amin(a, axis=None, keepdims=False, initial=None, where=True):
    return _extreme(F.amin, "amin", a, axis, keepdims, initial, where)


max = amax  # noqa: A001
min = amin  # noqa: A001


def _arg(fn, a, axis, dtype):
    a = to_tensor(a)
    if axis is None:
        a, axis = F.reshape(a, (-1,)), 0
    return F.cast(fn(a, axis), dtype)


def argmax(a, axis=None):
    """The index (int64) of the first maximum over `axis` (None: of the flattened `a`)."""
    return _arg(F.argmax, a, axis, mstype.int64)


def argmin(a, axis=None):
    """The index of the first minimum over `axis`: int32 (MindSpore 2.10's numpy returns
    int64 from argmax and int32 from argmin)."""
    return _arg(F.argmin, a, axis, mstype.int32)


def var(x, axis=None, ddof=0, keepdims=False):
    """The variance with divisor N - ddof (ints computed in float32)."""
    x = float_input(x)
    axes = _axes(axis, x.ndim, "var")
    if not axes:
        return F.zeros_like(x)
    m = F.mean(x, axes, True)
    d = x - m
    return F.sum(d * d, axes, keepdims) / (_count(x, axes) - ddof)


def std(x, axis=None, ddof=0, keepdims=False):
    return F.sqrt(var(x, axis, ddof, keepdims))


def ptp(x, axis=None, keepdims=False):
    """max - min over `axis`."""
    return amax(x, axis, keepdims) - amin(x, axis, keepdims)


def average(x, axis=None, weights=None, returned=False):
    """The (weighted) mean over `axis`; `returned`: also the sum of the weights."""
    x = float_input(x)
    if weights is None:
        out = mean(x, axis)
        scale = F.fill(out.dtype, out.shape, _count(x, _axes(axis, x.ndim, "average")))
        return (out, scale) if returned else out
    w = float_input(weights)
    if w.shape != x.shape:
        if axis is None or w.ndim != 1 or not isinstance(axis, numbers.Integral):
            raise ValueError("For 'mindlite.numpy.average', 'weights' must have the shape of "
                             "'x', or be 1-D along an int 'axis'")
        ax = axis % x.ndim
        w = F.reshape(w, (1,) * ax + (-1,) + (1,) * (x.ndim - ax - 1))
    wsum = sum(F.broadcast_to(w, x.shape), axis)
    out = sum(x * w, axis) / wsum
    return (out, wsum) if returned else out


def count_nonzero(x, axis=None, keepdims=False):
    """The number of nonzero elements over `axis`, int32."""
    x = to_tensor(x)
    axes = _axes(axis, x.ndim, "count_nonzero")
    nz = F.cast(F.not_equal(x, F.zeros_like(x)), mstype.int32)
    return F.sum(nz, axes, keepdims) if axes else nz


def sometrue(a, axis=None, keepdims=False):
    """True where any element over `axis` is nonzero."""
    a = to_tensor(a)
    axes = _axes(axis, a.ndim, "sometrue")
    b = a if a.dtype == mstype.bool_ else F.cast(a, mstype.bool_)
    return F.any(b, axes, keepdims) if axes else b


def _scan(fn, a, axis, dtype):
    a = to_tensor(a)
    if a.dtype == mstype.bool_:
        a = F.cast(a, mstype.int32)
    a = as_dtype(a, dtype)
    if axis is None:
        a, axis = F.reshape(a, (-1,)), 0
    return fn(a, axis)


def cumsum(a, axis=None, dtype=None):
    """Running sums along `axis` (None: of the flattened `a`)."""
    return _scan(F.cumsum, a, axis, dtype)


def cumprod(a, axis=None, dtype=None):
    return _scan(F.cumprod, a, axis, dtype)


def _nan_to(a, value):
    a = to_tensor(a)
    if a.dtype not in mstype.FLOAT_TYPES:
        return a
    return F.select(F.isnan(a), F.fill(a.dtype, a.shape, value) if a.ndim else
                    to_tensor(value, a.dtype), a)


def nansum(a, axis=None, dtype=None, keepdims=False):
    """sum with nan counted as 0."""
    a = to_tensor(a)
    return sum(_nan_to(a, 0), axis, dtype if dtype is not None else
               (a.dtype if a.dtype in mstype.FLOAT_TYPES else None), keepdims)


def nancumsum(a, axis=None, dtype=None):
    return cumsum(_nan_to(a, 0), axis, dtype)


def _valid_count(a, axis, keepdims):
    return sum(F.cast(F.logical_not(F.isnan(a)), a.dtype), axis, keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, keepdims=False):
    """mean over the non-nan elements (nan where there are none)."""
    a = float_input(a)
    out = sum(_nan_to(a, 0), axis, keepdims=keepdims) / _valid_count(a, axis, keepdims)
    return as_dtype(out, dtype)


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    a = float_input(a)
    m = nanmean(a, axis, keepdims=True)
    d = _nan_to(a - m, 0)
    out = sum(d * d, axis, keepdims=keepdims) / (_valid_count(a, axis, keepdims) - ddof)
    return as_dtype(out, dtype)


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    return as_dtype(F.sqrt(nanvar(a, axis, None, ddof, keepdims)), dtype)


def nanmax(a, axis=None, dtype=None, keepdims=False):
    """amax ignoring nan (nan where a slice is all nan)."""
    a = to_tensor(a)
    if a.dtype not in mstype.FLOAT_TYPES:
        return as_dtype(amax(a, axis, keepdims), dtype)
    out = amax(_nan_to(a, float("-inf")), axis, keepdims)
    allnan = F.logical_not(sometrue(F.logical_not(F.isnan(a)), axis, keepdims))
    return as_dtype(F.select(allnan, F.fill(out.dtype, out.shape, float("nan")) if out.ndim
                             else Tensor(float("nan"), out.dtype), out), dtype)


def nanmin(a, axis=None, dtype=None, keepdims=False):
    a = to_tensor(a)
    if a.dtype not in mstype.FLOAT_TYPES:
        return as_dtype(amin(a, axis, keepdims), dtype)
    out = amin(_nan_to(a, float("inf")), axis, keepdims)
    allnan = F.logical_not(sometrue(F.logical_not(F.isnan(a)), axis, keepdims))
    return as_dtype(F.select(allnan, F.fill(out.dtype, out.shape, float("nan")) if out.ndim
                             else Tensor(float("nan"), out.dtype), out), dtype)
