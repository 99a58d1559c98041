"""Functional segment reductions of MindSpore 2.10: unsorted_segment_sum / max / min / prod
(scatter_ops.UnsortedSegmentSum and segment_ops' primitives) and sparse_segment_mean (a
gather of x's rows, then the segment sums over the per-segment counts). num_segments may be
an int or a 0-D / 1-element Tensor."""
import numpy as np

from ...common.tensor import Tensor
from ..operations import scatter_ops as S
from ..operations import segment_ops as G
from ._typed_prims import typed_prim as _prim

__all__ = ["unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min",
           "unsorted_segment_prod", "sparse_segment_mean"]


def _F():
    from .. import functional as F
    return F


def _count(op, num_segments):
    if isinstance(num_segments, Tensor):
        v = num_segments.asnumpy().reshape(-1)
        if v.size != 1:
            raise ValueError(f"For '{op}', 'num_segments' must hold one value, but got shape "
                             f"{list(num_segments.shape)}")
        return int(v[0])
    if not isinstance(num_segments, (int, np.integer)) or isinstance(num_segments, bool):
        raise TypeError(f"For '{op}', 'num_segments' must be an int or a Tensor, but got "
                        f"{type(num_segments).__name__}")
    return int(num_segments)


def unsorted_segment_sum(input_x, segment_ids, num_segments):
    """y[k] = sum of input_x[i] with segment_ids[i] == k (ids out of range dropped)."""
    n = _count("unsorted_segment_sum", num_segments)
    return _prim(S.UnsortedSegmentSum)(input_x, segment_ids, n)


def unsorted_segment_max(x, segment_ids, num_segments):
    """y[k] = max of x[i] with segment_ids[i] == k (the dtype's lowest value if none)."""
    return _prim(G.UnsortedSegmentMax)(x, segment_ids,
                                       _count("unsorted_segment_max", num_segments))


def unsorted_segment_min(x, segment_ids, num_segments):
    """y[k] = min of x[i] with segment_ids[i] == k (the dtype's highest value if none)."""
    return _prim(G.UnsortedSegmentMin)(x, segment_ids,
                                       _count("unsorted_segment_min", num_segments))


def unsorted_segment_prod(x, segment_ids, num_segments):
    """y[k] = product of x[i] with segment_ids[i] == k (1 if none)."""
    return _prim(G.UnsortedSegmentProd)(x, segment_ids,
                                        _count("unsorted_segment_prod", num_segments))


def sparse_segment_mean(x, indices, segment_ids):
    """y[k] = mean of x[indices[j]] over the j with segment_ids[j] == k (sorted ids; k up to
    the last id, empty segments 0)."""
    F = _F()
    for name, t in (("x", x), ("indices", indices), ("segment_ids", segment_ids)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'sparse_segment_mean', '{name}' must be a Tensor, but got "
                            f"{type(t).__name__}")
    ids = segment_ids.asnumpy()
    if ids.ndim != 1 or indices.ndim != 1 or ids.shape != indices.shape:
        raise ValueError("For 'sparse_segment_mean', 'indices' and 'segment_ids' must be 1-D "
                         "of the same length")
    if ids.size and (np.any(np.diff(ids) < 0) or ids[0] < 0):
        raise ValueError("For 'sparse_segment_mean', 'segment_ids' must be sorted and "
                         "non-negative")
    n = int(ids[-1]) + 1 if ids.size else 0
    rows = F.gather(x, indices, 0)
    sums = _prim(S.UnsortedSegmentSum)(rows, segment_ids, n)
    counts = np.maximum(np.bincount(ids, minlength=n), 1).astype(x.dtype.np)
    shape = (n,) + (1,) * (len(x.shape) - 1)
    return F.div(sums, Tensor(counts.reshape(shape)))
