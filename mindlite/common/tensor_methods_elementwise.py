"""Tensor's elementwise methods as MindSpore 2.10 names them: unary math (`x.acos()`,
`x.log1p()`, `x.erfinv()`, ...), comparisons (`x.eq(y)`, `x.gt(y)`, ...), logical and bitwise
ops, and the binary math spellings (`x.atan2(y)`, `x.remainder(y)`, `x.xlogy(y)`, ...).
Each calls its functional op (ops/function/*_func.py), so it is recorded for autograd.
The one-line methods are generated from the tables below (name -> functional op); listed in
tensor.py's `_METHOD_MODULES`.
"""
import linecache

F = None      # mindlite.ops.functional, bound by tensor.py (functional imports Tensor)

UNARY = {  # method -> functional op of one tensor
    "absolute": "abs", "negative": "neg", "acos": "acos", "arccos": "acos", "acosh": "acosh",
    "arccosh": "acosh", "asin": "asin", "arcsin": "asin", "asinh": "asinh", "arcsinh": "asinh",
    "atan": "atan", "arctan": "atan", "atanh": "atanh", "arctanh": "atanh", "cos": "cos",
    "cosh": "cosh", "sin": "sin", "sinh": "sinh", "tan": "tan", "rsqrt": "rsqrt",
    "reciprocal": "reciprocal", "erf": "erf", "erfc": "erfc", "erfinv": "erfinv",
    "expm1": "expm1", "log10": "log10", "log1p": "log1p", "log2": "log2", "lgamma": "lgamma",
    "digamma": "digamma", "i0": "i0", "sinc": "sinc", "trunc": "trunc", "frac": "frac",
    "sgn": "sgn", "positive": "positive", "signbit": "signbit", "isneginf": "isneginf",
    "isposinf": "isposinf", "isreal": "isreal", "logical_not": "logical_not",
    "bitwise_not": "bitwise_not", "invert": "invert", "deg2rad": "deg2rad",
    "rad2deg": "rad2deg", "fliplr": "fliplr", "flipud": "flipud", "inverse": "inverse",
    "inv": "reciprocal", "det": "det", "matrix_determinant": "det", "t": "t",
    "argwhere": "argwhere", "msort": "msort",
}
BINARY = {  # method -> functional op of (self, other)
    "eq": "equal", "ne": "not_equal", "not_equal": "not_equal", "gt": "greater",
    "greater": "greater", "ge": "greater_equal", "greater_equal": "greater_equal",
    "lt": "less", "less": "less", "le": "less_equal", "less_equal": "less_equal",
    "logical_xor": "logical_xor",
    "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
    "bitwise_left_shift": "bitwise_left_shift", "bitwise_right_shift": "bitwise_right_shift",
    "atan2": "atan2", "arctan2": "atan2", "copysign": "copysign", "fmax": "fmax",
    "fmin": "fmin", "fmod": "fmod", "gcd": "gcd", "lcm": "lcm", "heaviside": "heaviside",
    "hypot": "hypot", "ldexp": "ldexp", "logaddexp": "logaddexp", "logaddexp2": "logaddexp2",
    "nextafter": "nextafter", "xlogy": "xlogy", "xdivy": "xdivy", "float_power": "float_power",
    "floor_divide": "floor_divide", "true_divide": "true_divide", "multiply": "multiply",
    "mm": "mm", "outer": "outer", "ger": "ger", "inner": "inner", "dot": "dot",
    "igamma": "igamma", "igammac": "igammac", "matrix_power": "matrix_power",
    "mvlgamma": "mvlgamma",
}
# MindSpore 2.10's name of the second operand where it is not `other`
SECOND = {"mm": "mat2", "outer": "vec2", "ger": "vec2", "heaviside": "values",
          "matrix_power": "n", "multiply": "value", "mvlgamma": "p", "xdivy": "y"}


def _unary(name, op):
    def method(self):
        return getattr(F, op)(self)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"ops.{op}(self)."
    return method


def _binary(name, op):
    second = SECOND.get(name, "other")
    ns = {}
    src = f"def method(self, {second}):\n    return F.{op}(self, {second})\n"
    file = f"<Tensor.{name}>"          # its source in linecache: graph mode parses the method
    linecache.cache[file] = (len(src), None, src.splitlines(True), file)
    exec(compile(src, file, "exec"), globals(), ns)
    method = ns["method"]
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"ops.{op}(self, {second})."
    return method


class ElementwiseTensorMethods:
    """The generated one-liners, and the few with more arguments."""
    __slots__ = ()

    def logical_and(self, other=None, *, y=None):
        """logical_and(other) or logical_and(y=...) (MindSpore 2.10's two spellings)."""
        return F.logical_and(self, y if other is None else other)

    def logical_or(self, other=None, *, y=None):
        return F.logical_or(self, y if other is None else other)

    def divide(self, other, *, rounding_mode=None):
        return F.div(self, other, rounding_mode=rounding_mode)

    def subtract(self, other, *, alpha=1):
        return F.subtract(self, other, alpha=alpha)

    def remainder(self, other=None, *, divisor=None):
        return F.remainder(self, divisor if other is None else other)

    def round(self, decimals=0):
        return F.round(self, decimals=decimals)

    def lerp(self, end, weight):
        return F.lerp(self, end, weight)

    def addcmul(self, tensor1, tensor2, value=1):
        return F.addcmul(self, tensor1, tensor2, value)

    def addcdiv(self, tensor1, tensor2, value=1):
        return F.addcdiv(self, tensor1, tensor2, value)

    def nan_to_num(self, nan=None, posinf=None, neginf=None):
        return F.nan_to_num(self, 0.0 if nan is None else nan, posinf, neginf)

    def logit(self, eps=None):
        return F.logit(self, eps)

    def hardshrink(self, lambd=0.5):
        return F.hardshrink(self, lambd)

    def soft_shrink(self, lambd=0.5):
        return F.softshrink(self, lambd)

    def approximate_equal(self, other, tolerance=1e-05):
        return F.approximate_equal(self, other, tolerance)


for _name, _op in UNARY.items():
    setattr(ElementwiseTensorMethods, _name, _unary(_name, _op))
for _name, _op in BINARY.items():
    setattr(ElementwiseTensorMethods, _name, _binary(_name, _op))

METHODS = ElementwiseTensorMethods
