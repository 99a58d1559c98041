"""Elementwise math primitives: unary, binary arithmetic, comparison, logical, Select, AddN,
and MatMul / BatchMatMul. Kernels: kernels/cpu/math_*.py; bprops: ops/bprop/math_bprop.py.

Binary ops broadcast and promote their two inputs to one dtype first (MindSpore's
implicit type conversion, shared/MINDSPORE_API.md); Div / RealDiv promote int and
bool to float32. Transcendental ops accept float tensors only, as MindSpore's CPU
kernels: an int input is a TypeError naming the op, not a silent cast.
"""
from ...common import dtype as mstype
from ..primitive import Primitive, prim_attr_register
from ..validator import (broadcast_shape, check_bool, check_dtype, check_same_dtype,
                         check_tensor, tensor)
from ._base import BinaryOp, CompareOp, FloatUnaryOp, LogicalBinaryOp, UnaryOp

__all__ = ["Abs", "Neg", "Exp", "Log", "Sqrt", "Rsqrt", "Square", "Sin", "Cos", "Sign", "Floor",
           "Ceil", "Round", "Reciprocal", "Erf", "LogicalNot",
           "Add", "Sub", "Mul", "Div", "RealDiv", "FloorDiv", "FloorMod", "Mod", "TruncateDiv",
           "Pow", "Maximum", "Minimum",
           "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
           "LogicalAnd", "LogicalOr", "Select", "AddN", "MatMul", "BatchMatMul"]


# ---- unary ------------------------------------------------------------------------------
class Abs(UnaryOp):
    """y = |x|. Gradient sign(x), 0 at x = 0. Ints wrap at their minimum (|-128| = -128 in
    int8), unsigned ints are unchanged."""


class Neg(UnaryOp):
    """y = -x. Gradient -1. Unsigned ints wrap modulo 2**bits (as numpy and C)."""


class Exp(FloatUnaryOp):
    """y = e**x. Gradient e**x (= y). Float only."""


class Log(FloatUnaryOp):
    """y = ln(x); ln(0) = -inf, ln(x < 0) = nan. Gradient 1/x. Float only."""


class Sqrt(FloatUnaryOp):
    """y = sqrt(x); sqrt(x < 0) = nan. Gradient 1/(2 sqrt(x)) (inf at 0). Float only."""


class Rsqrt(FloatUnaryOp):
    """y = 1/sqrt(x); rsqrt(0) = inf. Gradient -1/(2 x**1.5). Float only."""


class Square(UnaryOp):
    """y = x*x (ints wrap on overflow). Gradient 2x."""


class Sin(FloatUnaryOp):
    """y = sin(x). Gradient cos(x). Float only."""


class Cos(FloatUnaryOp):
    """y = cos(x). Gradient -sin(x). Float only."""


class Sign(UnaryOp):
    """y = -1, 0 or 1 by the sign of x; sign(nan) = nan. Gradient 0 everywhere."""


class Floor(FloatUnaryOp):
    """y = floor(x). Gradient 0 everywhere (the jumps are ignored). Float only."""


class Ceil(FloatUnaryOp):
    """y = ceil(x). Gradient 0 everywhere. Float only."""


class Round(UnaryOp):
    """y = x rounded to the nearest integer, ties to even (2.5 -> 2, as MindSpore and numpy).
    Ints are returned unchanged. Gradient 0 everywhere."""


class Reciprocal(FloatUnaryOp):
    """y = 1/x; 1/0 = inf. Gradient -1/x**2. Float only: MindSpore's CPU kernel has no int
    version, and numpy's integer reciprocal (truncating, 1/0 undefined) is not offered."""


class Erf(FloatUnaryOp):
    """y = erf(x) = 2/sqrt(pi) * integral_0^x e**(-t*t) dt. Gradient 2/sqrt(pi) e**(-x*x).
    Float only."""


class LogicalNot(UnaryOp):
    """y = not x, bool input only (TypeError otherwise). Not differentiable."""
    valid_types = (mstype.bool_,)


# ---- binary arithmetic ------------------------------------------------------------------
class Add(BinaryOp):
    """z = x + y (bool + bool is logical or, as numpy). Gradient (1, 1), summed over broadcast
    dimensions."""


class Sub(BinaryOp):
    """z = x - y; not defined on bool (TypeError). Gradient (1, -1)."""
    valid_types = mstype.NUMBER_TYPES


class Mul(BinaryOp):
    """z = x * y (bool * bool is logical and). Gradient (y, x)."""


class Div(BinaryOp):
    """z = x / y, true division: int and bool inputs give float32 (int32 / int32 -> float32).
    x/0 = +-inf, 0/0 = nan. Gradient (1/y, -x/y**2)."""
    promote_int_to_float = True
    valid_types = mstype.FLOAT_TYPES


class RealDiv(Div):
    """z = x / y, as Div (true division; int inputs give float32)."""


class FloorDiv(BinaryOp):
    """z = floor(x / y); ints stay ints. Int division by zero gives 0 (numpy's convention;
    MindSpore documents it as unsupported), floats give +-inf / nan. Gradient 0."""
    valid_types = mstype.NUMBER_TYPES


class FloorMod(BinaryOp):
    """z = x - floor(x / y) * y: the remainder takes the sign of y (Python's %). Int x % 0 = 0,
    float x % 0 = nan. Gradient (1, -floor(x / y))."""
    valid_types = mstype.NUMBER_TYPES


class Mod(BinaryOp):
    """z = fmod(x, y) = x - trunc(x / y) * y: the remainder takes the sign of x (C's fmod,
    MindSpore's ops.Mod: Mod(-4, 3) = -1). Int x mod 0 = 0, float = nan. Gradient
    (1, -trunc(x / y))."""
    valid_types = mstype.NUMBER_TYPES


class TruncateDiv(BinaryOp):
    """z = trunc(x / y), rounding toward zero; ints stay ints (int division by zero gives 0).
    Gradient 0."""
    valid_types = mstype.NUMBER_TYPES


class Pow(BinaryOp):
    """z = x ** y. Ints stay ints: a negative exponent gives trunc(1 / x**|y|), i.e. 1 for
    x = 1, +-1 for x = -1 and 0 otherwise (0 ** -n included); overflow wraps. Gradient
    (y x**(y-1), x**y ln x); d/dy is taken as 0 where x = 0."""
    valid_types = mstype.NUMBER_TYPES


class Maximum(BinaryOp):
    """z = max(x, y); nan if either is nan (as MindSpore). Gradient goes to x where x >= y,
    to y elsewhere (ties give the whole gradient to x)."""


class Minimum(BinaryOp):
    """z = min(x, y); nan if either is nan. Gradient goes to x where x <= y (ties to x)."""


# ---- comparison and logical -------------------------------------------------------------
class Equal(CompareOp):
    """z = (x == y) -> bool, after promotion (nan != nan). Not differentiable."""


class NotEqual(CompareOp):
    """z = (x != y) -> bool. Not differentiable."""


class Less(CompareOp):
    """z = (x < y) -> bool. Not differentiable."""


class LessEqual(CompareOp):
    """z = (x <= y) -> bool. Not differentiable."""


class Greater(CompareOp):
    """z = (x > y) -> bool. Not differentiable."""


class GreaterEqual(CompareOp):
    """z = (x >= y) -> bool. Not differentiable."""


class LogicalAnd(LogicalBinaryOp):
    """z = x and y, bool inputs only (TypeError otherwise). Not differentiable."""


class LogicalOr(LogicalBinaryOp):
    """z = x or y, bool inputs only (TypeError otherwise). Not differentiable."""


class Select(Primitive):
    """z = condition ? x : y elementwise; condition is bool, the three inputs broadcast and x, y
    are promoted to one dtype. Gradient (0, dz where condition, dz elsewhere)."""
    input_names = ("condition", "x", "y")
    same_type_inputs = (1, 2)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, condition, x, y):
        check_dtype(self, "condition", condition, (mstype.bool_,))
        check_tensor(self, "x", x)
        check_tensor(self, "y", y)
        shape = broadcast_shape(self, x.shape, y.shape, ("x", "y"))
        shape = broadcast_shape(self, condition.shape, shape, ("condition", "x/y"))
        return tensor(x.dtype, shape)


class AddN(Primitive):
    """z = x[0] + x[1] + ... for a tuple or list of tensors of one shape and dtype (no
    broadcasting, no promotion). Gradient dz for every input."""
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
        for i, a in enumerate(xs[1:], 1):
            if a.shape != xs[0].shape:
                raise ValueError(f"For '{self.name}', the shape of 'x[{i}]' should be same as "
                                 f"'x[0]', but got {list(a.shape)} and {list(xs[0].shape)}")
        return xs[0]


# ---- matrix products --------------------------------------------------------------------
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
        check_dtype(self, "x1", x1, mstype.NUMBER_TYPES)
        if len(x1.shape) != 2 or len(x2.shape) != 2:
            raise ValueError(f"For '{self.name}', the input dimensions must be 2, but got 'x1' "
                             f"shape {list(x1.shape)} and 'x2' shape {list(x2.shape)}")
        ta, tb = self.attrs["transpose_a"], self.attrs["transpose_b"]
        m, k1 = (x1.shape[1], x1.shape[0]) if ta else x1.shape
        k2, n = (x2.shape[1], x2.shape[0]) if tb else x2.shape
        if k1 != k2:
            raise ValueError(f"For '{self.name}' the input dimensions must be equal, but got "
                             f"'x1_col': {k1} and 'x2_row': {k2}.")
        return tensor(x1.dtype, (m, n))

    def kernel_params(self, x1, x2):
        return {"transpose_a": self.attrs["transpose_a"],
                "transpose_b": self.attrs["transpose_b"]}


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
        check_dtype(self, "x", x, mstype.NUMBER_TYPES)
        if len(x.shape) < 2 or len(y.shape) < 2:
            raise ValueError(f"For '{self.name}', the rank of 'x' and 'y' must be at least 2, "
                             f"but got 'x' shape {list(x.shape)} and 'y' shape {list(y.shape)}")
        ta, tb = self.attrs["transpose_a"], self.attrs["transpose_b"]
        m, k1 = x.shape[-2:][::-1] if ta else x.shape[-2:]
        k2, n = y.shape[-2:][::-1] if tb else y.shape[-2:]
        if k1 != k2:
            raise ValueError(f"For '{self.name}' the input dimensions must be equal, but got "
                             f"'x_col': {k1} and 'y_row': {k2}.")
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
