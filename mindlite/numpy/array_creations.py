"""mindlite.numpy's array creation: `array`, `asarray`, `ones`, `zeros`, `full`, `empty`
(and their `_like` forms), ranges (`arange`, `linspace`, `logspace`, `geomspace`), matrices
(`eye`, `identity`, `tri`, `tril`, `triu`, `diag`, `diagflat`, `diagonal`, `vander`),
the windows (`hamming`, `hanning`, `bartlett`, `blackman`) and `pad`.

Constants with no Tensor input are built once on the host (a creation, as a folded Fill);
functions of a Tensor (`tril`, `diag`, `diagonal`, `pad`, `vander`) are primitives of
`ops` (Tril, Gather, Concat, ...), so their gradients flow.
"""
import numbers

import numpy as onp

from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..ops import functional as F
from .dtypes import as_dtype, axis_slice, python_array, to_tensor

__all__ = ["array", "asarray", "asfarray", "ones", "zeros", "full", "empty", "ones_like",
           "zeros_like", "full_like", "empty_like", "arange", "linspace", "logspace",
           "geomspace", "eye", "identity", "tri", "tril", "triu", "diag", "diagflat",
           "diagonal", "vander", "hamming", "hanning", "bartlett", "blackman", "pad"]


def _np_dtype(dtype, default=mstype.float32):
    return mstype.to_type(default if dtype is None else dtype).np


def _shape(shape, name):
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    if isinstance(shape, Tensor):
        shape = tuple(int(v) for v in shape.asnumpy().reshape(-1))
    if not isinstance(shape, (tuple, list)) or not all(isinstance(d, numbers.Integral)
                                                       for d in shape):
        raise TypeError(f"For 'mindlite.numpy.{name}', 'shape' must be an int or a tuple of "
                        f"ints, but got {shape!r}")
    if any(d < 0 for d in shape):
        raise ValueError(f"For 'mindlite.numpy.{name}', 'shape' must be non-negative, but got "
                         f"{tuple(shape)}")
    return tuple(int(d) for d in shape)


def array(obj, dtype=None, copy=True, ndmin=0):
    """A new Tensor from a Tensor, list, tuple or number (ints int32, floats float32)."""
    if isinstance(obj, Tensor):
        t = F.cast(obj, mstype.to_type(dtype)) if dtype is not None else obj
        if copy and t is obj:
            t = Tensor(obj.asnumpy())
    else:
        t = to_tensor(obj, dtype)
    while t.ndim < ndmin:
        t = F.expand_dims(t, 0)
    return t


def asarray(a, dtype=None):
    """`a` as a Tensor (a Tensor of the asked dtype is returned as it is)."""
    return array(a, dtype, copy=False)


def asfarray(a, dtype=mstype.float32):
    """`a` as a float Tensor (an int dtype asked for becomes float32)."""
    dtype = mstype.to_type(dtype)
    if dtype not in mstype.FLOAT_TYPES:
        dtype = mstype.float32
    return asarray(a, dtype)


def ones(shape, dtype=mstype.float32):
    return Tensor(onp.ones(_shape(shape, "ones"), _np_dtype(dtype)))


def zeros(shape, dtype=mstype.float32):
    return Tensor(onp.zeros(_shape(shape, "zeros"), _np_dtype(dtype)))


def empty(shape, dtype=mstype.float32):
    """A Tensor of `shape` (zero-filled: mindlite never hands out uninitialised memory)."""
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None):
    """`shape` filled with `fill_value` (a number, or a Tensor broadcast to `shape`)."""
    shape = _shape(shape, "full")
    if isinstance(fill_value, Tensor):
        return as_dtype(F.broadcast_to(fill_value, shape), dtype)
    value = python_array(fill_value, dtype)
    return Tensor(onp.full(shape, value, value.dtype))


def _like(a, dtype, shape, name):
    a = to_tensor(a)
    return (a.shape if shape is None else _shape(shape, name)), \
        (a.dtype if dtype is None else mstype.to_type(dtype))


def ones_like(a, dtype=None, shape=None):
    shape, dtype = _like(a, dtype, shape, "ones_like")
    return ones(shape, dtype)


def zeros_like(a, dtype=None, shape=None):
    shape, dtype = _like(a, dtype, shape, "zeros_like")
    return zeros(shape, dtype)


def empty_like(prototype, dtype=None, shape=None):
    return zeros_like(prototype, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None):
    shape, dtype = _like(a, dtype, shape, "full_like")
    return full(shape, fill_value, dtype)


def _scalar(v):
    return v.asnumpy().item() if isinstance(v, Tensor) else v


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in [start, stop): int32 for int arguments, else float32."""
    start, stop, step = _scalar(start), _scalar(stop), _scalar(step)
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    ints = all(isinstance(v, numbers.Integral) for v in (start, stop, step))
    out = onp.arange(start, stop, step, onp.int32 if ints else onp.float32)
    return as_dtype(Tensor(out), dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """`num` evenly spaced samples over [start, stop] (float32); Tensor bounds broadcast, the
    samples along `axis`."""
    s, e = to_tensor(start, mstype.float32), to_tensor(stop, mstype.float32)
    div = (num - 1) if endpoint else num
    step = (e - s) / div if div > 0 else e - s
    frac = Tensor(onp.arange(num, dtype=onp.float32).reshape((num,) + (1,) * max(s.ndim,
                                                                                   e.ndim)))
    out = s + frac * step
    if endpoint and num > 1:
        out = F.concat((out[:-1], F.expand_dims(F.broadcast_to(e, out.shape[1:]), 0)), 0)
    if axis != 0:
        out = F.moveaxis(out, 0, axis)
    out = as_dtype(out, dtype)
    if retstep:
        return out, step if div > 0 else Tensor(onp.float32(onp.nan))
    return out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """base ** linspace(start, stop, num)."""
    return as_dtype(F.pow(to_tensor(float(base)) if isinstance(base, numbers.Number) else base,
                          linspace(start, stop, num, endpoint, axis=axis)), dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Samples evenly spaced on a log scale from start to stop (both non-zero)."""
    s, e = to_tensor(start, mstype.float32), to_tensor(stop, mstype.float32)
    out = F.exp(linspace(F.log(s), F.log(e), num, endpoint, axis=axis))
    return as_dtype(out, dtype)


def eye(N, M=None, k=0, dtype=mstype.float32):
    return Tensor(onp.eye(N, M, k, _np_dtype(dtype)))


def identity(n, dtype=mstype.float32):
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=mstype.float32):
    return Tensor(onp.tri(N, M, k, _np_dtype(dtype)))


def tril(m, k=0):
    """The lower triangle of the last two axes (a 1-D input is broadcast to a square first)."""
    m = to_tensor(m)
    if m.ndim == 1:
        m = F.broadcast_to(m, (m.shape[0], m.shape[0]))
    return F.tril(m, k)


def triu(m, k=0):
    m = to_tensor(m)
    if m.ndim == 1:
        m = F.broadcast_to(m, (m.shape[0], m.shape[0]))
    return F.triu(m, k)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The `offset` diagonal of the (axis1, axis2) planes, on a new last axis."""
    a = to_tensor(a)
    if a.ndim < 2:
        raise ValueError(f"For 'mindlite.numpy.diagonal', 'a' must have at least 2 "
                         f"dimensions, but got {a.ndim}")
    a = F.moveaxis(a, (axis1, axis2), (-2, -1))
    n, m = a.shape[-2], a.shape[-1]
    rows = onp.arange(max(0, -offset), min(n, m - offset)) if -n < offset < m else \
        onp.arange(0)
    flat = F.reshape(a, a.shape[:-2] + (n * m,))
    idx = Tensor((rows * m + rows + offset).astype(onp.int32))
    return F.gather(flat, idx, a.ndim - 2)


def diag(v, k=0):
    """1-D input: a matrix with v on diagonal k; 2-D input: its diagonal k."""
    v = to_tensor(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError(f"For 'mindlite.numpy.diag', 'v' must be 1-D or 2-D, but got "
                         f"{v.ndim}-D")
    n = v.shape[0] + abs(k)
    rows = onp.arange(v.shape[0]) + max(0, -k)
    cols = rows + k
    sel = onp.zeros((n * n, max(v.shape[0], 1)), onp.float32)
    sel[rows * n + cols, onp.arange(v.shape[0])] = 1
    out = F.matmul(Tensor(sel.astype(v.dtype.np)) if v.dtype in mstype.FLOAT_TYPES else
                   Tensor(sel), as_dtype(F.reshape(v, (-1, 1)), None if v.dtype in
                                         mstype.FLOAT_TYPES else mstype.float32))
    return as_dtype(F.reshape(out, (n, n)), v.dtype)


def diagflat(v, k=0):
    return diag(F.reshape(to_tensor(v), (-1,)), k)


def vander(x, N=None, increasing=False):
    """Columns x**(N-1), ..., x**0 (increasing: x**0 first)."""
    x = to_tensor(x)
    if x.ndim != 1:
        raise ValueError(f"For 'mindlite.numpy.vander', 'x' must be 1-D, but got {x.ndim}-D")
    N = x.shape[0] if N is None else N
    powers = onp.arange(N) if increasing else onp.arange(N)[::-1]
    return F.pow(F.expand_dims(x, 1), Tensor(powers.astype(x.dtype.np)))


def _window(fn, M):
    return Tensor(fn(M).astype(onp.float32))


def hamming(M):
    return _window(onp.hamming, M)


def hanning(M):
    return _window(onp.hanning, M)


def bartlett(M):
    return _window(onp.bartlett, M)


def blackman(M):
    return _window(onp.blackman, M)


_INDEX_MODES = {"edge", "reflect", "symmetric", "wrap"}
_STAT_MODES = {"maximum": F.amax, "minimum": F.amin, "mean": F.mean}


def _pad_widths(pad_width, ndim):
    w = onp.broadcast_to(onp.asarray(pad_width, dtype=onp.int64).reshape(-1, 2)
                         if onp.ndim(pad_width) > 0 else onp.asarray(pad_width), (ndim, 2))
    if (w < 0).any():
        raise ValueError(f"For 'mindlite.numpy.pad', 'pad_width' must be non-negative, but "
                         f"got {pad_width!r}")
    return [tuple(int(v) for v in row) for row in w]


def pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0,
        reflect_type="even", **kwargs):
    """numpy.pad's modes: constant, edge, reflect, symmetric, wrap, maximum, minimum, mean,
    median, linear_ramp, empty (zeros). Index modes gather along each axis (differentiable)."""
    a = to_tensor(arr)
    widths = _pad_widths(pad_width, a.ndim)
    if reflect_type != "even":
        raise ValueError("For 'mindlite.numpy.pad', only reflect_type='even' is supported, "
                         f"but got {reflect_type!r}")
    for axis, (lo, hi) in enumerate(widths):
        if lo == 0 and hi == 0:
            continue
        n = a.shape[axis]
        if mode in _INDEX_MODES:
            idx = onp.pad(onp.arange(n), (lo, hi), mode)
            a = F.gather(a, Tensor(idx.astype(onp.int32)), axis)
            continue
        parts = [a]
        for side, width in ((0, lo), (1, hi)):
            if width == 0:
                continue
            shape = a.shape[:axis] + (width,) + a.shape[axis + 1:]
            if mode in ("constant", "empty"):
                cv = 0 if mode == "empty" else _side_value(constant_values, axis, side)
                block = F.cast(F.fill(a.dtype, shape, 0), a.dtype) + \
                    to_tensor(cv, a.dtype)
            elif mode in _STAT_MODES or mode == "median":
                k = n if stat_length is None else _side_value(stat_length, axis, side)
                ref = _take_edge(a, axis, side, max(1, min(k, n)))
                if mode == "median":
                    s = F.sort(ref, axis)[0]
                    m = ref.shape[axis]
                    stat = (axis_slice(s, axis, (m - 1) // 2, (m + 1) // 2) +
                            axis_slice(s, axis, m // 2, m // 2 + 1)) \
                        / 2
                    stat = as_dtype(stat, a.dtype)
                else:
                    stat = as_dtype(_STAT_MODES[mode](ref, axis, True), a.dtype)
                block = F.broadcast_to(stat, shape)
            elif mode == "linear_ramp":
                ft = a.dtype if a.dtype in mstype.FLOAT_TYPES else mstype.float32
                edge = F.cast(_take_edge(a, axis, side, 1), ft)
                end = to_tensor(_side_value(end_values, axis, side), ft)
                frac = onp.arange(width, dtype=ft.np) / width
                if side == 1:
                    frac = frac[::-1]
                frac = Tensor(frac.reshape((1,) * axis + (width,) + (1,) *
                                           (a.ndim - axis - 1)))
                block = as_dtype(end + (edge - end) * frac, a.dtype)
            else:
                raise ValueError(f"For 'mindlite.numpy.pad', 'mode' must be one of constant, "
                                 f"edge, reflect, symmetric, wrap, maximum, minimum, mean, "
                                 f"median, linear_ramp, empty, but got {mode!r}")
            parts.insert(0 if side == 0 else len(parts), block)
        a = F.concat(tuple(parts), axis)
    return a


def _side_value(v, axis, side):
    arr = onp.asarray(v)
    if arr.ndim == 0:
        return arr.item()
    arr = arr.reshape(-1, 2) if arr.size > 2 else arr.reshape(1, -1)
    row = arr[axis] if arr.shape[0] > axis else arr[0]
    return row[side] if row.size > 1 else row[0]


def _take_edge(a, axis, side, k):
    n = a.shape[axis]
    return axis_slice(a, axis, 0, k) if side == 0 else axis_slice(a, axis, n - k, n)
