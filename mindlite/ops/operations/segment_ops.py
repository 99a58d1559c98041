"""Segment reductions beside scatter_ops.UnsortedSegmentSum: UnsortedSegmentMax, ...Min and
...Prod. y[k] = the max / min / product of x[i] over the index tuples i (segment_ids' shape, a
prefix of x's) with segment_ids[i] == k, k in [0, num_segments); y.shape = (num_segments,) +
x.shape[segment_ids.ndim:]. Empty segments hold the dtype's lowest value (max), highest (min)
or 1 (prod), negative ids are dropped and ids >= num_segments raise, as MindSpore 2.10's CPU
kernels.

Gradients (MindSpore's bprops): max / min send dout[k] to the elements equal to y[k], split
evenly among ties; prod sends dout[k] * y[k] / x[i], with the product of the other elements
where x[i] is the segment's only zero, and 0 where the segment has more than one zero.
Kernels: kernels/cpu/segment_numpy.py (numpy ufunc.at).
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_dtype, check_int, check_output_size, tensor
from ._base import needs_grad

__all__ = ["UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"]

_REAL_TYPES = tuple(t for t in mstype.NUMBER_TYPES if t.kind != "c" and t is not mstype.bool_)


class _UnsortedSegment(Primitive):
    input_names = ("x", "segment_ids", "num_segments")
    const_inputs = (2,)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x, segment_ids, num_segments):
        check_dtype(self, "x", x, _REAL_TYPES)
        check_dtype(self, "segment_ids", segment_ids, mstype.INDEX_TYPES)
        if isinstance(num_segments, (list, tuple)) and len(num_segments) == 1:
            num_segments = num_segments[0]
        n = check_int(self, "num_segments", num_segments, lo=0)
        k = len(segment_ids.shape)
        if x.shape[:k] != segment_ids.shape:
            raise ValueError(f"For '{self.name}', the shape of 'segment_ids' "
                             f"{list(segment_ids.shape)} must be a prefix of the shape of 'x' "
                             f"{list(x.shape)}")
        return tensor(x.dtype, check_output_size(self, "the output shape", (n,) + x.shape[k:]))


class UnsortedSegmentMax(_UnsortedSegment):
    """y[k] = max of x[i] over segment k (the dtype's lowest value for an empty one)."""


class UnsortedSegmentMin(_UnsortedSegment):
    """y[k] = min of x[i] over segment k (the dtype's highest value for an empty one)."""


class UnsortedSegmentProd(_UnsortedSegment):
    """y[k] = product of x[i] over segment k (1 for an empty one)."""


def _gather_segments(F, y, ids):
    """y[ids] with y's rows for ids (negative ids read row 0: their gradient is masked)."""
    return F.gather(y, F.select(F.greater_equal(ids, 0), ids, F.zeros_like(ids)), 0)


def _expand(F, mask, x):
    k = len(mask.shape)
    return F.reshape(mask, mask.shape + (1,) * (len(x.shape) - k))


def _extreme_bprop(prim, x, segment_ids, num_segments, out, dout):
    if not needs_grad(x):
        return None, None, None
    from .. import functional as F
    from .scatter_ops import UnsortedSegmentSum
    n = out.shape[0]
    valid = _expand(F, F.greater_equal(segment_ids, 0), x)
    picked = F.logical_and(F.equal(x, _gather_segments(F, out, segment_ids)), valid)
    count = UnsortedSegmentSum()(F.cast(picked, x.dtype), segment_ids, n)
    share = F.div(_gather_segments(F, dout, segment_ids), _gather_segments(F, count, segment_ids))
    return F.select(picked, share, F.zeros_like(share)), None, None


bprop_for(UnsortedSegmentMax)(_extreme_bprop)
bprop_for(UnsortedSegmentMin)(_extreme_bprop)


@bprop_for(UnsortedSegmentProd)
def unsorted_segment_prod_bprop(prim, x, segment_ids, num_segments, out, dout):
    if not needs_grad(x):
        return None, None, None
    from .. import functional as F
    from .scatter_ops import UnsortedSegmentSum
    n = out.shape[0]
    zero = F.equal(x, F.zeros_like(x))
    zeros_in = UnsortedSegmentSum()(F.cast(zero, x.dtype), segment_ids, n)
    nonzero_prod = UnsortedSegmentProd()(F.select(zero, F.ones_like(x), x), segment_ids, n)
    at_x = _gather_segments(F, out, segment_ids)
    safe_x = F.select(zero, F.ones_like(x), x)
    partial = F.select(zero, _gather_segments(F, nonzero_prod, segment_ids), F.div(at_x, safe_x))
    g = F.mul(partial, _gather_segments(F, dout, segment_ids))
    several = F.greater(_gather_segments(F, zeros_in, segment_ids), 1.0)
    keep = F.logical_and(F.logical_not(several), _expand(F, F.greater_equal(segment_ids, 0), x))
    return F.select(keep, g, F.zeros_like(g)), None, None
