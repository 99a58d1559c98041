"""Data types: MindSpore's `mindspore.float32`-style type objects and promotion rules.

A `Type` is an interned object (one per dtype) so it can be compared with `is`
and used in cache keys. Every Type maps to exactly one numpy dtype; kernels see
only numpy dtypes. Promotion follows MindSpore 2.x (see docs/mindspore_api.md):
a float beats any int (float16 + int64 -> float16), ints promote as numpy does,
and Python scalars are "weak": they adopt the tensor's kind where they can.

bfloat16 (MindSpore's BFloat16) uses the numpy dtype of the optional `ml_dtypes` package,
imported at the first use of `bfloat16.np` (not at `import mindlite`: it costs ~2 ms);
without it `mindlite.bfloat16` still exists (it prints and compares) but making a tensor
of it raises a TypeError saying to install ml_dtypes. complex64 / complex128 are numpy's.
Promotion with them follows MindSpore 2.10 on CPU: bfloat16 + float16 -> float32 (neither
holds the other), bfloat16 + wider float -> the wider float, complex + real -> the complex
type wide enough for the real's precision (complex64 + float64 -> complex128).
"""
import numpy as np


class Type:
    """One tensor element type, e.g. `mindlite.float32` (str: Float32)."""
    __slots__ = ("name", "np", "kind", "itemsize", "_title")

    def __init__(self, name, np_dtype, kind):
        self.name = name                      # "float32"
        # numpy dtype used by kernels (None: bfloat16 without ml_dtypes installed)
        self.np = None if np_dtype is None else np.dtype(np_dtype)
        # "b" bool, "i" signed, "u" unsigned, "f" float (bfloat16 included), "c" complex
        self.kind = kind
        self.itemsize = 2 if self.np is None else self.np.itemsize
        self._title = _title(name)

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

    @property
    def is_complex(self):
        return self.kind == "c"


def _title(name):
    """MindSpore's printed names: Bool, Int8, UInt8 (not Uint8), Float32, BFloat16."""
    return "Bool" if name == "bool" else "BFloat16" if name == "bfloat16" else \
        "UInt" + name[4:] if name.startswith("uint") else name.capitalize()


_UNSET = object()


class _OptionalType(Type):
    """A Type whose numpy dtype comes from an optional package, imported at the first use of
    `.np` (bfloat16: ml_dtypes); `.np` is None when the package is not installed."""
    __slots__ = ("_dtype", "_load")

    def __init__(self, name, load, kind, itemsize):
        self.name, self.kind, self.itemsize, self._title = name, kind, itemsize, _title(name)
        self._dtype, self._load = _UNSET, load

    @property
    def np(self):
        d = self._dtype
        if d is _UNSET:
            d = self._dtype = self._load()
            if d is not None:
                _BY_NP[d] = self
        return d


def _bfloat16_dtype():
    try:
        import ml_dtypes
    except ImportError:       # optional: bfloat16 tensors need it (see check_available)
        return None
    return np.dtype(ml_dtypes.bfloat16)


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
bfloat16 = _OptionalType("bfloat16", _bfloat16_dtype, "f", 2)
complex64 = Type("complex64", np.complex64, "c")
complex128 = Type("complex128", np.complex128, "c")

# MindSpore aliases
half, single, double = float16, float32, float64
int_, uint = int32, uint32
float_ = float32
byte, short, intc, long, intp = int8, int16, int32, int64, int64      # numpy's C-type names
ubyte, ushort, uintc, uintp = uint8, uint16, uint32, uint64
cfloat, cdouble = complex64, complex128

ALL_TYPES = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
             float16, float32, float64, bfloat16, complex64, complex128)
# the float types every op accepts; bfloat16 and complex are opt-in per op (BF16_TYPES,
# COMPLEX_TYPES) as MindSpore's CPU kernels, and their kernels compute through float32 / numpy
FLOAT_TYPES = (float16, float32, float64)
BF16_TYPES = (bfloat16,)
COMPLEX_TYPES = (complex64, complex128)
# MindSpore's mstype.float_type / complex_type / int_type / uint_type / number_type /
# all_types (the type groups MindSpore's own tests loop over; no int4/float8 here)
float_type = (float16, float32, float64, bfloat16)
complex_type = COMPLEX_TYPES
int_type = (int8, int16, int32, int64)
uint_type = (uint8, uint16, uint32, uint64)
signed_type = int_type + float_type + complex_type
number_type = int_type + uint_type + float_type + complex_type
all_types = (bool_,) + number_type
INT_TYPES = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)
SIGNED_TYPES = (int8, int16, int32, int64) + FLOAT_TYPES
NUMBER_TYPES = INT_TYPES + FLOAT_TYPES
INDEX_TYPES = (int32, int64)
REAL_TYPES = tuple(t for t in ALL_TYPES if t.kind != "c")    # ordered: no complex
# the dtype lists of the ops that take them (math, MatMul, reductions: see docs/mindspore_api.md)
NUMBER_BF16_TYPES = NUMBER_TYPES + BF16_TYPES
NUMBER_BF16_COMPLEX_TYPES = NUMBER_BF16_TYPES + COMPLEX_TYPES
FLOAT_BF16_COMPLEX_TYPES = FLOAT_TYPES + BF16_TYPES + COMPLEX_TYPES

_BY_NP = {t.np: t for t in ALL_TYPES if not isinstance(t, _OptionalType)}  # + bfloat16 once loaded
_BY_NAME = {t.name: t for t in ALL_TYPES}
_BY_NAME["bool_"] = bool_


def _type_by_name(name):
    return _BY_NAME[name]


def check_available(t):
    """Raise a TypeError if Type `t` has no numpy dtype here (bfloat16 without ml_dtypes)."""
    if t.np is None:
        raise TypeError(f"mindlite.{t.name} tensors need the 'ml_dtypes' package (its numpy "
                        f"bfloat16 dtype): pip install ml_dtypes")
    return t


def from_numpy_dtype(np_dtype):
    """numpy dtype -> Type (either byte order); raises TypeError for dtypes mindlite has no
    type for."""
    np_dtype = np.dtype(np_dtype)
    t = _BY_NP.get(np_dtype if np_dtype.kind == "V" else np_dtype.newbyteorder("="))
    if t is None and np_dtype.kind == "V" and bfloat16.np is not None:   # loads ml_dtypes
        t = _BY_NP.get(np_dtype)
    if t is None:
        raise TypeError(f"mindlite has no tensor type for numpy dtype '{np_dtype}'; "
                        f"supported: {', '.join(t.name for t in ALL_TYPES)}")
    return t


def to_type(obj):
    """Accept a Type, a numpy dtype / scalar type, or a name ('float32') and return the Type.
    None is refused (numpy would read it as float64)."""
    if isinstance(obj, Type):
        return obj if obj.np is not None else check_available(obj)
    if obj is None:
        raise TypeError("expected a mindlite dtype (e.g. mindlite.float32), but got None")
    if isinstance(obj, str) and obj in _BY_NAME:
        return to_type(_BY_NAME[obj])
    if obj is bool:
        return bool_
    if obj is int:
        return int64
    if obj is float:
        return float32
    if obj is complex:
        return complex128
    try:
        return from_numpy_dtype(obj)
    except (TypeError, ValueError):
        raise TypeError(f"expected a mindlite dtype (e.g. mindlite.float32), but got {obj!r}")


def dtype_to_nptype(t):
    return check_available(to_type(t)).np


def nptype_to_dtype(np_dtype):
    return from_numpy_dtype(np_dtype)


_COMPLEX_OF = {float64: "complex128"}    # the complex type holding a real type's precision


def _promote_pair(a, b):
    if a is b:
        return a
    if a.kind == "c" or b.kind == "c":
        if a.kind == "c" and b.kind == "c":
            return a if a.itemsize >= b.itemsize else b
        c, r = (a, b) if a.kind == "c" else (b, a)
        return _BY_NAME[_COMPLEX_OF.get(r, c.name)] if c is complex64 else c
    if {a, b} == {bfloat16, float16}:
        return float32                        # neither holds the other (MindSpore 2.10)
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
    return from_numpy_dtype(np.promote_types(a.np, b.np))


_PROMOTE = {(a, b): _promote_pair(a, b) for a in ALL_TYPES for b in ALL_TYPES}


def promote(a, b):
    """Result type of a binary op between tensors of types a and b (MindSpore's rule)."""
    return _PROMOTE[(a, b)]


def promote_scalar(t, py_type):
    """Result type of tensor(t) op python scalar of type py_type (scalars are weak)."""
    if py_type is float:
        return t if t.kind in "fc" else float32
    if py_type is complex:
        if t.kind == "c":
            return t
        raise TypeError(f"a Python complex scalar cannot be combined with a {t} tensor (as "
                        "MindSpore 2.10); make it a complex Tensor first")
    if py_type is int:
        return int64 if t.kind == "b" else t
    return t                                  # bool scalar keeps the tensor's type


def scalar_type(py_type):
    """Type of a Python scalar used on its own (Tensor(1.0) -> float32, Tensor(1) -> int64)."""
    if py_type is bool:
        return bool_
    if py_type is int:
        return int64
    if py_type is complex:
        return complex128
    return float32


def format_scalar(v):
    """One bfloat16 / float / complex value as MindSpore's repr writes it (1.5, 1+2j, -3-0.5j)."""
    if isinstance(v, (complex, np.complexfloating)):
        return f"{float(v.real):g}{float(v.imag):+g}j"
    return f"{float(v):g}"


def repr_formatter(arr):
    """np.array2string formatter for bfloat16 (%g, right-aligned to one width, as MindSpore)
    and complex (%g parts, unpadded) arrays."""
    if arr.dtype.kind == "c":
        return {"complex_kind": format_scalar}
    width = max((len(format_scalar(v)) for v in arr.ravel().astype(np.float32)[:1000]),
                default=1)
    return {"all": lambda v: format_scalar(v).rjust(width)}
