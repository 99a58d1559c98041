"""What the parser evaluates over besides constants and graph nodes, and the tests on values
shared by its parts (parser.py, expr.py, call.py, grad.py): Frame (one activation of a parsed
function), GraphClosure (a def or lambda in graph code), GraphMethod (a Tensor method bound
to a graph value), is_dyn (a value computed in the graph), is_tensor.
"""
from ...common.abstract import AbstractTensor
from ...common.tensor import Tensor
from ...ir.anf import AnfNode


class Frame:
    """One activation of a parsed function: its variables and where names resolve."""

    def __init__(self, file, globals_, closure, enclosing=None, name="", in_loop=False):
        self.vars = {}
        self.file = file
        self.globals = globals_
        self.closure = closure
        self.enclosing = enclosing
        self.name = name
        self.in_loop = in_loop
        self.first_arg = None        # the first parameter's name: zero-argument super()'s object

    def fork(self, in_loop=None):
        f = Frame(self.file, self.globals, self.closure, self.enclosing, self.name,
                  self.in_loop if in_loop is None else in_loop)
        f.vars = dict(self.vars)
        f.first_arg = self.first_arg
        f.origin = self.origin
        return f

    # the activation a fork was made from (branches fork their frame): item assignment's
    # alias check (setitem.py) tells another activation from the same one
    origin = property(lambda self: self.__dict__.get("_origin", self),
                      lambda self, v: self.__dict__.__setitem__("_origin", v))


class GraphClosure:
    """A function defined inside graph code (def or lambda): its ast and defining frame."""

    def __init__(self, node, frame, defaults, kw_defaults):
        self.node = node
        self.frame = frame
        self.defaults = defaults
        self.kw_defaults = kw_defaults
        self.__name__ = getattr(node, "name", "<lambda>")


class GraphMethod:
    """A Tensor method bound to a graph value: `x.reshape` where x is a node."""

    def __init__(self, func, obj):
        self.func = func
        self.obj = obj


def is_dyn(v):
    """True when `v` is (or holds) a value computed in the graph."""
    if isinstance(v, AnfNode):
        return True
    if isinstance(v, (tuple, list)):
        return any(is_dyn(x) for x in v)
    if isinstance(v, dict):
        return any(is_dyn(x) for x in v.values())
    return False


def is_tensor(v):
    return isinstance(v, Tensor) or (isinstance(v, AnfNode)
                                     and isinstance(v.abstract, AbstractTensor))


def is_transform(fn):
    """A function made by grad / value_and_grad / GradOperation / vmap: its graph comes from
    the transform (grad.special_call), not from its Python source."""
    return getattr(fn, "_ml_grad", None) is not None or getattr(fn, "_ml_vmap", None) is not None
