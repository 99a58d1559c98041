"""Scatter primitives, the gradients of slicing and gathering (slice_ops.py): each writes its
input into zeros. StridedSliceGrad (dy at a strided slice; also Slice's gradient),
UnsortedSegmentSum (scatter-add by segment id; Gather's gradient) and MaskedSelectGrad (dy
at a mask's True positions). Each has its own bprop (the matching slice / gather / select),
so grad(grad(f)) works through slicing. Kernels: kernels/cpu/scatter_numpy.py.
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import (broadcast_shape, check_dtype, check_int, check_output_size,
                         check_shape_arg, check_tensor, tensor)
from ._base import cached_prim, needs_grad
from .slice_ops import MaskedSelect, StridedSlice, strided_slice_spec

__all__ = ["StridedSliceGrad", "UnsortedSegmentSum", "MaskedSelectGrad"]

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


class StridedSliceGrad(Primitive):
    """dx = zeros of shape `shapex` with dx[begin:end:strides] = dy, the slice taken with the
    same masks as StridedSlice (MindSpore's StridedSliceGrad); dy must have the slice's shape.
    Positions the slice visits get dy, every other position 0."""
    input_names = ("dy", "shapex", "begin", "end", "strides")
    const_inputs = (1, 2, 3, 4)

    @prim_attr_register
    def __init__(self, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                 shrink_axis_mask=0):
        for name in _MASKS:
            check_int(self, name, self.attrs[name], lo=0)

    def _spec(self, dy, shapex, begin, end, strides):
        check_tensor(self, "dy", dy)
        shapex = check_shape_arg(self, "shapex", shapex)
        if any(d < 0 for d in shapex):
            raise ValueError(f"For '{self.name}', 'shapex' must be non-negative, but got "
                             f"{list(shapex)}")
        check_output_size(self, "'shapex'", shapex)
        args = [check_shape_arg(self, n, v)
                for n, v in (("begin", begin), ("end", end), ("strides", strides))]
        masks = tuple(self.attrs[n] for n in _MASKS)
        slices, final = strided_slice_spec(self, shapex, *args, masks)
        if dy.shape != final:
            raise ValueError(f"For '{self.name}', 'dy' must have the shape of the slice "
                             f"{list(final)}, but got {list(dy.shape)}")
        return shapex, slices

    def infer(self, dy, shapex, begin, end, strides):
        return tensor(dy.dtype, self._spec(dy, shapex, begin, end, strides)[0])

    def kernel_params(self, dy, shapex, begin, end, strides):
        shapex, slices = self._spec(dy, shapex, begin, end, strides)
        proc = tuple(len(range(*s.indices(d))) for s, d in zip(slices, shapex))
        return {"slices": slices, "shape": proc}


@bprop_for(StridedSliceGrad)
def strided_slice_grad_bprop(prim, dy, shapex, begin, end, strides, out, dout):
    """d(dy) = the same strided slice of dout."""
    if not needs_grad(dy):
        return None, None, None, None, None
    sl = cached_prim(StridedSlice, *(prim.attrs[n] for n in _MASKS))
    return sl(dout, begin, end, strides), None, None, None, None


class UnsortedSegmentSum(Primitive):
    """y[k] = sum of x[i] over the index tuples i (of segment_ids' shape, a prefix of x's) with
    segment_ids[i] == k, for k in [0, num_segments); y.shape = (num_segments,) +
    x.shape[segment_ids.ndim:]. Ids outside [0, num_segments) are dropped (as MindSpore).
    Gradient: dx[i] = dy[segment_ids[i]] (a Gather), 0 for dropped ids."""
    input_names = ("input_x", "segment_ids", "num_segments")
    const_inputs = (2,)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x, segment_ids, num_segments):
        check_dtype(self, "input_x", x, mstype.NUMBER_TYPES)
        check_dtype(self, "segment_ids", segment_ids, mstype.INDEX_TYPES)
        if isinstance(num_segments, (list, tuple)) and len(num_segments) == 1:
            num_segments = num_segments[0]
        n = check_int(self, "num_segments", num_segments, lo=0)
        k = len(segment_ids.shape)
        if x.shape[:k] != segment_ids.shape:
            raise ValueError(f"For '{self.name}', the shape of 'segment_ids' "
                             f"{list(segment_ids.shape)} must be a prefix of the shape of "
                             f"'input_x' {list(x.shape)}")
        return tensor(x.dtype, check_output_size(self, "the output shape", (n,) + x.shape[k:]))


@bprop_for(UnsortedSegmentSum)
def unsorted_segment_sum_bprop(prim, x, segment_ids, num_segments, out, dout):
    """dx[i] = dout[segment_ids[i]] where the id is in range, else 0."""
    if not needs_grad(x):
        return None, None, None
    from .. import functional as F
    n = dout.shape[0]
    if not n:
        return F.zeros_like(x), None, None
    valid = F.logical_and(F.greater_equal(segment_ids, 0), F.less(segment_ids, n))
    g = F.gather(dout, F.select(valid, segment_ids, 0), 0)
    k = len(segment_ids.shape)
    mask = F.reshape(valid, segment_ids.shape + (1,) * (len(x.shape) - k))
    return F.select(mask, g, F.zeros_like(g)), None, None


class MaskedSelectGrad(Primitive):
    """dx = zeros of the broadcast shape of x and mask with dx[mask] = grad in C order (the
    gradient of MaskedSelect; backward sums it back to x's shape). `grad` is 1-D with one
    value per True element; its length is checked by the kernel (it depends on mask's
    values), before anything is written."""
    input_names = ("x", "mask", "grad")

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x, mask, grad):
        check_tensor(self, "x", x)
        check_dtype(self, "mask", mask, (mstype.bool_,))
        check_tensor(self, "grad", grad)
        if len(grad.shape) != 1:
            raise ValueError(f"For '{self.name}', 'grad' must be 1-D, but got shape "
                             f"{list(grad.shape)}")
        return tensor(grad.dtype, broadcast_shape(self, x.shape, mask.shape, ("x", "mask")))


@bprop_for(MaskedSelectGrad)
def masked_select_grad_bprop(prim, x, mask, grad, out, dout):
    """d(grad) = dout at the mask's True positions (MaskedSelect)."""
    if not needs_grad(grad):
        return None, None, None
    return None, None, cached_prim(MaskedSelect)(dout, mask)
