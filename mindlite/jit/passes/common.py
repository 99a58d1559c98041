"""What the built-in passes share: which nodes are pure, which are graph outputs (and so
must stay fresh tensors), how to compare abstracts and constants, and small editing steps
on a graph's `order` that keep the manager's users index right.

A pass replaces a node only through `Editor.replace(old, new)`, which refuses a change
that would make a graph's output (or an item of an output tuple) an input tensor or a
constant: eager returns a new tensor from `x * 1`, so the compiled graph must too (the
caller may write it in place). In a graph that writes memory (an Assign, an optimizer
update, a setitem on a Parameter, anywhere in its graphs) it also refuses to make any use
read a graph parameter directly: `a = p * 1` computed before `assign(p, v)` holds p's old
value, but `p` read where `a` is used may come after the write.
"""
import numpy as np

from ...common.abstract import AbstractTensor
from ...common.signature import _hashable
from ...common.tensor import Tensor
from ...ir.anf import MAKE_TUPLE, PRINT, CNode, FuncGraph, IRPrim, ParameterNode, ValueNode
from ...ir.primitive import Primitive

MAX_ROUNDS = 16          # a pass that runs to a fixpoint stops after this many sweeps


def prim_of(node):
    """The Primitive a CNode calls, or None."""
    callee = node.inputs[0]
    if isinstance(callee, ValueNode) and isinstance(callee.value, Primitive):
        return callee.value
    return None


def is_random(prim):
    attrs = prim.attrs
    return bool(attrs.get("side_effect_hidden")) or "seed" in attrs or "seed2" in attrs


def is_pure(node):
    """A primitive or structural call whose value depends on its inputs only: no in-place
    write, no randomness, no print (such nodes are never folded, merged or removed)."""
    if node.side_effect:
        return False
    callee = node.inputs[0]
    if not isinstance(callee, ValueNode):
        return False
    value = callee.value
    if isinstance(value, IRPrim):
        return value is not PRINT
    if isinstance(value, Primitive):
        from ...ir.rules import has_side_effect
        return not has_side_effect(value) and not is_random(value)
    return False


def writes_memory(node):
    """A node that may write memory in place (a print only writes to the console)."""
    if not node.side_effect:
        return False
    callee = node.inputs[0]
    return not (isinstance(callee, ValueNode) and callee.value is PRINT)


def same_abstract(a, b):
    """Two abstracts describe the same tensor type (dtype and shape)."""
    if isinstance(a, AbstractTensor) and isinstance(b, AbstractTensor):
        return a.dtype is b.dtype and tuple(a.shape) == tuple(b.shape)
    return False


def const_equals(node, number, limit=4096):
    """True when `node` is a constant whose every element equals `number` (a Python
    scalar, numpy scalar or a small Tensor)."""
    if not isinstance(node, ValueNode):
        return False
    v = node.value
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float, np.generic)):
        return v == number
    if isinstance(v, Tensor):
        if v.size > limit:
            return False
        arr = v.asnumpy()
        return arr.dtype != np.bool_ and bool(np.all(arr == number))
    return False


def value_key(v):
    """A hashable key under which two constants are interchangeable, or None."""
    if isinstance(v, (Tensor, FuncGraph, Primitive, IRPrim)):
        return ("id", id(v))
    if isinstance(v, (tuple, list)):
        items = tuple(value_key(x) for x in v)
        return None if any(i is None for i in items) else (type(v), items)
    try:
        hash(v)
    except TypeError:
        return None
    if isinstance(v, float) and v != v:
        return None
    if isinstance(v, (float, complex, np.generic)):
        return _hashable(v)             # 0.0 and -0.0 are not interchangeable
    return (type(v), v)


class Editor:
    """Replacements and removals over one FuncGraphManager, guarding graph outputs."""

    def __init__(self, manager):
        self.manager = manager
        self.graphs = manager.graphs()
        self.outputs = set()
        for g in self.graphs:
            self._protect(g.output)
        self.writes = any(writes_memory(n) for g in self.graphs for n in g.order)

    def _protect(self, node):
        self.outputs.add(node.id)
        callee = node.inputs[0] if isinstance(node, CNode) else None
        if isinstance(callee, ValueNode) and callee.value is MAKE_TUPLE:
            for item in node.inputs[1:]:
                self.outputs.add(item.id)

    def can_replace(self, old, new):
        if self.writes and isinstance(new, ParameterNode):
            return False
        if old.id not in self.outputs:
            return True
        return isinstance(new, CNode) and new.id not in self.outputs

    def replace(self, old, new):
        """Rewire every use of `old` to `new`; False (nothing done) when that would turn a
        graph output into an input or a constant."""
        if old is new or not self.can_replace(old, new):
            return False
        if old.id in self.outputs:
            self._protect(new)
        self.manager.replace(old, new)
        return True

    def add_uses(self, node):
        """Index a new CNode's inputs in the manager's users."""
        for i, inp in enumerate(node.inputs):
            self.manager.users[inp].append((node, i))


def new_like(node, inputs, abstract=None):
    """A CNode in `node`'s graph standing for `node` (same debug info, name and abstract)."""
    return CNode(node.graph, inputs, node.abstract if abstract is None else abstract,
                 node.debug, node.name, node.side_effect)


def drop(graph, ids):
    """Remove the CNodes with these ids from `graph.order` (keeping the order's list
    identity fresh, so a cached execution plan is rebuilt)."""
    if ids:
        graph.order = [n for n in graph.order if n.id not in ids]
