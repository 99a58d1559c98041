"""Tensor: a light handle on a numpy array plus its interned abstract (the op signature).

The hot path reads only two fields, `_arr` (the data) and `_abs` (the interned
AbstractTensor used as the cache key); they live in the C base `_C.TensorBase`
(MindSpore's Tensor_), so the C fast path (csrc/bind/fast_path.cc) reads them and
creates result Tensors without Python code. Every method and operator goes through a
primitive (ops/functional.py), so it is recorded for autograd like any op.
Construction rules follow MindSpore (docs/mindspore_api.md): Python floats
become float32, Python ints int64, numpy arrays keep their dtype and are copied.
"""
import numbers
import threading

import numpy as np

from .. import _C
from . import abstract
from . import dtype as mstype
from . import limits
from . import tensor_methods, tensor_methods_index, tensor_methods_math
from . import tensor_methods_complex, tensor_methods_dtype, tensor_methods_inplace
from . import tensor_methods_elementwise, tensor_methods_shape, tensor_methods_stat
from . import tensor_methods_runtime, tensor_overload
from .api import PYNATIVE
from . import initializer, interop

_PLACEHOLDER = object()           # Tensor._init of a dynamic-shape placeholder (no data)
# the classes that hold Tensor's named methods, one module per family; each module's `F`
# (ops.functional) is bound at the end of this file, once functional can import Tensor
_METHOD_MODULES = (tensor_methods, tensor_methods_index, tensor_methods_math, interop,
                   tensor_methods_complex, tensor_methods_dtype, tensor_methods_inplace,
                   tensor_methods_elementwise, tensor_methods_shape, tensor_methods_stat,
                   tensor_methods_runtime)
_METHOD_MIXINS = tuple(m.METHODS for m in _METHOD_MODULES)


def _from_python(data):
    """list / tuple / scalar -> ndarray with MindSpore's dtype rules for Python values."""
    if isinstance(data, (list, tuple)) and any(isinstance(d, Tensor) for d in data):
        data = [d.asnumpy() if isinstance(d, Tensor) else d for d in data]
    arr = np.array(data)
    if arr.dtype == np.float64 and not _has_numpy_float64(data):
        arr = arr.astype(np.float32)
    elif arr.dtype.kind in "iu" and not isinstance(data, np.generic) and arr.dtype != np.int64:
        if not _has_numpy_values(data):
            arr = arr.astype(np.int64)
    return arr


def _native(arr):
    """`arr` as a base-class ndarray in native byte order: np.matrix and other subclasses are
    viewed as ndarray (their operators and shape rules differ from a tensor's), big-endian data
    is converted (kernels read native values). Already native ndarrays come back as they are."""
    if type(arr) is not np.ndarray:
        arr = arr.view(np.ndarray)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


def _has_numpy_float64(data):
    if isinstance(data, (np.ndarray, np.float64)):
        return True
    if isinstance(data, (list, tuple)):
        return any(_has_numpy_float64(d) for d in data)
    return False


def _has_numpy_values(data):
    if isinstance(data, (np.ndarray, np.generic)):
        return True
    if isinstance(data, (list, tuple)):
        return any(_has_numpy_values(d) for d in data)
    return False


# NOTE: one lock for every lazy tensor's first materialisation (rare, never on the hot path);
# re-entrant, as an initializer may materialise another tensor.
_INIT_LOCK = threading.RLock()


class Tensor(_C.TensorBase, *_METHOD_MIXINS):
    """A tensor: `Tensor(input_data=None, dtype=None, shape=None, init=None)`."""
    __slots__ = ("_init", "__weakref__")

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, const_arg=False):
        if dtype is not None:
            dtype = mstype.to_type(dtype)
        if init is not None or (input_data is None and shape is not None):
            if input_data is not None:
                raise ValueError("For 'Tensor', 'init' and 'input_data' cannot both be given")
            if shape is None or dtype is None:
                raise ValueError("For 'Tensor', lazy initialisation needs 'shape' and 'dtype', "
                                 f"but got shape={shape!r}, dtype={dtype!r}")
            shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
            if any(d is None or d < 0 for d in shape):
                self._set_placeholder(init, dtype, shape)
                return
            self._set_lazy(init, dtype, limits.check_output_size("Tensor", "'shape'", shape))
            return
        if input_data is None:
            raise ValueError("For 'Tensor', 'input_data' is required when no 'shape' and 'init' "
                             "are given, but got None")
        if isinstance(input_data, Tensor):
            arr = np.array(input_data.asnumpy())
        elif isinstance(input_data, np.ndarray):
            arr = _native(np.array(input_data))
        elif isinstance(input_data, (numbers.Number, np.generic, list, tuple)):
            arr = _from_python(input_data)
        elif hasattr(input_data, "__dlpack__"):           # torch tensors, jax arrays: a copy
            arr = _native(np.array(interop.import_array(input_data, "Tensor")))
        elif hasattr(input_data, "__array__"):
            arr = _native(np.array(input_data))
        else:
            raise TypeError("For 'Tensor', 'input_data' must be a Tensor, numpy array, list, "
                            "tuple, number, or an object with __dlpack__ or __array__, but got "
                            f"{type(input_data).__name__}")
        if dtype is not None and arr.dtype != dtype.np:
            arr = arr.astype(dtype.np)
        self._arr = arr
        self._abs = abstract.abstract_of_array(arr)

    def _set_lazy(self, init, dtype, shape):
        self._arr = None
        self._init = init
        self._abs = abstract.lazy_abstract(dtype, shape)

    def _set_placeholder(self, init, dtype, shape):
        """Tensor(shape=[None, 3], dtype=...): a graph-mode input signature without data;
        None (or -1) is a dynamic dimension (jit input_signature, Cell.set_inputs)."""
        if init is not None:
            raise ValueError(f"For 'Tensor', a dynamic shape {list(shape)} needs init=None, "
                             f"but got init={init!r}")
        if any(d is not None and d < -1 for d in shape):
            raise ValueError(f"For 'Tensor', a dimension of 'shape' must be a non-negative "
                             f"int, -1 or None (dynamic), but got {list(shape)}")
        self._arr = None
        self._init = _PLACEHOLDER
        self._abs = abstract.abstract_tensor(dtype, tuple(-1 if d is None else d for d in shape))

    @classmethod
    def from_numpy(cls, array):
        """A Tensor sharing memory with `array` (a view: reshaping `array` later is not seen).
        A subclass (np.matrix) is viewed as a plain ndarray; a non-native byte order is
        converted, which copies."""
        if not isinstance(array, np.ndarray):
            raise TypeError(f"For 'Tensor.from_numpy', expected a numpy array, but got "
                            f"{type(array).__name__}")
        t = cls.__new__(cls)
        t._arr = _native(array.view(np.ndarray))
        t._abs = abstract.abstract_of_array(t._arr)
        return t

    def init_data(self):
        """Materialise a lazily initialised tensor (initializer given at construction), once: a
        thread that comes while another materialises it waits, and both see the same values."""
        if self._arr is None:
            if self._init is _PLACEHOLDER:
                raise ValueError(f"For 'Tensor', a placeholder of dynamic shape "
                                 f"{list(self._abs.shape)} has no data (it is an input "
                                 f"signature for graph mode)")
            with _INIT_LOCK:
                if self._arr is None:
                    from .initializer import materialize
                    arr = materialize(self._init, self._abs.shape, self._abs.dtype)
                    self._abs = abstract.abstract_of_array(arr)   # before _arr: readers
                    self._arr = arr                              # test _arr, then read _abs
        return self

    # ---- attributes -------------------------------------------------------------------
    @property
    def shape(self):
        return self._abs.shape

    @property
    def dtype(self):
        return self._abs.dtype

    @property
    def ndim(self):
        return len(self._abs.shape)

    @property
    def size(self):
        return self._abs.size

    @property
    def itemsize(self):
        return self._abs.dtype.itemsize

    @property
    def nbytes(self):
        return self._abs.size * self._abs.dtype.itemsize

    @property
    def strides(self):
        return self._data().strides

    def _data(self):
        if self._arr is None:
            self.init_data()
        return self._arr

    def asnumpy(self):
        """The data as a numpy array (shares memory with the tensor, as in MindSpore)."""
        return self._data()

    def numpy(self):
        return self._data()

    def item(self):
        arr = self._data()
        if arr.size != 1:
            raise ValueError(f"For 'Tensor.item', the tensor must have exactly one element, but "
                             f"got shape {list(arr.shape)}")
        return arr.reshape(()).item()

    def tolist(self):
        return self._data().tolist()

    def __array__(self, dtype=None, copy=None):
        arr = self._data()
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def __len__(self):
        if not self._abs.shape:
            raise TypeError("len() of a 0-d tensor")
        return self._abs.shape[0]

    def __iter__(self):
        if not self._abs.shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._abs.shape[0]))

    def __bool__(self):
        arr = self._data()
        if arr.size != 1:
            raise ValueError("The truth value of a Tensor with more than one element is "
                             "ambiguous; use .any() or .all()")
        return bool(arr.reshape(()))

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if not self._abs.dtype.is_int:
            raise TypeError(f"only integer tensors can be used as an index, got {self._abs.dtype}")
        return int(self.item())

    __hash__ = object.__hash__
    # no __array_ufunc__, as MindSpore 2.10: numpy converts a Tensor through __array__, so
    # np.exp(t), ndarray + t and np.float64(1.5) + t are ndarrays (docs/mindspore_api.md)

    def __repr__(self):
        if self._arr is None:
            if self._init is _PLACEHOLDER:          # MindSpore's text for a placeholder
                return f"Tensor(shape={list(self._abs.shape)}, dtype={self._abs.dtype}, value=\n)"
            return (f"Tensor(shape={list(self._abs.shape)}, dtype={self._abs.dtype}, "
                    f"value=<not initialized: {self._init!r}>)")
        arr = self._arr
        if arr.ndim == 0:
            v = arr.item()
            text = mstype.format_scalar(v) if isinstance(v, (float, complex)) or \
                self._abs.dtype is mstype.bfloat16 else str(v)
            return f"Tensor(shape=[], dtype={self._abs.dtype}, value= {text})"
        fmt = None
        if arr.dtype.kind == "f":
            fmt = {"float_kind": lambda v: f"{v: .8e}"}
        elif arr.dtype.kind in "cV":            # complex, bfloat16: %g, as MindSpore prints them
            fmt = mstype.repr_formatter(arr)
        text = np.array2string(arr, separator=", ", formatter=fmt, threshold=1000)
        sep = "\n" if arr.ndim > 1 else " "
        return f"Tensor(shape={list(arr.shape)}, dtype={self._abs.dtype}, value={sep}{text})"

    def __str__(self):
        if self._arr is None:
            return repr(self)
        return str(self._arr)

    def astype(self, dtype, copy=True):
        return F.cast(self, mstype.to_type(dtype))

    def copy(self):
        return Tensor(self)

    def set_dtype(self, dtype):
        """Change the dtype in place (the signature changes, so cached runners do not match);
        returns the new dtype, as MindSpore 2.10."""
        dtype = mstype.to_type(dtype)
        self._arr = self._data().astype(dtype.np)
        self._abs = abstract.abstract_of_array(self._arr)
        _log_write(self, "Tensor.set_dtype")
        return dtype

    def __reduce__(self):
        """copy / deepcopy / pickle: the values (the C base's fields are not slots)."""
        return (Tensor, (self._data(),))

    def assign_value(self, value):
        """Replace the data in place (shape and dtype may change; the signature follows)."""
        arr = value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)
        self._arr = _native(np.array(arr))
        self._abs = abstract.abstract_of_array(self._arr)
        _log_write(self, "Tensor.assign_value")
        return self

    # ---- operators (each one a primitive call) ---------------------------------------
    def __add__(self, other): return F.add(self, other)
    def __radd__(self, other): return F.add(other, self)
    def __sub__(self, other): return F.sub(self, other)
    def __rsub__(self, other): return F.sub(other, self)
    def __mul__(self, other): return F.mul(self, other)
    def __rmul__(self, other): return F.mul(other, self)
    def __truediv__(self, other): return F.div(self, other)
    def __rtruediv__(self, other): return F.div(other, self)
    def __floordiv__(self, other): return F.floor_div(self, other)
    def __rfloordiv__(self, other): return F.floor_div(other, self)
    def __mod__(self, other): return F.floor_mod(self, other)
    def __rmod__(self, other): return F.floor_mod(other, self)
    def __pow__(self, other): return F.pow(self, other)
    def __rpow__(self, other): return F.pow(other, self)
    def __matmul__(self, other): return F.matmul(self, other)
    def __rmatmul__(self, other): return F.matmul(other, self)
    def __neg__(self): return F.neg(self)
    def __pos__(self): return self
    def __abs__(self): return F.abs(self)
    def __invert__(self): return F.logical_not(self)
    # &, |, ^ are bitwise on ints and logical on bools (MindSpore 2.10; floats: TypeError)
    def __and__(self, other): return F.bitwise_and(self, other)
    def __rand__(self, other): return F.bitwise_and(other, self)
    def __or__(self, other): return F.bitwise_or(self, other)
    def __ror__(self, other): return F.bitwise_or(other, self)
    def __xor__(self, other): return F.bitwise_xor(self, other)
    def __rxor__(self, other): return F.bitwise_xor(other, self)
    def __eq__(self, other): return F.equal(self, other)
    def __ne__(self, other): return F.not_equal(self, other)
    def __lt__(self, other): return F.less(self, other)
    def __le__(self, other): return F.less_equal(self, other)
    def __gt__(self, other): return F.greater(self, other)
    def __ge__(self, other): return F.greater_equal(self, other)
    def __getitem__(self, index): return F.tensor_getitem(self, index)

    def __setitem__(self, index, value):
        F.tensor_setitem(self, index, value)


_C.set_tensor_type(Tensor)       # the type the C fast path creates results as


def _log_write(t, op):
    """An open grad call that used t fails at backward (pynative/inplace.py, reached through
    its slot): the new buffer replaces the values its recorded ops saw."""
    PYNATIVE.log_write(t, op)


F = None      # mindlite.ops.functional: bound by bind_functional (the ops floor is above)


def bind_functional(functional):
    """Tensor's operators and methods call ops.functional (`F`); mindlite/_wiring.py binds it
    here and in the method modules once both are imported (functional imports Tensor)."""
    global F
    F = functional
    for m in _METHOD_MODULES:
        m.F = functional


# the modules holding Tensor's methods and helpers get the class itself from here, as they
# cannot import this module (it imports them)
for _m in _METHOD_MODULES:
    _m.Tensor = Tensor
initializer.Tensor = Tensor
tensor_overload.Tensor = Tensor

