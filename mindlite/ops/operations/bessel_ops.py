"""Bessel-function primitives of order 0 and 1 (MindSpore's BesselJ0 ... BesselK1e): J and Y,
the modified I and K, and the exponentially scaled I0e = e^-|x| I0, I1e, K0e = e^x K0, K1e.
Each with its bprop below it, built from the family itself (J0' = -J1, I0' = I1, K0' = -K1,
the order-1 derivatives by the recurrences), so gradients are differentiable again.
Kernels: C++ (kernels/cpu/transcendental_cpp.py; csrc/kernels/special_math.cc), float16
through float32 lanes. Float input only, as MindSpore's CPU kernels. Outside a function's
domain (Y, K at x < 0) the result is nan; at x = 0 Y is -inf and K is inf.
"""
from ...ir.rules import bprop_for
from ._base import FloatUnaryOp
from .logic_ops import Equal, Select
from .elementwise_ops import Sign
from .math_ops import Add, Div, Mul, Neg, Sub

__all__ = ["BesselJ0", "BesselJ1", "BesselY0", "BesselY1", "BesselI0", "BesselI0e", "BesselI1",
           "BesselI1e", "BesselK0", "BesselK0e", "BesselK1", "BesselK1e"]

_add, _sub, _mul, _div, _neg = Add(), Sub(), Mul(), Div(), Neg()
_sign, _select, _equal = Sign(), Select(), Equal()


class BesselJ0(FloatUnaryOp):
    """y = J0(x). Gradient -J1(x)."""


class BesselJ1(FloatUnaryOp):
    """y = J1(x). Gradient J0(x) - J1(x)/x (1/2 at 0)."""


class BesselY0(FloatUnaryOp):
    """y = Y0(x), x > 0. Gradient -Y1(x)."""


class BesselY1(FloatUnaryOp):
    """y = Y1(x), x > 0. Gradient Y0(x) - Y1(x)/x."""


class BesselI0(FloatUnaryOp):
    """y = I0(x). Gradient I1(x)."""


class BesselI1(FloatUnaryOp):
    """y = I1(x). Gradient I0(x) - I1(x)/x (1/2 at 0)."""


class BesselI0e(FloatUnaryOp):
    """y = e^-|x| I0(x). Gradient I1e(x) - sign(x) I0e(x)."""


class BesselI1e(FloatUnaryOp):
    """y = e^-|x| I1(x). Gradient I0e(x) - I1e(x) (sign(x) + 1/x) (1/2 at 0)."""


class BesselK0(FloatUnaryOp):
    """y = K0(x), x > 0. Gradient -K1(x)."""


class BesselK1(FloatUnaryOp):
    """y = K1(x), x > 0. Gradient -K0(x) - K1(x)/x."""


class BesselK0e(FloatUnaryOp):
    """y = e^x K0(x), x > 0. Gradient K0e(x) - K1e(x)."""


class BesselK1e(FloatUnaryOp):
    """y = e^x K1(x), x > 0. Gradient K1e(x) (1 - 1/x) - K0e(x)."""


_j0, _j1, _y0, _y1 = BesselJ0(), BesselJ1(), BesselY0(), BesselY1()
_i0, _i1, _i0e, _i1e = BesselI0(), BesselI1(), BesselI0e(), BesselI1e()
_k0, _k1, _k0e, _k1e = BesselK0(), BesselK1(), BesselK0e(), BesselK1e()


def _over_x(v, x):
    """v / x with the limit 0 at x = 0 (v is an order-1 function, v(0) = 0 there: the caller
    adds the limit of the whole derivative)."""
    zero = _equal(x, 0.0)
    return _select(zero, 0.0, _div(v, _select(zero, 1.0, x)))


def _at_zero(x, value, grad):
    return _select(_equal(x, 0.0), value, grad)


@bprop_for(BesselJ0)
def bessel_j0_bprop(prim, x, out, dout):
    return (_mul(dout, _neg(_j1(x))),)


@bprop_for(BesselJ1)
def bessel_j1_bprop(prim, x, out, dout):
    return (_mul(dout, _at_zero(x, 0.5, _sub(_j0(x), _over_x(out, x)))),)


@bprop_for(BesselY0)
def bessel_y0_bprop(prim, x, out, dout):
    return (_mul(dout, _neg(_y1(x))),)


@bprop_for(BesselY1)
def bessel_y1_bprop(prim, x, out, dout):
    return (_mul(dout, _sub(_y0(x), _div(out, x))),)


@bprop_for(BesselI0)
def bessel_i0_bprop(prim, x, out, dout):
    return (_mul(dout, _i1(x)),)


@bprop_for(BesselI1)
def bessel_i1_bprop(prim, x, out, dout):
    return (_mul(dout, _at_zero(x, 0.5, _sub(_i0(x), _over_x(out, x)))),)


@bprop_for(BesselI0e)
def bessel_i0e_bprop(prim, x, out, dout):
    return (_mul(dout, _sub(_i1e(x), _mul(_sign(x), out))),)


@bprop_for(BesselI1e)
def bessel_i1e_bprop(prim, x, out, dout):
    grad = _sub(_sub(_i0e(x), _mul(_sign(x), out)), _over_x(out, x))
    return (_mul(dout, _at_zero(x, 0.5, grad)),)


@bprop_for(BesselK0)
def bessel_k0_bprop(prim, x, out, dout):
    return (_mul(dout, _neg(_k1(x))),)


@bprop_for(BesselK1)
def bessel_k1_bprop(prim, x, out, dout):
    return (_mul(dout, _neg(_add(_k0(x), _div(out, x)))),)


@bprop_for(BesselK0e)
def bessel_k0e_bprop(prim, x, out, dout):
    return (_mul(dout, _sub(out, _k1e(x))),)


@bprop_for(BesselK1e)
def bessel_k1e_bprop(prim, x, out, dout):
    return (_mul(dout, _sub(_sub(out, _div(out, x)), _k0e(x))),)
