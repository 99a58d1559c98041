"""C++ kernels (mindlite._C, csrc/kernels/) for math_ops: elementwise math, small MatMul and
BatchMatMul's stacks of products.

Each registered callable is a builtin from `_C.UNARY_KERNELS` / `_C.BINARY_KERNELS` with its op
code bound (no Python frame per call): fn(x, out) / fn(x, y, out), out preallocated,
C-contiguous, of the broadcast shape; inputs of any layout. Large launches split across the
thread pool with a measured split (see csrc/runtime/thread_pool.h). MatMul's loop only beats a
BLAS call for small matrices, so it is registered with a `when=` predicate (measured below).
"""
import numpy as np

from ...common import dtype as mstype
from ..registry import register_kernel
from ._blas import batch_matmul
from ._cext import _C
from .math_numpy import batch_matmul_numpy

FLOATS = (mstype.float32, mstype.float64)
NUMERIC = FLOATS + (mstype.int32, mstype.int64)

_UNARY = {
    "Abs": NUMERIC, "Neg": NUMERIC, "Square": NUMERIC, "Sign": NUMERIC,
    "Exp": FLOATS, "Log": FLOATS, "Sqrt": FLOATS, "Rsqrt": FLOATS, "Sin": FLOATS, "Cos": FLOATS,
    "Floor": FLOATS, "Ceil": FLOATS, "Round": FLOATS, "Reciprocal": FLOATS, "Erf": FLOATS,
}
_BINARY = {
    "Add": NUMERIC, "Sub": NUMERIC, "Mul": NUMERIC, "Div": FLOATS, "RealDiv": FLOATS,
    "Maximum": NUMERIC, "Minimum": NUMERIC, "FloorDiv": NUMERIC, "FloorMod": NUMERIC,
    "Equal": NUMERIC + (mstype.bool_,), "NotEqual": NUMERIC + (mstype.bool_,),
    "Less": NUMERIC, "LessEqual": NUMERIC, "Greater": NUMERIC, "GreaterEqual": NUMERIC,
    "LogicalAnd": (mstype.bool_,), "LogicalOr": (mstype.bool_,),
}

for _op, _dtypes in _UNARY.items():
    register_kernel(_op, provider="cpp", dtypes=_dtypes)(_C.UNARY_KERNELS[_op])


def _both_bool(x, y):
    """The logical kernels take one dtype; a number operand (MindSpore's truth value) goes
    to the numpy kernel."""
    return y.dtype is mstype.bool_


for _op, _dtypes in _BINARY.items():
    register_kernel(_op, provider="cpp", dtypes=_dtypes,
                    when=_both_bool if _op.startswith("Logical") else None)(
        _C.BINARY_KERNELS[_op])

# NOTE: numpy's AVX-512 pow (SVML) runs ~0.7 ns/element for float32 and ~3 ns for float64; the
# C++ one (float64 lanes for float32, libm for float64) runs ~4 and ~15 ns, so it only wins
# while numpy's ~1.5 us call overhead dominates.
POW_MAX_SIZE = 512


def _small_pow(x, y):
    return max(x.size, y.size) <= POW_MAX_SIZE


register_kernel("Pow", provider="cpp", dtypes=FLOATS, when=_small_pow)(_C.BINARY_KERNELS["Pow"])

# NOTE: measured against np.matmul (OpenBLAS) on this project's CPU, float32 / float64: the C++
# register-tiled loop takes 0.2 us at 4 x 4 (numpy 1-3 us), 1.1 / 2.2 us at 32 x 32 (numpy 1.5 /
# 3.0 us); at 48 x 48 BLAS is faster (3.6 vs 2.9 us).
# A batch of 1-2 rows against a weight of up to 2**17 elements (a Dense layer at batch 1:
# with transpose_b the C++ loop takes dot products of the weight's rows as stored) measured
# 400 x 120: 2.3 us (numpy 3.3), 120 x 84: 0.7 (1.6), 256 x 256: 3.5 (4.4); from 4 rows on
# BLAS is faster (256 x 256: 6.1 vs 11.6).
# NOTE: larger weights, only where the shapes say the weight is transposed (x (M, K), y (N, K),
# N != K, so transpose_b; N, K > 2 rule out transpose_a): the dot loop is level with or faster
# than OpenBLAS's gemv on this Zen 4 (one thread, thread CPU, warm: 1024 x 1024 54.9 vs
# 54.7-60.0 us, 1000 x 1280 56-62 vs 65, 2048 x 2048 292-300 vs 343-380; MobileNetV2's FC with
# its 5 MB weight from memory 116-131 vs 165-184 us), and it splits the weight's rows across
# the pool (kernels/matmul.cc), which BLAS's call on one thread below _blas.ST_MNK never does:
# the FC was a 290 us serial step of the 2-thread Lite predict. Summation order: the loop's
# (its outputs differ from BLAS's by float rounding, ~1e-7 relative; the same at any thread
# count).
MATMUL_MAX_DIM = 32
MATMUL_FEW_ROWS = 2
MATMUL_FEW_ROWS_MAX_WEIGHT = 1 << 17


def _small_matmul(x, y):
    """Both operands 2-D with every dim <= MATMUL_MAX_DIM, or x of at most MATMUL_FEW_ROWS
    rows against y of at most MATMUL_FEW_ROWS_MAX_WEIGHT elements, or against a larger weight
    the shapes say is transposed (the dot-product loop on its rows as stored)."""
    if len(x.shape) != 2 or len(y.shape) != 2:
        return False
    if max(x.shape + y.shape) <= MATMUL_MAX_DIM:
        return True
    if x.shape[0] > MATMUL_FEW_ROWS:
        return False
    return y.shape[0] * y.shape[1] <= MATMUL_FEW_ROWS_MAX_WEIGHT or \
        x.shape[1] == y.shape[1] != y.shape[0] and min(y.shape) > MATMUL_FEW_ROWS


register_kernel("MatMul", provider="cpp", dtypes=FLOATS, when=_small_matmul)(_C.matmul)


@register_kernel("BatchMatMul", provider="cpp", dtypes=FLOATS)
def batch_matmul_cpp(x, y, out, transpose_a, transpose_b):
    """Stacks of products on BLAS from C++ (_blas.batch_matmul): transposed operands read in
    place, small products split over the batch across threads. A 2-D right operand (a weight
    broadcast over x's batch) and layouts BLAS cannot read take the numpy kernel (which folds
    such a weight's batch into one GEMM).
    NOTE: numpy's stacked matmul ran attention's (128, 64, 32) @ (128, 32, 64) float32 one
    product after another on one thread, k^T copied first (scores 533-590 us)."""
    if y.ndim > 2:
        xs = np.swapaxes(x, -1, -2) if transpose_a else x
        ys = np.swapaxes(y, -1, -2) if transpose_b else y
        if batch_matmul(xs, ys, out):
            return
    batch_matmul_numpy(x, y, out, transpose_a, transpose_b)
