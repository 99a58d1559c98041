"""Item assignment to tensors in graph mode (`x[index] = value`), for the parser's statements.

Eager's Tensor.__setitem__ writes in place (ops/function/setitem_func.py). A graph computes
the written tensor as a new value, with the primitives eager records while a grad tape is
open: new = Select(written, Gather(value, source), x) (MaskedFill for a scalar value), the
positions from the constant index planned now by eager's own rules (index_func._plan), so
the same index and value errors are raised, at compile time. Then:
  - a Parameter (`self.w[0] = 1`, a global Parameter): Assign(p, new), an in-place write
    kept in program order like any other (jit/parse/control.has_effects);
  - a local variable (`y[0] = 1`, y computed in the graph): the name is rebound to new. In
    eager every other name for the same tensor sees the write too, so a tensor another live
    name (or a list, or the caller's frame) also refers to is refused, as is a jit argument
    (eager would write the caller's Tensor) and a variable of an enclosing function; also
    where y may be one of those through a branch on a tensor (`y = x if c else x`:
    parser.may_alias, noted by control.switch).
"""
import numpy as np

from ...common.abstract import AbstractTensor
from ...common.tensor import Tensor
from ...ir.anf import AnfNode, ParameterNode

_PRIMS = {}


def _prim(name):
    hit = _PRIMS.get(name)
    if hit is None:
        from ...ops.operations import array_ops, creation_ops, index_extra_ops, logic_ops
        from ...ops.operations import slice_ops
        mods = (array_ops, creation_ops, index_extra_ops, logic_ops, slice_ops)
        cls = next(getattr(m, name) for m in mods if hasattr(m, name))
        hit = _PRIMS[name] = cls()
    return hit


class _Shape:
    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = shape


def assign_item(parser, target, obj, index, value, frame):
    """`target.value[index] = value` where `obj` (the value of target.value) is a tensor."""
    from .values import is_dyn
    if isinstance(obj, ParameterNode) and obj.default is None and obj.graph is parser.root:
        raise parser.unsupported(
            f"item assignment to the argument '{obj.name}' of the compiled function (eager "
            f"writes the caller's Tensor in place; a graph does not change its inputs)")
    if not isinstance(obj, AnfNode):
        raise parser.unsupported("item assignment to a Tensor the graph did not create (a "
                                 "side effect that would happen once, at compile time)")
    if is_dyn(index):
        raise parser.unsupported("item assignment at an index computed in the graph")
    new = written_value(parser, obj, index, value)
    if isinstance(obj, ParameterNode) and obj.default is not None:     # a weight: in place
        parser.emit_prim(_prim("Assign"), (obj, new))
        return
    import ast
    name = target.value.id if isinstance(target.value, ast.Name) else None
    if name is None:
        raise parser.unsupported("item assignment to a Tensor that is not a local variable "
                                 "or a Parameter")
    if name not in frame.vars:
        raise parser.unsupported(f"item assignment to '{name}' of an enclosing function (eager "
                                 f"writes that function's Tensor in place)")
    for a in parser.__dict__.get("may_alias", {}).get(obj, ()):
        if isinstance(a, ParameterNode) and a.graph is parser.root:
            what = (f"the argument '{a.name}'" if a.default is None else
                    f"the Parameter '{a.default.name}'")
        else:
            what = other_names(parser, a, frame, name)
            what = what and f"the Tensor {what} refers to"
        if what:
            raise parser.unsupported(
                f"item assignment to '{name}', which may be {what} (a branch on a tensor "
                f"gives it unchanged; eager writes that Tensor in place, graph mode computes "
                f"a new value for '{name}')")
    other = other_names(parser, obj, frame, name)
    if other:
        raise parser.unsupported(
            f"item assignment to '{name}', a Tensor that {other} also refers to (eager writes "
            f"the one Tensor both names share; graph mode computes a new value for '{name}')")
    frame.vars[name] = new


def written_value(parser, x, index, value):
    """The tensor x with x[index] = value (a new graph value; see the module docstring)."""
    from ...ops.function.index_func import _plan
    from ...ops.function.setitem_func import _check_broadcast, _write_key
    a = parser.abstract_of(x)
    if not isinstance(a, AbstractTensor) or a.is_dynamic:
        raise parser.unsupported("item assignment to a Tensor with a dynamic dimension")
    shape = tuple(a.shape)
    try:
        basic, adv = _plan(shape, index)
        positions = np.arange(a.size, dtype=np.int64).reshape(shape)
        key, target = _write_key(_Shape(shape), positions, basic, adv)
    except (IndexError, TypeError, ValueError) as err:
        raise parser.error(err) from None
    written = positions[key].reshape(-1)
    mask = np.zeros(a.size, dtype=np.bool_)
    mask[written] = True
    mask_t = Tensor(mask.reshape(shape))
    if isinstance(value, (AnfNode, Tensor)):
        v = _tensor_value(parser, value, a, target)
        if not written.size:
            return x
        source = np.zeros(a.size, dtype=np.int64)
        source[written] = np.arange(written.size, dtype=np.int64)   # the last write wins
        flat = parser.emit_prim(_prim("Reshape"), (v, (written.size,)))
        gathered = parser.emit_prim(_prim("Gather"), (flat, Tensor(source), 0))
        placed = parser.emit_prim(_prim("Reshape"), (gathered, shape))
        return parser.emit_prim(_prim("Select"), (mask_t, placed, x))
    arr = _scalar_array(parser, value, a)
    try:
        _check_broadcast(arr, target)
    except ValueError as err:
        raise parser.error(err) from None
    if not written.size:
        return x
    if arr.ndim == 0:
        return parser.emit_prim(_prim("MaskedFill"), (x, mask_t, Tensor(arr)))
    return written_value(parser, x, index, Tensor(np.ascontiguousarray(arr)))


def _scalar_array(parser, value, a):
    """A Python number, list or ndarray as eager converts it: to x's dtype."""
    try:
        with np.errstate(invalid="ignore", over="ignore"):
            return np.asarray(value).astype(a.np)
    except (TypeError, ValueError):
        raise parser.error(TypeError(
            f"For 'tensor_setitem', 'value' must be a Tensor, number, list or ndarray, but got "
            f"{type(value).__name__}")) from None


def _tensor_value(parser, value, a, target):
    """A Tensor value checked as eager checks it, cast to x's dtype and broadcast to the
    indexed shape."""
    from ...ops.function.setitem_func import _check_broadcast
    va = parser.abstract_of(value)
    if not isinstance(va, AbstractTensor) or va.is_dynamic:
        raise parser.unsupported("item assignment of a value with a dynamic dimension")
    if not np.can_cast(va.np, a.np, "safe"):
        raise parser.error(TypeError(
            f"For 'tensor_setitem', the type of 'value' should be the same as or safely "
            f"castable to the tensor's {a.dtype}, but got {va.dtype}"))
    try:
        stripped = _check_broadcast(np.empty(va.shape, np.bool_), target).shape
    except ValueError as err:
        raise parser.error(err) from None
    v = value
    if va.dtype is not a.dtype:
        v = parser.emit_prim(_prim("Cast"), (v, a.dtype))
    if tuple(stripped) != tuple(va.shape):
        v = parser.emit_prim(_prim("Reshape"), (v, tuple(stripped)))
    if tuple(stripped) != tuple(target):
        from ...ops.operations.array_ops import BroadcastTo
        v = parser.emit_prim(BroadcastTo(tuple(target)), (v,))
    return v


def other_names(parser, node, frame, name):
    """A description of another live reference to the graph value `node` than the
    variable `name` of `frame` (another variable, an item of a container, a variable of
    a calling or enclosing function), or None."""
    if any(v is node for v in parser.__dict__.get("iterating", ())):
        return "a 'for' iterating over it"
    frames = [frame] + [f for f in parser.frames if f is not frame.origin]
    f = frame.enclosing
    while f is not None:
        frames.append(f)
        f = f.enclosing
    for f in frames:
        for k, v in f.vars.items():
            if f is frame and k == name:
                continue
            if v is node:
                return f"the variable '{k}'"
            if isinstance(v, (tuple, list, dict)) and _holds(v, node):
                return f"the container '{k}'"
    return None


def _holds(container, node):
    items = container.values() if isinstance(container, dict) else container
    return any(v is node or (isinstance(v, (tuple, list, dict)) and _holds(v, node))
               for v in items)
