"""Functional trigonometric, hyperbolic, log/exp-variant and special functions (ops.tan,
ops.atan2, ops.log1p, ops.erfinv, ops.lgamma, ops.polygamma, ops.sinc, ops.logaddexp, ...),
with MindSpore 2.10's names, aliases (arccos, arctan2, ...) and input rules.

Each calls a module-level primitive of ops/operations/transcendental_ops.py (one runner
cache per op), or composes primitives (sinc, logit, xlogy, logaddexp, deg2rad, ...), so
every function is differentiable through the primitives' bprops. As MindSpore's CPU
kernels, the unary ops take float tensors only (an int tensor is a TypeError); the
functions MindSpore computes in float for int inputs (exp2, sinc, i0) cast them to float32.
"""
import math

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import bessel_ops as B
from ..operations import elementwise_ops as E
from ..operations import logic_ops as L
from ..operations import math_ops as M
from ..operations import transcendental_ops as P
from ..operations.array_ops import Cast

__all__ = ['tan', 'atan', 'arctan', 'asin', 'arcsin', 'acos', 'arccos', 'sinh', 'cosh',
           'asinh', 'arcsinh', 'acosh', 'arccosh', 'atanh', 'arctanh', 'atan2', 'arctan2',
           'hypot', 'log1p', 'expm1', 'log2', 'log10', 'exp2', 'erfc', 'erfinv', 'trunc',
           'lgamma', 'digamma', 'polygamma', 'zeta', 'sinc', 'logit', 'xlogy', 'xdivy',
           'logaddexp', 'logaddexp2', 'deg2rad', 'rad2deg', 'i0', 'mvlgamma', 'bessel_j0',
           'bessel_j1', 'bessel_y0', 'bessel_y1', 'bessel_i0', 'bessel_i0e', 'bessel_i1',
           'bessel_i1e', 'bessel_k0', 'bessel_k0e', 'bessel_k1', 'bessel_k1e', 'igamma',
           'igammac']

_tan, _atan, _asin, _acos = P.Tan(), P.Atan(), P.Asin(), P.ACos()
_sinh, _cosh, _asinh, _acosh, _atanh = P.Sinh(), P.Cosh(), P.Asinh(), P.Acosh(), P.Atanh()
_log1p, _expm1, _log2, _log10, _exp2 = P.Log1p(), P.Expm1(), P.Log2(), P.Log10(), P.Exp2()
_erfc, _erfinv, _trunc = P.Erfc(), P.Erfinv(), P.Trunc()
_lgamma, _digamma, _zeta = P.Lgamma(), P.Digamma(), P.Zeta()
_atan2, _hypot = P.Atan2(), P.Hypot()
_log, _exp, _sin, _abs = E.Log(), E.Exp(), E.Sin(), E.Abs()
_add, _sub, _mul, _div = M.Add(), M.Sub(), M.Mul(), M.Div()
_maximum, _minimum, _neg = M.Maximum(), M.Minimum(), M.Neg()
_select, _equal, _logical_and = L.Select(), L.Equal(), L.LogicalAnd()
_cast = Cast()


def _check(name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', 'input' must be a Tensor, but got {type(x).__name__}")


def _as_float(x):
    """int / bool tensors as float32 (MindSpore's functions that compute ints in float)."""
    return x if x.dtype.kind in "fc" else _cast(x, mstype.float32)


def tan(input):
    return _tan(input)


def atan(input):
    return _atan(input)


def asin(input):
    return _asin(input)


def acos(input):
    return _acos(input)


def sinh(input):
    return _sinh(input)


def cosh(input):
    return _cosh(input)


def asinh(input):
    return _asinh(input)


def acosh(input):
    return _acosh(input)


def atanh(input):
    return _atanh(input)


arctan, arccos, arcsinh, arccosh, arctanh = atan, acos, asinh, acosh, atanh


def arcsin(x):
    """ops.asin under MindSpore 2.10's other name (its parameter is `x`)."""
    return _asin(x)


def _float_pair(name, input, other):
    """Both operands promoted to one float dtype (int tensors and Python numbers as float32,
    as MindSpore's Atan2 / Hypot functions); two int tensors are a TypeError, as there."""
    ta, tb = isinstance(input, Tensor), isinstance(other, Tensor)
    if not (ta or tb):
        raise TypeError(f"For '{name}', at least one of 'input' and 'other' must be a Tensor, "
                        f"but got {type(input).__name__} and {type(other).__name__}")
    kinds = [t.dtype.kind for t in (input, other) if isinstance(t, Tensor)]
    if all(k in "iub" for k in kinds):
        got = ", ".join(str(t.dtype) for t in (input, other) if isinstance(t, Tensor))
        raise TypeError(f"For '{name}', one of 'input' and 'other' must be a float Tensor, "
                        f"but got {got}")
    if ta and input.dtype.kind in "iub":
        input = _cast(input, mstype.float32)
    if tb and other.dtype.kind in "iub":
        other = _cast(other, mstype.float32)
    return input, other


def atan2(input, other):
    """The angle of the point (other, input), elementwise, broadcast; in (-pi, pi]."""
    return _atan2(*_float_pair("atan2", input, other))


arctan2 = atan2


def hypot(input, other):
    """sqrt(input**2 + other**2) without overflow, broadcast."""
    return _hypot(*_float_pair("hypot", input, other))


def log1p(input):
    return _log1p(input)


def expm1(input):
    return _expm1(input)


def log2(input):
    return _log2(input)


def log10(input):
    return _log10(input)


def exp2(input):
    """2**input; int tensors are computed in float32, as MindSpore."""
    _check("exp2", input)
    return _exp2(_as_float(input))


def erfc(input):
    return _erfc(input)


def erfinv(input):
    return _erfinv(input)


def trunc(input):
    """input rounded toward zero; int and bool tensors are returned as they are (copies, as
    MindSpore)."""
    if isinstance(input, Tensor) and input.dtype is mstype.bool_:
        return _cast(input, mstype.bool_)
    return _trunc(input)


def lgamma(input):
    return _lgamma(input)


def digamma(input):
    return _digamma(input)


def zeta(input, other):
    """Hurwitz zeta(input, other) = sum_k (k + other)**-input (input > 1)."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("For 'zeta', one of 'input' and 'other' must be a Tensor")
    return _zeta(input, other)


def polygamma(n, input):
    """The n-th derivative of digamma: digamma for n = 0, else (-1)**(n+1) n! zeta(n+1, x).
    `n` is an int Tensor (0-d or one element), as MindSpore's Polygamma."""
    if not isinstance(n, Tensor):
        raise TypeError(f"For 'polygamma', 'n' must be a Tensor, but got {type(n).__name__}")
    if n.dtype.kind not in "iu" or n.size != 1:
        raise TypeError(f"For 'polygamma', 'n' must be an int Tensor of one element, but got "
                        f"{n.dtype} of shape {list(n.shape)}")
    _check("polygamma", input)
    k = int(n.item())
    if k < 0:
        raise ValueError(f"For 'polygamma', 'n' must be non-negative, but got {k}")
    if k == 0:
        return _digamma(input)
    return _mul(_zeta(float(k + 1), input), (-1.0) ** (k + 1) * math.factorial(k))


def sinc(input):
    """sin(pi x) / (pi x), 1 at 0; int tensors are computed in float32."""
    _check("sinc", input)
    x = _as_float(input)
    pix = _mul(x, math.pi)
    zero = _equal(x, 0.0)
    return _select(zero, 1.0, _div(_sin(pix), _select(zero, 1.0, pix)))


def logit(input, eps=None):
    """log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given."""
    _check("logit", input)
    x = input
    if eps is not None:
        if not isinstance(eps, (int, float)) or isinstance(eps, bool):
            raise TypeError(f"For 'logit', 'eps' must be a float, but got {eps!r}")
        if eps >= 0:
            x = _minimum(_maximum(x, float(eps)), 1.0 - eps)
    return _log(_div(x, _sub(1.0, x)))


def xlogy(input, other):
    """input * log(other), 0 where input is 0 (NaN where other is NaN, as PyTorch)."""
    if isinstance(input, Tensor) and isinstance(other, Tensor) and \
            input.dtype.kind in "iub" and other.dtype.kind in "iub":
        raise TypeError(f"For 'xlogy', one of 'input' and 'other' must be a float Tensor, but "
                        f"got {input.dtype} and {other.dtype}")
    y = other if isinstance(other, Tensor) else _cast(Tensor(float(other)), input.dtype)
    prod = _mul(input, _log(y))
    zero = _equal(input, 0)
    if y.dtype.kind == "f":
        zero = _logical_and(zero, _equal(y, y))            # y not NaN
    return _select(zero, 0.0, prod)


def xdivy(x, y):
    """x / y, 0 where x is 0."""
    return _select(_equal(x, 0), 0.0, _div(x, y))


def logaddexp(input, other):
    """log(e**input + e**other) without overflow."""
    for t in (input, other):
        if isinstance(t, Tensor) and t.dtype.kind not in "fc":
            raise TypeError(f"For logaddexp, the dtype of 'input' and 'other' must be float, "
                            f"but got {t.dtype}")
    m = _maximum(input, other)
    out = _add(m, _log1p(_exp(_neg(_abs(_sub(input, other))))))
    return _select(_equal(input, other), _add(input, math.log(2.0)), out)   # inf, inf: inf


def logaddexp2(input, other):
    """log2(2**input + 2**other) without overflow."""
    for t in (input, other):
        if isinstance(t, Tensor) and t.dtype.kind not in "fc":
            raise TypeError(f"For logaddexp2, the dtype of 'input' and 'other' must be float, "
                            f"but got {t.dtype}")
    m = _maximum(input, other)
    out = _add(m, _div(_log1p(_exp2(_neg(_abs(_sub(input, other))))), math.log(2.0)))
    return _select(_equal(input, other), _add(input, 1.0), out)


def _float_only(name, x):
    _check(name, x)
    if x.dtype not in mstype.FLOAT_TYPES:
        raise TypeError(f"For '{name}', the 'x' should be one of [Float16, Float32, Float64], "
                        f"but got {x.dtype}")


# NOTE: MindSpore computes x * pi / 180 (x * 180 / pi) with pi taken as a float32 scalar,
# in two steps; float16 multiplies by the float16-rounded ratio
_PI32 = float(np.float32(math.pi))


def deg2rad(x):
    _float_only("deg2rad", x)
    if x.dtype is mstype.float16:
        return _mul(x, Tensor(np.float16(math.pi / 180.0)))
    return _div(_mul(x, _PI32), 180.0)


def rad2deg(x):
    _float_only("rad2deg", x)
    if x.dtype is mstype.float16:
        return _mul(x, Tensor(np.float16(180.0 / math.pi)))
    return _div(_mul(x, 180.0), _PI32)


def i0(input):
    """The modified Bessel function of the first kind of order 0 (float tensors)."""
    _check("i0", input)
    return _bessel["i0"](input)


def _bessel_function(kind):
    def fn(x):
        return _bessel[kind](x)
    fn.__name__ = fn.__qualname__ = f"bessel_{kind}"
    fn.__doc__ = f"The Bessel function {kind.upper()} of x (a float Tensor), elementwise."
    return fn


_bessel = {k: getattr(B, "Bessel" + k.upper()[:2] + k[2:])() for k in
           ("j0", "j1", "y0", "y1", "i0", "i0e", "i1", "i1e", "k0", "k0e", "k1", "k1e")}
bessel_j0, bessel_j1, bessel_y0, bessel_y1 = (_bessel_function(k) for k in ("j0", "j1", "y0",
                                                                             "y1"))
bessel_i0, bessel_i0e, bessel_i1, bessel_i1e = (_bessel_function(k) for k in ("i0", "i0e",
                                                                               "i1", "i1e"))
bessel_k0, bessel_k0e, bessel_k1, bessel_k1e = (_bessel_function(k) for k in ("k0", "k0e",
                                                                               "k1", "k1e"))


def mvlgamma(input, p):
    """The multivariate log-gamma of dimension p: p(p-1)/4 log(pi) + sum_j lgamma(x - j/2);
    every element must be > (p - 1) / 2."""
    _check("mvlgamma", input)
    if not isinstance(p, int) or isinstance(p, bool) or p < 1:
        raise ValueError(f"For 'mvlgamma', 'p' must be an int >= 1, but got {p!r}")
    if input.size and float(input.asnumpy().min()) <= (p - 1) / 2:
        raise ValueError("For Mvlgamma, all elements of 'x' must be greater than (p-1)/2.")
    out = _lgamma(input)
    for j in range(1, p):
        out = _add(out, _lgamma(_sub(input, j / 2.0)))
    return _add(out, p * (p - 1) / 4.0 * math.log(math.pi))


_igamma, _igammac = P.Igamma(), P.Igammac()


def igamma(input, other):
    """P(input, other): the regularized lower incomplete gamma function."""
    return _igamma(input, other)


def igammac(input, other):
    """Q(input, other) = 1 - P(input, other)."""
    return _igammac(input, other)
