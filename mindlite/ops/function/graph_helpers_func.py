"""MindSpore's helpers for code written to compile as a graph, as they behave in PyNative
mode (MindSpore 2.10): ops.depend, ops.dtype, ops.rank, ops.tuple_to_array, ops.constexpr,
F.mixed_precision_cast, ops.repeat_elements, and the dispatch composites of ops/multitype.py
(MultitypeFuncGraph, HyperMap, Map, partial) under their ops names.

depend(value, expr) returns value (eager calls already ran expr in order). tuple_to_array
turns a tuple of Python numbers into a Tensor: int32 for ints and bools (wrapping as
MindSpore's cast does), float32 once a float is present or the tuple is nested.
mixed_precision_cast(dtype, x) casts the floating-point Tensors of x (a Tensor, or a
tuple/list of them, nested; a list comes back as a tuple) and leaves everything else as is.
repeat_elements(x, rep, axis) repeats each element rep times along axis (numpy's repeat),
built from ExpandDims, Tile and Reshape so gradients flow.
"""
import functools
import numbers

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..multitype import HyperMap, Map, MultitypeFuncGraph, partial  # noqa: F401
from ..operations import array_ops as P

__all__ = ["depend", "dtype", "rank", "tuple_to_array", "constexpr", "mixed_precision_cast",
           "repeat_elements", "MultitypeFuncGraph", "HyperMap", "Map", "partial"]

_cast = P.Cast()
_reshape = P.Reshape()
_tile = P.Tile()
_expand_dims = P.ExpandDims()
_INT32_MAX = 2 ** 31 - 1


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def depend(value, expr):
    """`value`, after `expr` (in PyNative both are already computed, in order)."""
    return value


def dtype(input):
    """The dtype of a Tensor (F.dtype / ops.dtype)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'dtype', the input must be a Tensor, but got "
                        f"{type(input).__name__}")
    return input.dtype


def rank(input_x):
    """The number of axes of a Tensor, a Python int (as MindSpore 2.10 returns it)."""
    if not isinstance(input_x, Tensor):
        raise TypeError(f"For 'rank', the input x must be a Tensor, but got "
                        f"{type(input_x).__name__}")
    return len(input_x.shape)


def _check_numbers(api, value):
    if isinstance(value, (tuple, list)):
        if not value:
            raise ValueError(f"For '{api}', the input must be a non-empty tuple of numbers")
        for v in value:
            _check_numbers(api, v)
    elif not isinstance(value, numbers.Number) or isinstance(value, complex):
        raise TypeError(f"For '{api}', the elements must be int, float or bool, but got "
                        f"{type(value).__name__}: {value!r}")


def tuple_to_array(input_x):
    """A Tensor from a tuple of numbers: int32 for ints/bools, float32 with any float or when
    nested (MindSpore 2.10)."""
    if not isinstance(input_x, (tuple, list)):
        raise TypeError(f"For 'tuple_to_array', the input must be a tuple of numbers, but got "
                        f"{type(input_x).__name__}")
    _check_numbers("tuple_to_array", input_x)
    nested = isinstance(input_x[0], (tuple, list))
    arr = np.array(input_x, dtype=object)
    if nested or any(isinstance(v, float) for v in arr.ravel()):
        return Tensor(arr.astype(np.float32))
    # ints wrap into int32 as MindSpore's cast does (2**40 -> 0)
    return Tensor(np.array([int(v) for v in arr.ravel()], dtype=np.int64)
                  .astype(np.int32).reshape(arr.shape))


def constexpr(fn=None, get_instance=True, name=None, reuse_result=True, check=True):
    """`@constexpr` / `@constexpr(...)`: a function of constants, evaluated when called."""
    def wrap(f):
        if not callable(f):
            raise TypeError(f"For 'constexpr', the decorated object must be callable, but got "
                            f"{type(f).__name__}")

        @functools.wraps(f)
        def call(*args, **kwargs):
            return f(*args, **kwargs)
        return call
    return wrap(fn) if fn is not None else wrap


def mixed_precision_cast(dst_type, input_x):
    """Casts the floating-point Tensors of input_x (a Tensor or nested tuples/lists) to
    dst_type; other values pass unchanged."""
    if not isinstance(dst_type, mstype.Type):
        raise TypeError(f"For 'mixed_precision_cast', 'dst_type' must be a mindspore dtype, but "
                        f"got {type(dst_type).__name__}: {dst_type!r}")
    if isinstance(input_x, Tensor):
        if input_x.dtype in mstype.float_type and input_x.dtype != dst_type:
            return _cast(input_x, dst_type)
        return input_x
    if isinstance(input_x, (tuple, list)):
        return tuple(mixed_precision_cast(dst_type, v) for v in input_x)
    return input_x


def repeat_elements(x, rep, axis=0):
    """Each element of x repeated `rep` times along `axis` (numpy.repeat with an int rep)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'repeat_elements', 'x' must be a Tensor, but got "
                        f"{type(x).__name__}")
    if x.dtype not in mstype.NUMBER_TYPES:
        raise TypeError(f"For 'repeat_elements', 'x' must be a number dtype, but got {x.dtype}")
    if not _is_int(rep):
        raise TypeError(f"For 'repeat_elements', the 'rep' must be 'int', but got "
                        f"'{type(rep).__name__}'.")
    if not 0 < rep <= _INT32_MAX:
        raise ValueError(f"For 'repeat_elements', the 'rep' must be in range of (0, "
                         f"{_INT32_MAX}], but got {rep}.")
    ndim = len(x.shape)
    if not _is_int(axis):
        raise TypeError(f"For 'repeat_elements', the 'axis' must be 'int', but got "
                        f"'{type(axis).__name__}'.")
    if not -ndim <= axis < ndim:
        raise ValueError(f"For 'repeat_elements', the 'axis' must be in range of [{-ndim}, "
                         f"{ndim}), but got {axis}.")
    axis %= ndim
    if rep == 1:
        return x
    y = _tile(_expand_dims(x, axis + 1), (1,) * (axis + 1) + (rep,) + (1,) * (ndim - axis - 1))
    shape = tuple(x.shape)
    return _reshape(y, shape[:axis] + (shape[axis] * rep,) + shape[axis + 1:])
