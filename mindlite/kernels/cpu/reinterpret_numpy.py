"""numpy kernel of ops/operations/reinterpret_ops.py's ViewDtype: the input's bytes (made
C-contiguous first) copied into the output of the new dtype."""
import numpy as np

from ..registry import register_kernel


@register_kernel("ViewDtype", provider="numpy")
def view_dtype_numpy(x, out):
    src = np.ascontiguousarray(x)
    out.reshape(-1).view(np.uint8)[:] = src.reshape(-1).view(np.uint8)
