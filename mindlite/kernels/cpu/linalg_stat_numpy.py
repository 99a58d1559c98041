"""numpy reference kernels for stat_ops: ReduceStd ((std, mean)), Cdist / CdistGrad,
LinSpace, LogSpace, Meshgrid. alloc="runtime": each writes into the preallocated outputs.
"""
import math

import numpy as np

from ..registry import register_kernel


@register_kernel("ReduceStd", provider="numpy")
def reduce_std_numpy(x, out_std, out_mean, axis, ddof, keep_dims):
    """Two-pass (mean, then squared deviations): no cancellation. float16 in float32."""
    work = x.astype(np.float32) if x.dtype == np.float16 else x
    n = math.prod(x.shape[a] for a in axis)
    with np.errstate(all="ignore"):
        mean = work.sum(axis=axis, keepdims=True) / work.dtype.type(n)   # n = 0: nan
        sq = np.square(work - mean).sum(axis=axis, keepdims=keep_dims)
        std = np.sqrt(sq / work.dtype.type(n - ddof))    # n <= ddof: 0 / 0 = nan
    np.copyto(out_std, std, casting="unsafe")
    np.copyto(out_mean, np.reshape(mean, out_mean.shape), casting="unsafe")


def _pair_norm(diff, p):
    """||diff||_p over the last axis (diff's other axes kept)."""
    a = np.abs(diff)
    if p == 0:
        return np.count_nonzero(diff, axis=-1).astype(diff.dtype)
    if p == 1:
        return a.sum(-1)
    if p == 2:
        return np.sqrt(np.einsum("...k,...k->...", a, a))
    if np.isinf(p):
        return a.max(-1, initial=0)
    return np.power(np.power(a, p).sum(-1), 1.0 / p)


_CHUNK = 1 << 22                   # elements of the (rows, R, M) difference block per step


def _rows(x1, x2):
    """Row blocks of x1 whose differences with x2 fit in _CHUNK elements."""
    per_row = max(1, x2.shape[-2] * x2.shape[-1])
    step = max(1, _CHUNK // per_row)
    return [slice(i, i + step) for i in range(0, x1.shape[-2], step)]


@register_kernel("Cdist", provider="numpy")
def cdist_numpy(x1, x2, out, p):
    """NOTE: the exact difference form (no |a|^2 + |b|^2 - 2ab cancellation), row blocks
    bound its memory; float16 in float32."""
    w1, w2 = (x1.astype(np.float32), x2.astype(np.float32)) if x1.dtype == np.float16 \
        else (x1, x2)
    with np.errstate(all="ignore"):
        for rows in _rows(w1, w2):
            diff = w1[..., rows, None, :] - w2[..., None, :, :]
            np.copyto(out[..., rows, :], _pair_norm(diff, p), casting="unsafe")


@register_kernel("CdistGrad", provider="numpy")
def cdist_grad_numpy(g, x1, x2, y, out, p):
    work = np.float32 if x1.dtype == np.float16 else x1.dtype
    w1, w2, g, y = (a.astype(work, copy=False) for a in (x1, x2, g, y))
    with np.errstate(all="ignore"):
        for rows in _rows(w1, w2):
            diff = w1[..., rows, None, :] - w2[..., None, :, :]
            dist = y[..., rows, :, None]
            if p == 0:
                d = np.zeros_like(diff)
            elif p == 1:
                d = np.sign(diff)
            elif np.isinf(p):
                d = np.sign(diff) * (np.abs(diff) == dist)
            else:
                d = np.sign(diff) * np.power(np.abs(diff), p - 1) / np.power(dist, p - 1)
            d = np.where(dist == 0, 0, d)
            np.copyto(out[..., rows, :], np.einsum("...ij,...ijk->...ik", g[..., rows, :], d),
                      casting="unsafe")


@register_kernel("LinSpace", provider="numpy")
def linspace_numpy(start, stop, out, num):
    np.copyto(out, np.linspace(start[()], stop[()], num, dtype=np.float64), casting="unsafe")


@register_kernel("LogSpace", provider="numpy")
def logspace_numpy(start, end, out, steps, base):
    with np.errstate(all="ignore"):
        t = np.linspace(np.float64(start[()]), np.float64(end[()]), steps)
        np.copyto(out, np.power(np.float64(base), t), casting="unsafe")


@register_kernel("Meshgrid", provider="numpy")
def meshgrid_numpy(xs, *outs, indexing):
    for o, g in zip(outs, np.meshgrid(*xs, indexing=indexing, copy=False)):
        np.copyto(o, g)
