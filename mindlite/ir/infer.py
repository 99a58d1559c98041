"""Abstract inference of one primitive call in a graph: the primitive's own `infer`, after
the same input casting eager does (common/signature.py's promotion), so a graph
node's abstract is exactly the abstract eager would give the same call.

    infer_call(prim, args) -> output abstract, or Folded(value) for constant folding
args: an AbstractTensor per tensor input, the Python value of every constant, a tuple of
those for list inputs (AddN, Concat).
"""
from ..common import abstract as ab
from ..common.abstract import AbstractTensor
from ..common import dtype as mstype
from ..common.signature import (K, L, S, T, _check_infer_result, _group_type, _scalar_py_type,
                                check_no_inplace_cast, const_value)


class Folded:
    """Inference already knew the value (e.g. Shape): the node becomes this constant."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class _Info:
    """The part of forward.OpRunInfo that promotion reads."""
    __slots__ = ("prim", "args", "kinds", "types")

    def __init__(self, prim, args):
        self.prim, self.args, self.kinds, self.types = prim, args, [], []


def infer_call(prim, args):
    names = prim.input_names
    if names is not None and len(args) != len(names):
        raise TypeError(f"For '{prim.name}', expected {len(names)} inputs "
                        f"({', '.join(names)}), but got {len(args)}")
    info = _Info(prim, args)
    for i, a in enumerate(args):
        if i in prim.const_inputs:
            if _has_abstract(a):
                name = names[i] if names and i < len(names) else f"input{i}"
                raise TypeError(f"For '{prim.name}', the input '{name}' must be a constant in "
                                f"graph mode, but got a Tensor computed in the graph")
            info.kinds.append(K)
            info.types.append(None)
        elif isinstance(a, AbstractTensor):
            info.kinds.append(T)
            info.types.append(a.dtype)
        elif isinstance(a, (tuple, list)):
            info.kinds.append(L)
            info.types.append(tuple(_elem_type(prim, i, x) for x in a))
        else:
            info.kinds.append(S)
            info.types.append(_scalar_py_type(prim, i, a))
    target = _group_type(info)
    ins = []
    for i, (kind, a) in enumerate(zip(info.kinds, args)):
        if kind == K:
            ins.append(const_value(a))
        elif kind == L:
            ins.append(tuple(x if isinstance(x, AbstractTensor)
                             else ab.abstract_tensor(t, ()) for x, t in zip(a, info.types[i])))
        elif kind == S:
            t = target if i in prim.same_type_inputs else mstype.scalar_type(info.types[i])
            ins.append(ab.abstract_tensor(t, ()))
        elif i in prim.same_type_inputs and a.dtype is not target:
            check_no_inplace_cast(prim, i, a.dtype, target)
            ins.append(ab.abstract_tensor(target, a.shape))
        else:
            ins.append(a)
    out = prim.infer(*ins)
    _check_infer_result(prim, out)
    if not isinstance(out, (AbstractTensor, tuple)):
        return Folded(out.value)
    if isinstance(out, AbstractTensor) and out.value is not None:
        return Folded(out.value)
    return out


def _has_abstract(a):
    if isinstance(a, AbstractTensor):
        return True
    return isinstance(a, (tuple, list)) and any(_has_abstract(x) for x in a)


def _elem_type(prim, i, x):
    if isinstance(x, AbstractTensor):
        return x.dtype
    return mstype.scalar_type(_scalar_py_type(prim, i, x))
