"""mindlite.numpy's elementwise math: arithmetic (`add`, `subtract`, ..., `divmod`, `power`,
`float_power`), exponents and logarithms, trigonometric and hyperbolic functions, rounding,
`clip`, `maximum` / `minimum`, `heaviside`, `hypot`, `copysign`, `cbrt`, angle conversions.

Every function takes Tensors, Python numbers and lists (ints int32, floats float32, as
MindSpore's numpy module), broadcasts, and casts its result to `dtype` when one is given.
Transcendental functions compute an int input in float32 (MindSpore's numpy does the
same). Each is one or a few primitives of `ops`, so gradients flow through them.
"""
import math

import numpy as onp

from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..ops import functional as F
from ..ops import operations as P
from .dtypes import as_dtype, both_scalars, float_input, operand, to_tensor

__all__ = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder",
           "mod", "fmod", "divmod", "power", "float_power", "negative", "positive", "absolute",
           "abs", "fabs", "sign", "reciprocal", "square", "sqrt", "cbrt", "exp", "exp2", "expm1",
           "log", "log2", "log10", "log1p", "logaddexp", "logaddexp2", "sin", "cos", "tan",
           "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh",
           "arccosh", "arctanh", "deg2rad", "rad2deg", "radians", "floor", "ceil", "rint",
           "trunc", "fix", "clip", "maximum", "minimum", "heaviside", "hypot", "copysign"]

_PRIMS = {}


def _prim(name):
    """One cached instance of primitive `name` (its runners are reused call after call)."""
    p = _PRIMS.get(name)
    if p is None:
        p = _PRIMS.setdefault(name, getattr(P, name)())
    return p


def _binary(fn, x1, x2, dtype):
    if both_scalars(x1, x2):
        x1 = to_tensor(x1)
    return as_dtype(fn(operand(x1), operand(x2)), dtype)


def add(x1, x2, dtype=None):
    return _binary(F.add, x1, x2, dtype)


def subtract(x1, x2, dtype=None):
    return _binary(F.sub, x1, x2, dtype)


def multiply(x1, x2, dtype=None):
    return _binary(F.mul, x1, x2, dtype)


def divide(x1, x2, dtype=None):
    """True division: ints give float32."""
    return _binary(F.div, x1, x2, dtype)


def true_divide(x1, x2, dtype=None):
    return divide(x1, x2, dtype)


def floor_divide(x1, x2, dtype=None):
    return _binary(F.floor_div, x1, x2, dtype)


def remainder(x1, x2, dtype=None):
    """x1 - floor(x1 / x2) * x2 (the sign of x2), as numpy."""
    return _binary(F.floor_mod, x1, x2, dtype)


mod = remainder


def fmod(x1, x2, dtype=None):
    """The C remainder (the sign of x1)."""
    return _binary(F.fmod, x1, x2, dtype)


def divmod(x1, x2, dtype=None):  # noqa: A001 (numpy's name)
    return floor_divide(x1, x2, dtype), remainder(x1, x2, dtype)


def power(x1, x2, dtype=None):
    return _binary(F.pow, x1, x2, dtype)


def float_power(x1, x2, dtype=None):
    """x1 ** x2 in a float dtype (ints computed in float32, as MindSpore's numpy)."""
    a = float_input(x1)
    b = float_input(x2) if not isinstance(x2, (int, float)) else float(x2)
    return as_dtype(F.pow(a, b), dtype)


def negative(a, dtype=None):
    return as_dtype(F.neg(to_tensor(a)), dtype)


def positive(a, dtype=None):
    a = to_tensor(a)
    return as_dtype(a + 0 if a.dtype != mstype.bool_ else a, dtype)


def absolute(x, dtype=None):
    return as_dtype(F.abs(to_tensor(x)), dtype)


abs = absolute  # noqa: A001


def fabs(x, dtype=None):
    return as_dtype(F.abs(float_input(x)), dtype)


def sign(x, dtype=None):
    """-1, 0 or 1 (nan for nan); ints are computed in float32, as MindSpore's numpy."""
    return as_dtype(F.sign(float_input(x)), dtype)


def reciprocal(x, dtype=None):
    return as_dtype(F.reciprocal(float_input(x)), dtype)


def square(x, dtype=None):
    return as_dtype(F.square(to_tensor(x)), dtype)


def _unary(fn):
    def op(x, dtype=None):
        return as_dtype(fn(float_input(x)), dtype)
    return op


sqrt = _unary(F.sqrt)
exp = _unary(F.exp)
log = _unary(F.log)
sin = _unary(F.sin)
cos = _unary(F.cos)
tanh = _unary(F.tanh)
floor = _unary(F.floor)
ceil = _unary(F.ceil)


def _prim_unary(name):
    def op(x, dtype=None):
        return as_dtype(_prim(name)(float_input(x)), dtype)
    op.__name__ = name.lower()
    return op


tan = _prim_unary("Tan")
arcsin = _prim_unary("Asin")
arccos = _prim_unary("ACos")
arctan = _prim_unary("Atan")
sinh = _prim_unary("Sinh")
cosh = _prim_unary("Cosh")
arcsinh = _prim_unary("Asinh")
arccosh = _prim_unary("Acosh")
arctanh = _prim_unary("Atanh")
exp2 = _prim_unary("Exp2")
expm1 = _prim_unary("Expm1")
log2 = _prim_unary("Log2")
log10 = _prim_unary("Log10")
log1p = _prim_unary("Log1p")
trunc = _prim_unary("Trunc")


def fix(x):
    """Round toward zero (floats; ints computed in float32)."""
    return trunc(x)


for _f, _doc in ((sqrt, "Square root."), (exp, "e ** x."), (log, "Natural logarithm."),
                 (sin, "Sine."), (cos, "Cosine."), (tanh, "Hyperbolic tangent."),
                 (floor, "Round down."), (ceil, "Round up."), (tan, "Tangent."),
                 (arcsin, "Inverse sine."), (arccos, "Inverse cosine."),
                 (arctan, "Inverse tangent."), (sinh, "Hyperbolic sine."),
                 (cosh, "Hyperbolic cosine."), (arcsinh, "Inverse hyperbolic sine."),
                 (arccosh, "Inverse hyperbolic cosine."),
                 (arctanh, "Inverse hyperbolic tangent."), (exp2, "2 ** x."),
                 (expm1, "e ** x - 1, exact near 0."), (log2, "Base-2 logarithm."),
                 (log10, "Base-10 logarithm."), (log1p, "log(1 + x), exact near 0."),
                 (trunc, "Round toward zero.")):
    _f.__doc__ = _doc + " Ints are computed in float32; `dtype` casts the result."


def cbrt(x, dtype=None):
    """The real cube root (negative for negative x)."""
    x = float_input(x)
    return as_dtype(F.sign(x) * F.pow(F.abs(x), 1.0 / 3.0), dtype)


def logaddexp(x1, x2, dtype=None):
    """log(exp(x1) + exp(x2)) without overflow: max + log1p(exp(-|x1 - x2|))."""
    a, b = float_input(x1), float_input(x2)
    hi = F.maximum(a, b)
    return as_dtype(hi + log1p(F.exp(-F.abs(a - b))), dtype)


def logaddexp2(x1, x2, dtype=None):
    """log2(2 ** x1 + 2 ** x2) without overflow."""
    a, b = float_input(x1), float_input(x2)
    hi = F.maximum(a, b)
    return as_dtype(hi + log1p(exp2(-F.abs(a - b))) / math.log(2.0), dtype)


def arctan2(x1, x2, dtype=None):
    """The angle of the point (x2, x1), in (-pi, pi]."""
    a, b = float_input(x1), float_input(x2)
    return as_dtype(_prim("Atan2")(a, b), dtype)


def hypot(x1, x2, dtype=None):
    """sqrt(x1 ** 2 + x2 ** 2) without overflow."""
    a, b = float_input(x1), float_input(x2)
    return as_dtype(_prim("Hypot")(a, b), dtype)


def deg2rad(x, dtype=None):
    return as_dtype(float_input(x) * (math.pi / 180.0), dtype)


radians = deg2rad


def rad2deg(x, dtype=None):
    return as_dtype(float_input(x) * (180.0 / math.pi), dtype)


def rint(x, dtype=None):
    """Round half to even (floats; ints computed in float32)."""
    return as_dtype(F.round(float_input(x)), dtype)


def clip(x, xmin, xmax, dtype=None):
    """x limited to [xmin, xmax] (either may be None, not both)."""
    if xmin is None and xmax is None:
        raise ValueError("For 'mindlite.numpy.clip', 'xmin' and 'xmax' cannot both be None")
    x = to_tensor(x)
    if xmin is not None:
        x = F.maximum(x, operand(xmin))
    if xmax is not None:
        x = F.minimum(x, operand(xmax))
    return as_dtype(x, dtype)


def maximum(x1, x2, dtype=None):
    """The elementwise maximum (nan propagates)."""
    return _binary(F.maximum, x1, x2, dtype)


def minimum(x1, x2, dtype=None):
    return _binary(F.minimum, x1, x2, dtype)


def heaviside(x1, x2, dtype=None):
    """0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0 (nan stays nan)."""
    x1 = to_tensor(x1)
    x2 = operand(x2)
    zero = F.zeros_like(x1)
    out = F.select(x1 > 0, F.ones_like(x1), zero)
    half = x2 if isinstance(x2, Tensor) else to_tensor(x2, x1.dtype)
    shape = F.broadcast_to(out, _shape2(out, half)).shape
    out = F.select(F.broadcast_to(x1 == 0, shape), F.broadcast_to(F.cast(half, x1.dtype),
                                                                  shape),
                   F.broadcast_to(out, shape))
    out = F.select(F.broadcast_to(F.isnan(x1), shape) if x1.dtype in mstype.FLOAT_TYPES
                   else F.broadcast_to(x1 != x1, shape), F.broadcast_to(x1, shape), out)
    return as_dtype(out, dtype)


def _shape2(a, b):
    return onp.broadcast_shapes(a.shape, b.shape)


def copysign(x1, x2, dtype=None):
    """|x1| with the sign of x2 (a negative zero in x2 counts as negative where it can be
    seen: 1 / x2 < 0)."""
    a = float_input(x1)
    b = float_input(x2) if isinstance(x2, (Tensor, list, tuple)) else x2
    if not isinstance(b, Tensor):
        neg = b < 0 or (b == 0 and math.copysign(1.0, b) < 0)
        mag = F.abs(a)
        return as_dtype(-mag if neg else mag, dtype)
    with_sign = F.logical_or(b < 0, F.logical_and(b == 0, F.reciprocal(b) < 0))
    mag = F.abs(a)
    shape = _shape2(mag, b)
    return as_dtype(F.select(F.broadcast_to(with_sign, shape), F.broadcast_to(-mag, shape),
                             F.broadcast_to(mag, shape)), dtype)
