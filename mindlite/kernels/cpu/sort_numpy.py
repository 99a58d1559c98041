"""numpy reference kernels for sort_ops: Sort, TopK, Cummax, Cummin, GatherD, GatherDGradV2.

alloc="runtime": each writes into its preallocated outputs. Orders are stable with NaN as
the largest value: ascending is numpy's stable argsort (NaN last); descending is the stable
ascending order of the reversed axis, reversed again (largest first, NaN first, equal
values by increasing index). Index values of GatherD / GatherDGradV2 are checked before
anything is written.
"""
import numpy as np

from ..registry import register_kernel


def _argsort(x, axis, descending):
    """Stable order along `axis`, NaN largest; ties by increasing index either way."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return np.flip(n - 1 - rev, axis)


@register_kernel("Sort", provider="numpy")
def sort_numpy(x, values, indices, axis, descending):
    if x.size == 0:
        return
    order = _argsort(x, axis, descending)
    np.copyto(indices, order, casting="unsafe")
    np.copyto(values, np.take_along_axis(x, order, axis))


@register_kernel("TopK", provider="numpy")
def topk_numpy(x, values, indices, k):
    """NOTE: for k well below n, a partition picks a candidate set first: every value
    strictly greater than the k-th largest and, of the values equal to it, the lowest
    indices (so ties resolve as in a full stable sort); only those are sorted."""
    if x.size == 0:
        return
    n = x.shape[-1]
    if 4 * k >= n or x.dtype.kind == "f" and np.isnan(x).any():
        order = _argsort(x, -1, True)[..., :k]
    else:
        kth = np.partition(x, n - k, axis=-1)[..., n - k:n - k + 1]     # the k-th largest
        greater = x > kth
        tied = np.cumsum(x == kth, axis=-1) <= (k - greater.sum(-1, keepdims=True))
        keep = greater | ((x == kth) & tied)
        cand = np.nonzero(keep.reshape(-1, n))[1].reshape(x.shape[:-1] + (k,))
        vals = np.take_along_axis(x, cand, -1)
        order = np.take_along_axis(cand, _argsort(vals, -1, True), -1)
    np.copyto(indices, order, casting="unsafe")
    np.copyto(values, np.take_along_axis(x, order, -1))


def _cum_extreme(x, values, indices, axis, better):
    """Sequential along `axis`, vectorised across the rest: position i replaces the running
    extreme when it is at least as good (later index on ties) or NaN (a NaN sticks)."""
    if x.size == 0:
        return
    n = x.shape[axis]
    xs = np.moveaxis(x, axis, 0).reshape(n, -1)           # (axis, rest): rows are steps
    vs, ids = np.empty_like(xs), np.empty(xs.shape, np.int64)
    nan_ok = x.dtype.kind == "f"
    cur, idx = xs[0].copy(), np.zeros(xs.shape[1], np.int64)
    vs[0], ids[0] = cur, idx
    for i in range(1, n):
        xi = xs[i]
        take = better(xi, cur)
        if nan_ok:
            take |= np.isnan(xi)
        np.copyto(cur, xi, where=take)
        idx[take] = i
        vs[i], ids[i] = cur, idx
    moved = np.moveaxis(x, axis, 0).shape
    np.copyto(np.moveaxis(values, axis, 0), vs.reshape(moved))
    np.copyto(np.moveaxis(indices, axis, 0), ids.reshape(moved), casting="unsafe")


@register_kernel("Cummax", provider="numpy")
def cummax_numpy(x, values, indices, axis):
    with np.errstate(invalid="ignore"):
        _cum_extreme(x, values, indices, axis, np.greater_equal)


@register_kernel("Cummin", provider="numpy")
def cummin_numpy(x, values, indices, axis):
    with np.errstate(invalid="ignore"):
        _cum_extreme(x, values, indices, axis, np.less_equal)


def _full_index(op, index, dim, n):
    """index (negative from the end) checked to lie in [-n, n), as int64 in [0, n)."""
    if index.size:
        lo, hi = int(index.min()), int(index.max())
        if lo < -n or hi >= n:
            raise ValueError(f"For '{op}', the values of 'index' must be in [{-n}, {n}), but "
                             f"got {lo if lo < -n else hi}")
    return np.where(index < 0, index.astype(np.int64) + n, index)


def _clip(x, index, dim):
    """x restricted to index's extent on every axis but `dim`."""
    return x[tuple(slice(None) if d == dim else slice(0, s) for d, s in enumerate(index.shape))]


@register_kernel("GatherD", provider="numpy")
def gather_d_numpy(x, index, out, dim):
    if out.size == 0:
        return
    idx = _full_index("GatherD", index, dim, x.shape[dim])
    np.copyto(out, np.take_along_axis(_clip(x, index, dim), idx, dim))


def _along_index(index, dim):
    """The full index tuple of np.add.at for index along `dim` (open grids elsewhere)."""
    grids = list(np.ogrid[tuple(slice(0, s) for s in index.shape)])
    grids[dim] = index
    return tuple(grids)


@register_kernel("GatherDGradV2", provider="numpy")
def gather_d_grad_numpy(x, index, grad, out, dim):
    idx = _full_index("GatherDGradV2", index, dim, x.shape[dim])
    out.fill(0)
    if index.size:
        np.add.at(out, _along_index(idx, dim), grad)
