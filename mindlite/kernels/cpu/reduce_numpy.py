"""numpy reference kernels for reduce_ops."""
import numpy as np

from ..registry import register_kernel


@register_kernel("ReduceSum", provider="numpy")
def reduce_sum_numpy(x, out, axis, keep_dims):
    np.sum(x, axis=axis, keepdims=keep_dims, out=out)
