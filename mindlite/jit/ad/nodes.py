"""What the J transform asks of a node (shared by ad/transform.py and the replay checks of
ad/recompute.py, below both): the Primitive or the IR primitive / graph it calls, and the
error for a construct it cannot differentiate."""
from ...ir.anf import FuncGraph, IRPrim, ValueNode
from ...ir.primitive import Primitive
from ..errors import UnsupportedSyntaxError


class ADUnsupportedError(UnsupportedSyntaxError):
    """A construct the graph J transform cannot differentiate yet (named in the message)."""


def _prim_of(node):
    callee = node.inputs[0]
    if isinstance(callee, ValueNode) and isinstance(callee.value, Primitive):
        return callee.value
    return None


def _ir(callee):
    if isinstance(callee, ValueNode) and isinstance(callee.value, IRPrim):
        return callee.value
    if isinstance(callee, ValueNode) and isinstance(callee.value, FuncGraph):
        return callee.value
    return callee
