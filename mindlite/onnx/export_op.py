"""The converters' side of ONNX export: CONVERTERS (primitive name -> converter, filled by
@converter in export_ops*.py) and Op, one primitive CNode as a converter sees it: its
attributes, constant inputs, input dtypes / shapes, inputs as ONNX names with the casts
mindlite's promotion implies, and `fail` for a ValueError naming the op and graph. export.py
walks the graph and calls them."""
from ..common.tensor import Tensor
from ..ir.anf import ValueNode
from ._lib import onnx_dtype

CONVERTERS = {}        # primitive name -> fn(Op) returning an ONNX name or a tuple of them


def converter(*names):
    """Register `fn(op)` as the ONNX converter of the primitives `names`."""
    def deco(fn):
        for n in names:
            CONVERTERS[n] = fn
        return fn
    return deco


class Op:
    """One primitive CNode as a converter sees it."""

    def __init__(self, em, cnode, prim):
        self.em = em
        self.cnode = cnode
        self.prim = prim
        self.attrs = getattr(prim, "attrs", {})
        self.args = cnode.args
        self.out = cnode.abstract

    @property
    def name(self):
        return self.prim.name

    def node(self, *a, **k):
        return self.em.node(*a, **k)

    def const(self, i):
        """The constant value of input i (axis, shape, perm...)."""
        a = self.args[i]
        if not isinstance(a, ValueNode):
            raise ValueError(f"export_onnx: for '{self.name}', input {i} must be a constant "
                             f"to export, but it is computed in the graph")
        return a.value

    def is_const(self, i):
        return isinstance(self.args[i], ValueNode)

    def dtype(self, i):
        a = self.args[i]
        if isinstance(a, ValueNode):
            return a.value.dtype if isinstance(a.value, Tensor) else None
        return getattr(a.abstract, "dtype", None)

    def rank(self, i):
        return len(self.args[i].abstract.shape)

    def shape(self, i):
        return tuple(self.args[i].abstract.shape)

    def input(self, i, dtype=None):
        """Input i as an ONNX name; a scalar constant becomes a tensor of `dtype`, a tensor
        of another dtype is cast to `dtype` (the promotion mindlite applied)."""
        a = self.args[i]
        if isinstance(a, ValueNode) and not isinstance(a.value, Tensor):
            return self.em.const(a.value, None if dtype is None else dtype.np)
        name = self.em.value(a)
        own = self.dtype(i)
        if dtype is not None and own is not None and own is not dtype:
            return self.node("Cast", [name], to=onnx_dtype(dtype))
        return name

    def fail(self, why):
        raise ValueError(f"export_onnx: '{self.name}' in @{self.em.graph.name}: {why}")
