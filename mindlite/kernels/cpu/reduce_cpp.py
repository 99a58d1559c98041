"""C++ kernels (mindlite._C, csrc/kernels/reduce.cc, softmax.cc) for reductions and the softmax
family: ReduceSum/Mean/Max/Min/Prod, Softmax, LogSoftmax, SoftmaxGrad, LogSoftmaxGrad.

Each registered callable is a builtin from `_C.REDUCE_KERNELS` / `_C.SOFTMAX_KERNELS` with its
op bound (no Python frame inside the kernel call): fn(x, out, axis, keep_dims) for reductions
(axis the sorted tuple kernel_params gives), fn(x, out, axis) and fn(y, dy, out, axis) for the
softmax family; params arrive positionally (KernelDef.bind). Inputs of any layout; out
preallocated and C-contiguous. Float sums and means accumulate in float64 (pairwise), so they
are at least as accurate as numpy's; integer sums wrap like numpy's; max/min propagate NaN.
Results are bitwise the same at every thread count (fixed blocks, fixed combine order). The
numba kernels (reduce_numba.py, softmax_numba.py) stay registered below these as a fallback.
"""
from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C

FLOATS = (mstype.float32, mstype.float64)
NUMBERS = FLOATS + (mstype.int32, mstype.int64)

for _op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"):
    register_kernel(_op, provider="cpp", dtypes=NUMBERS)(_C.REDUCE_KERNELS[_op])
for _op in ("Softmax", "LogSoftmax", "SoftmaxGrad", "LogSoftmaxGrad"):
    register_kernel(_op, provider="cpp", dtypes=FLOATS)(_C.SOFTMAX_KERNELS[_op])
