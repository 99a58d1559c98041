"""numpy kernels for ops/operations/classic_nn_ops.py: Identity, LpNorm (Pad and
ResizeNearestNeighbor run PadV3's and ResizeNearestNeighborV2's kernels, registered under
their names in pad_cpp.py, pad_small_numpy.py, resize_pad_numpy.py and resize_numba.py).
float16 computes in float32."""
import numpy as np

from ..registry import register_kernel


def _cdt(a):
    return np.float32 if a.dtype == np.float16 else a.dtype.type


@register_kernel("Identity", provider="numpy")
def identity_numpy(x, out):
    out[...] = x


@register_kernel("LpNorm", provider="numpy")
def lp_norm_numpy(x, out, axes, p, keep_dims, epsilon):
    xf = x.astype(_cdt(x))
    if p == 0:
        norm = (xf != 0).sum(axis=axes, keepdims=keep_dims).astype(xf.dtype)
    elif p == 1:
        norm = np.abs(xf).sum(axis=axes, keepdims=keep_dims)
    elif p == 2:
        norm = np.sqrt(np.square(xf).sum(axis=axes, keepdims=keep_dims))
    else:
        norm = np.power(np.power(np.abs(xf), p).sum(axis=axes, keepdims=keep_dims), 1.0 / p)
    out[...] = np.maximum(norm, xf.dtype.type(epsilon))
