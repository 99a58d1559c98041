"""MindSpore 2.x's scalar, sequence, tensor-scalar and `*Ext` primitives, as the reader
(reader.py) builds them from a MindIR file MindSpore wrote.

MindSpore 2.x graphs carry Python values between nodes: loop counters, `x.shape` items,
`mutable` inputs (ScalarAdd, ScalarLt, ScalarToTensor, list_getitem, make_list, ...). Those
become `ScalarFn` nodes: a named Python function of the values, which the graph interpreter
(jit/executor.py) calls as any callee; they run on Python ints, floats, bools, tuples and
lists exactly as MindSpore's CPU kernels of them do (ScalarDiv is true division,
ScalarFloorDiv and ScalarMod are Python's floor division and modulo).

The tensor ops MindSpore 2.x writes under names of its own (`LessScalar`, `MatMulExt`, ...)
are mindlite primitives: LOWERINGS in op_table.py's format (reader.py decodes them with
op_table.decode_lowered), and MatMulExt, whose decomposition depends on its inputs' ranks
(read from the shapes the file records), through `matmul_ext`.
"""
import math
import operator

import numpy as np

from ...common.tensor import Tensor
from .values import DTYPE_OF_ID, MindIRFormatError


class ScalarFn:
    """A MindSpore scalar or sequence primitive on Python values (a graph node's callee)."""
    __slots__ = ("name", "fn")

    def __init__(self, name, fn):
        self.name, self.fn = name, fn

    def __call__(self, *args):
        return self.fn(*args)

    def __repr__(self):
        return self.name


def _py(v):
    """A run-time value as Python sees it (a 0-d Tensor a scalar node received: its item)."""
    if isinstance(v, Tensor):
        return v.asnumpy().item() if v.ndim == 0 else tuple(v.asnumpy().tolist())
    return v


def _dtype(type_id, op):
    dtype = DTYPE_OF_ID.get(_py(type_id))
    if dtype is None:
        raise ValueError(f"For '{op}', the dtype must be a MindSpore TypeId, but got "
                         f"{type_id!r}")
    return dtype


def _scalar_cast(x, type_id):
    dtype = _dtype(type_id, "ScalarCast")
    x = _py(x)
    if dtype.kind == "b":
        return bool(x)
    return float(x) if dtype.kind == "f" else int(x)


def _to_tensor(x, type_id, op):
    return Tensor(np.asarray(_py(x), dtype=_dtype(type_id, op).np))


def _binary(fn):
    return lambda a, b: fn(_py(a), _py(b))


def _slice(seq, start, stop, step):
    return seq[slice(_py(start), _py(stop), _py(step))]


def _insert(seq, index, value):
    out = list(seq)
    out.insert(_py(index), value)
    return out


_BINARY = {
    "ScalarAdd": operator.add, "ScalarSub": operator.sub, "ScalarMul": operator.mul,
    "ScalarDiv": operator.truediv, "ScalarFloorDiv": operator.floordiv,
    "ScalarMod": operator.mod, "ScalarPow": operator.pow, "ScalarEq": operator.eq,
    "ScalarGt": operator.gt, "ScalarLt": operator.lt, "ScalarGe": operator.ge,
    "ScalarLe": operator.le, "ScalarMax": max, "ScalarMin": min, "bit_and": operator.and_,
    "bit_or": operator.or_, "tuple_equal": operator.eq, "list_equal": operator.eq,
    "tuple_lt": operator.lt, "list_lt": operator.lt, "tuple_le": operator.le,
    "list_le": operator.le, "tuple_greater_than": operator.gt,
    "list_greater_than": operator.gt, "tuple_greater_equal": operator.ge,
    "list_greater_equal": operator.ge, "SequenceMul": operator.mul,
    "SequenceAdd": operator.add, "SequenceCount": lambda s, x: s.count(x),
    "SequenceIndex": lambda s, x: s.index(x), "InSequence": lambda x, s: x in s,
}
SCALAR_FNS = {name: _binary(fn) for name, fn in _BINARY.items()}
SCALAR_FNS.update({
    "ScalarUadd": lambda x: +_py(x), "ScalarUsub": lambda x: -_py(x),
    "ScalarLog": lambda x: math.log(_py(x)), "ScalarBool": lambda x: bool(_py(x)),
    "bool_not": lambda x: not _py(x), "BoolNot": lambda x: not _py(x),
    "ScalarCast": _scalar_cast,
    "ScalarToTensor": lambda x, t: _to_tensor(x, t, "ScalarToTensor"),
    "TupleToTensor": lambda s, t: _to_tensor(s, t, "TupleToTensor"),
    "ListToTensor": lambda s, t: _to_tensor(s, t, "ListToTensor"),
    "TensorToScalar": lambda x: _py(x),
    "TensorToTuple": lambda x: tuple(np.asarray(x.asnumpy()).tolist()),
    "TensorToList": lambda x: list(np.asarray(x.asnumpy()).tolist()),
    "sequence_len": lambda s: len(s), "SequenceLen": lambda s: len(s),
    "list_getitem": lambda s, i: s[_py(i)], "ListGetItem": lambda s, i: s[_py(i)],
    "RealTupleGetItem": lambda s, i: s[_py(i)],
    "make_list": lambda *xs: list(xs), "MakeList": lambda *xs: list(xs),
    "RealMakeTuple": lambda *xs: tuple(xs),
    "ListAppend": lambda s, x: list(s) + [x], "ListInsert": _insert,
    "SequenceSlice": _slice, "SequenceMax": lambda s: max(s), "SequenceMin": lambda s: min(s),
    "make_range": lambda *a: tuple(range(*(_py(x) for x in a))),
    "shape_mul": lambda s: math.prod(s),
})

# tensor ops MindSpore 2.x writes under their own names, in op_table.LOWERINGS's format
LOWERINGS = {
    "LessScalar": ("Less", "input other"),
    "GreaterEqualScalar": ("GreaterEqual", "input other"),
    "EqScalar": ("Equal", "input other"),
    "FloorDivScalar": ("FloorDiv", "input other"),
    "RemainderTensorScalar": ("FloorMod", "input other"),
    "RemainderScalarTensor": ("FloorMod", "input other"),
    "PowScalarTensor": ("Pow", "input exponent"),
    "MaskedFillScalar": ("MaskedFill", "input mask value"),
    "OnesLikeExt": ("OnesLike", "input dtype:None"),
    "ZerosLikeExt": ("ZerosLike", "input dtype:None"),
}


def _rank(node):
    """The rank of a reader node's value, from the abstract the file recorded (None: not
    known, or not a tensor)."""
    from ...ir.anf import ValueNode
    if isinstance(node, ValueNode):
        v = node.value
        return v.ndim if isinstance(v, Tensor) else None
    shape = getattr(getattr(node, "abstract", None), "shape", None)
    return None if shape is None or -2 in shape else len(shape)


def matmul_ext(apply, a, b, what):
    """MatMulExt(a, b) (ops.matmul: numpy's matmul) as mindlite primitives, chosen by the
    inputs' ranks: MatMul for 2-D @ 2-D, else BatchMatMul (batch dimensions broadcast); a
    1-D operand is a row (left) or column (right) reshaped in and squeezed out again.
    `apply(prim, inputs)` adds a node."""
    from ...ops import operations as P
    ra, rb = _rank(a), _rank(b)
    if ra is None or rb is None:
        raise MindIRFormatError(f"{what}: MatMulExt needs the ranks of its inputs, which the "
                                f"file does not record")
    if ra == 0 or rb == 0:
        raise MindIRFormatError(f"{what}: MatMulExt on a 0-d input")
    x = apply(P.Reshape(), [a, (1, -1)]) if ra == 1 else a
    y = apply(P.Reshape(), [b, (-1, 1)]) if rb == 1 else b
    out = apply(P.MatMul() if max(ra, rb) <= 2 else P.BatchMatMul(), [x, y])
    if ra == 1:
        out = apply(P.Squeeze(-2), [out])
    if rb == 1:
        out = apply(P.Squeeze(-1), [out])
    return out
