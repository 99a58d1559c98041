"""mindlite.numpy's differences, integrals and covariances: `diff`, `ediff1d`, `gradient`,
`trapz`, `unwrap`, `cov`, `corrcoef`. Slices, Sub, Mul and MatMul primitives
(differentiable)."""
import math
import numbers

from ..common import dtype as mstype
from ..ops import functional as F
from .array_creations import diagonal
from .dtypes import axis_slice, float_input, to_tensor

__all__ = ["diff", "ediff1d", "gradient", "trapz", "unwrap", "cov", "corrcoef"]


def _slice(a, axis, start, stop):
    return axis_slice(a, axis, start, stop)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The n-th discrete difference along `axis` (prepend / append joined first)."""
    a = to_tensor(a)
    axis = axis % a.ndim
    parts = []
    for extra in (prepend, a, append):
        if extra is None:
            continue
        e = extra if extra is a else to_tensor(extra, a.dtype)
        if e.ndim == 0:
            e = F.broadcast_to(e, a.shape[:axis] + (1,) + a.shape[axis + 1:])
        parts.append(e)
    if len(parts) > 1:
        a = F.concat(tuple(parts), axis)
    for _ in range(n):
        a = _slice(a, axis, 1, None) - _slice(a, axis, 0, -1)
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened array, with to_begin / to_end joined."""
    a = F.reshape(to_tensor(ary), (-1,))
    d = a[1:] - a[:-1]
    parts = []
    if to_begin is not None:
        parts.append(F.reshape(to_tensor(to_begin, d.dtype), (-1,)))
    parts.append(d)
    if to_end is not None:
        parts.append(F.reshape(to_tensor(to_end, d.dtype), (-1,)))
    return F.concat(tuple(parts), 0) if len(parts) > 1 else d


def gradient(f, *varargs, axis=None, edge_order=1):
    """Central differences inside, one-sided at the edges (edge_order 1), with uniform
    spacing (varargs: one scalar, or one per axis); a tuple for several axes."""
    if edge_order != 1:
        raise ValueError("For 'mindlite.numpy.gradient', only edge_order=1 is supported, as "
                         "MindSpore")
    f = float_input(f)
    axes = tuple(range(f.ndim)) if axis is None else \
        ((axis,) if isinstance(axis, numbers.Integral) else tuple(axis))
    axes = tuple(ax % f.ndim for ax in axes)
    if not varargs:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacing = [float(varargs[0])] * len(axes)
    else:
        spacing = [float(v) for v in varargs]
    out = []
    for ax, h in zip(axes, spacing):
        n = f.shape[ax]
        if n < 2:
            raise ValueError("For 'mindlite.numpy.gradient', each differentiated axis needs at "
                             "least 2 points")
        first = (_slice(f, ax, 1, 2) - _slice(f, ax, 0, 1)) / h
        last = (_slice(f, ax, n - 1, n) - _slice(f, ax, n - 2, n - 1)) / h
        parts = [first]
        if n > 2:
            parts.append((_slice(f, ax, 2, None) - _slice(f, ax, 0, -2)) / (2 * h))
        parts.append(last)
        out.append(F.concat(tuple(parts), ax))
    return out[0] if len(out) == 1 else tuple(out)


def trapz(y, x=None, dx=1.0, axis=-1):
    """The trapezoidal-rule integral along `axis` (sample points x, or spacing dx)."""
    y = float_input(y)
    axis = axis % y.ndim
    mid = (_slice(y, axis, 1, None) + _slice(y, axis, 0, -1)) / 2
    if x is None:
        return F.sum(mid, axis) * dx
    x = float_input(x)
    if x.ndim == 1:
        d = x[1:] - x[:-1]
        d = F.reshape(d, (1,) * axis + (-1,) + (1,) * (y.ndim - axis - 1))
    else:
        d = _slice(x, axis, 1, None) - _slice(x, axis, 0, -1)
    return F.sum(mid * d, axis)


def unwrap(p, discont=math.pi, axis=-1):
    """Phase unwrapping: jumps larger than `discont` replaced by their 2*pi complement."""
    p = float_input(p)
    axis = axis % p.ndim
    dd = _slice(p, axis, 1, None) - _slice(p, axis, 0, -1)
    ddmod = F.floor_mod(dd + math.pi, 2 * math.pi) - math.pi
    ddmod = F.select(F.logical_and(ddmod == -math.pi, dd > 0),
                     F.fill(ddmod.dtype, ddmod.shape, math.pi), ddmod)
    correct = ddmod - dd
    correct = F.select(F.abs(dd) < discont, F.zeros_like(correct), correct)
    shape = p.shape[:axis] + (1,) + p.shape[axis + 1:]
    cum = F.concat((F.zeros(shape, p.dtype), F.cumsum(correct, axis)), axis)
    return p + cum


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """The covariance matrix of the variables (rows, with rowvar) of m (and y)."""
    x = float_input(m)
    if x.ndim == 1:
        x = F.expand_dims(x, 0)
    if not rowvar and x.shape[0] != 1:
        x = F.transpose(x, (1, 0))
    if y is not None:
        yy = float_input(y)
        if yy.ndim == 1:
            yy = F.expand_dims(yy, 0)
        if not rowvar and yy.shape[0] != 1:
            yy = F.transpose(yy, (1, 0))
        x = F.concat((x, F.cast(yy, x.dtype)), 0)
    if ddof is None:
        ddof = 0 if bias else 1
    w = None
    if fweights is not None:
        w = float_input(fweights)
    if aweights is not None:
        aw = float_input(aweights)
        w = aw if w is None else w * aw
    if w is None:
        avg = F.mean(x, 1, True)
        fact = x.shape[1] - ddof
        xc = x - avg
        out = F.matmul(xc, F.transpose(xc, (1, 0))) / fact
    else:
        w = F.cast(w, x.dtype)
        wsum = F.sum(w)
        avg = F.sum(x * w, 1, True) / wsum
        if aweights is None:
            fact = wsum - ddof
        else:
            aw = F.cast(float_input(aweights), x.dtype)
            fact = wsum - ddof * F.sum(w * aw) / wsum
        xc = x - avg
        out = F.matmul(xc * w, F.transpose(xc, (1, 0))) / fact
    out = F.squeeze(out) if out.shape == (1, 1) else out
    return out if dtype is None else F.cast(out, mstype.to_type(dtype))


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlation coefficients (cov normalised by the standard deviations),
    clipped to [-1, 1]."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    d = F.sqrt(diagonal(c))
    c = c / F.reshape(d, (-1, 1)) / F.reshape(d, (1, -1))
    return F.clamp(c, -1.0, 1.0)
