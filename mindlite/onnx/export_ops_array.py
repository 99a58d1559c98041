"""ONNX converters of mindlite's array primitives: Reshape, Transpose, ExpandDims, Squeeze,
Concat, Stack, Gather, StridedSlice, Split, Tile, BroadcastTo, Zeros/OnesLike, Argmax/Argmin,
CumSum, TopK, PadV3 and the Resize family (registered with export.converter; the math and
nn primitives are in export_ops.py).
"""
import numpy as np

from ..common import dtype as mstype
from . import _lib
from ._lib import onnx_dtype
from .export_op import converter

INT64_MAX = np.iinfo(np.int64).max


def _shape_of_out(op):
    shape = list(op.out.shape)
    if any(d < 0 for d in shape):
        op.fail("dynamic output shapes cannot be exported yet")
    return shape


@converter("Reshape", "Flatten")
def _reshape(op):
    """The output shape when static; else the target (a constant with -1, or a tuple
    holding dimensions read at run time through Shape, gathered into one int64 tensor)."""
    if not any(d < 0 for d in op.out.shape) or op.name == "Flatten":
        return op.node("Reshape", [op.input(0), op.em.ints(_shape_of_out(op))])
    if op.is_const(1):
        target = [int(d) for d in op.const(1)]
        if target.count(-1) > 1:
            op.fail(f"the target shape {target} has more than one -1")
        return op.node("Reshape", [op.input(0), op.em.ints(target)])
    parts = op.em.value(op.args[1])
    if not isinstance(parts, tuple):
        op.fail("the target shape must be a tuple")
    axes = op.em.ints([0])
    dims = [op.node("Unsqueeze", [op.node("Cast", [p], to=onnx_dtype(mstype.int64)), axes])
            for p in parts]
    return op.node("Reshape", [op.input(0), op.node("Concat", dims, axis=0)])


@converter("Shape")
def _shape(op):
    """A tuple of one int64 scalar per dimension: constants where the size is static, a
    Gather of the run-time Shape where it is not (TupleGetItem picks one)."""
    shape = op.shape(0)
    whole = op.node("Shape", [op.input(0)]) if any(d < 0 for d in shape) else None
    return tuple(op.node("Gather", [whole, op.em.const(np.array(i, np.int64))], axis=0)
                 if d < 0 else op.em.const(np.array(d, np.int64)) for i, d in enumerate(shape))


@converter("Transpose")
def _transpose(op):
    perm = [int(p) for p in op.const(1)]
    return op.node("Transpose", [op.input(0)], perm=perm)


@converter("ExpandDims")
def _expand_dims(op):
    axis = int(op.const(1)) % (op.rank(0) + 1)
    return op.node("Unsqueeze", [op.input(0), op.em.ints([axis])])


@converter("Squeeze")
def _squeeze(op):
    axis = op.attrs.get("axis", ())
    axes = [axis] if isinstance(axis, int) else list(axis)
    if not axes:
        axes = [i for i, d in enumerate(op.shape(0)) if d == 1]
    rank = op.rank(0)
    axes = [a % rank for a in axes]
    if not axes:
        return op.node("Identity", [op.input(0)])
    return op.node("Squeeze", [op.input(0), op.em.ints(axes)])


def _tuple_inputs(op, i):
    parts = op.em.value(op.args[i])
    if not isinstance(parts, tuple):
        op.fail(f"input {i} must be a tuple of tensors")
    t = op.out.dtype
    names = []
    for k, part in enumerate(parts):
        ab = op.args[i].abstract[k] if isinstance(op.args[i].abstract, tuple) else None
        if ab is not None and ab.dtype is not t:
            part = op.node("Cast", [part], to=onnx_dtype(t))
        names.append(part)
    return names


@converter("Concat")
def _concat(op):
    return op.node("Concat", _tuple_inputs(op, 0), axis=int(op.attrs.get("axis", 0)))


@converter("Stack")
def _stack(op):
    axis = int(op.attrs.get("axis", 0)) % len(op.out.shape)
    axes = op.em.ints([axis])
    parts = [op.node("Unsqueeze", [p, axes]) for p in _tuple_inputs(op, 0)]
    return op.node("Concat", parts, axis=axis)


@converter("Gather")
def _gather(op):
    if op.attrs.get("batch_dims", 0):
        op.fail("batch_dims != 0 cannot be exported")
    axis = int(op.const(2)) if len(op.args) > 2 else 0
    return op.node("Gather", [op.input(0), op.input(1)], axis=axis)


def _bits(mask, n):
    return [bool(mask >> i & 1) for i in range(n)]


@converter("StridedSlice")
def _strided_slice(op):
    a = op.attrs
    if a.get("ellipsis_mask", 0) or a.get("new_axis_mask", 0):
        op.fail("ellipsis_mask / new_axis_mask cannot be exported")
    begin, end, strides = (list(op.const(i)) for i in (1, 2, 3))
    n = len(begin)
    bm, em, sm = (_bits(a.get(k, 0), n) for k in ("begin_mask", "end_mask", "shrink_axis_mask"))
    starts, ends = [], []
    for i in range(n):
        step = strides[i]
        lo, hi = (INT64_MAX, -INT64_MAX) if step < 0 else (0, INT64_MAX)
        starts.append(lo if bm[i] else begin[i])
        if sm[i]:
            ends.append(begin[i] + 1 if begin[i] != -1 else INT64_MAX)
        else:
            ends.append(hi if em[i] else end[i])
    out = op.node("Slice", [op.input(0), op.em.ints(starts), op.em.ints(ends),
                            op.em.ints(list(range(n))), op.em.ints(strides)])
    shrink = [i for i in range(n) if sm[i]]
    return op.node("Squeeze", [out, op.em.ints(shrink)]) if shrink else out


@converter("Slice")
def _slice(op):
    """MindSpore's Slice(x, begin, size): size -1 runs to the end of the axis."""
    begin, size = list(op.const(1)), list(op.const(2))
    ends = [INT64_MAX if s == -1 else b + s for b, s in zip(begin, size)]
    return op.node("Slice", [op.input(0), op.em.ints(begin), op.em.ints(ends),
                             op.em.ints(list(range(len(begin))))])


@converter("Split")
def _split(op):
    axis = int(op.attrs.get("axis", 0))
    outs = op.out
    sizes = [o.shape[axis] for o in outs]
    names = op.node("Split", [op.input(0), op.em.ints(sizes)], n_out=len(outs), axis=axis)
    return names if isinstance(names, tuple) else (names,)


@converter("Tile")
def _tile(op):
    reps = list(op.const(1))
    x = op.input(0)
    extra = len(reps) - op.rank(0)
    if extra > 0:
        x = op.node("Unsqueeze", [x, op.em.ints(list(range(extra)))])
    return op.node("Tile", [x, op.em.ints(reps)])


@converter("BroadcastTo")
def _broadcast_to(op):
    return op.node("Expand", [op.input(0), op.em.ints(_shape_of_out(op))])


@converter("ZerosLike", "OnesLike")
def _fill_like(op):
    value = np.array([0 if op.name == "ZerosLike" else 1], op.out.dtype.np)
    shape = op.node("Shape", [op.input(0)])
    return op.node("ConstantOfShape", [shape], value=_lib.onnx().numpy_helper.from_array(value))


@converter("Argmax", "Argmin")
def _arg(op):
    onnx_op = "ArgMax" if op.name == "Argmax" else "ArgMin"
    out = op.node(onnx_op, [op.input(0)], axis=int(op.attrs.get("axis", -1)), keepdims=0)
    if op.out.dtype is not mstype.int64:
        out = op.node("Cast", [out], to=onnx_dtype(op.out.dtype))
    return out


@converter("CumSum")
def _cumsum(op):
    axis = op.em.const(np.int64(op.const(1)))
    return op.node("CumSum", [op.input(0), axis], exclusive=int(op.attrs.get("exclusive", 0)),
                   reverse=int(op.attrs.get("reverse", 0)))


@converter("TopK")
def _topk(op):
    k = op.em.ints([int(op.const(1))])
    values, idx = op.node("TopK", [op.input(0), k], n_out=2, axis=-1, largest=1,
                          sorted=int(bool(op.attrs.get("sorted", True))))
    if op.out[1].dtype is not mstype.int64:
        idx = op.node("Cast", [idx], to=onnx_dtype(op.out[1].dtype))
    return (values, idx)


@converter("PadV3")
def _pad(op):
    mode = op.attrs.get("mode", "constant")
    if mode not in _lib.PAD_MODES:
        op.fail(f"pad mode '{mode}' has no ONNX form (supported: {sorted(_lib.PAD_MODES)})")
    if not op.attrs.get("paddings_contiguous", True):
        op.fail("paddings_contiguous=False cannot be exported")
    pads = list(op.const(1))
    rank = op.rank(0)
    begin, end = [0] * rank, [0] * rank
    for k in range(len(pads) // 2):              # (left, right) of the last axis first
        axis = rank - 1 - k
        begin[axis], end[axis] = pads[2 * k], pads[2 * k + 1]
    ins = [op.input(0), op.em.ints(begin + end)]
    if mode == "constant":
        value = op.const(2) if len(op.args) > 2 and op.is_const(2) else op.input(2)
        if not isinstance(value, str):
            value = op.em.const(0 if value is None else value, op.out.dtype.np)
        ins.append(value)
    return op.node("Pad", ins, mode=mode)


@converter("ResizeNearestNeighborV2", "ResizeBilinearV2", "ResizeNearestNeighbor",
           "ResizeBilinear")
def _resize(op):
    a = op.attrs
    nearest = "Nearest" in op.name
    if a.get("align_corners"):
        ctm = "align_corners"
    elif a.get("half_pixel_centers"):
        ctm = "tf_half_pixel_for_nn" if nearest else "half_pixel"
    else:
        ctm = "asymmetric"
    kw = dict(mode="nearest" if nearest else "linear", coordinate_transformation_mode=ctm)
    if nearest:                # align_corners rounds .5 up, the others floor
        kw["nearest_mode"] = "round_prefer_ceil" if a.get("align_corners") else "floor"
    sizes = op.em.ints(_shape_of_out(op))
    return op.node("Resize", [op.input(0), "", "", sizes], **kw)
