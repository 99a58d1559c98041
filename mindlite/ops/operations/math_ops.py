"""Arithmetic primitives (Neg, Add, Sub, Mul, Div, FloorDiv, Mod, Maximum, ...), AddN and
MatMul / BatchMatMul, each with its bprop below it. Kernels: kernels/cpu/math_*.py.

The rest of the math family lives beside it and is re-exported from here, so
`math_ops.Exp` / `from .math_ops import Equal` keep working: elementwise_ops.py (unary
math and Pow), logic_ops.py (comparisons, logical ops, Select).

Binary ops broadcast and promote their two inputs to one dtype first (MindSpore's
implicit type conversion, docs/mindspore_api.md); Div / RealDiv promote int and
bool to float32. A bprop may return a gradient of the broadcast output shape:
backward sums it back to the input's shape and casts it to the input's dtype.
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from .. import functional as F  # bprops only (the namespace loads at first use)
from ..validator import (broadcast_shape, check_bool, check_dtype, check_same_dtype,
                         check_tensor, tensor)
from ._base import BinaryOp, UnaryOp, cached_prim, needs_grad
from .creation_ops import ZerosLike
from .logic_ops import Equal, Greater, Less, Select

_OWN = ["Neg", "Add", "Sub", "Mul", "Div", "RealDiv", "FloorDiv", "FloorMod", "Mod",
        "TruncateDiv", "Maximum", "Minimum", "SquaredDifference", "AddN", "MatMul", "BatchMatMul"]

_select, _zeros_like = Select(), ZerosLike()
_greater, _less, _equal = Greater(), Less(), Equal()


def zeros_grad(x):
    """The zero gradient of a piecewise-constant op's input: zeros_like(x), as MindSpore (None
    for a non-float input). ZerosLike is non-differentiable: never recorded."""
    return _zeros_like(x) if needs_grad(x) else None


class Neg(UnaryOp):
    """y = -x. Gradient -1. Unsigned ints wrap modulo 2**bits (as numpy and C)."""
    valid_types = mstype.NUMBER_BF16_COMPLEX_TYPES


_neg = Neg()


@bprop_for(Neg)
def neg_bprop(prim, x, out, dout):
    return (_neg(dout) if needs_grad(x) else None,)


# ---- binary arithmetic ------------------------------------------------------------------
class Add(BinaryOp):
    """z = x + y (bool + bool is logical or, as numpy). Gradient (1, 1), summed over broadcast
    dimensions."""


@bprop_for(Add)
def add_bprop(prim, x, y, out, dout):
    return (dout if needs_grad(x) else None), (dout if needs_grad(y) else None)


class Sub(BinaryOp):
    """z = x - y; not defined on bool (TypeError). Gradient (1, -1)."""
    valid_types = mstype.NUMBER_BF16_COMPLEX_TYPES


@bprop_for(Sub)
def sub_bprop(prim, x, y, out, dout):
    return (dout if needs_grad(x) else None), (_neg(dout) if needs_grad(y) else None)


class Mul(BinaryOp):
    """z = x * y (bool * bool is logical and). Gradient (y, x)."""


_mul = Mul()


@bprop_for(Mul)
def mul_bprop(prim, x, y, out, dout):
    return (_mul(dout, y) if needs_grad(x) else None), (_mul(dout, x) if needs_grad(y) else None)


class Div(BinaryOp):
    """z = x / y, true division: int and bool inputs give float32 (int32 / int32 -> float32).
    x/0 = +-inf, 0/0 = nan. Gradient (1/y, -x/y**2) = (1/y, -z/y)."""
    promote_int_to_float = True
    valid_types = mstype.FLOAT_BF16_COMPLEX_TYPES


class RealDiv(BinaryOp):
    """z = x / y. Floats and complex as Div; unlike Div, int inputs stay ints (MindSpore 2.10's
    CPU RealDiv): the quotient truncated toward zero (-7 / 2 = -3), x / 0 the dtype's max for
    x > 0, its min for x < 0, 0 / 0 = 0. Bool is a TypeError. Gradient as Div's."""
    valid_types = mstype.NUMBER_BF16_COMPLEX_TYPES


_div = Div()


@bprop_for(Div, RealDiv)
def div_bprop(prim, x, y, out, dout):
    dx = _div(dout, y) if needs_grad(x) else None
    dy = _neg(_div(_mul(dout, out), y)) if needs_grad(y) else None
    return dx, dy


class FloorDiv(BinaryOp):
    """z = floor(x / y); ints stay ints. Int division by zero gives 0 (numpy's convention;
    MindSpore documents it as unsupported), floats give +-inf / nan. Gradient 0 (zeros for
    both inputs, as MindSpore)."""
    valid_types = mstype.NUMBER_TYPES


class TruncateDiv(BinaryOp):
    """z = trunc(x / y), rounding toward zero; ints stay ints (int division by zero gives 0).
    Gradient 0 (zeros for both inputs)."""
    valid_types = mstype.NUMBER_TYPES


@bprop_for(FloorDiv, TruncateDiv)
def floor_div_bprop(prim, x, y, out, dout):
    return zeros_grad(x), zeros_grad(y)


class FloorMod(BinaryOp):
    """z = x - floor(x / y) * y: the remainder takes the sign of y (Python's %). Int x % 0 = 0,
    float x % 0 = nan. Gradient (1, -floor(x / y)), as MindSpore (the jumps are ignored)."""
    valid_types = mstype.NUMBER_TYPES


class Mod(BinaryOp):
    """z = fmod(x, y) = x - trunc(x / y) * y: the remainder takes the sign of x (C's fmod,
    MindSpore's ops.Mod: Mod(-4, 3) = -1). Int x mod 0 = 0, float = nan. Gradient
    (1, -trunc(x / y))."""
    valid_types = mstype.NUMBER_TYPES


_floor_div, _truncate_div = FloorDiv(), TruncateDiv()


@bprop_for(FloorMod, Mod)
def floor_mod_bprop(prim, x, y, out, dout):
    quotient = _floor_div if type(prim) is FloorMod else _truncate_div
    dx = dout if needs_grad(x) else None
    dy = _mul(dout, _neg(quotient(x, y))) if needs_grad(y) else None
    return dx, dy


class Maximum(BinaryOp):
    """z = max(x, y); nan if either is nan (as MindSpore). Gradient goes to x where x > y, to y
    where x < y (or a nan compares false), and half to each where x == y (MindSpore 2.10's
    MaximumGrad splits ties: maximum(x, 0) has gradient 0.5 at x = 0)."""
    valid_types = mstype.REAL_TYPES


class Minimum(BinaryOp):
    """z = min(x, y); nan if either is nan. Gradient goes to x where x < y, half to each on a
    tie (as Maximum)."""
    valid_types = mstype.REAL_TYPES


def min_max_grads(is_max, x, y, dout, want_x=True, want_y=True):
    """(dx, dy) of max(x, y) (is_max) or min(x, y): dout to the winner, half to each on a tie
    (MindSpore 2.10's MaximumGrad / MinimumGrad); None where not wanted."""
    to_x = (_greater if is_max else _less)(x, y)
    tie = _equal(x, y)
    half = _mul(dout, 0.5)
    dx = _select(to_x, dout, _select(tie, half, 0.0)) if want_x else None
    dy = _select(to_x, 0.0, _select(tie, half, dout)) if want_y else None
    return dx, dy


@bprop_for(Maximum, Minimum)
def maximum_minimum_bprop(prim, x, y, out, dout):
    return min_max_grads(type(prim) is Maximum, x, y, dout, needs_grad(x), needs_grad(y))


class SquaredDifference(BinaryOp):
    """z = (x - y)**2, for complex (x - y) * conj(x - y) = |x - y|**2 (MindSpore's CPU kernel).
    Float, int32/int64 and complex inputs, as MindSpore 2.10 (other ints and bool are a
    TypeError). Gradient (2 (x - y), -2 (x - y)), no conjugate for complex (as MindSpore)."""
    valid_types = mstype.FLOAT_TYPES + (mstype.int32, mstype.int64) + mstype.COMPLEX_TYPES


_sub = Sub()


@bprop_for(SquaredDifference)
def squared_difference_bprop(prim, x, y, out, dout):
    grad = _mul(_mul(dout, _sub(x, y)), 2.0)
    return (grad if needs_grad(x) else None), (_neg(grad) if needs_grad(y) else None)


class AddN(Primitive):
    """z = x[0] + x[1] + ... for a tuple or list of tensors of one shape and dtype (no
    broadcasting, no promotion). Gradient dz for every input: the bprop returns one tuple of
    per-element gradients in the list position."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, xs):
        if not isinstance(xs, tuple):
            raise TypeError(f"For '{self.name}', the input 'x' must be a tuple or list of "
                            f"Tensors, but got {type(xs).__name__}")
        if not xs:
            raise ValueError(f"For '{self.name}', the input 'x' must hold at least one Tensor, "
                             f"but got an empty sequence")
        for i, a in enumerate(xs):
            check_dtype(self, f"x[{i}]", a, mstype.NUMBER_TYPES)
        check_same_dtype(self, [(f"x[{i}]", a) for i, a in enumerate(xs)])
        shape = xs[0].shape
        for i, a in enumerate(xs[1:], 1):
            if a.shape != shape:
                if len(a.shape) != len(shape) or any(
                        d != e and d != -1 and e != -1 for d, e in zip(a.shape, shape)):
                    raise ValueError(f"For '{self.name}', the shape of 'x[{i}]' should be same "
                                     f"as 'x[0]', but got {list(a.shape)} and "
                                     f"{list(xs[0].shape)}")
                # a dynamic dim (-1, graph mode) takes the other input's size, as MindSpore
                shape = tuple(e if d == -1 else d for d, e in zip(shape, a.shape))
        return xs[0] if shape == xs[0].shape else tensor(xs[0].dtype, shape)


@bprop_for(AddN)
def addn_bprop(prim, xs, out, dout):
    return (tuple(dout if needs_grad(x) else None for x in xs),)


# ---- matrix products --------------------------------------------------------------------
class MatMulShapeError(ValueError, RuntimeError):
    """Operands whose inner dimensions differ. MindSpore 2.10 raises RuntimeError for
    ops.matmul, `@` and Tensor.matmul (its MatMulExt) and ValueError for ops.MatMul and
    BatchMatMul, in PyNative and graph mode alike: this error is both, so code catching
    either catches it."""


class MatMul(Primitive):
    """z = op(x1) @ op(x2), op = transpose if transpose_a / transpose_b; 2-D, same dtype.
    Gradient (dz @ op(x2).T, op(x1).T @ dz), transposed back as the attributes say."""
    input_names = ("x1", "x2")

    @prim_attr_register
    def __init__(self, transpose_a=False, transpose_b=False):
        check_bool(self, "transpose_a", transpose_a)
        check_bool(self, "transpose_b", transpose_b)

    def infer(self, x1, x2):
        check_tensor(self, "x1", x1)
        check_tensor(self, "x2", x2)
        check_same_dtype(self, [("x1", x1), ("x2", x2)])
        check_dtype(self, "x1", x1, mstype.NUMBER_BF16_COMPLEX_TYPES)
        if len(x1.shape) != 2 or len(x2.shape) != 2:
            raise ValueError(f"For '{self.name}', the input dimensions must be 2, but got 'x1' "
                             f"shape {list(x1.shape)} and 'x2' shape {list(x2.shape)}")
        ta, tb = self.attrs["transpose_a"], self.attrs["transpose_b"]
        m, k1 = (x1.shape[1], x1.shape[0]) if ta else x1.shape
        k2, n = (x2.shape[1], x2.shape[0]) if tb else x2.shape
        if k1 != k2:
            raise MatMulShapeError(f"For '{self.name}' the input dimensions must be equal, but "
                                   f"got 'x1_col': {k1} and 'x2_row': {k2}.")
        return tensor(x1.dtype, (m, n))

    def kernel_params(self, x1, x2):
        return {"transpose_a": self.attrs["transpose_a"],
                "transpose_b": self.attrs["transpose_b"]}


@bprop_for(MatMul)
def matmul_bprop(prim, x1, x2, out, dout):
    return _matmul_grads(MatMul, prim, x1, x2, dout)


def _matmul_grads(cls, prim, a, b, dout, grad_b=True):
    """z = A B with A = op(a), B = op(b): dA = dz B^T, dB = A^T dz, each written as one
    product of a, b and dz with transpose flags (no explicit transposes), batched or not."""
    ta, tb = prim.attrs["transpose_a"], prim.attrs["transpose_b"]
    da = db = None
    if needs_grad(a):     # ta: dA^T = B dz^T = op(b) dz^T
        da = cached_prim(cls, tb, True)(b, dout) if ta else cached_prim(cls, False, not tb)(dout, b)
    if grad_b and needs_grad(b):     # tb: dB^T = dz^T A = dz^T op(a)
        db = cached_prim(cls, True, ta)(dout, a) if tb else cached_prim(cls, not ta, False)(a, dout)
    return da, db


class BatchMatMul(Primitive):
    """z[..., :, :] = op(x)[..., :, :] @ op(y)[..., :, :] over the last two axes, op = swap of
    the last two axes if transpose_a / transpose_b; rank >= 2, same dtype, leading (batch)
    dimensions broadcast as numpy.matmul. Gradient as MatMul per batch, summed over
    broadcast batch dimensions."""
    input_names = ("x", "y")

    @prim_attr_register
    def __init__(self, transpose_a=False, transpose_b=False):
        check_bool(self, "transpose_a", transpose_a)
        check_bool(self, "transpose_b", transpose_b)

    def infer(self, x, y):
        check_tensor(self, "x", x)
        check_tensor(self, "y", y)
        check_same_dtype(self, [("x", x), ("y", y)])
        check_dtype(self, "x", x, mstype.NUMBER_BF16_COMPLEX_TYPES)
        if len(x.shape) < 2 or len(y.shape) < 2:
            raise ValueError(f"For '{self.name}', the rank of 'x' and 'y' must be at least 2, "
                             f"but got 'x' shape {list(x.shape)} and 'y' shape {list(y.shape)}")
        ta, tb = self.attrs["transpose_a"], self.attrs["transpose_b"]
        m, k1 = x.shape[-2:][::-1] if ta else x.shape[-2:]
        k2, n = y.shape[-2:][::-1] if tb else y.shape[-2:]
        if k1 != k2:
            raise MatMulShapeError(f"For '{self.name}' the input dimensions must be equal, but "
                                   f"got 'x_col': {k1} and 'y_row': {k2}.")
        try:
            batch = broadcast_shape(self, x.shape[:-2], y.shape[:-2])
        except ValueError:
            raise ValueError(f"For '{self.name}', the batch dimensions of 'x' and 'y' must "
                             f"broadcast, but got 'x' shape {list(x.shape)} and 'y' shape "
                             f"{list(y.shape)}") from None
        return tensor(x.dtype, batch + (m, n))

    def kernel_params(self, x, y):
        return {"transpose_a": self.attrs["transpose_a"],
                "transpose_b": self.attrs["transpose_b"]}


@bprop_for(BatchMatMul)
def batch_matmul_bprop(prim, x, y, out, dout):
    # the gradients carry the broadcast batch dimensions; backward sums them back. A 2-D y
    # broadcast over x's batch (a weight applied to (S, N, E) activations, as the attention
    # projections do) gets its gradient as ONE MatMul with the batch folded into the rows,
    # not a batch of products summed afterwards: (64, 32, 128) activations and a 128 x 128
    # weight took 0.9-1.4 ms that way, one 128 x 2048 x 128 GEMM ~0.3 ms.
    if len(y.shape) == 2 and len(x.shape) > 2 and not prim.attrs["transpose_a"]:
        dx, _ = _matmul_grads(BatchMatMul, prim, x, y, dout, False)
        dy = None
        if needs_grad(y):
            rows = 1
            for d in x.shape[:-1]:
                rows *= d
            x2 = F.reshape(x, (rows, x.shape[-1]))
            d2 = F.reshape(dout, (rows, dout.shape[-1]))
            mm = cached_prim(MatMul, True, False)
            dy = mm(d2, x2) if prim.attrs["transpose_b"] else mm(x2, d2)
        return dx, dy
    return _matmul_grads(BatchMatMul, prim, x, y, dout)


# NOTE: re-exported at the end: elementwise_ops imports the arithmetic primitives above. When
# elementwise_ops is the module imported first, it is still half-built here; it then calls
# _reexport itself once its names exist (its last line).
__all__ = list(_OWN)


def _reexport(module):
    """Bind `module.__all__` here (what `from module import *` did), once."""
    for name in module.__all__:
        globals()[name] = getattr(module, name)
        if name not in __all__:
            __all__.append(name)


from . import logic_ops as _logic  # noqa: E402
from . import elementwise_ops as _elementwise  # noqa: E402

_reexport(_logic)
if hasattr(_elementwise, "__all__") and hasattr(_elementwise, _elementwise.__all__[-1]):
    _reexport(_elementwise)
