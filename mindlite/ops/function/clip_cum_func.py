"""Functional ops of issue 13 over clip_cum_ops and reorder_ops, with MindSpore 2.x's
signatures: ops.clip_by_value, ops.isnan / isinf / isfinite, ops.isclose / allclose,
ops.flip, ops.roll, ops.triu / tril, ops.cumsum / cumprod. Primitives with attributes are
kept one per attribute value (bounded), so repeated calls reuse their runner caches.
"""
import numbers

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import clip_cum_ops as C
from ..operations import reorder_ops as R
from ..operations.array_ops import Cast
from ..operations.math_ops import Maximum, Minimum
from ._typed_prims import typed_prim as _prim

__all__ = ["clip_by_value", "isnan", "isinf", "isfinite", "isclose", "allclose", "flip", "roll",
           "triu", "tril", "cumsum", "cumprod"]

_isnan, _isinf, _isfinite = C.IsNan(), C.IsInf(), C.IsFinite()
_cast, _maximum, _minimum = Cast(), Maximum(), Minimum()


def _scalar_int(value):
    """A 0-d int Tensor (MindSpore accepts one for an axis or a diagonal) as an int."""
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype in mstype.INT_TYPES:
        return int(value.asnumpy())
    return value


# ---- clip_by_value ---------------------------------------------------------------------
def _clip_one(x, lo, hi):
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'clip_by_value', the type of argument 'x' must be Tensor or "
                        f"tuple[Tensor] or list[Tensor], but got {type(x).__name__}")
    out = x
    for bound, prim in ((lo, _maximum), (hi, _minimum)):
        if bound is None:
            continue
        if isinstance(bound, Tensor):
            bound = bound if bound.dtype is x.dtype else _cast(bound, x.dtype)
        elif isinstance(bound, numbers.Real) and not isinstance(bound, bool):
            bound = float(bound) if x.dtype.kind == "f" else int(bound)
        else:
            raise TypeError(f"For 'clip_by_value', the clip values must be a Tensor, int or "
                            f"float, but got {type(bound).__name__}")
        out = prim(out, bound)
    return out


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """max(x, clip_value_min) then min(., clip_value_max), the bounds cast to x's dtype first
    (so an int x stays int; where min > max the result is max). x: a Tensor, or a list or
    tuple of Tensors (a tuple of results)."""
    if clip_value_min is None and clip_value_max is None:
        raise ValueError("For 'clip_by_value', at least one of 'clip_value_min' or "
                         "'clip_value_max' must not be None")
    if isinstance(x, (list, tuple)):
        return tuple(_clip_one(t, clip_value_min, clip_value_max) for t in x)
    return _clip_one(x, clip_value_min, clip_value_max)


# ---- value checks ----------------------------------------------------------------------
def isnan(input):
    return _isnan(input)


def isinf(input):
    """Whether each element is +-inf; float tensors only (MindSpore's CPU IsInf refuses ints)."""
    dtype = getattr(input, "dtype", None)
    if dtype is not None and dtype.kind not in "fcV":
        raise TypeError(f"For 'IsInf', the type of 'x' should be a float type, but got {dtype}")
    return _isinf(input)


def isfinite(input):
    return _isfinite(input)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol |other| elementwise (broadcast), bool."""
    return _prim(C.IsClose, rtol, atol, equal_nan)(input, other)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when isclose holds everywhere (a Python bool, as MindSpore's Tensor.allclose)."""
    return bool(isclose(input, other, rtol, atol, equal_nan).asnumpy().all())


# ---- reordering ------------------------------------------------------------------------
def flip(input, dims):
    """input reversed along `dims` (a tuple or list of ints; an int is taken as one axis)."""
    if isinstance(dims, numbers.Integral) and not isinstance(dims, bool):
        dims = (int(dims),)
    return _prim(R.ReverseV2, dims)(input)


def roll(input, shifts, dims=None):
    return _prim(R.Roll, shifts, dims)(input)


def triu(input, diagonal=0):
    return _prim(R.Triu, _scalar_int(diagonal))(input)


def tril(input, diagonal=0):
    return _prim(R.Tril, _scalar_int(diagonal))(input)


# ---- cumulative ------------------------------------------------------------------------
_cumsum, _cumprod = C.CumSum(), C.CumProd()


def cumsum(x, axis, dtype=None):
    """Cumulative sum along `axis`, in x's dtype (ints wrap); `dtype`: cast x first."""
    if dtype is not None:
        x = _cast(x, dtype)
    return _cumsum(x, _scalar_int(axis))


def cumprod(input, dim, dtype=None):
    """Cumulative product along `dim`. `dtype`: cast first; without it int and bool inputs
    are computed in int64 (as MindSpore's ops.cumprod), floats in their own dtype."""
    if dtype is not None:
        input = _cast(input, dtype)
    elif isinstance(input, Tensor) and input.dtype.kind in "biu" and input.dtype is not \
            mstype.int64:
        input = _cast(input, mstype.int64)
    return _cumprod(input, _scalar_int(dim))
