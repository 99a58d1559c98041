"""numpy kernels for ops/operations/classic_nn_ops.py: Identity, L2Normalize, LpNorm,
KLDivLoss (Pad and ResizeNearestNeighbor run PadV3's and ResizeNearestNeighborV2's kernels,
registered under their names in pad_cpp.py, pad_small_numpy.py, resize_pad_numpy.py and
resize_numba.py). float16 computes in float32."""
import numpy as np

from ..registry import register_kernel


def _cdt(a):
    return np.float32 if a.dtype == np.float16 else a.dtype.type


@register_kernel("Identity", provider="numpy")
def identity_numpy(x, out):
    out[...] = x


@register_kernel("L2Normalize", provider="numpy")
def l2_normalize_numpy(x, out, axis, epsilon):
    xf = x.astype(_cdt(x))
    ss = np.square(xf).sum(axis=axis, keepdims=True)
    out[...] = xf / np.sqrt(np.maximum(ss, xf.dtype.type(epsilon)))


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


@register_kernel("KLDivLoss", provider="numpy")
def kl_div_loss_numpy(x, target, out, reduction):
    dt = _cdt(x)
    xf, tf = x.astype(dt), target.astype(dt)
    pos = tf > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.where(pos, tf * (np.log(np.where(pos, tf, 1)) - xf), dt(0))
    if reduction == "none":
        out[...] = loss
    elif reduction == "sum":
        out[...] = loss.sum()
    else:
        n = loss.size if reduction == "mean" else (loss.shape[0] if loss.ndim else 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[...] = loss.sum() / dt(n) if n else dt(np.nan)
