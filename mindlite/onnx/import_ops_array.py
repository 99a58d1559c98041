"""ONNX importers of shape and indexing ops (Reshape, Flatten, Transpose, Concat, Squeeze,
Unsqueeze, Gather, Slice, Split, Tile, Expand, Shape, Size, Constant, ConstantOfShape, Range,
Pad, Resize, TopK, CumSum), registered with importer.importer; the version-dependent forms
(axes / split / pads as inputs or attributes) are read from whichever the node has.
"""
import numpy as np

from ..ops import operations as P
from . import _lib
from .import_ctx import Const, importer

INT_MAX = np.iinfo(np.int64).max


def _static(ctx, v):
    shape = ctx.shape(v)
    if any(d < 0 for d in shape):
        ctx.fail(f"needs a static input shape, got {list(shape)}")
    return shape


@importer("Reshape")
def _reshape(ctx):
    x = ctx.t(0)
    src = _static(ctx, x)
    target = [int(d) for d in ctx.c(1).reshape(-1)]
    if not ctx.attr("allowzero", 0):
        target = [src[i] if d == 0 else d for i, d in enumerate(target)]
    if target.count(-1) > 1:
        ctx.fail(f"more than one -1 in the shape {target}")
    if -1 in target:
        known = int(np.prod([d for d in target if d != -1]))
        if known == 0 or int(np.prod(src)) % known:
            ctx.fail(f"cannot reshape {list(src)} to {target}")
        target[target.index(-1)] = int(np.prod(src)) // known
    return ctx.call(P.Reshape(), x, tuple(target))


@importer("Flatten")
def _flatten(ctx):
    x = ctx.t(0)
    shape = _static(ctx, x)
    axis = int(ctx.attr("axis", 1)) % (len(shape) + 1)
    outer = int(np.prod(shape[:axis]))
    return ctx.call(P.Reshape(), x, (outer, int(np.prod(shape[axis:]))))


@importer("Transpose")
def _transpose(ctx):
    x = ctx.t(0)
    rank = len(ctx.shape(x))
    perm = ctx.attr("perm") or list(range(rank))[::-1]
    return ctx.call(P.Transpose(), x, tuple(int(p) for p in perm))


@importer("Concat")
def _concat(ctx):
    parts = tuple(ctx.t(i) for i in range(ctx.n_inputs) if ctx.has(i))
    return ctx.call(P.Concat(axis=int(ctx.attr("axis"))), parts)


def _axes_arg(ctx):
    axes = ctx.attr("axes")
    if axes is None and ctx.has(1):
        axes = ctx.c(1).reshape(-1)
    return None if axes is None else [int(a) for a in axes]


@importer("Squeeze")
def _squeeze(ctx):
    x = ctx.t(0)
    rank = len(ctx.shape(x))
    axes = _axes_arg(ctx)
    axis = () if axes is None else tuple(sorted(a % rank for a in axes))
    return ctx.call(P.Squeeze(axis=axis), x)


@importer("Unsqueeze")
def _unsqueeze(ctx):
    x = ctx.t(0)
    axes = _axes_arg(ctx)
    if not axes:
        ctx.fail("axes are required")
    out_rank = len(ctx.shape(x)) + len(axes)
    for a in sorted(a % out_rank for a in axes):
        x = ctx.call(P.ExpandDims(), x, a)
    return x


@importer("Gather")
def _gather(ctx):
    x, idx = ctx.t(0), ctx.t(1)
    axis = int(ctx.attr("axis", 0)) % len(ctx.shape(x))
    if isinstance(idx, Const) and idx.array.dtype.kind == "i":
        idx = Const(np.where(idx.array < 0, idx.array + ctx.shape(x)[axis], idx.array))
    return ctx.call(P.Gather(), x, idx, axis)


@importer("Slice")
def _slice(ctx):
    x = ctx.t(0)
    shape = _static(ctx, x)
    rank = len(shape)
    starts = [int(v) for v in ctx.c(1).reshape(-1)]
    ends = [int(v) for v in ctx.c(2).reshape(-1)]
    axes = [int(v) % rank for v in ctx.c(3, np.arange(len(starts))).reshape(-1)]
    steps = [int(v) for v in ctx.c(4, np.ones(len(starts), np.int64)).reshape(-1)]
    begin, end, stride = [0] * rank, list(shape), [1] * rank
    for s, e, a, st in zip(starts, ends, axes, steps):
        if st == 0:
            ctx.fail("a step of 0")
        lo, hi, _ = slice(s, e, st).indices(shape[a])
        if st < 0 and hi < 0:
            hi = -shape[a] - 1                    # through index 0 (StridedSlice's -n-1)
        begin[a], end[a], stride[a] = lo, hi, st
    return ctx.call(P.StridedSlice(), x, tuple(begin), tuple(end), tuple(stride))


@importer("Split")
def _split(ctx):
    x = ctx.t(0)
    shape = _static(ctx, x)
    axis = int(ctx.attr("axis", 0)) % len(shape)
    sizes = ctx.attr("split")
    if sizes is None and ctx.has(1):
        sizes = ctx.c(1).reshape(-1).tolist()
    n = len(ctx.node.output)
    if sizes is None:
        n = int(ctx.attr("num_outputs", n))
        step = -(-shape[axis] // n)
        sizes = [min(step, shape[axis] - i * step) for i in range(n)]
    sizes = [int(s) for s in sizes]
    if sum(sizes) != shape[axis]:
        ctx.fail(f"split sizes {sizes} do not add up to dimension {shape[axis]}")
    if len(set(sizes)) == 1:
        out = ctx.call(P.Split(axis=axis, output_num=len(sizes)), x)
        return list(out) if isinstance(out, tuple) else [out]
    outs, start = [], 0
    for s in sizes:
        begin = [0] * len(shape)
        begin[axis] = start
        end = list(shape)
        end[axis] = start + s
        outs.append(ctx.call(P.StridedSlice(), x, tuple(begin), tuple(end),
                             (1,) * len(shape)))
        start += s
    return outs


@importer("Tile")
def _tile(ctx):
    return ctx.call(P.Tile(), ctx.t(0), tuple(int(r) for r in ctx.c(1).reshape(-1)))


@importer("Expand")
def _expand(ctx):
    x = ctx.t(0)
    shape = tuple(np.broadcast_shapes(_static(ctx, x), tuple(int(d) for d in ctx.c(1))))
    if shape == ctx.shape(x):
        return x
    return ctx.call(P.BroadcastTo(shape), x)


@importer("Shape")
def _shape(ctx):
    shape = np.array(_static(ctx, ctx.t(0)), np.int64)
    start, end = ctx.attr("start", 0), ctx.attr("end")
    return Const(shape[start:end])


@importer("Size")
def _size(ctx):
    return Const(np.array(int(np.prod(_static(ctx, ctx.t(0)))), np.int64))


@importer("Constant")
def _constant(ctx):
    numpy_helper = _lib.onnx().numpy_helper
    for key, value in ctx.attrs.items():
        if key == "value":
            return Const(numpy_helper.to_array(value))
        if key in ("value_float", "value_int"):
            return Const(np.array(value, np.float32 if key == "value_float" else np.int64))
        if key in ("value_floats", "value_ints"):
            return Const(np.array(value, np.float32 if key == "value_floats" else np.int64))
    ctx.fail(f"unsupported Constant attributes {sorted(ctx.attrs)}")


@importer("ConstantOfShape")
def _constant_of_shape(ctx):
    value = ctx.attrs.get("value")
    fill = (_lib.onnx().numpy_helper.to_array(value).reshape(-1)
            if value is not None else np.zeros(1, np.float32))
    shape = tuple(int(d) for d in ctx.c(0).reshape(-1))
    if any(d < 0 for d in shape) or int(np.prod(shape, dtype=object)) > 1 << 26:
        ctx.fail(f"bad or too large shape {list(shape)}")
    return Const(np.full(shape, fill[0], fill.dtype))


@importer("Range")
def _range(ctx):
    start, limit, delta = (ctx.c(i) for i in range(3))
    if delta == 0:
        ctx.fail("delta is 0")
    count = int(np.ceil((float(limit) - float(start)) / float(delta)))
    if count > 1 << 26:
        ctx.fail(f"a range of {count} values is too large")
    return Const(np.arange(start, limit, delta).astype(start.dtype))


@importer("Pad")
def _pad(ctx):
    x = ctx.t(0)
    rank = len(ctx.shape(x))
    mode = ctx.attr("mode", "constant")
    if mode not in _lib.PAD_MODES:
        ctx.fail(f"mode '{mode}' is not supported")
    pads = [int(p) for p in ctx.c(1).reshape(-1)]
    axes = ctx.c(3)
    axes = list(range(rank)) if axes is None else [int(a) % rank for a in axes.reshape(-1)]
    if len(pads) != 2 * len(axes):
        ctx.fail(f"pads has {len(pads)} values for {len(axes)} axes")
    begin, end = [0] * rank, [0] * rank
    for k, a in enumerate(axes):
        begin[a], end[a] = pads[k], pads[k + len(axes)]
    if any(p < 0 for p in begin + end):
        ctx.fail("negative pads are not supported")
    paddings = []
    for a in range(rank - 1, -1, -1):          # PadV3: (left, right) of the last axis first
        paddings += [begin[a], end[a]]
    while len(paddings) > 2 and paddings[-2:] == [0, 0]:
        paddings = paddings[:-2]
    prim = P.PadV3(mode=mode)
    if mode != "constant":
        return ctx.call(prim, x, tuple(paddings), None)
    value = ctx.c(2)
    value = 0 if value is None or value.size == 0 else value.reshape(-1)[0].item()
    return ctx.call(prim, x, tuple(paddings), value)


@importer("Resize")
def _resize(ctx):
    x = ctx.t(0)
    shape = _static(ctx, x)
    if len(shape) != 4:
        ctx.fail("only 4-D (NCHW) inputs are supported")
    if ctx.attr("antialias", 0) or ctx.attr("axes") is not None:
        ctx.fail("antialias and axes are not supported")
    sizes = ctx.c(3)
    if sizes is None:
        scales = ctx.c(2)
        if scales is None or scales.size != 4:
            ctx.fail("needs scales or sizes for the 4 axes")
        sizes = [int(np.floor(d * s)) for d, s in zip(shape, scales)]
    sizes = [int(s) for s in np.asarray(sizes).reshape(-1)]
    if sizes[:2] != list(shape[:2]):
        ctx.fail("resizing the batch or channel axis is not supported")
    mode = ctx.attr("mode", "nearest")
    ctm = ctx.attr("coordinate_transformation_mode", "half_pixel")
    nearest_mode = ctx.attr("nearest_mode", "round_prefer_floor")
    if mode == "nearest":        # align_corners rounds .5 up (MindSpore's roundf)
        flags = {("asymmetric", "floor"): (False, False),
                 ("tf_half_pixel_for_nn", "floor"): (False, True),
                 ("align_corners", "round_prefer_ceil"): (True, False)}.get((ctm, nearest_mode))
        prim = P.ResizeNearestNeighborV2
    elif mode == "linear":           # align_corners, half-pixel or asymmetric coordinates
        flags = {"align_corners": (True, False), "half_pixel": (False, True),
                 "pytorch_half_pixel": (False, True), "asymmetric": (False, False)}.get(ctm)
        if ctm == "pytorch_half_pixel" and min(sizes[2:]) <= 1:
            flags = None
        prim = P.ResizeBilinearV2
    else:
        flags = None
    if flags is None:
        ctx.fail(f"mode={mode}, coordinate_transformation_mode={ctm}"
                 f"{', nearest_mode=' + nearest_mode if mode == 'nearest' else ''} "
                 f"is not supported")
    op = prim(align_corners=flags[0], half_pixel_centers=flags[1])
    return ctx.call(op, x, tuple(sizes[2:]))


@importer("TopK")
def _topk(ctx):
    x = ctx.t(0)
    rank = len(ctx.shape(x))
    if int(ctx.attr("axis", -1)) % rank != rank - 1 or not ctx.attr("largest", 1):
        ctx.fail("only largest=1 along the last axis is supported")
    k = int(ctx.c(1).reshape(-1)[0])
    values, idx = ctx.call(P.TopK(sorted=bool(ctx.attr("sorted", 1))), x, k)
    return [values, ctx.call(P.Cast(), idx, _int64())]


def _int64():
    from ..common import dtype as mstype
    return mstype.int64


@importer("CumSum")
def _cumsum(ctx):
    axis = int(ctx.c(1).reshape(-1)[0])
    prim = P.CumSum(exclusive=bool(ctx.attr("exclusive", 0)), reverse=bool(ctx.attr("reverse",
                                                                                       0)))
    return ctx.call(prim, ctx.t(0), axis)
