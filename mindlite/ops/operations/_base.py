"""Shared shapes of primitives: elementwise unary and binary (broadcasting) ops.

A concrete op is a subclass with a docstring stating its math, the dtypes it
accepts and, for binary ops, what its output dtype is (the input's, or bool).
Binary ops promote both inputs to one dtype before inference (same_type_inputs),
so `infer` sees x and y with equal dtypes; logical ops do not promote and demand
bool outputs, as MindSpore's LogicalAnd / LogicalOr / LogicalNot.

Also the helpers bprops share: needs_grad (which inputs get a gradient at all), cached_prim
(one primitive instance per attribute combination, so its runners are reused), sibling (the
op of another class built with a primitive's arguments: a pooling op's gradient) and
linear_pair_bprops (the bprops of a linear op and its gradient, e.g. average pooling).
"""
from ...cache_limits import remember
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...ir.rules import bprop_for
from ...common.api import PYNATIVE
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import broadcast_shape, check_dtype, check_same_dtype, check_tensor, tensor


class UnaryOp(Primitive):
    """y = f(x), same shape and dtype as x."""
    input_names = ("x",)
    valid_types = mstype.NUMBER_TYPES

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x):
        check_dtype(self, "x", x, self.valid_types)
        return x


class FloatUnaryOp(UnaryOp):
    """Transcendental: float inputs only (as MindSpore's CPU kernels); int input is a TypeError."""
    valid_types = mstype.FLOAT_TYPES


class BinaryOp(Primitive):
    """z = f(x, y) with broadcasting; x and y are promoted to one dtype first."""
    input_names = ("x", "y")
    same_type_inputs = (0, 1)
    valid_types = mstype.ALL_TYPES
    output_bool = False

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x, y):
        shape = binary_shape(self, x, y, self.valid_types)
        return tensor(mstype.bool_ if self.output_bool else x.dtype, shape)


def binary_shape(prim, x, y, valid_types, same_dtype=False):
    """The checks of a broadcasting binary op's inputs (both tensors, x's dtype in
    `valid_types`, with `same_dtype` y's dtype equal to x's) and its output shape."""
    check_tensor(prim, "x", x)
    check_tensor(prim, "y", y)
    check_dtype(prim, "x", x, valid_types)
    if same_dtype:
        check_same_dtype(prim, [("x", x), ("y", y)])
    return x.shape if x.shape == y.shape else broadcast_shape(prim, x.shape, y.shape)


class CompareOp(BinaryOp):
    """z = x <op> y -> bool, after promotion of x and y to one dtype."""
    output_bool = True


class LogicalBinaryOp(BinaryOp):
    """z = x <op> y -> bool on each element's truth value: bool, number and complex tensors,
    of one dtype or not (no promotion), as MindSpore 2.10's CPU kernels."""
    same_type_inputs = ()
    valid_types = (mstype.bool_,) + mstype.NUMBER_TYPES + mstype.COMPLEX_TYPES
    output_bool = True

    def infer(self, x, y):
        check_dtype(self, "x", x, self.valid_types)
        check_dtype(self, "y", y, self.valid_types)
        return super().infer(x, y)


def needs_grad(x):
    """True for a float or complex Tensor the running backward follows: backward gives no gradient
    to Python scalars, int or bool tensors, nor to tensors its tape does not track (data
    inputs such as a first layer's x), so a bprop skips computing theirs (and never runs a
    float-only op on an int). The backward pass is the calling thread's own."""
    if not (isinstance(x, Tensor) and x.dtype.kind in "fc"):
        return False
    tracked = PYNATIVE.grad.backward_tracked
    return not tracked or id(x) in tracked[-1]


_PRIMS = {}


def cached_prim(cls, *attrs):
    """The shared instance of cls(*attrs) (bprops build primitives from a forward op's attrs)."""
    key = (cls, attrs)
    prim = _PRIMS.get(key)
    if prim is None:
        prim = remember(_PRIMS, key, cls(*attrs))
    return prim


_SIBLINGS = {}


def sibling(prim, cls):
    """The primitive of class `cls` built with the arguments `prim` was built with (cached):
    a pooling op's gradient from the op, and the op from its gradient."""
    key = (cls, prim.attrs_key)
    p = _SIBLINGS.get(key)
    if p is None:
        p = cls(**{k: v for k, v in prim.init_args.items() if k != "self"})
        remember(_SIBLINGS, key, p)
    return p


def linear_pair_bprops(forward, grad):
    """Register the bprops of a linear op `forward` (average pooling) and its gradient `grad`,
    built with the same arguments: d forward(x) = grad(x, dout); grad is linear in its gradient
    input, whose own gradient is forward(g)."""
    @bprop_for(forward)
    def forward_bprop(prim, x, out, dout):
        return (sibling(prim, grad)(x, dout),)

    @bprop_for(grad)
    def grad_bprop(prim, x, dy, out, g):
        return None, sibling(prim, forward)(g)
