"""Signatures of primitive calls: how each input of a call is classified, promoted and keyed,
shared by the eager forward executor (pynative/forward.py), graph-mode inference
(ir/infer.py) and the runner cache keys (ir/primitive.py).

    T, S, L, K              input kinds: tensor, Python scalar, list of tensors, constant
    _group_type(info)       the dtype the same_type_inputs are promoted to (MindSpore's 'T')
    _scalar_py_type         the Python type a scalar input acts as (bool, int or float)
    _check_infer_result     a primitive's infer returned abstract tensor(s) or a constant
    _hashable, _scalar_key  hashable stand-ins of constants and scalars for cache keys
    const_value             a constant input as a plain Python value
"""
import math

import numpy as np

from . import dtype as mstype
from .abstract import AbstractTensor
from .dtype import Type
from .tensor import Tensor

T, S, L, K = "tensor", "scalar", "list", "const"


# Constants that are already plain and hashable: const_value and _hashable return them as
# they are (the hot path of calls like Reshape(x, (2, 3)) or ReduceSum(x, 1)).
_PLAIN = frozenset((int, float, bool, str, type(None), Type))


def _int_tuple(value):
    for v in value:
        if type(v) is not int:
            return False
    return True


def _hashable(value):
    """A hashable stand-in for a constant or attribute value. NOTE: bools and floats carry
    their type, so that True / 1.0 never share a cache entry with 1 (1 == True == 1.0 in
    Python): a cached runner or inference must not let a bad-typed constant through. A zero
    carries its sign (0.0 == -0.0, but 1 / -0.0 is -inf: a program built with one must not
    run the other's cached kernel); numpy and complex scalars are keyed by their bytes."""
    t = type(value)
    if t is float:
        return (t, value) if value else (t, value, math.copysign(1.0, value))
    if t is bool:
        return (t, value)
    if t is complex:
        return (t, repr(value))
    if isinstance(value, np.generic) and value.dtype.kind in "fc":
        return ("npscalar", value.dtype.str, value.tobytes())
    if t in _PLAIN or (t is tuple and _int_tuple(value)):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return value


def _scalar_key(value):
    t = type(value)
    if t is float or t is int or t is bool:
        return t
    if isinstance(value, np.generic):
        if value.dtype.kind == "f":
            return float
        if value.dtype.kind == "b":
            return bool
        if value.dtype.kind in "iu":
            return int
    return ("value", _hashable(value))


def const_value(value):
    """A constant input as a plain Python value (Tensors and arrays become lists/scalars)."""
    t = type(value)
    if t in _PLAIN or (t is tuple and _int_tuple(value)):
        return value
    if isinstance(value, Tensor):
        return value.asnumpy().tolist()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list):
        return tuple(const_value(v) for v in value)
    if isinstance(value, tuple):
        return tuple(const_value(v) for v in value)
    return value


def _group_type(info):
    """The one dtype the primitive's same_type_inputs are promoted to (its signature 'T'), from
    info.prim, info.kinds and info.types (an OpRunInfo, or ir/infer.py's abstract version)."""
    group = info.prim.same_type_inputs
    if not group:
        return None
    tensor_types = [info.types[i] for i in group if i < len(info.kinds) and info.kinds[i] == T]
    scalar_types = [info.types[i] for i in group if i < len(info.kinds) and info.kinds[i] == S]
    if tensor_types:
        target = tensor_types[0]
        for t in tensor_types[1:]:
            target = mstype.promote(target, t)
    elif scalar_types:
        target = mstype.scalar_type(scalar_types[0])
        scalar_types = scalar_types[1:]
    else:
        return None
    for py_type in scalar_types:
        target = mstype.promote_scalar(target, py_type)
    if info.prim.promote_int_to_float and target.kind not in "fc":
        target = mstype.float32
    return target


def check_no_inplace_cast(prim, i, dtype, target):
    """A same-type group's promotion may cast an operand, never one the op updates in place
    (prim.inplace_inputs: a cast copy would be updated instead): TypeError, as MindSpore's."""
    if i in getattr(prim, "inplace_inputs", ()):
        names = prim.input_names
        arg = names[i] if names is not None and i < len(names) else f"input {i}"
        raise TypeError(f"For '{prim.name}', data type conversion is not supported for the "
                        f"input '{arg}' updated in place (a Parameter), so its data type "
                        f"{dtype} cannot be converted to {target} automatically")


def _scalar_py_type(prim, i, value):
    key = _scalar_key(value)              # the Python type a scalar (or numpy scalar) acts as
    if key in (bool, int, float):
        return key
    name = (prim.input_names or ())[i] if prim.input_names and i < len(prim.input_names) \
        else f"input{i}"
    raise TypeError(f"For '{prim.name}', the input '{name}' must be a Tensor, int, float or "
                    f"bool, but got {type(value).__name__}")


def _check_infer_result(prim, out):
    outs = out if isinstance(out, tuple) else (out,)
    for o in outs:
        if isinstance(o, AbstractTensor):
            if not all(isinstance(d, int) for d in o.shape):
                raise ValueError(f"For '{prim.name}', inference produced an invalid shape "
                                 f"{o.shape!r}")
        elif not hasattr(o, "value"):
            raise TypeError(f"For '{prim.name}', inference must return AbstractTensor(s) or a "
                            f"constant, but returned {o!r}")
