"""Trigonometric, hyperbolic, log/exp-variant and special-function primitives (Tan, Atan, Asin,
ACos, Sinh, Cosh, Asinh, Acosh, Atanh, Log1p, Expm1, Log2, Log10, Exp2, Erfc, Erfinv, Trunc,
Lgamma, Digamma; binary Atan2, Hypot, Zeta), each with its bprop below it. Kernels: C++
(kernels/cpu/transcendental_cpp.py, the elementwise tables of csrc/kernels/) for float32 /
float64 and float16 through float32 lanes; numpy (transcendental_numpy.py) as the reference.

As MindSpore's CPU kernels, they take float tensors only: an int input is a TypeError naming the
op (the functional layer, ops/function/transcendental_func.py, does what MindSpore's functions
do with ints). Edge values are IEEE's / PyTorch's: atanh(+-1) = +-inf, acosh(x < 1) = nan,
lgamma at poles inf, digamma(0) = -inf, digamma at negative integers nan, erfinv(+-1) = +-inf.
"""
import math

from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ._base import BinaryOp, FloatUnaryOp, needs_grad
from .elementwise_ops import Exp, Sqrt
from .logic_ops import Equal, Select
from .math_ops import Add, Div, Mul, Neg, Sub, zeros_grad

__all__ = ["Tan", "Atan", "Asin", "ACos", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Log1p",
           "Expm1", "Log2", "Log10", "Exp2", "Erfc", "Erfinv", "Trunc", "Lgamma", "Digamma",
           "Atan2", "Hypot", "Zeta", "Igamma", "Igammac"]

_add, _sub, _mul, _div, _neg = Add(), Sub(), Mul(), Div(), Neg()
_exp, _sqrt = Exp(), Sqrt()
_select, _equal = Select(), Equal()


class Tan(FloatUnaryOp):
    """y = tan(x). Gradient 1 + y**2."""


class Atan(FloatUnaryOp):
    """y = atan(x) in (-pi/2, pi/2). Gradient 1 / (1 + x**2)."""


class Asin(FloatUnaryOp):
    """y = asin(x); nan outside [-1, 1]. Gradient 1 / sqrt(1 - x**2) (inf at +-1)."""


class ACos(FloatUnaryOp):
    """y = acos(x); nan outside [-1, 1]. Gradient -1 / sqrt(1 - x**2)."""


class Sinh(FloatUnaryOp):
    """y = sinh(x). Gradient cosh(x)."""


class Cosh(FloatUnaryOp):
    """y = cosh(x). Gradient sinh(x)."""


class Asinh(FloatUnaryOp):
    """y = asinh(x). Gradient 1 / sqrt(x**2 + 1)."""


class Acosh(FloatUnaryOp):
    """y = acosh(x); nan below 1. Gradient 1 / sqrt(x**2 - 1) (inf at 1)."""


class Atanh(FloatUnaryOp):
    """y = atanh(x); +-inf at +-1, nan outside. Gradient 1 / (1 - x**2)."""


_sinh, _cosh = Sinh(), Cosh()


@bprop_for(Tan)
def tan_bprop(prim, x, out, dout):
    return (_mul(dout, _add(_mul(out, out), 1.0)),)


@bprop_for(Atan)
def atan_bprop(prim, x, out, dout):
    return (_div(dout, _add(_mul(x, x), 1.0)),)


@bprop_for(Asin)
def asin_bprop(prim, x, out, dout):
    return (_div(dout, _sqrt(_sub(1.0, _mul(x, x)))),)


@bprop_for(ACos)
def acos_bprop(prim, x, out, dout):
    return (_neg(_div(dout, _sqrt(_sub(1.0, _mul(x, x))))),)


@bprop_for(Sinh)
def sinh_bprop(prim, x, out, dout):
    return (_mul(dout, _cosh(x)),)


@bprop_for(Cosh)
def cosh_bprop(prim, x, out, dout):
    return (_mul(dout, _sinh(x)),)


@bprop_for(Asinh)
def asinh_bprop(prim, x, out, dout):
    return (_div(dout, _sqrt(_add(_mul(x, x), 1.0))),)


@bprop_for(Acosh)
def acosh_bprop(prim, x, out, dout):
    return (_div(dout, _sqrt(_sub(_mul(x, x), 1.0))),)


@bprop_for(Atanh)
def atanh_bprop(prim, x, out, dout):
    return (_div(dout, _sub(1.0, _mul(x, x))),)


class Log1p(FloatUnaryOp):
    """y = ln(1 + x), exact near 0; -inf at -1, nan below. Gradient 1 / (1 + x)."""


class Expm1(FloatUnaryOp):
    """y = e**x - 1, exact near 0. Gradient e**x = y + 1."""


class Log2(FloatUnaryOp):
    """y = log2(x). Gradient 1 / (x ln 2)."""


class Log10(FloatUnaryOp):
    """y = log10(x). Gradient 1 / (x ln 10)."""


class Exp2(FloatUnaryOp):
    """y = 2**x. Gradient y ln 2."""


@bprop_for(Log1p)
def log1p_bprop(prim, x, out, dout):
    return (_div(dout, _add(x, 1.0)),)


@bprop_for(Expm1)
def expm1_bprop(prim, x, out, dout):
    return (_mul(dout, _add(out, 1.0)),)


@bprop_for(Log2)
def log2_bprop(prim, x, out, dout):
    return (_div(dout, _mul(x, math.log(2.0))),)


@bprop_for(Log10)
def log10_bprop(prim, x, out, dout):
    return (_div(dout, _mul(x, math.log(10.0))),)


@bprop_for(Exp2)
def exp2_bprop(prim, x, out, dout):
    return (_mul(dout, _mul(out, math.log(2.0))),)


class Erfc(FloatUnaryOp):
    """y = 1 - erf(x), exact in the tails. Gradient -2/sqrt(pi) e**(-x*x)."""


class Erfinv(FloatUnaryOp):
    """y = erf^-1(x) on [-1, 1] (+-inf at +-1, nan outside). Gradient sqrt(pi)/2 e**(y*y)."""


class Trunc(FloatUnaryOp):
    """y = x rounded toward zero. Gradient 0 everywhere."""
    valid_types = mstype.NUMBER_TYPES


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0


@bprop_for(Erfc)
def erfc_bprop(prim, x, out, dout):
    return (_mul(dout, _mul(_exp(_neg(_mul(x, x))), -_TWO_OVER_SQRT_PI)),)


@bprop_for(Erfinv)
def erfinv_bprop(prim, x, out, dout):
    return (_mul(dout, _mul(_exp(_mul(out, out)), _SQRT_PI_OVER_TWO)),)


@bprop_for(Trunc)
def trunc_bprop(prim, x, out, dout):
    return (zeros_grad(x),)


class Lgamma(FloatUnaryOp):
    """y = ln|Gamma(x)|; inf at the poles 0, -1, -2, ... Gradient digamma(x)."""


class Digamma(FloatUnaryOp):
    """y = psi(x) = Gamma'(x) / Gamma(x); -inf at 0, nan at negative integers. Gradient
    psi'(x) = zeta(2, x) (the trigamma function)."""


class Zeta(BinaryOp):
    """z = Hurwitz zeta(x, q) = sum_k (k + q)**-x, for x > 1 (inf at x = 1, nan below).
    Gradient with respect to q: -x zeta(x + 1, q); x gets none (0, as MindSpore)."""
    valid_types = mstype.FLOAT_TYPES


_digamma, _zeta = Digamma(), Zeta()


@bprop_for(Lgamma)
def lgamma_bprop(prim, x, out, dout):
    return (_mul(dout, _digamma(x)),)


@bprop_for(Digamma)
def digamma_bprop(prim, x, out, dout):
    return (_mul(dout, _zeta(2.0, x)),)


@bprop_for(Zeta)
def zeta_bprop(prim, x, q, out, dout):
    dq = _mul(dout, _neg(_mul(x, _zeta(_add(x, 1.0), q)))) if needs_grad(q) else None
    return zeros_grad(x), dq


class Atan2(BinaryOp):
    """z = atan2(x, y), the angle of the point (y, x) in (-pi, pi]. Gradient
    (y, -x) / (x**2 + y**2); 0 at the origin (0/0 taken as 0, as PyTorch)."""
    valid_types = mstype.FLOAT_TYPES


class Hypot(BinaryOp):
    """z = sqrt(x**2 + y**2) without overflow. Gradient (x, y) / z; 0 where z = 0."""
    valid_types = mstype.FLOAT_TYPES


@bprop_for(Atan2)
def atan2_bprop(prim, x, y, out, dout):
    r2 = _add(_mul(x, x), _mul(y, y))
    zero = _equal(r2, 0.0)
    safe = _select(zero, 1.0, r2)
    dx = _select(zero, 0.0, _mul(dout, _div(y, safe))) if needs_grad(x) else None
    dy = _select(zero, 0.0, _mul(dout, _neg(_div(x, safe)))) if needs_grad(y) else None
    return dx, dy


@bprop_for(Hypot)
def hypot_bprop(prim, x, y, out, dout):
    zero = _equal(out, 0.0)
    scale = _select(zero, 0.0, _div(dout, _select(zero, 1.0, out)))
    return (_mul(scale, x) if needs_grad(x) else None,
            _mul(scale, y) if needs_grad(y) else None)


class Igamma(BinaryOp):
    """z = P(a, x), the regularized lower incomplete gamma function (a >= 0, x >= 0). Gradient
    with respect to x: x**(a-1) e**-x / Gamma(a); with respect to a: not implemented (raises
    in backward; MindSpore's IgammaGradA)."""
    valid_types = mstype.FLOAT_TYPES


class Igammac(Igamma):
    """z = Q(a, x) = 1 - P(a, x). Gradient with respect to x: -x**(a-1) e**-x / Gamma(a)."""


_lgamma = Lgamma()


@bprop_for(Igamma, Igammac)
def igamma_bprop(prim, a, x, out, dout):
    if needs_grad(a):
        raise NotImplementedError(f"For '{prim.name}', the gradient with respect to 'a' is not "
                                  f"implemented")
    from .elementwise_ops import Log
    density = _exp(_sub(_sub(_mul(_sub(a, 1.0), Log()(x)), x), _lgamma(a)))
    dx = _mul(dout, density)
    return None, (_neg(dx) if isinstance(prim, Igammac) else dx)
