"""constant_folding: a pure primitive CNode whose inputs are all constants (ValueNodes)
becomes a ValueNode holding its value, computed by the primitive's normal call (the same
kernel eager runs); structural nodes fold too: MakeTuple of constants, TupleGetItem of a
constant tuple, Switch on a constant condition (-> the chosen branch graph, which `inline`
then inlines). Side-effect nodes (in-place writers, random ops, Custom, Print) never fold.
The parser already folds what it sees constant; this pass folds what later passes expose.
"""
from ...common.abstract import AbstractTensor
from ...common.tensor import Tensor
from ...ir.anf import MAKE_TUPLE, SWITCH, TUPLE_GETITEM, ValueNode
from .common import MAX_ROUNDS, Editor, drop, is_pure, prim_of


def _matches(value, abstract):
    if isinstance(abstract, AbstractTensor):
        return isinstance(value, Tensor) and value.dtype is abstract.dtype and \
            tuple(value.shape) == tuple(abstract.shape)
    if isinstance(abstract, tuple):
        return isinstance(value, tuple) and len(value) == len(abstract) and all(
            _matches(v, a) for v, a in zip(value, abstract))
    return False


def fold(node):
    """The ValueNode `node` folds to, or None."""
    args = node.inputs[1:]
    if not is_pure(node) or not all(isinstance(a, ValueNode) for a in args):
        return None
    values = [a.value for a in args]
    callee = node.inputs[0].value
    if callee is MAKE_TUPLE:
        return ValueNode(tuple(values), node.abstract)
    if callee is TUPLE_GETITEM:
        seq, index = values
        if isinstance(seq, (tuple, list)) and isinstance(index, int) and \
                -len(seq) <= index < len(seq):
            return ValueNode(seq[index], node.abstract)
        return None
    if callee is SWITCH:
        try:
            pick = bool(values[0])
        except Exception:
            return None
        return args[1] if pick else args[2]
    if prim_of(node) is None:
        return None
    try:
        value = callee(*values)
    except Exception:
        return None                # left for run time, where it raises as eager would
    if not _matches(value, node.abstract):
        return None
    return ValueNode(value, node.abstract)


def run(root, manager):
    changed = False
    for _ in range(MAX_ROUNDS):
        editor = Editor(manager)
        swept = False
        for g in editor.graphs:
            gone = set()
            for node in g.order:
                new = fold(node)
                if new is not None and editor.replace(node, new):
                    gone.add(node.id)
            drop(g, gone)
            swept |= bool(gone)
        if not swept:
            break
        changed = True
    return changed
