"""Top-level Tensor helpers of MindSpore 2.10: `tensor` (the constructor as a function),
`from_numpy` (shares memory), `is_tensor`, `frombuffer` (a Tensor over a buffer's bytes),
`swap_tensors` (exchange two Tensors' contents in place), and the Python-type / dtype
conversions `dtype_to_pytype`, `pytype_to_dtype`, `get_py_obj_dtype`."""
import numbers

import numpy as np

from . import dtype as mstype
from .tensor import Tensor

__all__ = ["tensor", "from_numpy", "is_tensor", "frombuffer", "swap_tensors",
           "dtype_to_pytype", "pytype_to_dtype", "get_py_obj_dtype"]


def tensor(input_data=None, dtype=None, shape=None, init=None, const_arg=False, device=None):
    """A new Tensor, as `Tensor(...)` (`device`: only "CPU" or None)."""
    if device not in (None, "CPU", "cpu"):
        raise ValueError(f"For 'tensor', 'device' must be None or 'CPU' on mindlite, but got "
                         f"{device!r}")
    return Tensor(input_data, dtype, shape, init, const_arg)


def from_numpy(array):
    """A Tensor sharing memory with the numpy array."""
    return Tensor.from_numpy(array)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def frombuffer(buffer, dtype, count=-1, offset=0):
    """A 1-D Tensor over `count` items of `dtype` in `buffer` from byte `offset` (a copy:
    the buffer may be read-only)."""
    arr = np.frombuffer(buffer, mstype.to_type(dtype).np, count, offset)
    return Tensor(arr.copy())


def swap_tensors(t1, t2):
    """Exchange the data, shapes and dtypes of two Tensors in place."""
    if not isinstance(t1, Tensor) or not isinstance(t2, Tensor):
        raise TypeError(f"For 'swap_tensors', both inputs must be Tensors, but got "
                        f"{type(t1).__name__} and {type(t2).__name__}")
    a1, a2 = t1._data(), t2._data()
    t1._arr, t2._arr = a2, a1
    t1._abs, t2._abs = t2._abs, t1._abs


_PY = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def dtype_to_pytype(type_):
    """The Python type of a dtype's scalars (bool, int, float or complex)."""
    return _PY[mstype.to_type(type_).kind]


def pytype_to_dtype(obj):
    """The dtype of a Python type or numpy dtype (bool -> Bool, int -> Int64, float ->
    Float64, as MindSpore)."""
    if isinstance(obj, mstype.Type):
        return obj
    if obj is bool:
        return mstype.bool_
    if obj is int:
        return mstype.int64
    if obj is float:
        return mstype.float64
    if obj is complex:
        return mstype.complex128
    try:
        return mstype.from_numpy_dtype(np.dtype(obj))
    except TypeError:
        raise TypeError(f"For 'pytype_to_dtype', {obj!r} is not a Python or numpy type") \
            from None


def get_py_obj_dtype(obj):
    """The dtype of a Python value or type (a Tensor's dtype for a Tensor)."""
    if isinstance(obj, Tensor):
        return obj.dtype
    if isinstance(obj, type):
        return pytype_to_dtype(obj)
    if isinstance(obj, bool):
        return mstype.bool_
    if isinstance(obj, numbers.Integral):
        return mstype.int64
    if isinstance(obj, numbers.Real):
        return mstype.float64
    if isinstance(obj, mstype.Type):
        return obj
    raise TypeError(f"For 'get_py_obj_dtype', the type {type(obj).__name__} has no dtype")
