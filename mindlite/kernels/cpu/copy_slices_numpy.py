"""numpy kernel of TensorCopySlices (ops/operations/copy_slices_ops.py): x copied, then the
slice set to value (broadcast)."""
import numpy as np

from ..registry import register_kernel


@register_kernel("TensorCopySlices", provider="numpy")
def tensor_copy_slices_numpy(x, value, out, slices):
    np.copyto(out, x)
    out[slices] = value
