"""Unary math primitives (Abs, Exp, Log, Sqrt, Sin, Floor, Erf, ...), Pow and Lerp, each with
its bprop below it. Kernels: kernels/cpu/math_*.py. Re-exported by math_ops (the arithmetic
primitives the bprops are built from live there).

Transcendental ops accept float tensors only, as MindSpore's CPU kernels: an int input
is a TypeError naming the op, not a silent cast. Piecewise-constant ops (Sign, Floor,
Ceil, Round) are differentiable with a zero gradient, as MindSpore.
"""
import math
import sys

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import broadcast_shape, check_dtype, check_same_dtype, tensor
from ._base import BinaryOp, FloatUnaryOp, UnaryOp, cached_prim, needs_grad
from ._grad_ops import SqrtGrad
from .array_ops import Cast
from .logic_ops import Equal, Greater, Select
from . import math_ops as _math_ops
from .math_ops import Div, Mul, Neg, Sub, zeros_grad

__all__ = ["Abs", "Exp", "Log", "Sqrt", "Rsqrt", "Square", "Sin", "Cos", "Sign", "Floor",
           "Ceil", "Round", "Reciprocal", "Erf", "Pow", "Lerp"]

_mul, _div, _neg, _sub = Mul(), Div(), Neg(), Sub()
_select, _equal, _greater = Select(), Equal(), Greater()
_sqrt_grad = SqrtGrad()


class Abs(UnaryOp):
    """y = |x|. Gradient sign(x), 0 at x = 0. Ints wrap at their minimum (|-128| = -128 in
    int8), unsigned ints are unchanged."""
    valid_types = mstype.NUMBER_BF16_COMPLEX_TYPES


class Sign(UnaryOp):
    """y = -1, 0 or 1 by the sign of x; sign(nan) = nan. Gradient 0 everywhere."""


_sign = Sign()


@bprop_for(Abs)
def abs_bprop(prim, x, out, dout):
    return (_mul(dout, _sign(x)) if needs_grad(x) else None,)


class Floor(FloatUnaryOp):
    """y = floor(x). Gradient 0 everywhere (the jumps are ignored). Float only."""


class Ceil(FloatUnaryOp):
    """y = ceil(x). Gradient 0 everywhere. Float only."""


class Round(UnaryOp):
    """y = x rounded to the nearest integer, ties to even (2.5 -> 2, as MindSpore and numpy).
    Ints are returned unchanged. Gradient 0 everywhere."""


@bprop_for(Sign, Floor, Ceil, Round)
def piecewise_constant_bprop(prim, x, out, dout):
    return (zeros_grad(x),)


class Exp(FloatUnaryOp):
    """y = e**x. Gradient e**x (= y). Float only."""
    valid_types = mstype.FLOAT_BF16_COMPLEX_TYPES


@bprop_for(Exp)
def exp_bprop(prim, x, out, dout):
    return (_mul(dout, out),)


class Log(FloatUnaryOp):
    """y = ln(x); ln(0) = -inf, ln(x < 0) = nan. Gradient 1/x. Float only."""
    valid_types = mstype.FLOAT_BF16_COMPLEX_TYPES


_log = Log()


@bprop_for(Log)
def log_bprop(prim, x, out, dout):
    return (_div(dout, x),)


class Sqrt(FloatUnaryOp):
    """y = sqrt(x); sqrt(x < 0) = nan. Gradient 1/(2 sqrt(x)) (inf at 0). Float only."""
    valid_types = mstype.FLOAT_BF16_COMPLEX_TYPES


@bprop_for(Sqrt)
def sqrt_bprop(prim, x, out, dout):
    return (_sqrt_grad(out, dout),)


class Rsqrt(FloatUnaryOp):
    """y = 1/sqrt(x); rsqrt(0) = inf. Gradient -1/(2 x**1.5) = -y**3 / 2. Float only."""


@bprop_for(Rsqrt)
def rsqrt_bprop(prim, x, out, dout):
    return (_mul(_mul(dout, -0.5), _mul(_mul(out, out), out)),)


class Square(UnaryOp):
    """y = x*x (ints wrap on overflow). Gradient 2x."""
    valid_types = mstype.NUMBER_BF16_COMPLEX_TYPES


@bprop_for(Square)
def square_bprop(prim, x, out, dout):
    return (_mul(dout, _mul(x, 2.0)) if needs_grad(x) else None,)


class Sin(FloatUnaryOp):
    """y = sin(x). Gradient cos(x). Float only."""
    valid_types = mstype.FLOAT_BF16_COMPLEX_TYPES


class Cos(FloatUnaryOp):
    """y = cos(x). Gradient -sin(x). Float only."""
    valid_types = mstype.FLOAT_BF16_COMPLEX_TYPES


_sin, _cos = Sin(), Cos()


@bprop_for(Sin)
def sin_bprop(prim, x, out, dout):
    return (_mul(dout, _cos(x)),)


@bprop_for(Cos)
def cos_bprop(prim, x, out, dout):
    return (_mul(dout, _neg(_sin(x))),)


class Reciprocal(FloatUnaryOp):
    """y = 1/x; 1/0 = inf. Gradient -1/x**2 = -y**2. Float only: MindSpore's CPU kernel has no
    int version, and numpy's integer reciprocal (truncating, 1/0 undefined) is not offered."""
    valid_types = mstype.FLOAT_BF16_COMPLEX_TYPES


@bprop_for(Reciprocal)
def reciprocal_bprop(prim, x, out, dout):
    return (_neg(_mul(dout, _mul(out, out))),)


class Erf(FloatUnaryOp):
    """y = erf(x) = 2/sqrt(pi) * integral_0^x e**(-t*t) dt. Gradient 2/sqrt(pi) e**(-x*x).
    Float only."""


_exp = Exp()
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


@bprop_for(Erf)
def erf_bprop(prim, x, out, dout):
    return (_mul(dout, _mul(_exp(_neg(_mul(x, x))), _TWO_OVER_SQRT_PI)),)


class Pow(BinaryOp):
    """z = x ** y. Ints stay ints: a negative exponent gives trunc(1 / x**|y|), i.e. 1 for
    x = 1, +-1 for x = -1 and 0 otherwise (0 ** -n included); overflow wraps. Gradient
    (y x**(y-1), x**y ln x). Conventions: d/dx is 0 where y = 0 (also at x = 0, where
    0 * 0**-1 would be nan; as PyTorch); d/dy is 0 where x <= 0 (ln x is taken as 0 there,
    MindSpore's x[x < 0] = 1 extended to x = 0, where x**y ln x -> 0 for y > 0). Complex
    operands (as MindSpore 2.10 on the CPU): the principal branch, numpy's; gradient (y
    x**(y-1), x**y ln x) with the complex log."""
    valid_types = mstype.NUMBER_BF16_TYPES + mstype.COMPLEX_TYPES


_pow = Pow()


@bprop_for(Pow)
def pow_bprop(prim, x, y, out, dout):
    dx = dy = None
    if needs_grad(x):
        if isinstance(y, Tensor):
            coef = _select(_equal(y, 0), 0.0, _mul(_pow(x, _sub(y, 1)), y))
            dx = _mul(dout, coef)
        elif y == 0:
            dx = zeros_grad(x)
        else:
            dx = _mul(dout, _mul(_pow(x, y - 1), y))
    if needs_grad(y):
        if isinstance(x, Tensor) and x.dtype in mstype.COMPLEX_TYPES:
            log_x = _log(x)
        elif isinstance(x, Tensor):
            log_x = _log(_select(_greater(x, 0), x, 1.0))
        else:
            log_x = math.log(x) if x > 0 else 0.0
        dy = _mul(dout, _mul(out, log_x))
    return dx, dy


class Lerp(Primitive):
    """start + weight * (end - start), broadcast (MindSpore's Lerp). start and end share one
    float dtype (float16/32/64; mixed is a TypeError, as MindSpore); weight is a
    Python float or a float Tensor, computed in start's dtype (an int weight is a TypeError).
    Gradient (dout (1 - weight), dout weight, dout (end - start))."""
    input_names = ("start", "end", "weight")

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, start, end, weight):
        check_dtype(self, "start", start, mstype.FLOAT_TYPES)
        check_same_dtype(self, [("start", start), ("end", end)])
        check_dtype(self, "weight", weight, mstype.FLOAT_TYPES)
        shape = broadcast_shape(self, start.shape, end.shape, ("start", "end"))
        shape = broadcast_shape(self, shape, weight.shape, ("start/end", "weight"))
        return tensor(start.dtype, shape)


@bprop_for(Lerp)
def lerp_bprop(prim, start, end, weight, out, dout):
    w = weight if not isinstance(weight, Tensor) or weight.dtype is dout.dtype else \
        cached_prim(Cast)(weight, dout.dtype)
    d_start = _mul(dout, _sub(1.0, w)) if needs_grad(start) else None
    d_end = _mul(dout, w) if needs_grad(end) else None
    d_weight = _mul(dout, _sub(end, start)) if needs_grad(weight) else None
    return d_start, d_end, d_weight


_math_ops._reexport(sys.modules[__name__])     # math_ops re-exports this family (see there)
