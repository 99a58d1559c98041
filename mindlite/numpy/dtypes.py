"""mindlite.numpy's dtype names and rules: the dtype aliases (`float32`, `int_`, `bool_`,
...), `promote_types`, `result_type`, `isscalar`, and the input conversion every other
family of mindlite/numpy uses (`to_tensor`: Python ints -> int32, floats -> float32, as
MindSpore's numpy module).
"""
import numbers

import numpy as onp

from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..ops import functional as F

__all__ = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "int_", "float_", "promote_types", "result_type",
           "isscalar"]

bool_ = mstype.bool_
int8, int16, int32, int64 = mstype.int8, mstype.int16, mstype.int32, mstype.int64
uint8, uint16, uint32, uint64 = mstype.uint8, mstype.uint16, mstype.uint32, mstype.uint64
float16, float32, float64 = mstype.float16, mstype.float32, mstype.float64
int_ = mstype.int32          # MindSpore's numpy: the default int is int32
float_ = mstype.float32      # and the default float float32


def python_array(obj, dtype=None):
    """A Python number / bool / nested list as an ndarray with MindSpore numpy's defaults."""
    arr = onp.asarray(obj)
    if arr.dtype == onp.float64:
        arr = arr.astype(onp.float32)
    elif arr.dtype.kind in "iu" and arr.dtype != onp.int32:
        arr = arr.astype(onp.int32)
    if dtype is not None:
        arr = arr.astype(mstype.to_type(dtype).np)
    return arr


def to_tensor(x, dtype=None):
    """A Tensor from a Tensor (as is), a numpy array (its dtype), or Python values (int32 /
    float32 / bool), cast to `dtype` when given."""
    if isinstance(x, Tensor):
        t = x
    elif isinstance(x, onp.ndarray):
        t = Tensor(x)
    elif isinstance(x, (numbers.Number, onp.generic, list, tuple)):
        if isinstance(x, (list, tuple)) and any(isinstance(e, Tensor) for e in x):
            return F.stack([to_tensor(e, dtype) for e in x])
        t = Tensor(python_array(x))
    else:
        raise TypeError(f"For 'mindlite.numpy', an input must be a Tensor, number, bool, list "
                        f"or tuple, but got {type(x).__name__}")
    if dtype is not None and t.dtype != mstype.to_type(dtype):
        t = F.cast(t, mstype.to_type(dtype))
    return t


def operand(x):
    """A binary op's operand: Tensors and Python scalars pass (weak scalar typing, as
    `ops.add`); lists and numpy values become Tensors."""
    if isinstance(x, (Tensor, bool, int, float)):
        return x
    return to_tensor(x)


def both_scalars(x1, x2):
    return not isinstance(x1, Tensor) and not isinstance(x2, Tensor)


def as_dtype(t, dtype):
    """`t` cast to `dtype` (None: unchanged)."""
    if dtype is None:
        return t
    dtype = mstype.to_type(dtype)
    if t.dtype == dtype:
        return t
    return F.cast(t, dtype)


def is_float(t):
    return t.dtype in mstype.FLOAT_TYPES


def float_input(x):
    """`x` as a Tensor, ints and bools cast to float32 (MindSpore numpy's transcendental
    functions compute ints in float32)."""
    t = to_tensor(x)
    return t if t.dtype in mstype.FLOAT_TYPES or t.dtype in mstype.COMPLEX_TYPES \
        else as_dtype(t, mstype.float32)


def axis_slice(x, axis, start, stop):
    """x[..., start:stop, ...] on `axis` (a StridedSlice: empty ranges and axes allowed)."""
    return x[(slice(None),) * axis + (slice(start, stop),)]


def promote_types(type1, type2):
    """The dtype both `type1` and `type2` promote to (MindSpore's tensor promotion)."""
    return mstype.promote(mstype.to_type(type1), mstype.to_type(type2))


def result_type(*arrays_and_dtypes):
    """The dtype of an op over these Tensors, dtypes and Python scalars (scalars are weak:
    a float scalar makes an int result float32, an int scalar changes nothing)."""
    out, weak = None, None
    for a in arrays_and_dtypes:
        if isinstance(a, Tensor):
            dt = a.dtype
        elif isinstance(a, bool):
            weak = weak or mstype.bool_
            continue
        elif isinstance(a, int):
            weak = mstype.int32 if weak in (None, mstype.bool_) else weak
            continue
        elif isinstance(a, float):
            weak = mstype.float32
            continue
        else:
            dt = mstype.to_type(a)
        out = dt if out is None else mstype.promote(out, dt)
    if out is None:
        return weak
    if weak is mstype.float32 and out not in mstype.FLOAT_TYPES:
        return mstype.float32
    return out


def isscalar(element):
    """True for a Python number, bool or str (a Tensor, even 0-d, is not a scalar)."""
    return isinstance(element, (numbers.Number, str, bool, onp.generic))
