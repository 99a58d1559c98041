"""MindSpore 2.10's scalar, tuple, list, dict, string and bool helpers in ops (the operations its
graph compiler emits for Python syntax: scalar_add for `a + b` on numbers, tuple_getitem for
`t[i]`, make_range for `range(...)`, ...). mindlite's graph mode runs Python on constants at
compile time, so these are plain Python functions with MindSpore's results (a sequence
"set" returns a new tuple, as MindSpore's PyNative does), plus the few that make Tensors
(scalar_to_tensor, tuple_to_array, tensor_range, dyn_shape, bool_not).
"""
import functools
import math
import operator

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor

__all__ = [
    "scalar_add", "scalar_sub", "scalar_mul", "scalar_div", "scalar_floordiv", "scalar_mod",
    "scalar_pow", "scalar_eq", "scalar_ne", "scalar_gt", "scalar_ge", "scalar_lt",
    "scalar_le", "scalar_max", "scalar_min", "scalar_log", "scalar_uadd", "scalar_usub",
    "scalar_cast", "scalar_to_tensor", "scalar_to_array", "array_to_scalar",
    "tuple_to_array", "tuple_getitem", "tuple_len", "tuple_setitem", "tuple_reversed",
    "tuple_div", "tuple_equal", "list_getitem", "list_len", "list_setitem", "list_equal",
    "make_tuple", "make_list", "make_range", "make_dict", "make_slice", "dict_getitem",
    "dict_setitem", "in_dict", "not_in_dict", "string_concat", "string_eq", "bool_and",
    "bool_or", "bool_not", "bool_eq", "is_", "is_not", "shape_mul", "zip_operation",
    "hastype", "typeof", "reduced_shape", "tensor_range", "switch", "mixed_precision_cast",
    "broadcast_gradient_args", "dyn_shape", "is_sequence_shape_unknown",
    "is_sequence_value_unknown", "isconstant", "is_tensor_bool_cond", "hyper_add", "partial",
    "augassign_add", "augassign_sub", "augassign_mul", "augassign_div", "augassign_floordiv",
    "augassign_mod",
]


def scalar_add(x, y): return x + y
def scalar_sub(x, y): return x - y
def scalar_mul(x, y): return x * y
def _one(op, v):
    """The divisor of scalar_div / floordiv / mod, when a Tensor, must hold one element (the
    dividend may be any Tensor, as MindSpore 2.10's: scalar_mod(x, 1) is elementwise)."""
    if isinstance(v, Tensor) and v.size != 1:
        raise ValueError(f"For '{op}', the tensor should have only one element, but got "
                         f"{v.size}, more than one element is ambiguous.")
    return v


def scalar_div(x, y): return x / _one("scalar_div", y)
def scalar_floordiv(x, y): return x // _one("scalar_floordiv", y)
def scalar_mod(x, y): return x % _one("scalar_mod", y)
def scalar_pow(x, y): return x ** y
def scalar_eq(x, y): return x == y
def scalar_ne(x, y): return x != y
def scalar_gt(x, y): return x > y
def scalar_ge(x, y): return x >= y
def scalar_lt(x, y): return x < y
def scalar_le(x, y): return x <= y
def scalar_max(x, y): return max(x, y)
def scalar_min(x, y): return min(x, y)
def scalar_log(x): return math.log(x)
def scalar_uadd(x): return +x
def scalar_usub(x): return -x


def scalar_cast(input_x, input_y):
    """A Python number as int64 (int), float64 (float) or bool."""
    casts = {mstype.int64: int, mstype.float64: float, mstype.bool_: bool}
    if input_y not in casts:
        raise ValueError(f"For 'ScalarCast', the supported type is in the list: "
                         f"[mindspore.int64, mindspore.float64, mindspore.bool], but got "
                         f"{input_y}")
    return casts[input_y](input_x)


def scalar_to_tensor(input_x, dtype=mstype.float32):
    return Tensor(np.array(input_x, dtype=dtype.np))


def scalar_to_array(input_x):
    return Tensor(np.array(input_x, np.float32 if isinstance(input_x, float) else np.int32))


def array_to_scalar(input_x):
    return input_x.asnumpy().reshape(()).item() if isinstance(input_x, Tensor) else input_x


def tuple_to_array(input_x):
    """A 1-D Tensor of a tuple of numbers: int32 for ints, float32 once a float is in it."""
    if not isinstance(input_x, (tuple, list)) or not input_x:
        raise ValueError("For 'tuple_to_array', the input must be a non-empty tuple of numbers")
    floats = any(isinstance(v, float) for v in input_x)
    return Tensor(np.array(input_x, np.float32 if floats else np.int32))


def tuple_getitem(x, i): return x[i]
def tuple_len(x): return len(x)


def tuple_setitem(x, i, value):
    out = list(x)
    out[i] = value
    return tuple(out)


def tuple_reversed(x): return tuple(reversed(x))


def tuple_div(x, y):
    """Elementwise exact division of two int tuples (each must divide)."""
    if len(x) != len(y) or any(b == 0 or a % b for a, b in zip(x, y)):
        raise ValueError(f"For 'tuple_div', every element of {tuple(x)} must be divisible by the "
                         f"matching element of {tuple(y)}")
    return tuple(a // b for a, b in zip(x, y))


def tuple_equal(x, y): return tuple(x) == tuple(y)
def list_getitem(x, i): return x[i]
def list_len(x): return len(x)
list_setitem = tuple_setitem
def list_equal(x, y): return list(x) == list(y)
def make_tuple(*args): return tuple(args)
def make_list(*args): return tuple(args)


def make_range(*args):
    return tuple(range(*args))


def make_dict(keys, values): return dict(zip(keys, values))
def make_slice(*args): return slice(*args)
def dict_getitem(d, key): return d[key]


def dict_setitem(d, key, value):
    out = dict(d)
    out[key] = value
    return out


def in_dict(key, d): return key in d
def not_in_dict(key, d): return key not in d
def string_concat(x, y): return x + y
def string_eq(x, y): return x == y
def bool_and(x, y): return bool(x) and bool(y)
def bool_or(x, y): return bool(x) or bool(y)


def bool_not(x):
    return Tensor(np.array(not bool(x)))


def bool_eq(x, y): return bool(x) == bool(y)
def is_(x, y): return x is y
def is_not(x, y): return x is not y


def shape_mul(shape):
    return functools.reduce(operator.mul, shape, 1)


def zip_operation(*sequences):
    return tuple(zip(*sequences))


def hastype(x, t):
    """Whether x is of MindSpore type t (a Python value's own type)."""
    return typeof(x) == t


def typeof(x):
    if isinstance(x, bool):
        return mstype.bool_
    if isinstance(x, int):
        return mstype.int64
    if isinstance(x, float):
        return mstype.float64
    if isinstance(x, Tensor):
        return x.dtype
    return type(x)


def reduced_shape(shape, axis):
    """shape with the reduced axes set to 1."""
    axes = {a % len(shape) for a in ((axis,) if isinstance(axis, int) else axis)} if shape \
        else set()
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def tensor_range(start, limit, delta):
    return Tensor(np.arange(start, limit, delta))


def switch(cond, true_branch, false_branch):
    return true_branch if cond else false_branch


def mixed_precision_cast(dst_type, input_x):
    """input_x (a Tensor or nested tuple / list / dict of them) with its float tensors cast to
    dst_type."""
    if isinstance(input_x, Tensor):
        if input_x.dtype.kind == "f" and input_x.dtype is not dst_type:
            from .. import functional as F
            return F.cast(input_x, dst_type)
        return input_x
    if isinstance(input_x, (tuple, list)):
        return type(input_x)(mixed_precision_cast(dst_type, v) for v in input_x)
    if isinstance(input_x, dict):
        return {k: mixed_precision_cast(dst_type, v) for k, v in input_x.items()}
    return input_x


def broadcast_gradient_args(shape_x, shape_y):
    """The axes each input's gradient is summed over to undo broadcasting to the common
    shape."""
    out = np.broadcast_shapes(tuple(shape_x), tuple(shape_y))

    def axes(shape):
        lead = len(out) - len(shape)
        return tuple(i for i in range(len(out))
                     if i < lead or (shape[i - lead] == 1 and out[i] != 1))
    return axes(tuple(shape_x)), axes(tuple(shape_y))


def dyn_shape(input_x):
    return Tensor(np.array(input_x.shape, np.int64))


def is_sequence_shape_unknown(x): return False
def is_sequence_value_unknown(x): return False
def isconstant(x): return True


def is_tensor_bool_cond(x):
    """x as a bool condition (a one-element tensor)."""
    if isinstance(x, Tensor) and x.shape not in ((), (1,)):
        raise ValueError(f"Only tensor which shape is () or (1,) can be converted to bool, but "
                         f"got tensor shape is {tuple(x.shape)}")
    return bool(x)


def hyper_add(x, y):
    """x + y elementwise through nested tuples / lists."""
    if isinstance(x, (tuple, list)):
        return type(x)(hyper_add(a, b) for a, b in zip(x, y))
    return x + y


partial = functools.partial


def augassign_add(x, y): return x + y          # `x += y`
def augassign_sub(x, y): return x - y
def augassign_mul(x, y): return x * y
def augassign_div(x, y): return x / y
def augassign_floordiv(x, y): return x // y
def augassign_mod(x, y): return x % y
