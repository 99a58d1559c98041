"""Functional elementwise ops beyond math_func: MindSpore 2.10's arithmetic spellings (remainder,
floor_divide, multiply, subtract, divide, float_power, ...), bitwise and integer ops
(bitwise_and, gcd, ...), sign and float-class tests (signbit, copysign, isneginf, ...),
nan_to_num, and the fused forms addcmul / addcdiv / lerp.

Each calls a module-level primitive (bitwise_ops.py and the math family) or composes primitives,
so gradients come from the primitives' bprops. Python numbers may stand on either side of a
binary op (as MindSpore's functions allow), with the usual weak typing.
"""
import numbers

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import bitwise_ops as B
from ..operations import clip_cum_ops as C
from ..operations import elementwise_ops as E
from ..operations import logic_ops as L
from ..operations import math_ops as M
from ..operations import transcendental_ops as T
from ..operations.array_ops import Cast

__all__ = ['remainder', 'floor_divide', 'floordiv', 'floormod', 'multiply', 'subtract',
           'divide', 'truncate_div', 'truncate_mod', 'float_power', 'ldexp', 'frac', 'sgn',
           'positive', 'signbit', 'copysign', 'isneginf', 'isposinf', 'isreal', 'nan_to_num',
           'fmax', 'fmin', 'logical_xor', 'bitwise_and', 'bitwise_or', 'bitwise_xor',
           'bitwise_left_shift', 'bitwise_right_shift', 'invert', 'bitwise_not', 'gcd', 'lcm',
           'nextafter', 'heaviside', 'addcmul', 'addcdiv', 'lerp', 'tensor_add', 'tensor_sub',
           'tensor_mul', 'tensor_div', 'tensor_floordiv', 'tensor_mod', 'tensor_pow',
           'tensor_exp', 'tensor_expm1', 'tensor_gt', 'tensor_ge', 'tensor_lt', 'tensor_le',
           'square_diff']

_add, _sub, _mul, _div = M.Add(), M.Sub(), M.Mul(), M.Div()
_floor_div, _floor_mod, _mod, _truncate_div = M.FloorDiv(), M.FloorMod(), M.Mod(), M.TruncateDiv()
_pow, _neg, _maximum, _minimum = E.Pow(), M.Neg(), M.Maximum(), M.Minimum()
_abs, _sign, _exp = E.Abs(), E.Sign(), E.Exp()
_select, _not_equal, _less, _greater, _equal = (L.Select(), L.NotEqual(), L.Less(), L.Greater(),
                                                L.Equal())
_logical_or, _logical_and = L.LogicalOr(), L.LogicalAnd()
_isnan, _isinf = C.IsNan(), C.IsInf()
_trunc, _expm1, _exp2 = T.Trunc(), T.Expm1(), T.Exp2()
_bitwise = {"and": B.BitwiseAnd(), "or": B.BitwiseOr(), "xor": B.BitwiseXor()}
_invert, _lshift, _rshift = B.Invert(), B.LeftShift(), B.RightShift()
_gcd, _lcm, _nextafter, _signbit, _heaviside = B.Gcd(), B.Lcm(), B.NextAfter(), B.SignBit(), \
    B.Heaviside()
_cast = Cast()


def _tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type(x).__name__}")


def _number(x):
    return isinstance(x, (numbers.Number, np.generic)) and not isinstance(x, Tensor)


# ---- arithmetic spellings -----------------------------------------------------------------
def remainder(input, other):
    """input - floor(input / other) * other (the sign of `other`, as Python's %)."""
    return _floor_mod(input, other)


def floor_divide(input, other):
    return _floor_div(input, other)


def floordiv(input, other):
    return _floor_div(input, other)


def floormod(x, y):
    return _floor_mod(x, y)


def multiply(input, other):
    return _mul(input, other)


def subtract(input, other, *, alpha=1):
    """input - alpha * other."""
    return _sub(input, other if alpha == 1 else _mul(other, alpha))


def divide(input, other, *, rounding_mode=None):
    from .math_func import div
    return div(input, other, rounding_mode=rounding_mode)


def truncate_div(x, y):
    return _truncate_div(x, y)


def truncate_mod(x, y):
    """x - trunc(x / y) * y (the sign of x, as C's fmod)."""
    return _mod(x, y)


def float_power(input, exponent):
    """input ** exponent computed in float64 (complex128 for complex inputs)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("For 'float_power', one of 'input' and 'exponent' must be a Tensor")
    wide = mstype.complex128 if any(isinstance(t, Tensor) and t.dtype.kind == "c"
                                    for t in (input, exponent)) else mstype.float64
    a = _cast(input, wide) if isinstance(input, Tensor) else float(input)
    b = _cast(exponent, wide) if isinstance(exponent, Tensor) else float(exponent)
    return _pow(a, b)


def ldexp(x, other):
    """x * 2**other."""
    _tensor("ldexp", "x", x)
    scale = _exp2(_cast(other, x.dtype if x.dtype.kind == "f" else mstype.float32)) \
        if isinstance(other, Tensor) else 2.0 ** other
    return _mul(x, scale)


def frac(x):
    """The fractional part x - trunc(x), with x's sign; 0 for ints."""
    _tensor("frac", "x", x)
    if x.dtype is mstype.bool_:
        return _cast(_not_equal(x, x), mstype.int64)   # int64 zeros (MindSpore)
    return _sub(x, _trunc(x))


def sgn(input):
    """sign(input) for real tensors; input / |input| (0 at 0) for complex ones."""
    _tensor("sgn", "input", input)
    if input.dtype.kind != "c":
        return _sign(input)
    mag = _abs(input)
    zero = _equal(mag, 0.0)
    return _select(zero, _mul(input, 0.0), _div(input, _cast(_select(zero, 1.0, mag),
                                                               input.dtype)))


def positive(input):
    _tensor("positive", "input", input)
    return input


def signbit(input):
    _tensor("signbit", "input", input)
    if input.dtype is mstype.bool_:
        return _not_equal(input, input)                 # a bool has no sign: all False
    return _signbit(input)


def copysign(x, other):
    """|x| with the sign (bit) of other; ints are computed in float32, as MindSpore."""
    _tensor("copysign", "x", x)
    if x.dtype.kind not in "f":
        x = _cast(x, mstype.float32)
    neg = _signbit(other) if isinstance(other, Tensor) else bool(np.signbit(other))
    mag = _abs(x)
    if isinstance(neg, bool):
        return _neg(mag) if neg else mag
    return _select(neg, _neg(mag), mag)


def _float_input(op, input):
    _tensor(op, "input", input)
    if input.dtype.kind not in "fc":
        raise TypeError(f"For '{op}', 'input' must be a float Tensor (MindSpore's IsInf CPU "
                        f"kernel), but got {input.dtype}")


def isneginf(input):
    _float_input("isneginf", input)
    return _logical_and(_isinf(input), _less(input, 0))


def isposinf(input):
    _float_input("isposinf", input)
    return _logical_and(_isinf(input), _greater(input, 0))


def isreal(input):
    """True where the imaginary part is 0 (every element of a real tensor)."""
    _tensor("isreal", "input", input)
    if input.dtype.kind != "c":
        from .array_func import ones_like
        return ones_like(input, dtype=mstype.bool_)
    from .complex_func import imag
    return _equal(imag(input), 0.0)


def nan_to_num(input, nan=None, posinf=None, neginf=None):
    """NaN -> nan, +inf -> posinf (default: the dtype's largest value), -inf -> neginf
    (its lowest). Float tensors only, as MindSpore's NanToNum."""
    _tensor("nan_to_num", "input", input)
    if input.dtype not in (mstype.float16, mstype.float32):
        raise TypeError(f"For NanToNum, the type of 'input' should be one of [Float16, "
                        f"Float32] (MindSpore's CPU kernel), but got {input.dtype}")
    info = np.finfo(input.dtype.np)
    nan = 0.0 if nan is None else float(nan)
    posinf = float(info.max) if posinf is None else float(posinf)
    neginf = float(info.min) if neginf is None else float(neginf)

    def const(v):
        return Tensor(np.array(v, input.dtype.np))
    out = _select(_isnan(input), const(nan), input)
    inf = _isinf(input)
    return _select(inf, _select(_greater(input, 0), const(posinf), const(neginf)), out)


def fmax(input, other):
    """The elementwise maximum ignoring NaN (NaN only where both are NaN)."""
    a_nan = _isnan(input) if input.dtype.kind == "f" else None
    b_nan = _isnan(other) if isinstance(other, Tensor) and other.dtype.kind == "f" else None
    out = _maximum(input, other)
    if b_nan is not None:
        out = _select(b_nan, input, out)
    if a_nan is not None:
        out = _select(a_nan, other, out)
    return out


def fmin(input, other):
    """The elementwise minimum ignoring NaN (NaN only where both are NaN)."""
    a_nan = _isnan(input) if input.dtype.kind == "f" else None
    b_nan = _isnan(other) if isinstance(other, Tensor) and other.dtype.kind == "f" else None
    out = _minimum(input, other)
    if b_nan is not None:
        out = _select(b_nan, input, out)
    if a_nan is not None:
        out = _select(a_nan, other, out)
    return out


def logical_xor(input, other):
    """bool(input) != bool(other), elementwise."""
    a = input if input.dtype is mstype.bool_ else _cast(input, mstype.bool_)
    b = other if not isinstance(other, Tensor) or other.dtype is mstype.bool_ else \
        _cast(other, mstype.bool_)
    return _not_equal(a, b)


# ---- bitwise and integer ------------------------------------------------------------------
def _bits(name, op, input, other):
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"For '{name}', one of 'input' and 'other' must be a Tensor")
    return op(input, other)


def bitwise_and(input, other):
    return _bits("bitwise_and", _bitwise["and"], input, other)


def bitwise_or(input, other):
    return _bits("bitwise_or", _bitwise["or"], input, other)


def bitwise_xor(input, other):
    return _bits("bitwise_xor", _bitwise["xor"], input, other)


def bitwise_left_shift(input, other):
    return _bits("bitwise_left_shift", _lshift, input, other)


def bitwise_right_shift(input, other):
    return _bits("bitwise_right_shift", _rshift, input, other)


def invert(x):
    return _invert(x)


def bitwise_not(input):
    """~input for ints, logical not for bools."""
    _tensor("bitwise_not", "input", input)
    if input.dtype is mstype.bool_:
        return _not_equal(input, True)
    return _invert(input)


def gcd(input, other):
    return _bits("gcd", _gcd, input, other)


def lcm(input, other):
    return _bits("lcm", _lcm, input, other)


def nextafter(input, other):
    return _nextafter(input, other)


def heaviside(input, values):
    """0 where input < 0, values where input == 0, 1 where input > 0."""
    _tensor("heaviside", "input", input)
    _tensor("heaviside", "values", values)
    return _heaviside(input, values)


# ---- fused ---------------------------------------------------------------------------------
def addcmul(input, tensor1, tensor2, value=1):
    """input + value * tensor1 * tensor2 (broadcast)."""
    return _add(input, _mul(_mul(tensor1, tensor2), value))


def addcdiv(input, tensor1, tensor2, value=1):
    """input + value * tensor1 / tensor2 (broadcast)."""
    return _add(input, _mul(_div(tensor1, tensor2), value))


def lerp(input, end, weight):
    """input + weight * (end - input); weight a number or a Tensor (broadcast)."""
    _tensor("lerp", "input", input)
    _tensor("lerp", "end", end)
    return _add(input, _mul(_sub(end, input), weight))


def square_diff(x, y):
    d = _sub(x, y)
    return _mul(d, d)


# ---- MindSpore 1.x names kept in 2.10's ops ------------------------------------------------
tensor_add, tensor_sub, tensor_mul, tensor_div = _add, _sub, _mul, _div
tensor_floordiv, tensor_mod, tensor_pow = _floor_div, _floor_mod, _pow
tensor_exp, tensor_expm1 = _exp, _expm1
tensor_gt, tensor_lt = _greater, _less
tensor_ge, tensor_le = L.GreaterEqual(), L.LessEqual()
