"""numba loops behind kernels/cpu/softmax_numba.py (imported on the first launch, never at import).

`x` arrives as the flat C-order data of an (O, R, I) array, R the softmax axis, and `out`
likewise, so each function compiles once per dtype whatever the rank or axis. Stable form:
y = exp(x - max) / sum(exp(x - max)); log: (x - max) - log(sum(exp(x - max))).
"""
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

from .._numba_jit import njit
from ._reduce_jit import LANES, _row_extreme

_jit = njit(nogil=True, error_model="numpy")
# NOTE: 'reassoc' only in the row-sum function: it vectorises the running sum; NaN and inf
# still propagate.
_jit_reassoc = njit(nogil=True, error_model="numpy", fastmath={"reassoc"})


@intrinsic
def _f64_from_bits(typingctx, bits):
    """The float64 whose IEEE bits are the int64 `bits` (a bitcast; vectorises)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


@intrinsic
def _f32_from_bits(typingctx, bits):
    """The float32 whose IEEE bits are the int32 `bits`."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())
    return types.float32(types.int32), codegen


# Cephes exp (double): ln 2 split so that n * ln2 is exact, Pade approximant on |r| <= ln2/2
_LOG2E = 1.4426950408889634
_LN2_HI, _LN2_LO = 6.93145751953125e-1, 1.42860682030941723212e-6
_P0, _P1, _P2 = 1.26177193074810590878e-4, 3.02994407707441961300e-2, 9.99999999999999999910e-1
_Q0, _Q1, _Q2, _Q3 = (3.00198505138664455042e-6, 2.52448340349684104192e-3,
                      2.27265548208155028766e-1, 2.00000000000000000009e0)
# Cephes expf (single): the same reduction, a degree-7 polynomial
_F = np.float32
_LOG2E_F, _LN2_HI_F, _LN2_LO_F = _F(_LOG2E), _F(0.693359375), _F(-2.12194440e-4)
_E0, _E1, _E2, _E3, _E4, _E5 = (_F(1.9875691500e-4), _F(1.3981999507e-3), _F(8.3334519073e-3),
                                _F(4.1665795894e-2), _F(1.6666665459e-1), _F(5.0000001201e-1))
_MIN_F, _HALF_F, _ONE_F, _ZERO_F = _F(-87.33654), _F(0.5), _F(1.0), _F(0.0)


def _exp_nonpos(x):
    """exp(x) for x <= 0, -inf or NaN, in x's dtype (numba only: see the overload below).

    NOTE: numba's np.exp is a scalar libm call per element (5x slower than numpy's SIMD
    exp); this branch-free Cephes form (reduction to |r| <= ln2/2, polynomial, 2**n built
    from its bits) vectorises. Error within 2 ulp; results below the smallest normal
    number flush to 0 (numpy keeps subnormals), which a softmax never sees next to its row
    maximum's exp(0) = 1.
    """
    raise NotImplementedError("_exp_nonpos runs inside numba-compiled code only")


def _exp_nonpos_f64(x):
    t = max(x, -708.0)
    n = np.floor(t * _LOG2E + 0.5)
    r = t - n * _LN2_HI - n * _LN2_LO
    rr = r * r
    px = r * ((_P0 * rr + _P1) * rr + _P2)
    q = ((_Q0 * rr + _Q1) * rr + _Q2) * rr + _Q3
    y = (1.0 + 2.0 * (px / (q - px))) * _f64_from_bits((np.int64(n) + 1023) << 52)
    y = y if x > -708.0 else 0.0
    return x if np.isnan(x) else y


def _exp_nonpos_f32(x):
    t = max(x, _MIN_F)
    n = np.floor(t * _LOG2E_F + _HALF_F)
    r = t - n * _LN2_HI_F - n * _LN2_LO_F
    y = (((((_E0 * r + _E1) * r + _E2) * r + _E3) * r + _E4) * r + _E5) * (r * r) + r + _ONE_F
    y = y * _f32_from_bits((np.int32(n) + np.int32(127)) << np.int32(23))
    y = y if x > _MIN_F else _ZERO_F
    return x if np.isnan(x) else y


@overload(_exp_nonpos, jit_options={"error_model": "numpy"})
def _exp_nonpos_typed(x):
    if x == types.float32:
        return _exp_nonpos_f32
    if x == types.float64:
        return _exp_nonpos_f64
    return None


@_jit_reassoc
def _exp_sum(row, dst, R, m, log):
    """dst[:R] = exp(row - m) (row - m when log); returns the float64 sum of the exps."""
    s = 0.0
    for r in range(R):
        d = row[r] - m
        e = _exp_nonpos(d)
        dst[r] = d if log else e
        s += e
    return s


@_jit
def softmax(x, out, O, R, I, log):
    """softmax (log_softmax when `log`) over R.

    NOTE: the sum of the exps accumulates in float64 (for float32 too): it scales every
    output of the slice, so its own rounding stays far below a float32 ulp.
    """
    if I == 1:
        acc = np.empty(LANES, x.dtype)
        for o in range(O):
            row = x[o * R:]
            dst = out[o * R:]
            m = _row_extreme(row, R, acc, True)
            s = _exp_sum(row, dst, R, m, log)
            if log:
                ls = np.log(s)
                for r in range(R):
                    dst[r] = dst[r] - ls
            else:
                inv = 1.0 / s
                for r in range(R):
                    dst[r] = dst[r] * inv
        return
    m = np.empty(I, x.dtype)
    s = np.empty(I, np.float64)
    for o in range(O):
        blk = x[o * R * I:]
        dblk = out[o * R * I:]
        for i in range(I):
            m[i] = blk[i]
            s[i] = 0.0
        for r in range(1, R):
            row = blk[r * I:]
            for i in range(I):
                v = row[i]
                a = m[i]
                m[i] = v if (v > a) | np.isnan(v) else a
        for r in range(R):
            row = blk[r * I:]
            dst = dblk[r * I:]
            for i in range(I):
                d = row[i] - m[i]
                e = _exp_nonpos(d)
                dst[i] = d if log else e
                s[i] += e
        if log:
            for i in range(I):
                s[i] = np.log(s[i])
            for r in range(R):
                dst = dblk[r * I:]
                for i in range(I):
                    dst[i] = dst[i] - s[i]
        else:
            for i in range(I):
                s[i] = 1.0 / s[i]
            for r in range(R):
                dst = dblk[r * I:]
                for i in range(I):
                    dst[i] = dst[i] * s[i]
