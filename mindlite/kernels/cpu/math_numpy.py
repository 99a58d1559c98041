"""numpy reference kernels for math_ops: the oracle in tests and the last-resort provider."""
import numpy as np

from ..registry import register_kernel


@register_kernel("Add", provider="numpy")
def add_numpy(x, y, out):
    np.add(x, y, out=out)


@register_kernel("MatMul", provider="numpy")
def matmul_numpy(x, y, out, transpose_a, transpose_b):
    np.matmul(x.T if transpose_a else x, y.T if transpose_b else y, out=out)
