"""Values <-> MindIR protobuf: tensors <-> TensorProto, constants <-> AttributeProto.

Encoding as MindSpore 2.x writes it: a tensor is `dims` + `data_type` (TensorProto.DataType)
+ little-endian C-order `raw_data`; a scalar constant is an AttributeProto whose `type` names
the scalar type with the value in `i` (bool and ints), `f` (float32), `d` (float64) or `s`
(str); a tuple/list is TUPLE/LIST with one AttributeProto per element in `values` (inside a
sequence MindSpore stores scalars in the repeated fields `ints`/`floats`/`doubles`/`strings`,
both forms are read); a tensor constant is TENSORS with the tensor in `tensors`; None is NONE,
a monad UMONAD/IOMONAD. A node's abstract is its "shape" attribute in the same encoding
(tensors without data). Readers accept the alternative fields MindSpore also reads
(float_data, int32_data, int64_data, double_data). Used by writer.py and reader.py.
"""
import numpy as np

from ...common.abstract import AbstractTensor, abstract_tensor
from ...common import dtype as mstype
from ...common.tensor import Tensor
from . import mind_ir_pb2 as pb

A = pb.AttributeProto
TP = pb.TensorProto

# TensorProto.DataType <-> mindlite dtype (FLOAT64 = 17 and DOUBLE = 11 both read as float64;
# MindSpore writes 11 for float64 tensors)
DATA_TYPES = {
    TP.BOOL: mstype.bool_, TP.INT8: mstype.int8, TP.INT16: mstype.int16,
    TP.INT32: mstype.int32, TP.INT64: mstype.int64, TP.UINT8: mstype.uint8,
    TP.UINT16: mstype.uint16, TP.UINT32: mstype.uint32, TP.UINT64: mstype.uint64,
    TP.FLOAT16: mstype.float16, TP.FLOAT: mstype.float32, TP.DOUBLE: mstype.float64,
    TP.FLOAT64: mstype.float64,
}
# NOTE: types this mindlite may not have (bfloat16 and complex arrived later)
_OPTIONAL = ((TP.BFLOAT16, "bfloat16", 45), (TP.COMPLEX64, "complex64", 51),
             (TP.COMPLEX128, "complex128", 52))
DATA_TYPES.update({code: getattr(mstype, name) for code, name, _ in _OPTIONAL
                   if hasattr(mstype, name)})
DATA_TYPE_OF = {t: code for code, t in DATA_TYPES.items() if code != TP.FLOAT64}

# MindSpore's TypeId numbers: a dtype constant (Cast's dtype input) is written as its TypeId.
# CORE_TYPE_IDS: the dtypes every mindlite has (also the Lite .ms tensor types, lite/schema.py)
CORE_TYPE_IDS = {
    mstype.bool_: 30, mstype.int8: 32, mstype.int16: 33, mstype.int32: 34, mstype.int64: 35,
    mstype.uint8: 37, mstype.uint16: 38, mstype.uint32: 39, mstype.uint64: 40,
    mstype.float16: 42, mstype.float32: 43, mstype.float64: 44,
}
TYPE_IDS = dict(CORE_TYPE_IDS)
TYPE_IDS.update({getattr(mstype, name): tid for _, name, tid in _OPTIONAL
                 if hasattr(mstype, name)})
DTYPE_OF_ID = {v: k for k, v in TYPE_IDS.items()}

# NOTE: `seq_info {is_dyn_len: false}` (a fixed-length tuple, as MindSpore marks them), merged
# from its wire bytes: setting attr.seq_info.is_dyn_len crashes protobuf 4.22's upb runtime
# on an AttributeProto inside a repeated field.
_STATIC_SEQ_INFO = b"\x92\x01\x02\x08\x00"

# AttributeProto.AttributeType of a scalar -> (field, Python type)
_SCALARS = {
    A.BOOL: ("i", bool), A.INT8: ("i", int), A.INT16: ("i", int), A.INT32: ("i", int),
    A.INT64: ("i", int), A.UINT8: ("i", int), A.UINT16: ("i", int), A.UINT32: ("i", int),
    A.UINT64: ("i", int), A.FLOAT: ("f", float), A.FLOAT16: ("f", float),
    A.DOUBLE: ("d", float), A.STRING: ("s", str),
}
# the repeated field a sequence element of that type may use instead
_SEQ_FIELDS = {"i": "ints", "f": "floats", "d": "doubles", "s": "strings"}


class Monad:
    """The value of a UMONAD/IOMONAD (side-effect order token of MindSpore's graphs)."""
    __slots__ = ("kind",)

    def __init__(self, kind="U"):
        self.kind = kind

    def __repr__(self):
        return f"{self.kind}Monad"


U_MONAD = Monad("U")


class MindIRFormatError(ValueError):
    """A value the reader cannot decode (the caller adds file, graph and node names)."""


def _text(value, what):
    if not isinstance(value, bytes):
        return value
    try:
        return value.decode()
    except UnicodeDecodeError:
        raise MindIRFormatError(f"{what}: a string value is not valid UTF-8") from None


def dtype_code(dtype, what):
    code = DATA_TYPE_OF.get(dtype)
    if code is None:
        raise MindIRFormatError(f"{what}: dtype {dtype} has no MindIR data type")
    return code


def tensor_to_proto(value, proto, name=None, with_data=True):
    """Fill TensorProto `proto` from a Tensor / numpy array (dims, data_type, raw_data)."""
    arr = value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)
    dtype = mstype.from_numpy_dtype(arr.dtype)
    proto.dims.extend(int(d) for d in arr.shape)
    proto.data_type = dtype_code(dtype, name or "tensor")
    if name is not None:
        proto.name = name
    if with_data:
        proto.raw_data = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"),
                                                          copy=False).tobytes()
    return proto


def tensor_dtype(proto, what):
    dtype = DATA_TYPES.get(proto.data_type)
    if dtype is None:
        raise MindIRFormatError(f"{what}: unsupported tensor data type {proto.data_type}")
    if dtype.np is None:
        raise MindIRFormatError(f"{what}: a {dtype} tensor needs the ml_dtypes package")
    return dtype


def tensor_from_proto(proto, what, raw=None):
    """A numpy array from TensorProto `proto` (`raw`: the bytes when stored externally)."""
    dtype = tensor_dtype(proto, what)
    shape = tuple(int(d) for d in proto.dims)
    if any(d < 0 for d in shape):
        raise MindIRFormatError(f"{what}: a tensor with data has negative dims {list(shape)}")
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    np_dtype = np.dtype(dtype.np).newbyteorder("<")
    if raw is None:
        raw = proto.raw_data if proto.HasField("raw_data") else None
    if raw is not None:
        if len(raw) != count * np_dtype.itemsize:
            raise MindIRFormatError(f"{what}: raw_data holds {len(raw)} bytes, shape "
                                    f"{list(shape)} of {dtype} needs {count * np_dtype.itemsize}")
        return np.frombuffer(raw, np_dtype).astype(dtype.np).reshape(shape)
    for field in ("float_data", "double_data", "int64_data", "int32_data", "uint64_data"):
        data = getattr(proto, field)
        if len(data):
            if len(data) != count:
                raise MindIRFormatError(f"{what}: {field} holds {len(data)} values, shape "
                                        f"{list(shape)} needs {count}")
            return np.asarray(data).astype(dtype.np).reshape(shape)
    if count == 0:
        return np.zeros(shape, dtype.np)
    raise MindIRFormatError(f"{what}: tensor has no data")


def value_to_attr(value, attr, name=None, in_seq=False):
    """Encode a constant into AttributeProto `attr` (in place; returns it). A scalar goes to
    `i`/`f`/`s`, or to `ints`/`floats`/`strings` as a sequence element (`in_seq`), which
    is where MindSpore's reader looks for it."""
    if name is not None:
        attr.name = name
    if value is None:
        attr.type = A.NONE
    elif isinstance(value, Monad):
        attr.type = A.UMONAD if value.kind == "U" else A.IOMONAD
    elif isinstance(value, mstype.Type):
        if value not in TYPE_IDS:
            raise MindIRFormatError(f"dtype {value} has no MindSpore TypeId")
        attr.type, attr.i = A.INT64, TYPE_IDS[value]
    elif isinstance(value, (bool, np.bool_, int, np.integer, float, np.floating, str)):
        if isinstance(value, (bool, np.bool_)):
            attr.type, field, v = A.BOOL, "i", int(value)
        elif isinstance(value, (int, np.integer)):
            attr.type, field, v = A.INT64, "i", int(value)
        elif isinstance(value, str):
            attr.type, field, v = A.STRING, "s", value.encode()
        else:
            attr.type, field, v = A.FLOAT, "f", float(value)
        if in_seq:
            getattr(attr, _SEQ_FIELDS[field]).append(v)
        else:
            setattr(attr, field, v)
    elif isinstance(value, (tuple, list)):
        attr.type = A.TUPLE if isinstance(value, tuple) else A.LIST
        for v in value:
            value_to_attr(v, attr.values.add(), in_seq=True)
        if isinstance(value, tuple):
            attr.MergeFromString(_STATIC_SEQ_INFO)
    elif isinstance(value, (Tensor, np.ndarray)):
        attr.type = A.TENSORS
        tensor_to_proto(value, attr.tensors.add(), name="value0")
    else:
        raise MindIRFormatError(f"a constant of type {type(value).__name__} ({value!r}) "
                                f"cannot be written to MINDIR")
    return attr


def attr_to_value(attr, what):
    """Decode AttributeProto `attr` into a Python value (scalar, str, tuple, ndarray...)."""
    t = attr.type
    scalar = _SCALARS.get(t)
    if scalar is not None:
        field, kind = scalar
        seq = getattr(attr, _SEQ_FIELDS[field])
        if not attr.HasField(field) and len(seq) == 1:
            v = seq[0]
        elif not attr.HasField(field) and len(seq) > 1:
            return tuple(kind(_text(x, what)) for x in seq)
        else:
            v = getattr(attr, field)
        return kind(_text(v, what))
    if t in (A.TUPLE, A.LIST):
        items = tuple(attr_to_value(v, what) for v in attr.values)
        return items if t == A.TUPLE else list(items)
    if t in (A.TENSORS, A.TENSOR):
        tensors = list(attr.tensors) or ([attr.t] if attr.HasField("t") else [])
        if len(tensors) != 1:
            raise MindIRFormatError(f"{what}: a tensor value holds {len(tensors)} tensors")
        return Tensor(tensor_from_proto(tensors[0], what))
    if t == A.NONE:
        return None
    if t == A.UMONAD:
        return U_MONAD
    if t == A.IOMONAD:
        return Monad("IO")
    name = A.AttributeType.Name(t) if t in A.AttributeType.values() else str(t)
    raise MindIRFormatError(f"{what}: unsupported value type {name}")


def abstract_to_attr(abstract, attr):
    """The "shape" attribute of a node (its abstract, no data); False when unknown."""
    attr.name = "shape"
    if isinstance(abstract, AbstractTensor):
        attr.type = A.TENSORS
        t = attr.tensors.add()
        t.dims.extend(int(d) for d in abstract.shape)
        t.data_type = dtype_code(abstract.dtype, "abstract")
        return True
    if isinstance(abstract, tuple):
        attr.type = A.TUPLE
        ok = all(abstract_to_attr(a, attr.values.add()) for a in abstract)
        attr.MergeFromString(_STATIC_SEQ_INFO)
        for v in attr.values:
            v.ClearField("name")
        return ok
    return False


def abstract_from_attr(attr):
    """A node's abstract from its "shape" attribute (None when it is not a tensor/tuple)."""
    if attr.type == A.TENSORS and len(attr.tensors) == 1:
        t = attr.tensors[0]
        dtype = DATA_TYPES.get(t.data_type)
        if dtype is None:
            return None
        shape = tuple(int(d) for d in t.dims)
        return abstract_tensor(dtype, shape) if all(d >= 0 for d in shape) else \
            AbstractTensor(dtype, shape)
    if attr.type == A.TUPLE:
        return tuple(abstract_from_attr(v) for v in attr.values)
    return None
