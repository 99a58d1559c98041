"""numpy kernels for pool_ops: MaxPool / MaxPoolGrad / MaxPoolGradGrad, AvgPool / AvgPoolGrad,
MaxPoolWithArgmaxV2 / MaxPoolGradWithArgmaxV2 / MaxPoolGradGradWithArgmax, AvgPool2D /
AvgPool2DGrad.

All take the geometry their primitive computed once per signature: kernel (kh, kw), stride,
dilation and pads (top, bottom, left, right) of the input. A window loop visits the kh * kw
kernel offsets in row-major order; each offset is one strided slice of the padded input of
the output's shape, so a pooling is kh * kw vectorised numpy operations. The padded input is
extended at the bottom/right when ceil_mode windows overhang it.
Max: padding is -inf and never selected; the gradient goes to the first maximum of each
window (the one equal to the forward output given) in row-major order; a NaN counts as
the maximum, so NaN propagates.
Avg: the divisor counts the window's elements inside the input ('valid'/'same' and
count_include_pad=False) or inside input + explicit padding (count_include_pad=True), or is
divisor_override. float16 accumulates in float32.
"""
import functools

import numpy as np

from ..registry import register_kernel


def _padded_shape(shape, out_hw, kernel, stride, dilation, pads):
    n, c, h, w = shape
    t, b, l, r = pads
    need_h = (out_hw[0] - 1) * stride[0] + dilation[0] * (kernel[0] - 1) + 1
    need_w = (out_hw[1] - 1) * stride[1] + dilation[1] * (kernel[1] - 1) + 1
    return n, c, max(h + t + b, need_h, t + h), max(w + l + r, need_w, l + w)


def _pad(x, out_hw, kernel, stride, dilation, pads, fill, dtype):
    shape = _padded_shape(x.shape, out_hw, kernel, stride, dilation, pads)
    h, w = x.shape[2:]
    t, l = pads[0], pads[2]
    if shape == x.shape:
        return x.astype(dtype, copy=False)
    xp = np.full(shape, fill, dtype=dtype)
    xp[:, :, t:t + h, l:l + w] = x
    return xp


def _offsets(out_hw, kernel, stride, dilation):
    """(i, j, (rows, cols)) for every kernel offset, row-major: the slice it reads."""
    oh, ow = out_hw
    for i in range(kernel[0]):
        rows = slice(i * dilation[0], i * dilation[0] + stride[0] * (oh - 1) + 1, stride[0])
        for j in range(kernel[1]):
            yield i, j, (Ellipsis, rows,
                         slice(j * dilation[1], j * dilation[1] + stride[1] * (ow - 1) + 1,
                               stride[1]))


def _valid(shape, x_hw, pads):
    """(Hp, Wp) bool mask of the padded plane: True inside the input."""
    v = np.zeros(shape[2:], dtype=bool)
    v[pads[0]:pads[0] + x_hw[0], pads[2]:pads[2] + x_hw[1]] = True
    return v


def _first_max_hits(x, out, kernel, stride, dilation, pads):
    """Yield (slice, hit) per kernel offset: hit marks the windows whose first maximum (in
    row-major order) lies at that offset. Padding never hits."""
    out_hw = out.shape[2:]
    xp = _pad(x, out_hw, kernel, stride, dilation, pads, -np.inf, x.dtype)
    valid = None if xp is x else _valid(xp.shape, x.shape[2:], pads)
    found = None
    out_nan = np.isnan(out)
    any_nan = out_nan.any()
    for _, _, sl in _offsets(out_hw, kernel, stride, dilation):
        s = xp[sl]
        hit = s == out
        if any_nan:
            hit |= np.isnan(s) & out_nan
        if valid is not None:
            hit &= valid[sl[1:]]
        if found is None:
            found = hit.copy()
        else:
            np.greater(hit, found, out=hit)         # hit and not found
            found |= hit
        yield sl, hit


def _max_pool(x, out, kernel, stride, pads, dilation):
    xp = _pad(x, out.shape[2:], kernel, stride, dilation, pads, -np.inf, x.dtype)
    for i, j, sl in _offsets(out.shape[2:], kernel, stride, dilation):
        if i == 0 and j == 0:
            out[...] = xp[sl]
        else:
            np.maximum(out, xp[sl], out=out)


def _max_pool_grad(x, out, grad, dx, kernel, stride, pads, dilation):
    shape = _padded_shape(x.shape, out.shape[2:], kernel, stride, dilation, pads)
    if shape == dx.shape and dx.dtype != np.float16:
        dxp = dx                # NOTE: no padded copy: a fresh large buffer costs page faults
        dxp[...] = 0
    else:
        dxp = np.zeros(shape, dtype=np.float32 if dx.dtype == np.float16 else dx.dtype)
    disjoint = all(s >= d * (k - 1) + 1 for k, s, d in zip(kernel, stride, dilation))
    for sl, hit in _first_max_hits(x, out, kernel, stride, dilation, pads):
        if disjoint:            # each input element is in one window at most
            np.copyto(dxp[sl], grad, where=hit)
        else:
            dxp[sl] += np.where(hit, grad, 0)
    if dxp is not dx:
        t, l = pads[0], pads[2]
        dx[...] = dxp[:, :, t:t + x.shape[2], l:l + x.shape[3]]


def _max_pool_grad_grad(x, out, grad, y, kernel, stride, pads, dilation):
    gp = _pad(grad, out.shape[2:], kernel, stride, dilation, pads, 0, grad.dtype)
    y[...] = 0
    for sl, hit in _first_max_hits(x, out, kernel, stride, dilation, pads):
        np.copyto(y, gp[sl], where=hit)


def _axis_counts(size, out, k, s, before, after, include_pad):
    start = np.arange(out) * s - before
    lo, hi = (-before, size + after) if include_pad else (0, size)
    return np.minimum(start + k, hi) - np.maximum(start, lo)


@functools.lru_cache(maxsize=256)
def _avg_divisor(x_shape, out_hw, kernel, stride, pads, include_pad, divisor, dtype):
    """The (H_out, W_out) divisors (read-only: cached per geometry)."""
    if divisor:
        return np.asarray(divisor, dtype=dtype)
    ch = _axis_counts(x_shape[2], out_hw[0], kernel[0], stride[0], pads[0], pads[1], include_pad)
    cw = _axis_counts(x_shape[3], out_hw[1], kernel[1], stride[1], pads[2], pads[3], include_pad)
    div = np.maximum(np.outer(ch, cw), 1).astype(dtype)
    div.flags.writeable = False
    return div


def _avg_pool(x, out, kernel, stride, pads, dilation, include_pad, divisor):
    dtype = np.float32 if x.dtype == np.float16 else x.dtype
    xp = _pad(x, out.shape[2:], kernel, stride, dilation, pads, 0, dtype)
    acc = np.zeros(out.shape, dtype=dtype)
    for _, _, sl in _offsets(out.shape[2:], kernel, stride, dilation):
        acc += xp[sl]
    acc /= _avg_divisor(x.shape, tuple(out.shape[2:]), kernel, stride, pads, include_pad,
                        divisor, np.dtype(dtype))
    out[...] = acc


def _avg_pool_grad(x_shape, grad, dx, kernel, stride, pads, dilation, include_pad, divisor):
    dtype = np.float32 if dx.dtype == np.float16 else dx.dtype
    out_hw = grad.shape[2:]
    g = grad / _avg_divisor(tuple(x_shape), tuple(out_hw), kernel, stride, pads, include_pad,
                            divisor, np.dtype(dtype))
    dxp = np.zeros(_padded_shape(x_shape, out_hw, kernel, stride, dilation, pads), dtype=dtype)
    # kernel offsets last to first: each input element then sums its windows' shares in the
    # windows' row-major order, as MindSpore's CPU kernel (the same float32 bits)
    for _, _, sl in reversed(list(_offsets(out_hw, kernel, stride, dilation))):
        dxp[sl] += g
    t, l = pads[0], pads[2]
    dx[...] = dxp[:, :, t:t + x_shape[2], l:l + x_shape[3]]


@register_kernel("MaxPool", provider="numpy")
def max_pool_numpy(x, out, kernel, stride, pads, dilation):
    _max_pool(x, out, kernel, stride, pads, dilation)


@register_kernel("MaxPoolGrad", provider="numpy")
def max_pool_grad_numpy(x, out, grad, dx, kernel, stride, pads, dilation):
    _max_pool_grad(x, out, grad, dx, kernel, stride, pads, dilation)


@register_kernel("MaxPoolGradGrad", provider="numpy")
def max_pool_grad_grad_numpy(x, out, grad, y, kernel, stride, pads, dilation):
    _max_pool_grad_grad(x, out, grad, y, kernel, stride, pads, dilation)


@register_kernel("AvgPool", provider="numpy")
def avg_pool_numpy(x, out, kernel, stride, pads, dilation, include_pad, divisor):
    _avg_pool(x, out, kernel, stride, pads, dilation, include_pad, divisor)


@register_kernel("AvgPoolGrad", provider="numpy")
def avg_pool_grad_numpy(x, out, grad, dx, kernel, stride, pads, dilation, include_pad,
                        divisor):
    _avg_pool_grad(x.shape, grad, dx, kernel, stride, pads, dilation, include_pad, divisor)


@register_kernel("AvgPool2D", provider="numpy")
def avg_pool_2d_numpy(x, out, kernel, stride, pads, dilation, include_pad, divisor):
    _avg_pool(x, out, kernel, stride, pads, dilation, include_pad, divisor)


@register_kernel("AvgPool2DGrad", provider="numpy")
def avg_pool_2d_grad_numpy(x, grad, dx, kernel, stride, pads, dilation, include_pad, divisor):
    _avg_pool_grad(x.shape, grad, dx, kernel, stride, pads, dilation, include_pad, divisor)


@register_kernel("MaxPoolWithArgmaxV2", provider="numpy")
def max_pool_with_argmax_v2_numpy(x, out, argmax, kernel, stride, pads, dilation):
    _max_pool(x, out, kernel, stride, pads, dilation)
    w = x.shape[3]
    oh, ow = out.shape[2:]
    argmax[...] = 0
    found = np.zeros(out.shape, dtype=bool)
    for (i, j, _), (sl, hit) in zip(_offsets((oh, ow), kernel, stride, dilation),
                                    _first_max_hits(x, out, kernel, stride, dilation, pads)):
        rows = np.arange(oh) * stride[0] + i * dilation[0] - pads[0]
        cols = np.arange(ow) * stride[1] + j * dilation[1] - pads[2]
        np.copyto(argmax, (rows[:, None] * w + cols[None, :]).astype(argmax.dtype), where=hit)
        found |= hit
    # the output is the selected element itself: of tied +0 / -0 the first one's sign (as
    # MindSpore 2.10 and the C++ kernel; np.maximum may return either)
    if found.any():
        n, c, h = x.shape[:3]
        picked = np.take_along_axis(x.reshape(n, c, h * w),
                                    argmax.reshape(n, c, oh * ow).astype(np.int64), axis=2)
        np.copyto(out, picked.reshape(out.shape), where=found)


def _plane_index(op, shape, argmax):
    """Flat indices into x.reshape(-1) for argmax positions of each (n, c) plane; ValueError
    for an index outside its plane (what the C++ kernels raise too)."""
    n, c, h, w = shape
    a = argmax.astype(np.int64)
    bad = np.flatnonzero((a < 0) | (a >= h * w))
    if bad.size:
        at = np.unravel_index(bad[0], argmax.shape)
        raise ValueError(f"For '{op}', 'argmax' must hold flat indices into an input plane, in "
                         f"[0, {h * w}) (H x W = {h} x {w}), but got {a.flat[bad[0]]} at "
                         f"{tuple(map(int, at))}")
    base = (np.arange(n * c, dtype=np.int64) * (h * w)).reshape(n, c, 1, 1)
    return (a + base).ravel()


@register_kernel("MaxPoolGradWithArgmaxV2", provider="numpy")
def max_pool_grad_with_argmax_v2_numpy(x, grad, argmax, dx, kernel, stride, pads, dilation):
    flat = np.bincount(_plane_index("MaxPoolGradWithArgmaxV2", x.shape, argmax),
                       weights=grad.ravel().astype(np.float64), minlength=dx.size)
    dx[...] = flat.reshape(dx.shape)


@register_kernel("MaxPoolGradGradWithArgmax", provider="numpy")
def max_pool_grad_grad_with_argmax_numpy(x, grad, argmax, y, kernel, stride, pads, dilation):
    index = _plane_index("MaxPoolGradGradWithArgmax", x.shape, argmax)
    y[...] = grad.reshape(-1)[index].reshape(y.shape)
