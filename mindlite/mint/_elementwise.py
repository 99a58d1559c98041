"""mint's elementwise functions (mint.add, mint.sin, mint.eq, mint.clamp, ...): PyTorch-style
signatures (`alpha=`, `rounding_mode=`, `decimals=`) over the same primitives as ops (the
functional layer, ops/functional.py), so kernels, bprops and the cached fast path are ops'.
"""
from ..ops import functional as F


def _one(op):
    fn = getattr(F, op)

    def function(input):
        return fn(input)
    return function


def _two(op):
    fn = getattr(F, op)

    def function(input, other):
        return fn(input, other)
    return function


_UNARY = {"abs": "abs", "acos": "acos", "acosh": "acosh", "arccos": "acos",
          "arccosh": "acosh", "arcsinh": "asinh", "arctan": "atan",
          "arctanh": "atanh", "asin": "asin", "asinh": "asinh", "atan": "atan", "atanh": "atanh",
          "bitwise_not": "bitwise_not", "ceil": "ceil", "cos": "cos", "cosh": "cosh",
          "erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "exp": "exp", "exp2": "exp2",
          "expm1": "expm1", "floor": "floor", "frac": "frac", "imag": "imag",
          "isfinite": "isfinite", "isinf": "isinf", "isneginf": "isneginf", "log": "log",
          "log10": "log10", "log1p": "log1p", "log2": "log2", "logical_not": "logical_not",
          "neg": "neg", "negative": "neg", "real": "real", "reciprocal": "reciprocal",
          "rsqrt": "rsqrt", "sigmoid": "sigmoid", "sign": "sign", "sin": "sin", "sinc": "sinc",
          "sinh": "sinh", "sqrt": "sqrt", "square": "square", "tan": "tan", "tanh": "tanh"}
_BINARY = {"arctan2": "atan2", "atan2": "atan2", "bitwise_and": "bitwise_and",
           "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor", "eq": "equal",
           "floor_divide": "floor_divide", "fmod": "fmod",
           "gcd": "gcd", "greater": "greater", "greater_equal": "greater_equal",
           "gt": "greater", "le": "less_equal", "less": "less", "less_equal": "less_equal",
           "logaddexp": "logaddexp", "logaddexp2": "logaddexp2", "logical_and": "logical_and",
           "logical_or": "logical_or", "logical_xor": "logical_xor", "lt": "less",
           "maximum": "maximum", "minimum": "minimum", "mul": "mul", "ne": "not_equal",
           "not_equal": "not_equal", "remainder": "remainder",
           "xlogy": "xlogy"}

__all__ = ['add', 'addcdiv', 'allclose', 'arcsin', 'clamp', 'clone', 'div', 'divide',
           'float_power', 'isclose', 'isnan', 'lerp', 'nan_to_num', 'polar', 'pow', 'round',
           'sub'] + list(_UNARY) + list(_BINARY)

for _name, _op in _UNARY.items():
    _f = _one(_op)
    _f.__name__ = _f.__qualname__ = _name
    _f.__doc__ = f"mint.{_name}(input): ops.{_op}."
    globals()[_name] = _f
for _name, _op in _BINARY.items():
    _f = _two(_op)
    _f.__name__ = _f.__qualname__ = _name
    _f.__doc__ = f"mint.{_name}(input, other): ops.{_op}."
    globals()[_name] = _f


def arcsin(x):
    return F.asin(x)


def float_power(input, exponent):
    return F.float_power(input, exponent)


def polar(abs, angle):
    return F.polar(abs, angle)


def isnan(tensor):
    return F.isnan(tensor)


def add(input, other, *, alpha=1):
    """input + alpha * other."""
    return F.add(input, other if alpha == 1 else F.mul(other, alpha))


def sub(input, other, *, alpha=1):
    """input - alpha * other."""
    return F.sub(input, other if alpha == 1 else F.mul(other, alpha))


def div(input, other, *, rounding_mode=None):
    return F.div(input, other, rounding_mode=rounding_mode)


divide = div


def pow(input, exponent):
    return F.pow(input, exponent)


def clamp(input, min=None, max=None):
    return F.clamp(input, min, max)


def clone(input):
    """A copy with its own buffer (differentiable)."""
    return F.cast(input, input.dtype)


def round(input, *, decimals=0):
    return F.round(input, decimals=decimals)


def lerp(input, end, weight):
    return F.lerp(input, end, weight)


def addcdiv(input, tensor1, tensor2, *, value=1):
    return F.addcdiv(input, tensor1, tensor2, value)


def nan_to_num(input, nan=None, posinf=None, neginf=None):
    return F.nan_to_num(input, 0.0 if nan is None else nan, posinf, neginf)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return F.isclose(input, other, rtol, atol, equal_nan)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return F.allclose(input, other, rtol, atol, equal_nan)

