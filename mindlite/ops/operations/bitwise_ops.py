"""Integer primitives of the bitwise and number-theory family: BitwiseAnd, BitwiseOr,
BitwiseXor, Invert (also on bool), Gcd, Lcm (MindSpore's names). Kernels:
kernels/cpu/bitwise_numpy.py (one numpy ufunc each, in the input dtype).

Binary ones promote x and y to one dtype and broadcast, as Add. None is differentiable
(integer outputs): they are marked non_differentiable.
"""
from ...common import dtype as mstype
from ...pynative.grad import non_differentiable
from ._base import BinaryOp, UnaryOp

__all__ = ["BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "Gcd", "Lcm"]

_BITWISE_TYPES = mstype.INT_TYPES + (mstype.bool_,)


class BitwiseAnd(BinaryOp):
    """z = x & y on int or bool tensors."""
    valid_types = _BITWISE_TYPES


class BitwiseOr(BinaryOp):
    """z = x | y on int or bool tensors."""
    valid_types = _BITWISE_TYPES


class BitwiseXor(BinaryOp):
    """z = x ^ y on int or bool tensors."""
    valid_types = _BITWISE_TYPES


class Invert(UnaryOp):
    """y = ~x: two's complement bit flip of ints, logical not of bools."""
    valid_types = _BITWISE_TYPES


class Gcd(BinaryOp):
    """z = gcd(|x|, |y|) of int tensors (gcd(0, 0) = 0)."""
    valid_types = mstype.INT_TYPES


class Lcm(BinaryOp):
    """z = lcm(|x|, |y|) of int tensors (0 when either is 0)."""
    valid_types = mstype.INT_TYPES


non_differentiable(BitwiseAnd, BitwiseOr, BitwiseXor, Invert, Gcd, Lcm)
