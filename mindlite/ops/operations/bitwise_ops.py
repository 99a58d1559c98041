"""Integer and bit-level primitives (BitwiseAnd, BitwiseOr, BitwiseXor, Invert, LeftShift,
RightShift, Gcd, Lcm) and the float bit-level ones (NextAfter, SignBit, Heaviside), none
differentiable (their outputs are integers, bools or piecewise constant: MindSpore gives
no gradient either). Kernels: kernels/cpu/bitwise_numpy.py (one numpy ufunc each).

Binary ops broadcast and promote their inputs to one dtype first, as every BinaryOp; the
dtypes each accepts are MindSpore's CPU kernels' (bitwise: ints and bool; shifts, Gcd, Lcm:
ints; NextAfter: float32 / float64).
"""
from ...common import dtype as mstype
from ...ir.rules import non_differentiable
from ..validator import tensor
from ._base import BinaryOp, UnaryOp

__all__ = ["BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "LeftShift", "RightShift", "Gcd",
           "Lcm", "NextAfter", "SignBit", "Heaviside"]

_INT_BOOL = mstype.INT_TYPES + (mstype.bool_,)


class BitwiseAnd(BinaryOp):
    """z = x & y on ints and bools."""
    valid_types = _INT_BOOL


class BitwiseOr(BinaryOp):
    """z = x | y on ints and bools."""
    valid_types = _INT_BOOL


class BitwiseXor(BinaryOp):
    """z = x ^ y on ints and bools."""
    valid_types = _INT_BOOL


class Invert(UnaryOp):
    """y = ~x (two's complement) on ints."""
    valid_types = mstype.INT_TYPES


class LeftShift(BinaryOp):
    """z = x << y on ints (shifts of the bit width or more give 0, as numpy)."""
    valid_types = mstype.INT_TYPES


class RightShift(BinaryOp):
    """z = x >> y on ints, arithmetic for signed ints."""
    valid_types = mstype.INT_TYPES


class Gcd(BinaryOp):
    """z = the greatest common divisor of |x| and |y| (gcd(0, 0) = 0) on ints."""
    valid_types = mstype.INT_TYPES


class Lcm(BinaryOp):
    """z = the least common multiple of |x| and |y| (0 if either is 0) on ints."""
    valid_types = mstype.INT_TYPES


class NextAfter(BinaryOp):
    """z = the float after x in the direction of y."""
    valid_types = (mstype.float32, mstype.float64)


class SignBit(UnaryOp):
    """y = whether x's sign bit is set (-0.0 and -nan included) -> bool; False for unsigned."""
    valid_types = mstype.NUMBER_TYPES

    def infer(self, x):
        super().infer(x)
        return tensor(mstype.bool_, x.shape)


class Heaviside(BinaryOp):
    """z = 0 where x < 0, y where x == 0, 1 where x > 0 (the step function, `values` at 0)."""
    valid_types = mstype.NUMBER_TYPES


non_differentiable(BitwiseAnd, BitwiseOr, BitwiseXor, Invert, LeftShift, RightShift, Gcd, Lcm,
                   NextAfter, SignBit, Heaviside)
