"""numpy reference kernels for math_ops: the oracle in tests and the last-resort provider.

Every kernel here is alloc="runtime": fn(*inputs, out, **params) writes into the
preallocated C-contiguous output of the inferred shape and dtype. Inputs may be
non-contiguous, 0-d, empty, or broadcast against each other (inference checked that
they broadcast to `out.shape`). Math runs in the input dtype, as numpy's ufuncs do
(float16 ufuncs evaluate in float32 and round each result to float16).
Domain edges give IEEE / numpy values. Kernels whose ordinary use hits them (division,
log, sqrt, pow, exp, sin/cos of inf, int x // 0 = int x % 0 = 0) compute inside
np.errstate so that no RuntimeWarning is raised; Add/Sub/Mul keep numpy's warnings for
inf - inf and inf * 0 (an errstate costs ~1 us, too much for the most common ops).
"""
import math

import numpy as np

from ...common import dtype as mstype
from ..registry import register_kernel
from ._blas import matmul, matmul_2d

# ---- plain ufuncs: one numpy ufunc, computed in the input dtype, no domain edges --------
_UFUNCS = {
    "Abs": np.absolute, "Neg": np.negative, "Square": np.square, "Sign": np.sign,
    "Floor": np.floor, "Ceil": np.ceil, "LogicalNot": np.logical_not,
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
    "Maximum": np.maximum, "Minimum": np.minimum,
    "Equal": np.equal, "NotEqual": np.not_equal, "Less": np.less, "LessEqual": np.less_equal,
    "Greater": np.greater, "GreaterEqual": np.greater_equal,
    "LogicalAnd": np.logical_and, "LogicalOr": np.logical_or, "LogicalXor": np.logical_xor,
}
# ---- ufuncs whose domain edges (x/0, log(-1), exp overflow, sin(inf)) would warn ----------
_QUIET_UFUNCS = {
    "Exp": np.exp, "Log": np.log, "Sqrt": np.sqrt, "Sin": np.sin, "Cos": np.cos,
    "Reciprocal": np.reciprocal, "Div": np.true_divide,
    "FloorDiv": np.floor_divide, "FloorMod": np.remainder, "Mod": np.fmod,
}


def _snake(name):
    return "".join("_" + c.lower() if c.isupper() and i else c.lower()
                   for i, c in enumerate(name))


def _plain_kernel(ufunc):
    if ufunc.nin == 1:
        def kernel(x, out):
            ufunc(x, out=out)
    else:
        def kernel(x, y, out):
            ufunc(x, y, out=out)
    return kernel


def _quiet_kernel(ufunc):
    if ufunc.nin == 1:
        def kernel(x, out):
            with np.errstate(all="ignore"):
                ufunc(x, out=out)
    else:
        def kernel(x, y, out):
            with np.errstate(all="ignore"):
                ufunc(x, y, out=out)
    return kernel


for _table, _make in ((_UFUNCS, _plain_kernel), (_QUIET_UFUNCS, _quiet_kernel)):
    for _op, _ufunc in _table.items():
        _fn = _make(_ufunc)
        _fn.__name__ = _fn.__qualname__ = f"{_snake(_op)}_numpy"
        register_kernel(_op, provider="numpy")(_fn)


@register_kernel("RealDiv", provider="numpy")
def real_div_numpy(x, y, out):
    """x / y; ints stay ints as MindSpore's CPU kernel: the quotient truncated toward zero,
    x / 0 saturated to the dtype's max (x > 0) or min (x < 0), 0 / 0 = 0, overflow wraps."""
    with np.errstate(all="ignore"):
        if out.dtype.kind not in "iu":
            np.true_divide(x, y, out=out)
            return
        x, y = np.broadcast_arrays(x, y)
        zero = y == 0
        safe = np.where(zero, 1, y).astype(x.dtype)
        q = x // safe                          # floor; truncation moves it up by one where the
        q += (x - q * safe != 0) & ((x < 0) != (safe < 0))   # signs differ and it is inexact
        np.copyto(out, q, casting="unsafe")    # (|x| overflowed for the dtype's minimum)
        if zero.any():
            info = np.iinfo(out.dtype)
            sat = np.where(x > 0, info.max, np.where(x < 0, info.min, 0))
            np.copyto(out, sat.astype(out.dtype), where=zero)


# ---- unary ops with more than one ufunc -------------------------------------------------
@register_kernel("Rsqrt", provider="numpy")
def rsqrt_numpy(x, out):
    with np.errstate(all="ignore"):
        np.sqrt(x, out=out)
        np.divide(1, out, out=out)


@register_kernel("Round", provider="numpy", dtypes=mstype.FLOAT_TYPES)
def round_numpy(x, out):
    np.rint(x, out=out)                       # ties to even


@register_kernel("Round", provider="numpy", dtypes=mstype.INT_TYPES)
def round_int_numpy(x, out):
    np.copyto(out, x)


@register_kernel("Erf", provider="numpy")
def erf_numpy(x, out):
    # NOTE: numpy has no erf ufunc; each value goes through math.erf (double precision) and is
    # rounded once to the input dtype: correctly rounded, at ~50 ns per element.
    vals = np.fromiter(map(math.erf, x.ravel().tolist()), dtype=np.float64, count=x.size)
    out[...] = vals.reshape(x.shape)


# ---- binary ops with integer edge cases ---------------------------------------------------
@register_kernel("Pow", provider="numpy", dtypes=mstype.FLOAT_TYPES + mstype.COMPLEX_TYPES)
def pow_numpy(x, y, out):
    with np.errstate(all="ignore"):
        np.power(x, y, out=out)


@register_kernel("Pow", provider="numpy", dtypes=mstype.INT_TYPES)
def pow_int_numpy(x, y, out):
    neg = y < 0 if y.dtype.kind == "i" else False
    if not np.any(neg):
        np.power(x, y, out=out)               # overflow wraps, as C
        return
    # numpy refuses negative int exponents; trunc(1 / x**n) is 1 for x = 1, +-1 for x = -1,
    # 0 otherwise (0 ** -n too: the int result of an infinite value is defined as 0 here).
    np.power(x, np.where(neg, 0, y), out=out)
    xb = np.broadcast_to(x, out.shape)
    odd = np.broadcast_to(y % 2 != 0, out.shape)
    special = np.where(xb == 1, 1, np.where(xb == -1, np.where(odd, -1, 1), 0))
    np.copyto(out, special, where=np.broadcast_to(neg, out.shape), casting="unsafe")


@register_kernel("TruncateDiv", provider="numpy", dtypes=mstype.FLOAT_TYPES)
def truncate_div_numpy(x, y, out):
    with np.errstate(all="ignore"):
        np.true_divide(x, y, out=out)
    np.trunc(out, out=out)


@register_kernel("TruncateDiv", provider="numpy", dtypes=mstype.INT_TYPES)
def truncate_div_int_numpy(x, y, out):
    with np.errstate(all="ignore"):
        np.floor_divide(x, y, out=out)        # x // 0 = 0
        inexact = np.remainder(x, y) != 0
    # floor and trunc differ by one where the quotient is inexact and negative
    np.add(out, inexact & ((x < 0) != (y < 0)), out=out, casting="unsafe")


@register_kernel("Lerp", provider="numpy")
def lerp_numpy(start, end, weight, out):
    w = weight.astype(out.dtype, copy=False)
    with np.errstate(all="ignore"):
        np.copyto(out, start + w * (end - start))


@register_kernel("SquaredDifference", provider="numpy")
def squared_difference_numpy(x, y, out):
    np.subtract(x, y, out=out)
    if out.dtype.kind == "c":
        np.multiply(out, np.conj(out), out=out)
    else:
        np.multiply(out, out, out=out)


# ---- Select, AddN, matrix products --------------------------------------------------------
@register_kernel("ApproximateEqual", provider="numpy")
def approximate_equal_numpy(x1, x2, out, tolerance):
    with np.errstate(invalid="ignore", over="ignore"):
        np.less(np.abs(x1 - x2), tolerance, out=out)


@register_kernel("Select", provider="numpy")
def select_numpy(condition, x, y, out):
    np.copyto(out, y)
    np.copyto(out, x, where=condition)


@register_kernel("AddN", provider="numpy")
def addn_numpy(xs, out):
    np.copyto(out, xs[0])
    for x in xs[1:]:
        np.add(out, x, out=out)


@register_kernel("MatMul", provider="numpy")
def matmul_numpy(x, y, out, transpose_a, transpose_b):
    matmul_2d(x.T if transpose_a else x, y.T if transpose_b else y, out)


@register_kernel("BatchMatMul", provider="numpy")
def batch_matmul_numpy(x, y, out, transpose_a, transpose_b):
    """NOTE: numpy's stacked matmul runs a transposed right operand (strides (.., 1, k)) far
    slower than a transposed left one: attention scores q @ k^T, (128, 64, 32) by
    (128, 32, 64) float32, took 533-590 us, with k^T copied first 400 (q^T @ v: 309)."""
    if y.ndim == 2 and x.ndim > 2 and not transpose_a and x.flags.c_contiguous \
            and out.flags.c_contiguous:
        # a weight broadcast over x's batch: one GEMM over the folded rows (numpy's stacked
        # loop ran (64, 32, 128) @ (128, 128) as 64 GEMMs: 0.7 ms, folded ~0.3 ms)
        rows = x.size // x.shape[-1] if x.shape[-1] else out.size // max(out.shape[-1], 1)
        matmul(x.reshape(rows, x.shape[-1]), y.T if transpose_b else y,
               out.reshape(rows, out.shape[-1]))
        return
    if transpose_b:
        y = np.swapaxes(y, -1, -2)
        if y.ndim > 2 and y.size // (y.shape[-1] * y.shape[-2] or 1) > 1:
            y = np.ascontiguousarray(y)
    matmul(np.swapaxes(x, -1, -2) if transpose_a else x, y, out)
