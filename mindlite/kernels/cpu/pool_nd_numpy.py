"""numpy kernels for pool_nd_ops: adaptive average / max pooling over the last two axes,
3-D average / max pooling and the argmax scatter / gather gradients.

Adaptive average pooling is separable: y = A_h @ x @ A_w^T with A an (out, in) averaging
matrix per axis (cell i covers [floor(i n / m), ceil((i + 1) n / m))); its gradient is
A_h^T @ g @ A_w. Adaptive max pooling visits the out_h * out_w cells (one vectorised
argmax each; numpy's argmax takes the first NaN, so NaN is the maximum). 3-D pooling visits
the kernel offsets (one strided slice of the padded input each), as pool_numpy's 2-D
kernels; the average's divisor is separable per axis. The argmax gradients scatter with one
np.bincount over all planes and gather with np.take_along_axis. float16 computes in float32.
"""
import itertools

import numpy as np

from ..registry import register_kernel


def _cdt(a):
    return np.dtype(np.float32) if a.dtype == np.float16 else a.dtype


def _avg_matrix(n_in, n_out, dtype):
    a = np.zeros((n_out, n_in), dtype=dtype)
    for i in range(n_out):
        s, e = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
        a[i, s:e] = 1.0 / (e - s)
    return a


@register_kernel("AdaptiveAvgPool2D", provider="numpy")
def adaptive_avg_pool2d_numpy(x, out):
    if out.size == 0:
        return
    dt = _cdt(x)
    ah = _avg_matrix(x.shape[-2], out.shape[-2], dt)
    aw = _avg_matrix(x.shape[-1], out.shape[-1], dt)
    out[...] = ah @ x.astype(dt, copy=False) @ aw.T


@register_kernel("AdaptiveAvgPool2DGrad", provider="numpy")
def adaptive_avg_pool2d_grad_numpy(x, grad, out):
    if out.size == 0:
        return
    dt = _cdt(x)
    ah = _avg_matrix(x.shape[-2], grad.shape[-2], dt)
    aw = _avg_matrix(x.shape[-1], grad.shape[-1], dt)
    out[...] = ah.T @ grad.astype(dt, copy=False) @ aw


def _cells(n_in, n_out):
    return [((i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)) for i in range(n_out)]


@register_kernel("AdaptiveMaxPool2D", provider="numpy")
def adaptive_max_pool2d_numpy(x, out, argmax):
    if out.size == 0:
        return
    lead, (h, w) = x.shape[:-2], x.shape[-2:]
    for i, (hs, he) in enumerate(_cells(h, out.shape[-2])):
        for j, (ws, we) in enumerate(_cells(w, out.shape[-1])):
            win = x[..., hs:he, ws:we].reshape(lead + (-1,))
            a = np.argmax(win, axis=-1)
            out[..., i, j] = np.take_along_axis(win, a[..., None], -1)[..., 0]
            argmax[..., i, j] = (hs + a // (we - ws)) * w + ws + a % (we - ws)


def _scatter(x, grad, argmax, out, spatial):
    if out.size == 0:
        return
    planes = int(np.prod(x.shape[:-spatial], dtype=np.int64))
    size = int(np.prod(x.shape[-spatial:], dtype=np.int64))
    flat = argmax.reshape(planes, -1).astype(np.int64) + \
        (np.arange(planes, dtype=np.int64) * size)[:, None]
    acc = np.bincount(flat.ravel(), weights=grad.reshape(-1).astype(np.float64),
                      minlength=planes * size)
    out[...] = acc.reshape(x.shape)


def _gather(x, grad, argmax, out, spatial):
    if out.size == 0:
        return
    planes = int(np.prod(x.shape[:-spatial], dtype=np.int64))
    g = grad.reshape(planes, -1)
    out[...] = np.take_along_axis(g, argmax.reshape(planes, -1).astype(np.int64), -1) \
        .reshape(out.shape)


for _name in ("AdaptiveMaxPool2DGrad", "MaxPool3DGradWithArgmax"):
    register_kernel(_name, provider="numpy", kernel=_scatter)
for _name in ("AdaptiveMaxPool2DGradGrad", "MaxPool3DGradGradWithArgmax"):
    register_kernel(_name, provider="numpy", kernel=_gather)


# ---- 3-D windows ---------------------------------------------------------------------------
def _padded(x, out_sp, kernel, stride, pads, dilation, fill, dtype):
    """x inside a `fill` array covering every window (padding and ceil_mode overhang)."""
    shape = list(x.shape[:2])
    for n, o, k, s, (lo, hi), d in zip(x.shape[2:], out_sp, kernel, stride, pads, dilation):
        shape.append(max(n + lo + hi, (o - 1) * s + d * (k - 1) + 1, lo + n))
    xp = np.full(shape, fill, dtype=dtype)
    xp[(Ellipsis,) + tuple(slice(lo, lo + n) for n, (lo, _) in zip(x.shape[2:], pads))] = x
    return xp


def _offset_slices(out_sp, kernel, stride, dilation):
    for offs in itertools.product(*(range(k) for k in kernel)):
        yield offs, (Ellipsis,) + tuple(slice(t * d, t * d + s * (o - 1) + 1, s) for t, d, s, o
                                        in zip(offs, dilation, stride, out_sp))


def _axis_counts(n, o, k, s, lo, hi, d, include_pad):
    """Per output position of one axis: how many of its window's taps count."""
    start = np.arange(o) * s - lo
    taps = start[:, None] + np.arange(k)[None, :] * d
    lo_b, hi_b = (-lo, n + hi) if include_pad else (0, n)
    return ((taps >= lo_b) & (taps < hi_b)).sum(1)


def _divisor(x_sp, out_sp, kernel, stride, pads, include_pad, divisor, dtype):
    if divisor:
        return dtype.type(divisor)
    c = np.ones((), dtype=dtype)
    for n, o, k, s, (lo, hi) in zip(x_sp, out_sp, kernel, stride, pads):
        cnt = _axis_counts(n, o, k, s, lo, hi, 1, include_pad).astype(dtype)
        c = np.multiply.outer(c, cnt)
    return np.maximum(c, 1)


@register_kernel("AvgPool3D", provider="numpy")
def avg_pool3d_numpy(x, out, kernel, stride, pads, dilation, include_pad, divisor):
    if out.size == 0:
        return
    dt = _cdt(x)
    out_sp = out.shape[2:]
    xp = _padded(x, out_sp, kernel, stride, pads, dilation, 0, dt)
    acc = np.zeros(out.shape, dtype=dt)
    for _, sl in _offset_slices(out_sp, kernel, stride, dilation):
        acc += xp[sl]
    out[...] = acc / _divisor(x.shape[2:], out_sp, kernel, stride, pads, include_pad, divisor,
                              dt)


@register_kernel("AvgPool3DGrad", provider="numpy")
def avg_pool3d_grad_numpy(x, grad, out, kernel, stride, pads, dilation, include_pad, divisor):
    if out.size == 0:
        return
    dt = _cdt(x)
    out_sp = grad.shape[2:]
    g = grad.astype(dt) / _divisor(x.shape[2:], out_sp, kernel, stride, pads, include_pad,
                                   divisor, dt)
    gp = _padded(np.zeros(x.shape, dt), out_sp, kernel, stride, pads, dilation, 0, dt)
    for _, sl in _offset_slices(out_sp, kernel, stride, dilation):
        gp[sl] += g
    out[...] = gp[(Ellipsis,) + tuple(slice(lo, lo + n) for n, (lo, _) in
                                      zip(x.shape[2:], pads))]


@register_kernel("MaxPool3DWithArgmax", provider="numpy")
def max_pool3d_with_argmax_numpy(x, out, argmax, kernel, stride, pads, dilation):
    if out.size == 0:
        return
    out_sp = out.shape[2:]
    xp = _padded(x, out_sp, kernel, stride, pads, dilation, -np.inf, x.dtype)
    best = np.empty(out.shape, dtype=x.dtype)
    idx = np.zeros(out.shape, dtype=np.int64)
    seen = np.zeros(out.shape, dtype=bool)
    d_sz, h_sz, w_sz = x.shape[2:]
    for offs, sl in _offset_slices(out_sp, kernel, stride, dilation):
        pos = [np.arange(o) * s + t * d - lo for o, s, t, d, (lo, _) in
               zip(out_sp, stride, offs, dilation, pads)]
        inside = ((pos[0] >= 0) & (pos[0] < d_sz))[:, None, None] & \
            ((pos[1] >= 0) & (pos[1] < h_sz))[None, :, None] & \
            ((pos[2] >= 0) & (pos[2] < w_sz))[None, None, :]
        v = xp[sl]
        with np.errstate(invalid="ignore"):
            upd = inside & (~seen | (v > best) | (np.isnan(v) & ~np.isnan(best)))
        flat = (pos[0][:, None, None] * h_sz + pos[1][None, :, None]) * w_sz + \
            pos[2][None, None, :]
        np.copyto(best, v, where=upd)
        np.copyto(idx, np.broadcast_to(flat, idx.shape), where=upd)
        seen |= inside
    out[...] = best
    argmax[...] = idx
