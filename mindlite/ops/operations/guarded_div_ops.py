"""Divisions and products with guarded edges (MindSpore's names, dtypes and CPU values, as
observed on MindSpore 2.10), with inference and bprops. Kernels: kernels/cpu/
guarded_div_numpy.py.

    Xdivy(x, y)        x / y, 0 where x == 0 (0 / 0 and 0 / nan included)
    Xlogy(x, y)        x * log(y) (MindSpore's CPU kernel keeps 0 * log(0) = nan)
    DivNoNan(x, y)     x / y, 0 where y == 0
    MulNoNan(x, y)     x * y, 0 where y == 0 (also for an inf or nan x)
    TruncateMod(x, y)  C's fmod: the remainder takes x's sign; ints x mod 0 = 0
    Inv(x)             1 / x; ints as C's int(1.0 / x): 1, -1 or 0, and 1 / 0 the dtype's min
                       (int16: 0)

The binary ops broadcast and promote mixed dtypes as the other binary ops (float32 with
int32 -> float32). Gradients, as MindSpore's bprops: Xdivy (x != 0) / y and -x / y**2;
Xlogy log(y) and x / y; DivNoNan DivNoNan(dout, y) and -that * out; MulNoNan MulNoNan(dout,
y) and MulNoNan(x, dout); TruncateMod 1 and -trunc(x / y); Inv -out**2.
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ._base import BinaryOp, UnaryOp, cached_prim, needs_grad
from . import math_ops as M
from .array_ops import Cast
from .elementwise_ops import Log, Square
from .logic_ops import NotEqual

__all__ = ["Xdivy", "Xlogy", "DivNoNan", "MulNoNan", "TruncateMod", "Inv"]

_FLOATS_COMPLEX = mstype.FLOAT_TYPES + mstype.COMPLEX_TYPES


class Xdivy(BinaryOp):
    """x / y, 0 where x == 0. Float and complex."""
    valid_types = _FLOATS_COMPLEX


class Xlogy(BinaryOp):
    """x * log(y). float32, float64 and complex (float16 is a TypeError, as MindSpore's CPU)."""
    valid_types = (mstype.float32, mstype.float64) + mstype.COMPLEX_TYPES


class DivNoNan(BinaryOp):
    """x / y, 0 where y == 0. Float and complex (MindSpore's CPU kernel has no int one)."""
    valid_types = _FLOATS_COMPLEX


class MulNoNan(BinaryOp):
    """x * y, 0 where y == 0. Ints, floats and complex (bool a TypeError)."""
    valid_types = mstype.NUMBER_TYPES + mstype.COMPLEX_TYPES


class TruncateMod(BinaryOp):
    """x - trunc(x / y) * y, as Mod; MindSpore's CPU dtypes: float16/32/64, int8, int32,
    uint8."""
    valid_types = mstype.FLOAT_TYPES + (mstype.int8, mstype.int32, mstype.uint8)


class Inv(UnaryOp):
    """1 / x: floats and complex, and int16/int32/int64 (see the module docstring)."""
    valid_types = mstype.FLOAT_TYPES + mstype.COMPLEX_TYPES + (mstype.int16, mstype.int32,
                                                               mstype.int64)


def _p(cls, *attrs):
    return cached_prim(cls, *attrs)


@bprop_for(Xdivy)
def xdivy_bprop(prim, x, y, out, dout):
    dx = dy = None
    if needs_grad(x):
        nonzero = _p(Cast)(_p(NotEqual)(x, 0), x.dtype)
        dx = _p(M.Mul)(_p(M.Div)(nonzero, y), dout)
    if needs_grad(y):
        dy = _p(M.Mul)(_p(M.Div)(_p(M.Sub)(0, x), _p(Square)(y)), dout)   # 0 - x: +0 at 0
    return dx, dy


@bprop_for(Xlogy)
def xlogy_bprop(prim, x, y, out, dout):
    dx = _p(M.Mul)(_p(Log)(y), dout) if needs_grad(x) else None
    dy = _p(M.Mul)(_p(M.Div)(x, y), dout) if needs_grad(y) else None
    return dx, dy


@bprop_for(DivNoNan)
def div_no_nan_bprop(prim, x, y, out, dout):
    dx = _p(DivNoNan)(dout, y)
    dy = _p(M.Neg)(_p(M.Mul)(dx, out)) if needs_grad(y) else None
    return (dx if needs_grad(x) else None), dy


@bprop_for(MulNoNan)
def mul_no_nan_bprop(prim, x, y, out, dout):
    dx = _p(MulNoNan)(dout, y) if needs_grad(x) else None
    dy = _p(MulNoNan)(x, dout) if needs_grad(y) else None
    return dx, dy


@bprop_for(TruncateMod)
def truncate_mod_bprop(prim, x, y, out, dout):
    dx = dout if needs_grad(x) else None
    dy = _p(M.Mul)(dout, _p(M.Neg)(_p(M.TruncateDiv)(x, y))) if needs_grad(y) else None
    return dx, dy


@bprop_for(Inv)
def inv_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    return (_p(M.Neg)(_p(M.Mul)(dout, _p(M.Mul)(out, out))),)
