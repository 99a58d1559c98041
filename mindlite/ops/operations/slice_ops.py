"""Slicing and indexing primitives: Slice, StridedSlice, Gather, OneHot, Unique, MaskedSelect,
each with its bprop below it.

StridedSlice follows MindSpore's (= TensorFlow's) mask semantics; `strided_slice_spec`
turns its arguments into per-axis Python slices plus the final shape, which both the
inference and the numpy kernel use. Unique and MaskedSelect are dynamic-shape ops: their
inferred shapes hold -1 and the kernels allocate their outputs. Tensor indexing built on
these lives in ops/function/index_func.py. Kernels: kernels/cpu/array_*.py.

The bprops scatter dout back into zeros of the input's shape with the primitives of
scatter_ops.py (StridedSliceGrad, UnsortedSegmentSum, MaskedSelectGrad), which have bprops
of their own, so gradients are differentiable again.
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for, non_differentiable
from ...ir.primitive import Primitive, const_value, prim_attr_register
from ..validator import (broadcast_shape, check_axis, check_dtype, check_int,
                         check_output_size, check_shape_arg, check_tensor, tensor)
from ._base import cached_prim, needs_grad

__all__ = ["Slice", "StridedSlice", "Gather", "OneHot", "Unique", "MaskedSelect"]


def _scatter():
    from . import scatter_ops  # bprops only: scatter_ops imports this module
    return scatter_ops


class Slice(Primitive):
    """y = x[begin[i] : begin[i] + size[i]] on every axis; size -1 means to the end."""
    input_names = ("input_x", "begin", "size")
    const_inputs = (1, 2)

    @prim_attr_register
    def __init__(self):
        pass

    def _slices(self, x, begin, size):
        check_tensor(self, "input_x", x)
        begin = check_shape_arg(self, "begin", begin)
        size = check_shape_arg(self, "size", size)
        n = len(x.shape)
        if len(begin) != n or len(size) != n:
            raise ValueError(f"For '{self.name}', 'begin' and 'size' must have one value per "
                             f"axis of 'input_x' (rank {n}), but got begin={list(begin)}, "
                             f"size={list(size)}")
        out = []
        for i, (b, s, d) in enumerate(zip(begin, size, x.shape)):
            e = d if s == -1 else b + s
            if not 0 <= b <= d or s < -1 or e > d:
                raise ValueError(f"For '{self.name}', need 0 <= begin[i] <= begin[i] + size[i] "
                                 f"<= input_x.shape[i] (size -1 = to the end), but at axis {i} "
                                 f"got begin={b}, size={s}, shape={list(x.shape)}")
            out.append(slice(b, e))
        return tuple(out)

    def infer(self, x, begin, size):
        return tensor(x.dtype, tuple(s.stop - s.start for s in self._slices(x, begin, size)))

    def kernel_params(self, x, begin, size):
        return {"slices": self._slices(x, begin, size)}


@bprop_for(Slice)
def slice_bprop(prim, x, begin, size, out, dout):
    """dx = zeros of x's shape with dout at the slice (a StridedSliceGrad with strides 1)."""
    if not needs_grad(x):
        return None, None, None
    sl = prim._slices(x._abs, const_value(begin), const_value(size))
    grad = cached_prim(_scatter().StridedSliceGrad, 0, 0, 0, 0, 0)
    return (grad(dout, x.shape, tuple(s.start for s in sl), tuple(s.stop for s in sl),
                 (1,) * len(sl)), None, None)


def strided_slice_spec(prim, shape, begin, end, strides, masks):
    """TensorFlow's StridedSlice canonicalisation.

    Returns (slices, final_shape): one Python slice per input axis (x[slices] has the
    "processing" shape) and the output shape after shrink and new axes. Raises ValueError
    for zero strides, several ellipses, too many indices, out-of-range shrink indices.
    """
    begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask = masks
    n = len(begin)
    if len(end) != n or len(strides) != n:
        raise ValueError(f"For '{prim.name}', 'begin', 'end' and 'strides' must have the same "
                         f"length, but got {len(begin)}, {len(end)} and {len(strides)}")
    if (ellipsis_mask & ((1 << n) - 1)).bit_count() > 1:
        raise ValueError(f"For '{prim.name}', 'ellipsis_mask' may have at most one bit set, but "
                         f"got {ellipsis_mask}")
    has_ellipsis = bool(ellipsis_mask & ((1 << n) - 1))
    sparse = list(range(n)) + ([] if has_ellipsis else ["..."])
    ell_pos = next((i for i in range(n) if ellipsis_mask >> i & 1), n)
    real_after = sum(1 for i in range(ell_pos + 1, n)
                     if not (new_axis_mask >> i & 1) and not ellipsis_mask >> i & 1)
    ndim = len(shape)
    dense = []            # per input axis: (begin, end, stride, begin_masked, end_masked, shrink)
    gather = []           # output dims: input axis index, or "new"
    for i in sparse:
        if i == "..." or ellipsis_mask >> i & 1:
            stop = ndim - real_after
            while len(dense) < stop:
                gather.append(len(dense))
                dense.append((0, 0, 1, True, True, False))
        elif new_axis_mask >> i & 1:
            gather.append("new")
        else:
            if len(dense) >= ndim:
                raise ValueError(f"For '{prim.name}', too many indices for an input of rank "
                                 f"{ndim}: begin={list(begin)}")
            shrink = bool(shrink_mask >> i & 1)
            if not shrink:
                gather.append(len(dense))
            dense.append((begin[i], end[i], strides[i], bool(begin_mask >> i & 1),
                          bool(end_mask >> i & 1), shrink))
    slices, proc = [], []
    for axis, (b, e, s, bm, em, shrink) in enumerate(dense):
        d = shape[axis]
        if s == 0:
            raise ValueError(f"For '{prim.name}', 'strides' must not contain 0, but got "
                             f"{list(strides)}")
        if shrink:
            b = b + d if b < 0 else b
            if not 0 <= b < d:
                raise ValueError(f"For '{prim.name}', the index {b if b >= 0 else b - d} of axis "
                                 f"{axis} is out of range for size {d}")
            slices.append(slice(b, b + 1, 1))
            proc.append(1)
            continue
        lo, hi = (0, d) if s > 0 else (-1, d - 1)
        b = (lo if s > 0 else hi) if bm else min(max(b + d if b < 0 else b, lo), hi)
        e = (hi if s > 0 else lo) if em else min(max(e + d if e < 0 else e, lo), hi)
        length = e - b
        size = 0 if length == 0 or (length < 0) != (s < 0) else -(-abs(length) // abs(s))
        slices.append(slice(b, None if e < 0 else e, s) if size else slice(0, 0, 1))
        proc.append(size)
    final = tuple(1 if g == "new" else proc[g] for g in gather)
    return tuple(slices), final


class StridedSlice(Primitive):
    """y = x[begin:end:strides] with TensorFlow's masks: bit i of begin_mask / end_mask
    ignores begin[i] / end[i] (the full range), ellipsis_mask marks an Ellipsis,
    new_axis_mask inserts an axis of size 1, shrink_axis_mask takes the single index
    begin[i] and drops the axis (its stride is ignored). Negative strides walk backwards;
    begin/end are clamped to the axis as Python slices are."""
    input_names = ("input_x", "begin", "end", "strides")
    const_inputs = (1, 2, 3)

    @prim_attr_register
    def __init__(self, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                 shrink_axis_mask=0):
        for name in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                     "shrink_axis_mask"):
            check_int(self, name, self.attrs[name], lo=0)

    def _spec(self, x, begin, end, strides):
        check_tensor(self, "input_x", x)
        args = [check_shape_arg(self, n, v)
                for n, v in (("begin", begin), ("end", end), ("strides", strides))]
        a = self.attrs
        masks = (a["begin_mask"], a["end_mask"], a["ellipsis_mask"], a["new_axis_mask"],
                 a["shrink_axis_mask"])
        return strided_slice_spec(self, x.shape, *args, masks)

    def infer(self, x, begin, end, strides):
        return tensor(x.dtype, self._spec(x, begin, end, strides)[1])

    def kernel_params(self, x, begin, end, strides):
        slices, shape = self._spec(x, begin, end, strides)
        return {"slices": slices, "shape": shape}


@bprop_for(StridedSlice)
def strided_slice_bprop(prim, x, begin, end, strides, out, dout):
    """dx = zeros of x's shape with dout written at the strided slice (StridedSliceGrad)."""
    if not needs_grad(x):
        return None, None, None, None
    a = prim.attrs
    grad = cached_prim(_scatter().StridedSliceGrad, a["begin_mask"], a["end_mask"],
                       a["ellipsis_mask"], a["new_axis_mask"], a["shrink_axis_mask"])
    return grad(dout, x.shape, begin, end, strides), None, None, None


class Gather(Primitive):
    """y = x gathered along `axis` at `indices` (int32/int64):
    y.shape = x.shape[:axis] + indices.shape[batch_dims:] + x.shape[axis + 1:].

    NOTE: indices must lie in [-n, n), n = x.shape[axis], negative ones counting from the end
    (as MindSpore on CPU). Inference cannot see index values, so the kernel checks them and
    raises IndexValueError (a ValueError and a RuntimeError, MindSpore's message "For
    'Gather', the 'input_indices' should be in the range ...") before writing anything; the
    inputs are never modified either way."""
    input_names = ("input_params", "input_indices", "axis")
    const_inputs = (2,)

    @prim_attr_register
    def __init__(self, batch_dims=0):
        check_int(self, "batch_dims", batch_dims, lo=0)

    def _axis(self, x, indices, axis):
        check_tensor(self, "input_params", x)
        check_dtype(self, "input_indices", indices, mstype.INDEX_TYPES)
        if isinstance(axis, (list, tuple)) and len(axis) == 1:
            axis = axis[0]
        if not x.shape:
            raise ValueError(f"For '{self.name}', 'input_params' must have rank >= 1, but got "
                             f"a 0-d tensor")
        axis = check_axis(self, "axis", axis, len(x.shape))
        b = self.attrs["batch_dims"]
        if b > len(indices.shape) or b > axis:
            raise ValueError(f"For '{self.name}', 'batch_dims' {b} must be <= 'axis' {axis} and "
                             f"<= the rank of 'input_indices' {len(indices.shape)}")
        if x.shape[:b] != indices.shape[:b]:
            raise ValueError(f"For '{self.name}', the first 'batch_dims' ({b}) dims of "
                             f"'input_params' {list(x.shape)} and 'input_indices' "
                             f"{list(indices.shape)} must be equal")
        return axis

    def infer(self, x, indices, axis):
        a = self._axis(x, indices, axis)
        b = self.attrs["batch_dims"]
        return tensor(x.dtype, x.shape[:a] + indices.shape[b:] + x.shape[a + 1:])

    def kernel_params(self, x, indices, axis):
        return {"axis": self._axis(x, indices, axis), "batch_dims": self.attrs["batch_dims"]}


@bprop_for(Gather)
def gather_bprop(prim, x, indices, axis, out, dout):
    """dx = dout scatter-added into zeros at `indices` along `axis` (UnsortedSegmentSum), so
    repeated indices accumulate. With batch_dims b, batch j's indices are offset by j * n."""
    if not needs_grad(x):
        return None, None, None
    from .. import functional as F
    a = prim._axis(x._abs, indices._abs, const_value(axis))
    b, xs = prim.attrs["batch_dims"], x.shape
    n, ni, nb = xs[a], len(indices.shape) - b, 1
    for d in xs[:b]:
        nb *= d
    if not nb * n:
        return F.zeros_like(x), None, None
    # dout: B + P + I + S (B batch, P = xs[b:a], I index dims, S = xs[a+1:]) -> B + I + P + S
    perm = (*range(b), *range(a, a + ni), *range(b, a), *range(a + ni, len(dout.shape)))
    d = F.transpose(dout, perm) if perm != tuple(range(len(perm))) else dout
    # negative indices count from the end (the kernel accepts [-n, n)): wrapped here so the
    # segment sum puts their gradient on the element they read
    ids = F.add(indices, F.mul(F.cast(F.less(indices, 0), indices.dtype), n))
    if b:
        offsets = F.arange(0, nb * n, n, dtype=indices.dtype)
        ids = F.add(indices, F.reshape(offsets, xs[:b] + (1,) * ni))
    seg = cached_prim(_scatter().UnsortedSegmentSum)(d, ids, nb * n)   # (nb*n,) + P + S
    seg = F.reshape(seg, xs[:b] + (n,) + xs[b:a] + xs[a + 1:])        # B + n + P + S
    inv = (*range(b), *range(b + 1, a + 1), b, *range(a + 1, len(xs)))
    return (F.transpose(seg, inv) if inv != tuple(range(len(xs))) else seg), None, None


class OneHot(Primitive):
    """y[..., j, ...] = on_value if indices[...] == j else off_value, j in [0, depth) on the
    new axis `axis`; indices outside [0, depth) give a row of off_value. Output dtype is
    that of on_value / off_value (promoted together)."""
    input_names = ("indices", "depth", "on_value", "off_value")
    const_inputs = (1,)
    same_type_inputs = (2, 3)

    @prim_attr_register
    def __init__(self, axis=-1):
        check_int(self, "axis", axis, lo=-1)

    def _axis(self, indices, depth, on_value, off_value):
        check_dtype(self, "indices", indices, mstype.INDEX_TYPES + (mstype.uint8,))
        if isinstance(depth, (list, tuple)) and len(depth) == 1:
            depth = depth[0]
        check_int(self, "depth", depth, lo=0)
        check_dtype(self, "on_value", on_value, mstype.NUMBER_TYPES + (mstype.bool_,))
        for name, v in (("on_value", on_value), ("off_value", off_value)):
            if v.shape:
                raise ValueError(f"For '{self.name}', '{name}' must be a scalar (0-d) tensor, "
                                 f"but got shape {list(v.shape)}")
        n = len(indices.shape)
        axis = self.attrs["axis"]
        if axis > n:
            raise ValueError(f"For '{self.name}', 'axis' must be in range [-1, {n}], but got "
                             f"{axis}")
        return n if axis == -1 else axis

    def infer(self, indices, depth, on_value, off_value):
        a = self._axis(indices, depth, on_value, off_value)
        depth = depth[0] if isinstance(depth, (list, tuple)) else depth
        shape = indices.shape[:a] + (int(depth),) + indices.shape[a:]
        return tensor(on_value.dtype, check_output_size(self, "the output shape", shape))

    def kernel_params(self, indices, depth, on_value, off_value):
        a = self._axis(indices, depth, on_value, off_value)
        return {"axis": a, "depth": int(depth[0] if isinstance(depth, (list, tuple)) else depth)}


class Unique(Primitive):
    """(y, idx): y the distinct values of x (1-D) in order of first appearance (MindSpore's
    CPU kernel; each NaN distinct, -0.0 equal to 0.0), idx (x's shape) with x == y[idx]. idx
    is int64 for int64 input, int32 otherwise. Dynamic shape: y's length is known only after
    the kernel ran (inference says -1)."""
    input_names = ("input_x",)
    dynamic_shape = True

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x):
        check_tensor(self, "input_x", x)
        idx = mstype.int64 if x.dtype is mstype.int64 else mstype.int32
        return (tensor(x.dtype, (-1,)), tensor(idx, x.shape))


@bprop_for(Unique)
def unique_bprop(prim, x, out, dout):
    """x == y[idx], so dx = dy[idx] (Gather of dy by the inverse indices; MindSpore's
    UniqueGrad); every copy of a repeated value gets its value's gradient. idx gets none."""
    if not needs_grad(x):
        return (None,)
    return (cached_prim(Gather)(dout[0], out[1], 0),)


class MaskedSelect(Primitive):
    """y = the elements of x where mask is True (x and mask broadcast together), as a 1-D
    tensor in C order. Dynamic shape: the length is known after the kernel ran."""
    input_names = ("x", "mask")
    dynamic_shape = True

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x, mask):
        check_tensor(self, "x", x)
        check_dtype(self, "mask", mask, (mstype.bool_,))
        broadcast_shape(self, x.shape, mask.shape, ("x", "mask"))
        return tensor(x.dtype, (-1,))


@bprop_for(MaskedSelect)
def masked_select_bprop(prim, x, mask, out, dout):
    """dx = zeros of the broadcast shape with dout at the True positions (MaskedSelectGrad);
    backward sums it back to x's shape. The mask gets no gradient."""
    if not needs_grad(x):
        return None, None
    return cached_prim(_scatter().MaskedSelectGrad)(x, mask, dout), None


non_differentiable(OneHot)
