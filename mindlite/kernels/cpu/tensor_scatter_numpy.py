"""numpy kernels for ops/operations/tensor_scatter_ops.py: input_x copied into the output, then
np.<ufunc>.at at the checked indices (repeated indices apply in turn). Int division
floors, as numpy's // (a zero divisor gives 0)."""
import numpy as np

from ..registry import register_kernel
from .sort_scatter_numpy import _nd_index

_UFUNCS = {"TensorScatterSub": np.subtract, "TensorScatterMul": np.multiply,
           "TensorScatterDiv": np.divide, "TensorScatterMax": np.maximum,
           "TensorScatterMin": np.minimum}


def _kernel(op, ufunc):
    def kernel(x, indices, updates, out):
        where = _nd_index(op, x, indices)
        np.copyto(out, x)
        n = indices.shape[-1]
        upd = updates.reshape((-1,) + x.shape[n:])
        with np.errstate(all="ignore"):
            (np.floor_divide if ufunc is np.divide and out.dtype.kind in "iub" else ufunc).at(
                out, where, upd)
    kernel.__name__ = kernel.__qualname__ = f"{op.lower()}_numpy"
    return kernel


for _op, _ufunc in _UFUNCS.items():
    register_kernel(_op, provider="numpy")(_kernel(_op, _ufunc))
