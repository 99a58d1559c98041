"""mindlite.numpy's binning and searching: `searchsorted`, `digitize`, `bincount`,
`histogram`, `histogram_bin_edges`, `histogram2d`, `histogramdd`, `interp`. Positions come
from the SearchSorted primitive (a binary search per value), counts from
UnsortedSegmentSum (differentiable in the weights), `interp` from Gather arithmetic
(differentiable in fp)."""
import builtins
import numbers

import numpy as onp

from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..ops import functional as F
from ..ops import operations as P
from .dtypes import to_tensor
from .math_ops import _PRIMS, _prim

__all__ = ["searchsorted", "digitize", "bincount", "histogram", "histogram_bin_edges",
           "histogram2d", "histogramdd", "interp"]


def _search(right, dtype):
    key = ("SearchSorted", right, dtype)
    p = _PRIMS.get(key)
    if p is None:
        p = _PRIMS.setdefault(key, P.SearchSorted(dtype=dtype, right=right))
    return p


def _same(a, v):
    a, v = to_tensor(a), to_tensor(v)
    dtype = mstype.promote(a.dtype, v.dtype)
    return F.cast(a, dtype), F.cast(v, dtype)


def searchsorted(a, v, side="left", sorter=None):
    """Insertion indices (int32) of v into the sorted 1-D a (`sorter` sorts a first)."""
    if side not in ("left", "right"):
        raise ValueError(f"For 'mindlite.numpy.searchsorted', 'side' must be 'left' or "
                         f"'right', but got {side!r}")
    a, v = _same(a, v)
    if a.ndim != 1:
        raise ValueError(f"For 'mindlite.numpy.searchsorted', 'a' must be 1-D, but got "
                         f"{a.ndim}-D")
    if sorter is not None:
        a = F.gather(a, F.cast(to_tensor(sorter), mstype.int32), 0)
    flat = F.reshape(v, (-1,))
    out = _search(side == "right", mstype.int32)(a, flat)
    return F.reshape(out, v.shape)


def digitize(x, bins, right=False):
    """The index of the bin each x falls in (bins increasing or decreasing), int32."""
    x, bins = _same(x, bins)
    b = bins.asnumpy()
    if b.ndim != 1:
        raise ValueError("For 'mindlite.numpy.digitize', 'bins' must be 1-D")
    if b.size > 1 and b[0] > b[-1]:
        n = b.shape[0]
        return n - searchsorted(F.flip(bins, (0,)), x, "left" if right else "right")
    return searchsorted(bins, x, "left" if right else "right")


def bincount(x, weights=None, minlength=0, length=None):
    """Counts (or summed weights) of each non-negative int in x; float32 as MindSpore."""
    x = to_tensor(x)
    if x.ndim != 1 or x.dtype not in mstype.INT_TYPES:
        raise TypeError("For 'mindlite.numpy.bincount', 'x' must be a 1-D int Tensor, but got "
                        f"{x.ndim}-D {x.dtype}")
    vals = x.asnumpy()
    if vals.size and vals.min() < 0:
        raise ValueError("For 'mindlite.numpy.bincount', 'x' must be non-negative")
    n = length if length is not None else builtins.max(int(vals.max()) + 1 if vals.size else 0,
                                                       minlength)
    w = F.ones(x.shape, mstype.float32) if weights is None else \
        F.cast(to_tensor(weights), mstype.float32)
    return _prim("UnsortedSegmentSum")(w, F.cast(x, mstype.int32), n) if x.shape[0] else \
        F.zeros((n,), mstype.float32)


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """Edges (float32) of `bins` equal bins over `range` (default: a's min and max), or the
    given edges."""
    a = to_tensor(a)
    if not isinstance(bins, numbers.Integral):
        return F.cast(to_tensor(bins), mstype.float32)
    arr = a.asnumpy().astype(onp.float32)             # the edges are float32
    rng = None if range is None else (float(range[0]), float(range[1]))
    # numpy's float32 edge arithmetic (an equal min and max widened by 0.5 in float32), which
    # MindSpore's edges follow too
    return Tensor(onp.histogram_bin_edges(arr, bins, rng).astype(onp.float32))


def _bin_index(x, edges):
    """Bin of each x for these edges (the last bin closed), -1 outside."""
    n = edges.shape[0] - 1
    idx = searchsorted(edges, F.cast(x, edges.dtype), "right") - 1
    last = F.equal(F.cast(x, edges.dtype), edges[-1])
    idx = F.select(last, F.fill(mstype.int32, idx.shape, n - 1) if idx.ndim else
                   to_tensor(n - 1), idx)
    inside = F.logical_and(idx >= 0, idx < n)
    return idx, inside


def histogram(a, bins=10, range=None, weights=None, density=False):  # noqa: A002
    """(counts, edges): float32 counts (or summed weights) per bin."""
    a = F.reshape(to_tensor(a), (-1,))
    edges = histogram_bin_edges(a, bins, range)
    idx, inside = _bin_index(a, edges)
    w = F.ones(a.shape, mstype.float32) if weights is None else \
        F.cast(F.reshape(to_tensor(weights), (-1,)), mstype.float32)
    n = edges.shape[0] - 1
    seg = F.select(inside, idx, F.fill(mstype.int32, idx.shape, n))
    counts = _prim("UnsortedSegmentSum")(w, seg, n + 1)[:n]
    if density:
        widths = edges[1:] - edges[:-1]
        counts = counts / (F.sum(counts) * widths)
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=False):  # noqa: A002
    """(counts, [edges per dimension]) of an (N, D) sample."""
    if isinstance(sample, (list, tuple)):
        sample = F.stack(tuple(F.reshape(to_tensor(s), (-1,)) for s in sample), 1)
    sample = to_tensor(sample)
    if sample.ndim != 2:
        raise ValueError("For 'mindlite.numpy.histogramdd', 'sample' must be (N, D)")
    d = sample.shape[1]
    bins = [bins] * d if isinstance(bins, numbers.Integral) or (
        isinstance(bins, Tensor) and bins.ndim == 1 and d == 1) else list(bins)
    ranges = [None] * d if range is None else list(range)
    edges = [histogram_bin_edges(sample[:, k], bins[k], ranges[k]) for k in builtins.range(d)]
    sizes = [e.shape[0] - 1 for e in edges]
    flat, inside = None, None
    for k in builtins.range(d):
        idx, ok = _bin_index(sample[:, k], edges[k])
        flat = idx if flat is None else flat * sizes[k] + idx
        inside = ok if inside is None else F.logical_and(inside, ok)
    total = int(onp.prod(sizes))
    w = F.ones((sample.shape[0],), mstype.float32) if weights is None else \
        F.cast(F.reshape(to_tensor(weights), (-1,)), mstype.float32)
    seg = F.select(inside, flat, F.fill(mstype.int32, flat.shape, total))
    counts = F.reshape(_prim("UnsortedSegmentSum")(w, seg, total + 1)[:total], tuple(sizes))
    if density:
        vol = None
        for k in builtins.range(d):
            wk = edges[k][1:] - edges[k][:-1]
            wk = F.reshape(wk, (1,) * k + (-1,) + (1,) * (d - k - 1))
            vol = wk if vol is None else vol * wk
        counts = counts / (F.sum(counts) * vol)
    return counts, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=False):  # noqa: A002
    """(counts, xedges, yedges)."""
    counts, edges = histogramdd((x, y), bins, range, weights, density)
    return counts, edges[0], edges[1]


def interp(x, xp, fp, left=None, right=None):
    """Piecewise-linear interpolation of (xp, fp) at x (xp increasing); fp[0] / fp[-1] (or
    left / right) outside."""
    x, xp, fp = to_tensor(x), to_tensor(xp), to_tensor(fp)
    work = mstype.float64 if mstype.float64 in (x.dtype, xp.dtype, fp.dtype) else \
        mstype.float32
    x, xp, fp = F.cast(x, work), F.cast(xp, work), F.cast(fp, work)
    n = xp.shape[0]
    if xp.ndim != 1 or n == 0 or fp.shape != xp.shape:
        raise ValueError("For 'mindlite.numpy.interp', 'xp' and 'fp' must be 1-D, non-empty "
                         "and of the same length")
    if n == 1:
        lo = hi = F.zeros(x.shape, mstype.int32)
    else:
        hi = F.clamp(searchsorted(xp, x, "right"), 1, n - 1)
        lo = hi - 1
    x0, x1 = F.gather(xp, lo, 0), F.gather(xp, hi, 0)
    y0, y1 = F.gather(fp, lo, 0), F.gather(fp, hi, 0)
    span = x1 - x0
    t = F.select(span == 0, F.zeros_like(span), (x - x0) / F.select(span == 0,
                                                                      F.ones_like(span), span))
    out = y0 + t * (y1 - y0)
    lval = fp[0] if left is None else to_tensor(left, fp.dtype)
    rval = fp[-1] if right is None else to_tensor(right, fp.dtype)
    out = F.select(x < xp[0], F.broadcast_to(lval, out.shape), out)
    out = F.select(x > xp[-1], F.broadcast_to(rval, out.shape), out)
    return out
