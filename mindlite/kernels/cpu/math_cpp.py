"""C++ kernels (mindlite._C, csrc/kernels/) for math_ops: elementwise math and small MatMul.

Each registered callable is a builtin from `_C.UNARY_KERNELS` / `_C.BINARY_KERNELS` with its op
code bound (no Python frame per call): fn(x, out) / fn(x, y, out), out preallocated,
C-contiguous, of the broadcast shape; inputs of any layout. Large launches split across the
thread pool with a measured split (see csrc/runtime/thread_pool.h). MatMul's loop only beats a
BLAS call for small matrices, so it is registered with a `when=` predicate (measured below).
"""
from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C

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
    "Pow": FLOATS,
    "Equal": NUMERIC + (mstype.bool_,), "NotEqual": NUMERIC + (mstype.bool_,),
    "Less": NUMERIC, "LessEqual": NUMERIC, "Greater": NUMERIC, "GreaterEqual": NUMERIC,
    "LogicalAnd": (mstype.bool_,), "LogicalOr": (mstype.bool_,),
}

for _op, _dtypes in _UNARY.items():
    register_kernel(_op, provider="cpp", dtypes=_dtypes)(_C.UNARY_KERNELS[_op])
for _op, _dtypes in _BINARY.items():
    register_kernel(_op, provider="cpp", dtypes=_dtypes)(_C.BINARY_KERNELS[_op])

# NOTE: measured against np.matmul (OpenBLAS) on this project's CPU: the C++ loop wins up to
# about 16 x 16 (0.2 us vs 1-3 us at 4 x 4); from 24 on, BLAS is faster.
MATMUL_MAX_DIM = 16


def _small_matmul(x, y):
    """Both operands 2-D with every dim <= MATMUL_MAX_DIM."""
    return (len(x.shape) == 2 and len(y.shape) == 2
            and max(x.shape + y.shape) <= MATMUL_MAX_DIM)


register_kernel("MatMul", provider="cpp", dtypes=FLOATS, when=_small_matmul)(_C.matmul)
