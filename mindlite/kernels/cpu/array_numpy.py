"""numpy reference kernels for array_ops."""
import numpy as np

from ..registry import register_kernel


@register_kernel("Reshape", provider="numpy", alloc="kernel")
def reshape_numpy(x, shape):
    return np.reshape(x, shape)
