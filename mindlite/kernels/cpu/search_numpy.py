"""numpy kernels for ops/operations/search_ops.py: SearchSorted (np.searchsorted per row),
Histogram (MindSpore's float32 bin arithmetic), Bincount and UniqueConsecutive (dynamic
output shapes: alloc="kernel", the kernel returns its outputs)."""
import numpy as np

from ..registry import register_kernel


@register_kernel("SearchSorted", provider="numpy")
def search_sorted_numpy(seq, values, out, right):
    side = "right" if right else "left"
    if seq.ndim <= 1:
        out[...] = np.searchsorted(seq.reshape(-1), values, side=side)
        return
    rows = seq.reshape(-1, seq.shape[-1])
    vals = values.reshape(rows.shape[0], -1)
    res = out.reshape(rows.shape[0], -1)
    for r in range(rows.shape[0]):
        res[r] = np.searchsorted(rows[r], vals[r], side=side)


@register_kernel("Histogram", provider="numpy")
def histogram_numpy(x, out, bins, lo, hi):
    # MindSpore's kernel: the bin of e is int((e - lo) / (hi - lo) * bins) evaluated in float32
    # (float64 for float64 input), the top edge in the last bin; NaN and outside values skipped.
    it = np.float64 if x.dtype == np.float64 else np.float32
    data = x.reshape(-1)
    if lo == hi == 0.0 and data.size:
        finite = data[np.isfinite(data)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    if lo == hi:
        lo, hi = lo - 1.0, hi + 1.0
    e, left, right = data.astype(it), it(lo), it(hi)
    with np.errstate(invalid="ignore"):
        e = e[(e >= left) & (e <= right)]
    pos = np.minimum(((e - left) / (right - left) * it(bins)).astype(np.int64), bins - 1)
    out[...] = np.bincount(pos, minlength=bins)[:bins]


@register_kernel("Bincount", provider="numpy", alloc="kernel")
def bincount_numpy(x, weights, minlength, weighted, skip_invalid=False):
    if skip_invalid:
        return _bincount_skipping(x, weights if weighted else None, minlength)
    if x.size and x.min() < 0:
        raise ValueError(f"For 'Bincount', the values of 'x' must be non-negative, but got "
                         f"{int(x.min())}")
    if not weighted:
        return np.bincount(x, minlength=minlength).astype(np.int64)
    dtype = weights.dtype if weights.dtype.kind == "f" else np.float64
    return np.bincount(x, weights=weights, minlength=minlength).astype(dtype)


def _bincount_skipping(x, weights, minlength):
    """MindSpore's ops.bincount: length max(int(float32(max(x)) + 1), minlength) (truncated
    toward zero), float32 sums over the elements equal to each v; others count nowhere."""
    length = minlength
    if x.size:
        length = max(int(np.float32(x.max()) + np.float32(1)), minlength)
    if length <= 0:
        return np.zeros(0, np.float32)
    with np.errstate(invalid="ignore"):
        valid = (x >= 0) & (x == np.floor(x)) & (x < length)
    w = None if weights is None else weights[valid].astype(np.float32).astype(np.float64)
    return np.bincount(x[valid].astype(np.int64), w, length)[:length].astype(np.float32)


@register_kernel("UniqueConsecutive", provider="numpy", alloc="kernel")
def unique_consecutive_numpy(x, axis):
    if axis is None:
        flat = x.reshape(-1)
        if flat.size == 0:
            return flat.copy(), np.zeros(x.shape, np.int64), np.zeros(0, np.int64)
        new = np.concatenate([[True], flat[1:] != flat[:-1]])
        starts = np.flatnonzero(new)
        inv = (np.cumsum(new) - 1).reshape(x.shape).astype(np.int64)
        counts = np.diff(np.append(starts, flat.size)).astype(np.int64)
        return flat[starts], inv, counts
    axis %= x.ndim
    moved = np.moveaxis(x, axis, 0)
    n = moved.shape[0]
    if n == 0:
        return x.copy(), np.zeros(0, np.int64), np.zeros(0, np.int64)
    rows = moved.reshape(n, -1)
    new = np.concatenate([[True], np.any(rows[1:] != rows[:-1], axis=1)])
    starts = np.flatnonzero(new)
    inv = (np.cumsum(new) - 1).astype(np.int64)
    counts = np.diff(np.append(starts, n)).astype(np.int64)
    return np.moveaxis(moved[starts], 0, axis).copy(), inv, counts
