"""numpy kernel of Conv3DTranspose (ops/operations/conv3d_transpose_ops.py): for each kernel
offset, one channel contraction (per group, BLAS through einsum's tensordot) added at its
strided place of a buffer of (D - 1) s + e per axis, then the output read from `heads` on
(zeros past the buffer's end). float16 computes in float32."""
import numpy as np

from ..registry import register_kernel


@register_kernel("Conv3DTranspose", provider="numpy")
def conv3d_transpose_numpy(x, w, out, strides, dilations, heads, outs, groups):
    ct = np.float64 if x.dtype == np.float64 else np.float32
    n, ci = x.shape[:2]
    sp, k = x.shape[2:], w.shape[2:]
    cog, g = w.shape[1], groups
    size = [max((sp[i] - 1) * strides[i] + dilations[i] * (k[i] - 1) + 1, heads[i] + outs[i])
            for i in range(3)]
    buf = np.zeros((n, g, cog) + tuple(size), ct)
    xg = x.reshape(n, g, ci // g, *sp).astype(ct, copy=False)
    wg = w.reshape(g, ci // g, cog, *k).astype(ct, copy=False)
    for a in range(k[0]):
        for b in range(k[1]):
            for c in range(k[2]):
                at = [o * dl for o, dl in zip((a, b, c), dilations)]
                place = tuple(slice(at[i], at[i] + (sp[i] - 1) * strides[i] + 1, strides[i])
                              for i in range(3))
                buf[(Ellipsis,) + place] += np.einsum("ngidhw,gio->ngodhw", xg,
                                                      wg[..., a, b, c], optimize=True)
    buf = buf.reshape((n, g * cog) + tuple(size))
    out[...] = buf[(slice(None), slice(None)) + tuple(slice(heads[i], heads[i] + outs[i])
                                                      for i in range(3))]
