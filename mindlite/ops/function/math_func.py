"""Functional math ops: ops.add, ops.matmul, ops.clamp, ... (MindSpore's math_func).

Each function calls a module-level primitive instance (one per attribute combination)
so repeated calls hit that primitive's runner cache; Tensor operators (common/tensor.py)
come through here. A few are compositions of primitives: clamp (Maximum, Minimum),
matmul with 1-D or batched operands (Reshape + MatMul / BatchMatMul), div with a
rounding_mode.
"""
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import math_ops as P

__all__ = ['add', 'sub', 'mul', 'div', 'true_divide', 'floor_div', 'floor_mod', 'fmod', 'pow',
           'neg', 'negative', 'abs', 'absolute', 'exp', 'log', 'sqrt', 'rsqrt', 'square', 'sin',
           'cos', 'sign', 'floor', 'ceil', 'round', 'reciprocal', 'erf', 'maximum', 'minimum',
           'equal', 'not_equal', 'ne', 'less', 'lt', 'less_equal', 'le', 'greater', 'gt',
           'greater_equal', 'ge', 'logical_and', 'logical_or', 'logical_not',
           'where', 'select', 'addn', 'matmul', 'bmm', 'clamp', 'clip', 'approximate_equal']

_abs, _neg, _exp, _log = P.Abs(), P.Neg(), P.Exp(), P.Log()
_sqrt, _rsqrt, _square = P.Sqrt(), P.Rsqrt(), P.Square()
_sin, _cos, _sign = P.Sin(), P.Cos(), P.Sign()
_floor, _ceil, _round = P.Floor(), P.Ceil(), P.Round()
_reciprocal, _erf, _logical_not = P.Reciprocal(), P.Erf(), P.LogicalNot()
_add, _sub, _mul, _div = P.Add(), P.Sub(), P.Mul(), P.Div()
_floor_div, _floor_mod, _mod, _truncate_div = P.FloorDiv(), P.FloorMod(), P.Mod(), P.TruncateDiv()
_pow, _maximum, _minimum = P.Pow(), P.Maximum(), P.Minimum()
_equal, _not_equal, _less, _less_equal = P.Equal(), P.NotEqual(), P.Less(), P.LessEqual()
_greater, _greater_equal = P.Greater(), P.GreaterEqual()
_logical_and, _logical_or = P.LogicalAnd(), P.LogicalOr()
_select, _addn = P.Select(), P.AddN()
_matmul = P.MatMul()
_batch_matmul = P.BatchMatMul()
_reshape = A.Reshape()
_cast = A.Cast()


# ---- arithmetic ---------------------------------------------------------------------------
def approximate_equal(x, other, tolerance=1e-5):
    """|x - other| < tolerance (the ApproximateEqual primitive: its checks, a float tolerance,
    same shapes)."""
    return P.ApproximateEqual(tolerance)(x, other)


def add(input, other):
    return _add(input, other)


def sub(input, other):
    return _sub(input, other)


def mul(input, other):
    return _mul(input, other)


def div(input, other, *, rounding_mode=None):
    """input / other. rounding_mode None: true division (int / int -> float32); 'floor':
    floor(input / other); 'trunc': trunc(input / other) (ints stay ints for both)."""
    if rounding_mode is None:
        return _div(input, other)
    if rounding_mode == "floor":
        return _floor_div(input, other)
    if rounding_mode == "trunc":
        return _truncate_div(input, other)
    raise ValueError(f"For 'div', 'rounding_mode' must be None, 'floor' or 'trunc', but got "
                     f"{rounding_mode!r}")


def true_divide(dividend, divisor):
    return _div(dividend, divisor)


def floor_div(x, y):
    return _floor_div(x, y)


def floor_mod(x, y):
    return _floor_mod(x, y)


def fmod(input, other):
    return _mod(input, other)


def pow(input, exponent):
    return _pow(input, exponent)


def neg(input):
    return _neg(input)


def abs(input):
    if isinstance(input, Tensor) and input.dtype is mstype.bool_:
        return _cast(input, mstype.bool_)             # |bool| is itself (a copy)
    return _abs(input)


def exp(input):
    return _exp(input)


def log(input):
    return _log(input)


def _float_of(x):
    """int / bool tensors as float32 (MindSpore's Sqrt / Reciprocal take them so)."""
    if isinstance(x, Tensor) and x.dtype.kind in "iub":
        return _cast(x, mstype.float32)
    return x


def sqrt(x):
    return _sqrt(_float_of(x))


def rsqrt(input):
    return _rsqrt(input)


def square(input):
    return _square(input)


def sin(input):
    return _sin(input)


def cos(input):
    return _cos(input)


def sign(input):
    return _sign(input)


def floor(input):
    return _floor(input)


def ceil(input):
    return _ceil(input)


def round(input, *, decimals=0):
    """input rounded half to even (to `decimals` decimal places: scaled by 10**decimals,
    rounded, scaled back)."""
    if decimals == 0:
        return _round(input)
    if not isinstance(decimals, int) or isinstance(decimals, bool):
        raise TypeError(f"For 'round', 'decimals' must be an int, but got {decimals!r}")
    scale = 10.0 ** decimals
    return _div(_round(_mul(input, scale)), scale)


def reciprocal(input):
    return _reciprocal(_float_of(input))


def erf(input):
    return _erf(input)


def maximum(input, other):
    return _maximum(input, other)


def minimum(input, other):
    return _minimum(input, other)


negative, absolute = neg, abs


def clamp(input, min=None, max=None):
    """min(max(input, min), max); a bound may be a number or a tensor (broadcast, promoted).
    Where min > max the result is max. At least one bound must be given. The gradient is 1
    where min <= input <= max, the bounds included (MindSpore's clamp; Maximum / Minimum would
    split it at a bound), 0 elsewhere; nan stays nan."""
    if min is None and max is None:
        raise ValueError("For 'clamp', at least one of 'min' and 'max' must not be None")
    out = input
    if min is not None:
        out = _select(_less(out, min), _maximum(out, min), out)
    if max is not None:
        out = _select(_greater(out, max), _minimum(out, max), out)
    return out


clip = clamp


# ---- comparison and logical ---------------------------------------------------------------
def equal(input, other):
    return _equal(input, other)


def not_equal(input, other):
    return _not_equal(input, other)


def less(input, other):
    return _less(input, other)


def less_equal(input, other):
    return _less_equal(input, other)


def greater(input, other):
    return _greater(input, other)


def greater_equal(input, other):
    return _greater_equal(input, other)


ne, lt, le, gt, ge = not_equal, less, less_equal, greater, greater_equal


def _as_bool(x):
    """Non-bool tensors are tested != 0 first (MindSpore 2.10's logical functions)."""
    if isinstance(x, Tensor) and x.dtype is not mstype.bool_:
        return _cast(x, mstype.bool_)
    return x


def logical_and(input, other):
    return _logical_and(_as_bool(input), _as_bool(other))


def logical_or(input, other):
    return _logical_or(_as_bool(input), _as_bool(other))


def logical_not(input):
    return _logical_not(_as_bool(input))


def select(condition, input, other):
    return _select(condition, input, other)


def where(condition, input, other):
    """condition ? input : other elementwise (the three broadcast; input, other promoted)."""
    return _select(condition, input, other)


def addn(x):
    return _addn(x)


# ---- matrix products ----------------------------------------------------------------------
def _shape(x):
    shape = getattr(x, "shape", None)
    if not isinstance(shape, tuple):
        raise TypeError(f"For 'matmul', inputs must be Tensors, but got {type(x).__name__}")
    return shape


def matmul(input, other):
    """numpy.matmul semantics: 2-D @ 2-D is MatMul; a 1-D operand is a row (left) or column
    (right) vector whose axis is dropped from the result; higher ranks broadcast their batch
    dimensions (BatchMatMul). 0-d operands are a ValueError, as numpy."""
    if type(input) is Tensor and type(other) is Tensor \
            and len(input._abs.shape) == 2 == len(other._abs.shape):
        return _matmul(input, other)          # the common case, without the checks below
    sa, sb = _shape(input), _shape(other)
    if len(sa) == 2 and len(sb) == 2:
        return _matmul(input, other)
    if not sa or not sb:
        raise ValueError(f"For 'matmul', the inputs must not be 0-d, but got shapes {list(sa)} "
                         f"and {list(sb)}")
    a = _reshape(input, (1, sa[0])) if len(sa) == 1 else input
    b = _reshape(other, (sb[0], 1)) if len(sb) == 1 else other
    if len(sa) <= 2 and len(sb) <= 2:
        out = _matmul(a, b)
    else:
        out = _batch_matmul(a, b)
    if len(sa) == 1 or len(sb) == 1:
        shape = out.shape
        shape = shape[:-2] + (shape[-1],) if len(sa) == 1 else shape
        shape = shape[:-1] if len(sb) == 1 else shape
        out = _reshape(out, shape)
    return out


def bmm(input_x, mat2):
    """Batched input_x @ mat2 over the last two axes, batch dimensions broadcast."""
    return _batch_matmul(input_x, mat2)
