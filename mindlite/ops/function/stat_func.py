"""Statistics, distance and range functional ops of issue 13 with MindSpore 2.x's signatures:
ops.std / var / std_mean / var_mean (axis, ddof, keepdims: ddof 0 or 1 through ReduceStd,
other ddof as MindSpore's composite; float16 computed in float32 on both paths),
ops.logsumexp (MindSpore's composite), ops.cdist, ops.linspace, ops.logspace, ops.meshgrid.
Primitives: ops/operations/stat_ops.py.
"""
import math
import numbers

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import stat_ops as S
from ..operations._base import cached_prim
from ._typed_prims import typed_prim as _prim

__all__ = ["std", "var", "std_mean", "var_mean", "logsumexp", "cdist", "linspace", "logspace",
           "meshgrid"]

_linspace = S.LinSpace()


def _F():
    from .. import functional as F      # functional imports this module
    return F


def _check_var_std(input, ddof, keepdims, axis, name):
    """MindSpore's _check_var_std_input: the normalised axis tuple (() for all)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{name}', the input must be a Tensor, but got "
                        f"{type(input).__name__}")
    if type(ddof) is int and type(keepdims) is bool and (axis is None or type(axis) is int) \
            and type(input) is Tensor and -input.ndim <= (axis or 0) < max(input.ndim, 1):
        return () if axis is None else ((axis % input.ndim,) if input.ndim else ())  # fast path
    if not isinstance(ddof, numbers.Integral):
        raise TypeError(f"For '{name}', the type of 'ddof' should be one of '['int', 'bool']', "
                        f"but got type '{type(ddof).__name__}'.")
    if not isinstance(keepdims, bool):
        raise TypeError(f"For '{name}', the type of 'keepdims' should be 'bool', but got type "
                        f"'{type(keepdims).__name__}'.")
    if axis is None:
        return ()
    if isinstance(axis, numbers.Integral) and not isinstance(axis, bool):
        axis = (axis,)
    if not isinstance(axis, tuple) or not all(isinstance(a, numbers.Integral)
                                              and not isinstance(a, bool) for a in axis):
        raise TypeError(f"For '{name}', each axis should be an int, but got {axis!r}")
    lim = max(input.ndim, 1)
    for a in axis:
        if not -lim <= a < lim:
            raise ValueError(f"For '{name}', the 'axis' must be in the range of [{-lim}, {lim}), "
                             f"but got {a}.")
    return tuple(a % lim for a in axis) if input.ndim else ()


def _reduce_std(input, axis, ddof, keepdims):
    """The shared ReduceStd (attributes already checked: axis a tuple of ints, keepdims a
    bool, ddof 0 or 1, so the untyped key of cached_prim is exact)."""
    return cached_prim(S.ReduceStd, axis, ddof == 1, keepdims)(input)


def _composite(input, axis, ddof, keepdims, root):
    """MindSpore's var_mean composite for ddof other than 0 / 1 (std: its square root before
    the result is cast back), float16 computed in float32 as ReduceStd computes it."""
    F = _F()
    dims = axis or tuple(range(input.ndim))
    half = input.dtype is mstype.float16
    x = F.cast(input, mstype.float32) if half else input
    centered = F.sub(x, F.mean(x, dims, True))
    total = F.sum(F.pow(centered, 2.0), dims, keepdims)
    n = math.prod(input.shape[a] for a in dims)
    v, m = F.div(total, Tensor(float(n - int(ddof)), x.dtype)), F.mean(x, dims, keepdims)
    if root:
        v = F.pow(v, 0.5)
    return (F.cast(v, mstype.float16), F.cast(m, mstype.float16)) if half else (v, m)


def var_mean(input, axis=None, ddof=0, keepdims=False):
    """(variance with divisor N - ddof, mean) over `axis` (None: all)."""
    axis = _check_var_std(input, ddof, keepdims, axis, "var_mean")
    if ddof in (0, 1):
        s, m = _reduce_std(input, axis, ddof, keepdims)
        return _F().pow(s, 2.0), m
    return _composite(input, axis, ddof, keepdims, False)


def std_mean(input, axis=None, ddof=0, keepdims=False):
    """(standard deviation with divisor N - ddof, mean) over `axis` (None: all)."""
    axis = _check_var_std(input, ddof, keepdims, axis, "std_mean")
    if ddof in (0, 1):
        return _reduce_std(input, axis, ddof, keepdims)
    return _composite(input, axis, ddof, keepdims, True)


def std(input, axis=None, ddof=0, keepdims=False):
    """The standard deviation over `axis` with divisor N - ddof."""
    axis = _check_var_std(input, ddof, keepdims, axis, "std")
    if ddof in (0, 1):
        return _reduce_std(input, axis, ddof, keepdims)[0]
    return std_mean(input, axis, ddof, keepdims)[0]


def var(input, axis=None, ddof=0, keepdims=False):
    """The variance over `axis` with divisor N - ddof."""
    _check_var_std(input, ddof, keepdims, axis, "var")
    return var_mean(input, axis, ddof, keepdims)[0]


def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input), dim)) computed as max + log(sum(exp(input - max))) (MindSpore's
    composite: a row of only -inf gives nan, as there). Float inputs."""
    if not isinstance(input, Tensor) or input.dtype.kind != "f":
        raise TypeError(f"For 'logsumexp', the input must be a float Tensor, but got "
                        f"{input.dtype if isinstance(input, Tensor) else type(input).__name__}")
    F = _F()
    dims = dim if isinstance(dim, tuple) else (dim,)
    x_max = F.amax(input, dims, True)
    out = F.log(F.sum(F.exp(F.sub(input, x_max)), dims, keepdim))
    if not keepdim:
        x_max = F.squeeze(x_max, tuple(d % max(input.ndim, 1) for d in dims)) \
            if input.ndim else x_max
    return F.add(out, x_max)


def cdist(x1, x2, p=2.0):
    """p-norm distances between the rows of x1 [B, P, M] and x2 [B, R, M] -> [B, P, R]."""
    return _prim(S.Cdist, p)(x1, x2)


def linspace(start, end, steps):
    """`steps` evenly spaced values from start to end (Python numbers become float32)."""
    if not isinstance(start, Tensor):
        start = Tensor(start, mstype.float32)
    if not isinstance(end, Tensor):
        end = Tensor(end, mstype.float32)
    if isinstance(steps, Tensor) and steps.ndim == 0 and steps.dtype.kind in "iu":
        steps = int(steps.asnumpy())
    return _linspace(start, end, steps)


def logspace(start, end, steps, base=10, *, dtype=mstype.float32):
    """base ** linspace(start, end, steps) in `dtype` (Python numbers become float32)."""
    if isinstance(start, numbers.Real) and not isinstance(start, bool):
        start = Tensor(float(start), mstype.float32)
    if isinstance(end, numbers.Real) and not isinstance(end, bool):
        end = Tensor(float(end), mstype.float32)
    return _prim(S.LogSpace, steps, base, dtype)(start, end)


def meshgrid(*inputs, indexing="xy"):
    """Coordinate grids from 1-D tensors ('xy': Cartesian, 'ij': matrix indexing), a tuple."""
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    return _prim(S.Meshgrid, indexing)(tuple(inputs))
