"""C++ kernels of the fused primitives (csrc/kernels/fused_elemwise.cc, csrc/bind/fused_bind.cc),
both builtins the fast runner and the graph runner call without a Python frame.

FusedElemwise: `_C.fused_elemwise_call(*inputs, out, program, step_dtypes)` runs the program
block by block over the output through the same vector loops as the unfused C++ kernels (so
each element gets the value the unfused ops give it), every intermediate block in a small
per-thread buffer: one pass over memory, split across the thread pool for large outputs. The
program is parsed once per (program object, input count) and cached in C (bounded).

FusedMatMulBiasAdd, for the small matrices eager's MatMul runs in C++: `_C.matmul_bias_act`,
that MatMul loop (a batch of 1-2 rows: dot products with the weight as stored) then the
bias (+ReLU) epilogue in place. Larger products run BLAS through fused_numpy.py's kernel,
with the epilogue on the C BiasAdd / ReLU kernels.
"""
from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C
from .math_cpp import _small_matmul

FLOATS = (mstype.float32, mstype.float64)

register_kernel("FusedElemwise", provider="cpp", dtypes=FLOATS)(_C.fused_elemwise_call)


def _small(x, y, bias):
    """Where eager's MatMul runs the C++ loop (math_cpp._small_matmul)."""
    return _small_matmul(x, y)


register_kernel("FusedMatMulBiasAdd", provider="cpp", dtypes=FLOATS,
                when=_small)(_C.matmul_bias_act)
