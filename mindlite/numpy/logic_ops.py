"""mindlite.numpy's comparisons and logic: `equal` ... `greater_equal`, `logical_*`,
`isfinite` / `isnan` / `isinf` / `isneginf` / `isposinf`, `signbit`, `isclose`,
`array_equal`, `array_equiv`, and the bitwise functions (`bitwise_and`, `bitwise_or`,
`bitwise_xor`, `invert`, `bitwise_not`) and `gcd` / `lcm` on the BitwiseAnd / ... / Gcd /
Lcm primitives (float gcd / lcm: Euclid's algorithm on float values, as MindSpore's).
Comparison results are bool Tensors (none is differentiable).
"""
from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..ops import functional as F
from .dtypes import as_dtype, both_scalars, operand, to_tensor
from .math_ops import _prim

__all__ = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
           "logical_and", "logical_or", "logical_xor", "logical_not", "isfinite", "isnan",
           "isinf", "isneginf", "isposinf", "signbit", "isclose", "array_equal",
           "array_equiv", "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "bitwise_not",
           "gcd", "lcm"]


def _compare(fn):
    def op(x1, x2, dtype=None):
        if both_scalars(x1, x2):
            x1 = to_tensor(x1)
        return as_dtype(fn(operand(x1), operand(x2)), dtype)
    return op


equal = _compare(F.equal)
not_equal = _compare(F.not_equal)
less = _compare(F.less)
less_equal = _compare(F.less_equal)
greater = _compare(F.greater)
greater_equal = _compare(F.greater_equal)


def _bool(x):
    t = to_tensor(x)
    return t if t.dtype == mstype.bool_ else F.cast(t, mstype.bool_)


def logical_and(x1, x2, dtype=None):
    """Truth of x1 and x2 (any dtype: nonzero is True)."""
    return as_dtype(F.logical_and(_bool(x1), _bool(x2)), dtype)


def logical_or(x1, x2, dtype=None):
    return as_dtype(F.logical_or(_bool(x1), _bool(x2)), dtype)


def logical_xor(x1, x2, dtype=None):
    return as_dtype(F.not_equal(_bool(x1), _bool(x2)), dtype)


def logical_not(a, dtype=None):
    return as_dtype(F.logical_not(_bool(a)), dtype)


def _float_test(fn, int_value):
    def op(x, dtype=None):
        x = to_tensor(x)
        if x.dtype not in mstype.FLOAT_TYPES:
            return as_dtype(F.fill(mstype.bool_, x.shape, int_value), dtype)
        return as_dtype(fn(x), dtype)
    return op


isfinite = _float_test(F.isfinite, True)
isnan = _float_test(F.isnan, False)
isinf = _float_test(F.isinf, False)


def isneginf(x):
    x = to_tensor(x)
    return F.logical_and(isinf(x), x < 0)


def isposinf(x):
    x = to_tensor(x)
    return F.logical_and(isinf(x), x > 0)


def signbit(x, dtype=None):
    """True where the sign bit is set (negative numbers and -0.0)."""
    x = to_tensor(x)
    if x.dtype == mstype.bool_ or x.dtype in mstype.INT_TYPES:
        return as_dtype(x < 0 if x.dtype != mstype.bool_ else F.zeros_like(x), dtype)
    neg = F.logical_or(x < 0, F.logical_and(x == 0, F.reciprocal(x) < 0))
    return as_dtype(neg, dtype)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b|, broadcast (nan equal to nan with equal_nan)."""
    a, b = to_tensor(a), to_tensor(b)
    dtype = mstype.promote(a.dtype, b.dtype)
    if dtype not in mstype.FLOAT_TYPES:
        dtype = mstype.float32
    return F.isclose(F.cast(a, dtype), F.cast(b, dtype), rtol, atol, equal_nan)


def array_equal(a1, a2, equal_nan=False):
    """True when both have the same shape and elements (a 0-d bool Tensor)."""
    a1, a2 = to_tensor(a1), to_tensor(a2)
    if a1.shape != a2.shape:
        return Tensor(False)
    eq = F.equal(a1, a2)
    if equal_nan and a1.dtype in mstype.FLOAT_TYPES:
        eq = F.logical_or(eq, F.logical_and(F.isnan(a1), F.isnan(F.cast(a2, a1.dtype))))
    return F.all(eq)


def array_equiv(a1, a2):
    """True when the two broadcast to one shape and are equal there."""
    a1, a2 = to_tensor(a1), to_tensor(a2)
    try:
        eq = F.equal(a1, a2)
    except ValueError:
        return Tensor(False)
    return F.all(eq)


def _int_binary(name):
    def op(x1, x2, dtype=None):
        if both_scalars(x1, x2):
            x1 = to_tensor(x1)
        a = to_tensor(x1) if not isinstance(x1, Tensor) else x1
        b = to_tensor(x2, a.dtype) if not isinstance(x2, Tensor) else x2
        return as_dtype(_prim(name)(a, b), dtype)
    op.__name__ = name
    op.__doc__ = f"{name} of int or bool inputs, broadcast; `dtype` casts the result."
    return op


bitwise_and = _int_binary("BitwiseAnd")
bitwise_or = _int_binary("BitwiseOr")
bitwise_xor = _int_binary("BitwiseXor")
_gcd_int = _int_binary("Gcd")
_lcm_int = _int_binary("Lcm")


def _float_pair(x1, x2):
    """(a, b, result dtype): the operands as Tensors, float32 where not float (MindSpore
    runs gcd / lcm of bool, or of an int and a float, on float values and casts back)."""
    a = to_tensor(x1) if not isinstance(x1, Tensor) else x1
    b = x2 if isinstance(x2, Tensor) else to_tensor(
        x2, None if isinstance(x2, float) or a.dtype.kind == "f" else a.dtype)
    fa, fb = a.dtype.kind == "f", b.dtype.kind == "f"
    if fa and fb:
        out = a.dtype if a.dtype.itemsize >= b.dtype.itemsize else b.dtype
    elif fa or fb:
        out = a.dtype if fa else b.dtype
    else:
        out = b.dtype if a.dtype == mstype.bool_ else a.dtype
    a, b = (t if t.dtype.kind == "f" else F.cast(t, mstype.float32) for t in (a, b))
    return a, b, out


def _remainder(x1, x2):
    return F.sub(x1, F.mul(x2, F.floor(F.div(x1, x2))))


def _gcd_float(a, b):
    """Euclid's algorithm on float values, step for step as MindSpore's mindspore.numpy.gcd
    (remainder x1 - x2 floor(x1 / x2); every element iterates until all remainders are 0)."""
    a, b = F.abs(a), F.abs(b)
    ge = F.greater_equal(a, b)
    a, b = F.select(ge, a, b), F.select(ge, b, a)
    b = F.select(F.equal(b, 0), a, b)
    r = _remainder(a, b)
    while F.reduce_sum(r) > 0:
        r = _remainder(a, b)
        done = F.equal(r, 0)
        a, b = F.select(done, a, b), F.select(done, b, r)
    return b


def gcd(x1, x2, dtype=None):
    """The greatest common divisor of |x1| and |x2|, broadcast: exact on int Tensors (the Gcd
    primitive); other inputs run Euclid's algorithm in their dtype, as MindSpore's."""
    if all(isinstance(t, Tensor) and t.dtype.kind in "iu" for t in (x1, x2)):
        return _gcd_int(x1, x2, dtype)
    a, b, out = _float_pair(x1, x2)
    return as_dtype(F.cast(_gcd_float(a, b), out), dtype)


def lcm(x1, x2, dtype=None):
    """The lowest common multiple of |x1| and |x2|, broadcast: exact on int Tensors (the Lcm
    primitive); other inputs: |x1 / g * x2 / g * g| with g = gcd and the operands
    in float32 (0 where either is 0), as MindSpore's."""
    if all(isinstance(t, Tensor) and t.dtype.kind in "iu" for t in (x1, x2)):
        return _lcm_int(x1, x2, dtype)
    a, b, out = _float_pair(x1, x2)
    g = _gcd_float(a, b)
    a32, b32 = F.cast(a, mstype.float32), F.cast(b, mstype.float32)
    res = F.mul(F.mul(F.div(a32, g), F.div(b32, g)), g)
    res = F.select(F.equal(F.mul(a32, b32), 0), F.zeros_like(res), res)
    return as_dtype(F.cast(F.abs(res), out), dtype)


def invert(x, dtype=None):
    """~x for ints (two's complement), not x for bools."""
    return as_dtype(_prim("Invert")(to_tensor(x)), dtype)


bitwise_not = invert
