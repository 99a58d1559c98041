"""The numpy references and runners the C++ kernel tests (test_cpp_kernels.py,
test_cpp_pool.py) share: each registered cpp kernel's reference, how closely it must match,
memory layouts to call it on, and a fixed-input check of every op and dtype (also run in
subprocesses under other instruction sets).
"""
import math

import numpy as np
from helpers import noncontig

from mindlite.kernels import registry
from mindlite.kernels.cpu._cext import _C

SPLITS = [1, 2, 0]
LAYOUTS = ["contig", "noncontig", "flipped", "fortran"]


def cpp_kernel(op):
    (k,) = [k for k in registry.kernels_for(op) if k.provider == "cpp"]
    return k


def cpp_dtypes(op):
    return sorted((t.np for t in cpp_kernel(op).dtypes), key=str)


def layout(arr, kind):
    """A view of `arr` in the given memory layout (the reference sees the same view)."""
    if kind == "noncontig":
        return noncontig(arr)
    if kind == "flipped":
        return np.flip(arr) if arr.ndim else arr
    if kind == "fortran":
        return np.asfortranarray(arr)
    return arr


def _longdouble(x):
    return x.astype(np.float64 if x.dtype == np.float32 else np.longdouble)


def _sigmoid(v):
    return np.where(v >= 0, 1 / (1 + np.exp(-np.abs(v))),
                    np.exp(-np.abs(v)) / (1 + np.exp(-np.abs(v))))


GELU_K = np.sqrt(2 / np.pi)
_erf = np.vectorize(math.erf, otypes=[np.float64])
# Transcendental ops: reference in float64 (float32 inputs) / long double (float64 inputs).
APPROX = {
    "Exp": np.exp, "Log": np.log, "Sin": np.sin, "Cos": np.cos, "Tanh": np.tanh,
    "Sigmoid": _sigmoid, "SiLU": lambda v: v * _sigmoid(v),
    "Softplus": lambda v: np.logaddexp(np.zeros_like(v), v),
    "GeLU": lambda v: v * _sigmoid(2 * GELU_K * (v + v.dtype.type(0.044715) * v ** 3)),
    "Erf": lambda v: _erf(v.astype(np.float64)), "Rsqrt": lambda v: 1 / np.sqrt(v),
    # activation_ops (the SeLU constants as in activation_ops.py)
    "Elu": lambda v: np.where(v >= 0, v, np.expm1(np.minimum(v, 0))),      # elu(-0.0) = -0.0
    "SeLU": lambda v: 1.0507009873554804934193349852946 * np.where(
        v >= 0, v, 1.6732632423543772848170429916717 * np.expm1(np.minimum(v, 0))),
    "Mish": lambda v: v * np.tanh(np.logaddexp(np.zeros_like(v), v)),
    "LogSigmoid": lambda v: -np.logaddexp(np.zeros_like(v), -v),
}


def _torch_ref(name, *args):
    """A torch.special / torch function evaluated in float64 (torch is a test dependency)."""
    import torch
    fn = getattr(torch.special, name, None) or getattr(torch, name)
    return fn(*[torch.from_numpy(np.asarray(a, np.float64)) for a in args]).numpy()


def _k1(name):
    """torch's K1 / scaled K1, with +inf where torch gives NaN at the smallest subnormals
    (K1(x) ~ 1/x overflows below ~5.6e-309; torch's K1(5e-324) is NaN, its K1(1e-320) inf)."""
    def ref(v):
        out = _torch_ref(name, v)
        return np.where((np.asarray(v) > 0) & np.isnan(out), np.inf, out)
    return ref


def _bessel(name, at_pos_inf, at_neg_inf):
    """torch's Bessel function, with the limits at +-inf where torch gives NaN (J, Y -> 0,
    I0 -> inf, I1 -> +-inf), as scipy and the C++ kernels."""
    def ref(v):
        out = _torch_ref(name, v)
        return np.where(v == np.inf, at_pos_inf, np.where(v == -np.inf, at_neg_inf, out))
    return ref


def _mp_bessel(kind, order):
    """J / Y from mpmath (torch's bessel_y0 is off by ~1e-10 near its zeros); mpmath comes
    with torch (through sympy)."""
    import mpmath
    fn = mpmath.besselj if kind == "j" else mpmath.bessely

    def one(v):
        if np.isnan(v) or (kind == "y" and v < 0):
            return np.nan
        if np.isinf(v):
            return 0.0 if v > 0 or kind == "j" else np.nan
        if kind == "y" and v == 0:
            return -np.inf
        return float(fn(order, v))
    return np.vectorize(one, otypes=[np.float64])


def _lgamma_one(v):
    """math.lgamma, with the poles (0, -1, -2, ...) at inf as C's lgamma has them."""
    try:
        return math.lgamma(v)
    except ValueError:
        return np.inf


_lgamma = np.vectorize(_lgamma_one, otypes=[np.float64])


def _digamma_one(v):
    """mpmath's psi (torch's loses digits next to the negative poles: it reflects with
    tan(pi x) of the unreduced x); poles and -inf NaN, 0 -inf with the sign of zero flipped."""
    import mpmath
    if np.isnan(v) or v == -np.inf or (v < 0 and v == np.floor(v)):
        return np.nan
    if v == 0:
        return np.inf if np.signbit(v) else -np.inf
    if v == np.inf:
        return np.inf
    return float(mpmath.digamma(mpmath.mpf(float(v))))


_digamma = np.vectorize(_digamma_one, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
# Special functions (transcendental_ops.py, bessel_ops.py): float64 references (numpy, math,
# torch.special); compared with an absolute tolerance too, as they have roots (lgamma at 1 and
# 2, the Bessel functions' zeros) where the relative error of any float result is unbounded.
SPECIAL = {
    "Tan": np.tan, "Atan": np.arctan, "Asin": np.arcsin, "ACos": np.arccos, "Sinh": np.sinh,
    "Cosh": np.cosh, "Asinh": np.arcsinh, "Acosh": np.arccosh, "Atanh": np.arctanh,
    "Log1p": np.log1p, "Expm1": np.expm1, "Log2": np.log2, "Log10": np.log10,
    "Exp2": np.exp2, "Erfc": _erfc, "Lgamma": _lgamma,
    "Erfinv": lambda v: _torch_ref("erfinv", v), "Digamma": _digamma,
    "BesselJ0": _mp_bessel("j", 0), "BesselJ1": _mp_bessel("j", 1),
    "BesselY0": _mp_bessel("y", 0), "BesselY1": _mp_bessel("y", 1),
    "BesselI0": _bessel("i0", np.inf, np.inf), "BesselI0e": lambda v: _torch_ref("i0e", v),
    "BesselI1": _bessel("i1", np.inf, -np.inf), "BesselI1e": lambda v: _torch_ref("i1e", v),
    "BesselK0": lambda v: _torch_ref("modified_bessel_k0", v),
    "BesselK1": _k1("modified_bessel_k1"),
    "BesselK0e": lambda v: _torch_ref("scaled_modified_bessel_k0", v),
    "BesselK1e": _k1("scaled_modified_bessel_k1"),
}
SPECIAL_BINARY = {
    "Atan2": np.arctan2, "Hypot": np.hypot, "Zeta": lambda s, q: _torch_ref("zeta", s, q),
    "Igamma": lambda a, x: _torch_ref("gammainc", a, x),
    "Igammac": lambda a, x: _torch_ref("gammaincc", a, x),
}
# Exact ops: numpy in the input dtype, compared bit for bit (sign of zero included).
EXACT_UNARY = {
    "Abs": np.abs, "Neg": np.negative, "Square": np.square, "Sign": np.sign,
    "Floor": np.floor, "Ceil": np.ceil, "Round": np.round, "Sqrt": np.sqrt,
    "Reciprocal": np.reciprocal,
    "ReLU": lambda v: np.maximum(v, v.dtype.type(0)),
    "ReLU6": lambda v: np.minimum(np.maximum(v, v.dtype.type(0)), v.dtype.type(6)),
    "HSigmoid": lambda v: np.minimum(np.maximum(v + 3, 0), 6) / v.dtype.type(6),
    "HSwish": lambda v: np.where(v <= -3, v.dtype.type(0), np.where(
        v >= 3, v, np.minimum(np.maximum(v + 3, 0), 6) / v.dtype.type(6) * v)),
    "Softsign": lambda v: v / (np.abs(v) + v.dtype.type(1)),
    "Trunc": np.trunc,
}


def _c99_power(x, y):
    """np.power through numpy's long contiguous loop, which follows C99 like libm's pow
    (pow(-inf, 0.5) == inf, pow(-0.0, 0.5) == 0.0); numpy's short-array loop differs."""
    x, y = np.broadcast_arrays(x, y)
    pad = np.ones(64, x.dtype)
    r = np.power(np.concatenate([x.ravel(), pad]), np.concatenate([y.ravel(), pad]))
    return r[:x.size].reshape(x.shape)


BINARY = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.true_divide,
    "RealDiv": np.true_divide, "Maximum": np.maximum, "Minimum": np.minimum,
    "FloorDiv": np.floor_divide, "FloorMod": np.remainder, "Pow": _c99_power,
    "ReluGrad": lambda dy, x: np.multiply(dy, x > 0),
    "ReLU6Grad": lambda dy, x: np.multiply(dy, (x > 0) & (x <= 6)),
    "Equal": np.equal, "NotEqual": np.not_equal, "Less": np.less, "LessEqual": np.less_equal,
    "Greater": np.greater, "GreaterEqual": np.greater_equal,
    "LogicalAnd": np.logical_and, "LogicalOr": np.logical_or,
}
BINARY.update(SPECIAL_BINARY)


def reference(op, *xs):
    with np.errstate(all="ignore"):
        if op in SPECIAL or op in SPECIAL_BINARY:
            fn = SPECIAL.get(op) or SPECIAL_BINARY[op]
            out = np.asarray(fn(*[x.astype(np.float64) for x in xs])).astype(xs[0].dtype)
            if op in ("BesselI0", "BesselI1"):     # e^|x| I*e(|x|) in the input's dtype, as
                x = xs[0]                           # MindSpore's and torch's own kernels
                big = np.isinf(np.exp(np.abs(x)))
                out = np.where(big, np.copysign(np.inf, x) if op == "BesselI1" else np.inf, out)
                out = out.astype(x.dtype)
            return out
        if op in APPROX:
            (x,) = xs
            return APPROX[op](_longdouble(x)).astype(x.dtype)
        if op in EXACT_UNARY:
            return EXACT_UNARY[op](*xs)
        return BINARY[op](*xs)


def assert_matches(op, got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    if op in SPECIAL or op in SPECIAL_BINARY:
        f32 = got.dtype == np.float32
        rtol, atol = (4e-6, 1e-6) if f32 else (1e-11, 1e-12)
        if op in ("Lgamma", "Digamma") or op.startswith("Bessel") or op in SPECIAL_BINARY:
            rtol, atol = (rtol * 10, atol * 10)
        if op in ("Igamma", "Igammac") and not f32:
            rtol = 1e-8             # torch's own gammainc is this far from mpmath at a ~ 20
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=op)
        return
    if op in APPROX or op == "Pow":
        f32 = got.dtype == np.float32
        loose = op in ("GeLU", "Elu", "SeLU", "Mish", "LogSigmoid")
        rtol = (1e-5 if f32 else 1e-11) if loose else (1e-6 if f32 else 1e-12)
        atol = 1e-37 if f32 else 1e-300
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        signed = (want == 0) | np.isinf(want)   # the sign of a zero or infinity is exact
        np.testing.assert_array_equal(np.signbit(got[signed]), np.signbit(want[signed]))
        return
    np.testing.assert_array_equal(got, want)
    if got.dtype.kind == "f":
        both = ~np.isnan(got) & ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[both]), np.signbit(want[both]))


def run_unary(op, x):
    out = np.empty(x.shape, x.dtype)
    cpp_kernel(op).fn(x, out)
    return out


def run_binary(op, x, y):
    shape = np.broadcast_shapes(x.shape, y.shape)
    out = np.empty(shape, np.bool_ if op in BOOL_RESULT else x.dtype)
    cpp_kernel(op).fn(x, y, out)
    return out


BOOL_RESULT = {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
               "LogicalAnd", "LogicalOr"}
UNARY_OPS = sorted(APPROX) + sorted(EXACT_UNARY) + sorted(SPECIAL)


def check_all_ops_fixed_inputs():
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64, np.int32, np.int64, np.bool_):
        x = (rng.standard_normal((37, 29)) * 30).astype(dtype)
        y = (rng.standard_normal(29) * 4).astype(dtype)
        if dtype in (np.float32, np.float64):
            x[0, :6] = [np.nan, np.inf, -np.inf, 0, -0.0, 1e-40]
        for op in UNARY_OPS:
            if dtype in cpp_dtypes(op):
                assert_matches(op, run_unary(op, x), reference(op, x))
        for op in BINARY:
            if dtype in cpp_dtypes(op):
                assert_matches(op, run_binary(op, x, y), reference(op, x, y))
        if dtype in (np.float32, np.float64):
            check_negative_zero_scalars(dtype)
    print(_C.kernel_isa())


def check_negative_zero_scalars(dtype):
    """A 0-d -0.0 operand on either side of every binary op keeps its sign in the
    broadcast-scalar loops (Pow(-0.0, [-1, 3]) is [-inf, -0.0], as numpy), at every length
    around the vector widths."""
    zero = np.array(-0.0, dtype)
    pattern = np.array([-1, 3, -3, 1, 0.5, -2.5, 2, -0.0, 0, np.inf, -np.inf, np.nan], dtype)
    for n in (1, 2, 3, 5, 8, 9, 17, 40):
        other = np.resize(pattern, n)
        for op in BINARY:
            if dtype in cpp_dtypes(op):
                for x, y in ((zero, other), (other, zero)):
                    assert_matches(op, run_binary(op, x, y), reference(op, x, y))
