"""numpy kernels for other_ops."""
from ..registry import register_kernel


@register_kernel("StopGradient", provider="numpy", alloc="kernel")
def stop_gradient_numpy(x):
    return x
