"""Scatter primitives, the gradients of slicing and gathering (slice_ops.py): each writes its
input into zeros. StridedSliceGrad (dy at a strided slice; also Slice's gradient),
UnsortedSegmentSum (scatter-add by segment id; Gather's gradient), MaskedSelectGrad (dy
at a mask's True positions), ScatterNd (updates added at index tuples; GatherNd's
gradient) and ScatterNdUpdate (input_x[index tuples] = updates, in place). Each has its own
bprop (the matching slice / gather / select), so grad(grad(f)) works through slicing.
Kernels: kernels/cpu/scatter_numpy.py.
"""
from ...common import dtype as mstype
from ...common.api import PYNATIVE
from ...common.buffers import own_buffer
from ...common.tensor import Tensor
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import (broadcast_shape, check_dtype, check_int, check_output_size,
                         check_shape_arg, check_tensor, tensor)
from ._base import cached_prim, needs_grad
from .slice_ops import MaskedSelect, StridedSlice, strided_slice_spec

__all__ = ["StridedSliceGrad", "UnsortedSegmentSum", "MaskedSelectGrad", "ScatterNd",
           "ScatterNdUpdate"]

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class StridedSliceGrad(Primitive):
    """dx = zeros of shape `shapex` with dx[begin:end:strides] = dy, the slice taken with the
    same masks as StridedSlice (MindSpore's StridedSliceGrad); dy must have the slice's shape
    or, as MindSpore accepts, its number of elements.
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
        if dy.shape != final and _count(dy.shape) != _count(final):
            # MindSpore takes any dy with the slice's number of elements (its shape with unit
            # axes dropped or added, e.g. (4, 2) for a (1, 4, 2) slice)
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
    g = sl(dout, begin, end, strides)
    if g.shape != dy.shape:                      # a dy given with the slice's size only
        from .array_ops import Reshape
        g = cached_prim(Reshape)(g, dy.shape)
    return g, None, None, None, None


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


class ScatterNd(Primitive):
    """y = zeros(shape) with updates added at the index tuples indices[..., :k] (repeated
    tuples accumulate; bool updates or-ed), k = indices.shape[-1] <= len(shape) and
    updates.shape == indices.shape[:-1] + shape[k:]. Indices (int16/32/64) must lie in
    [0, shape); the kernel checks them before writing, with MindSpore's messages.
    Gradient: d updates = GatherNd(dy, indices)."""
    input_names = ("indices", "updates", "shape")
    const_inputs = (2,)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, indices, updates, shape):
        check_dtype(self, "indices", indices, (mstype.int16,) + mstype.INDEX_TYPES)
        check_tensor(self, "updates", updates)
        shape = check_shape_arg(self, "shape", shape)
        if not shape or any(d <= 0 for d in shape):
            raise ValueError(f"For '{self.name}', 'shape' must be a non-empty tuple of "
                             f"positive ints, but got {list(shape)}")
        if not indices.shape or indices.shape[-1] > len(shape) or indices.shape[-1] < 1:
            raise ValueError(f"For '{self.name}', the last dimension of 'indices' must be in "
                             f"[1, len(shape) = {len(shape)}], but got 'indices' shape "
                             f"{list(indices.shape)}")
        want = indices.shape[:-1] + shape[indices.shape[-1]:]
        if updates.shape != want:
            raise ValueError(f"For '{self.name}', 'updates' must have shape indices.shape[:-1] "
                             f"+ shape[indices.shape[-1]:] = {list(want)}, but got "
                             f"{list(updates.shape)}")
        return tensor(updates.dtype, check_output_size(self, "'shape'", shape))


@bprop_for(ScatterNd)
def scatter_nd_bprop(prim, indices, updates, shape, out, dout):
    if not needs_grad(updates):
        return None, None, None
    from .scatter_index_ops import GatherNd
    return None, cached_prim(GatherNd)(dout, indices), None


class ScatterNdUpdate(Primitive):
    """input_x[indices[..., :k]] = updates, in place (MindSpore's ScatterNdUpdate), returning
    input_x's data; k = indices.shape[-1] <= rank, updates.shape == indices.shape[:-1] +
    input_x.shape[k:]; a repeated index tuple takes its last update. Every dtype but bool
    (as MindSpore's CPU); updates of a lower dtype are cast up, a cast of input_x is a
    TypeError. Indices (int32/int64) must lie in [0, shape): a negative or too large one is a
    RuntimeError before anything is written. Gradient as MindSpore's: dout for input_x,
    GatherNd(dout, indices) for updates."""
    input_names = ("input_x", "indices", "updates")
    same_type_inputs = (0, 2)
    inplace_inputs = (0,)     # a compiled graph's step owns it first (jit/kernel_graph.py)

    @prim_attr_register
    def __init__(self, use_locking=True):
        if not isinstance(use_locking, bool):
            raise TypeError(f"For '{self.name}', 'use_locking' must be a bool, but got "
                            f"{type(use_locking).__name__}")

    def __call__(self, input_x, indices, updates):
        if isinstance(input_x, Tensor):
            own_buffer(input_x)         # copy-on-write: views of input_x keep their values
            result = Primitive.__call__(self, input_x, indices, updates)
            PYNATIVE.log_write(input_x, self.name)
            return result
        return Primitive.__call__(self, input_x, indices, updates)

    def infer(self, x, indices, updates):
        check_dtype(self, "input_x", x, tuple(t for t in mstype.ALL_TYPES
                                              if t is not mstype.bool_))
        check_dtype(self, "indices", indices, mstype.INDEX_TYPES)
        if not indices.shape or not 1 <= indices.shape[-1] <= len(x.shape):
            raise ValueError(f"For '{self.name}', the last dimension of 'indices' must be in "
                             f"[1, rank of 'input_x' = {len(x.shape)}], but got 'indices' shape "
                             f"{list(indices.shape)}")
        want = indices.shape[:-1] + x.shape[indices.shape[-1]:]
        if updates.shape != want:
            raise ValueError(f"For '{self.name}', 'updates' must have shape indices.shape[:-1] "
                             f"+ input_x.shape[indices.shape[-1]:] = {list(want)}, but got "
                             f"{list(updates.shape)}")
        return x


@bprop_for(ScatterNdUpdate)
def scatter_nd_update_bprop(prim, x, indices, updates, out, dout):
    from .scatter_index_ops import GatherNd
    d_updates = cached_prim(GatherNd)(dout, indices) if needs_grad(updates) else None
    return (dout if needs_grad(x) else None), None, d_updates
