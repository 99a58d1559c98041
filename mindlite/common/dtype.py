"""Data types: MindSpore's `mindspore.float32`-style type objects and promotion rules.

A `Type` is an interned object (one per dtype) so it can be compared with `is`
and used in cache keys. Every Type maps to exactly one numpy dtype; kernels see
only numpy dtypes. Promotion follows MindSpore 2.x (see docs/mindspore_api.md):
a float beats any int (float16 + int64 -> float16), ints promote as numpy does,
and Python scalars are "weak": they adopt the tensor's kind where they can.
"""
import numpy as np


class Type:
    """One tensor element type, e.g. `mindlite.float32` (str: Float32)."""
    __slots__ = ("name", "np", "kind", "itemsize", "_title")

    def __init__(self, name, np_dtype, kind):
        self.name = name                      # "float32"
        self.np = np.dtype(np_dtype)          # numpy dtype used by kernels
        self.kind = kind                      # "b" bool, "i" signed, "u" unsigned, "f" float
        self.itemsize = self.np.itemsize
        # MindSpore's printed names: Bool, Int8, UInt8 (not Uint8), Float32
        self._title = "Bool" if name == "bool" else \
            "UInt" + name[4:] if name.startswith("uint") else name.capitalize()

    def __str__(self):
        return self._title

    def __repr__(self):
        return f"mindlite.{self.name if self.name != 'bool' else 'bool_'}"

    def __reduce__(self):
        return (_type_by_name, (self.name,))

    @property
    def is_float(self):
        return self.kind == "f"

    @property
    def is_int(self):
        return self.kind in "iu"


bool_ = Type("bool", np.bool_, "b")
int8 = Type("int8", np.int8, "i")
int16 = Type("int16", np.int16, "i")
int32 = Type("int32", np.int32, "i")
int64 = Type("int64", np.int64, "i")
uint8 = Type("uint8", np.uint8, "u")
uint16 = Type("uint16", np.uint16, "u")
uint32 = Type("uint32", np.uint32, "u")
uint64 = Type("uint64", np.uint64, "u")
float16 = Type("float16", np.float16, "f")
float32 = Type("float32", np.float32, "f")
float64 = Type("float64", np.float64, "f")

# MindSpore aliases
half, single, double = float16, float32, float64
int_, uint = int32, uint32
float_ = float32

ALL_TYPES = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
             float16, float32, float64)
FLOAT_TYPES = (float16, float32, float64)
INT_TYPES = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)
SIGNED_TYPES = (int8, int16, int32, int64) + FLOAT_TYPES
NUMBER_TYPES = INT_TYPES + FLOAT_TYPES
INDEX_TYPES = (int32, int64)

_BY_NP = {t.np: t for t in ALL_TYPES}
_BY_NAME = {t.name: t for t in ALL_TYPES}
_BY_NAME["bool_"] = bool_


def _type_by_name(name):
    return _BY_NAME[name]


def from_numpy_dtype(np_dtype):
    """numpy dtype -> Type (either byte order); raises TypeError for dtypes mindlite has no
    type for."""
    t = _BY_NP.get(np.dtype(np_dtype).newbyteorder("="))
    if t is None:
        raise TypeError(f"mindlite has no tensor type for numpy dtype '{np.dtype(np_dtype)}'; "
                        f"supported: {', '.join(t.name for t in ALL_TYPES)}")
    return t


def to_type(obj):
    """Accept a Type, a numpy dtype / scalar type, or a name ('float32') and return the Type.
    None is refused (numpy would read it as float64)."""
    if isinstance(obj, Type):
        return obj
    if obj is None:
        raise TypeError("expected a mindlite dtype (e.g. mindlite.float32), but got None")
    if isinstance(obj, str) and obj in _BY_NAME:
        return _BY_NAME[obj]
    if obj is bool:
        return bool_
    if obj is int:
        return int64
    if obj is float:
        return float32
    try:
        return from_numpy_dtype(obj)
    except (TypeError, ValueError):
        raise TypeError(f"expected a mindlite dtype (e.g. mindlite.float32), but got {obj!r}")


def dtype_to_nptype(t):
    return to_type(t).np


def nptype_to_dtype(np_dtype):
    return from_numpy_dtype(np_dtype)


def _promote_pair(a, b):
    if a is b:
        return a
    if a.kind == "f" or b.kind == "f":
        if a.kind != "f":
            return b
        if b.kind != "f":
            return a
        return a if a.itemsize >= b.itemsize else b
    if a.kind == "b":
        return b
    if b.kind == "b":
        return a
    return _BY_NP[np.promote_types(a.np, b.np)]


_PROMOTE = {(a, b): _promote_pair(a, b) for a in ALL_TYPES for b in ALL_TYPES}


def promote(a, b):
    """Result type of a binary op between tensors of types a and b (MindSpore's rule)."""
    return _PROMOTE[(a, b)]


def promote_scalar(t, py_type):
    """Result type of tensor(t) op python scalar of type py_type (scalars are weak)."""
    if py_type is float:
        return t if t.kind == "f" else float32
    if py_type is int:
        return int64 if t.kind == "b" else t
    return t                                  # bool scalar keeps the tensor's type


def scalar_type(py_type):
    """Type of a Python scalar used on its own (Tensor(1.0) -> float32, Tensor(1) -> int64)."""
    if py_type is bool:
        return bool_
    if py_type is int:
        return int64
    return float32
