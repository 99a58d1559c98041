"""The Lite runtime's import rules for the neural-network ops: convolutions (Conv2DFusion,
Conv2dTransposeFusion), pooling (MaxPoolFusion, AvgPoolFusion, global or padded), the
normalizations (import_norm.py's rules, merged into IMPORT here), PadFusion, Resize, MatMulFusion / FullConnection, Softmax / LogSoftmax, Activation and its
relatives (LeakyRelu, PReLUFusion, Clip, Elu), BiasAdd. Each maps a Lite node onto mindlite
primitives (rule interface: import_common.py); IMPORT is read by ops_map.py.

Layouts: a 4-D op in NHWC (MindSpore Lite's converter's layout; `import_common.nhwc`) runs as
mindlite's NCHW primitive between two transposes, its constant weights transposed once, at
build. `conv2d_nhwc` is the one place the runtime calls a convolution kernel on NHWC data.
"""
import numpy as np

from ..ops import operations as P
from . import import_norm, schema as S
from .import_common import (TO_NCHW, activate, axis_of, const_floats, const_ints, nhwc, rank,
                            to_nchw, to_nhwc)


# ---- convolution ----------------------------------------------------------------------------
def _pad_mode(b, a, key="pad_mode"):
    mode = S.PAD_MODE_NAME.get(a.get(key, 0))
    if mode is None:
        b.fail(f"pad_mode {a.get(key)} is not supported (PAD, SAME or VALID)")
    return mode.lower()


def _conv_prim(a, shape, pad_mode, group):
    pad = tuple(a["pad_list"] or (0, 0, 0, 0)) if pad_mode == "pad" else 0
    return P.Conv2D(int(shape[0]), tuple(a["kernel_size"] or shape[2:]), mode=1,
                    pad_mode=pad_mode, pad=pad, stride=tuple(a["stride"] or (1, 1)),
                    dilation=tuple(a["dilation"] or (1, 1)), group=group)


def conv2d_nhwc(b, node, x, w_khwc, bias, pad_mode, group):
    """Conv2DFusion on NHWC data: x NHWC, constant KHWC weights, optional bias, the node's
    activation; gives NHWC.

    NOTE: built from mindlite's NCHW convolution between two transposes (the weights go to
    KCHW once, here, at build), the bias and activation applied before the transpose back so
    that mindlite's fusions (Conv2D + BiasAdd + ReLU [+ MaxPool]) still apply and the
    transposes between consecutive NHWC ops cancel. This is the one place the Lite runtime
    runs a convolution on NHWC data: an NHWC kernel (issue 33) replaces this body."""
    name = b.model.tensors[node.inputs[1]].name
    w = b.new_const(np.ascontiguousarray(np.transpose(w_khwc, TO_NCHW)), name + "_kchw")
    y = b.emit(_conv_prim(node.attrs, w.abstract.shape, pad_mode, group), to_nchw(b, x), w)
    if bias is not None:
        y = b.emit(P.BiasAdd(), y, bias)
    return to_nhwc(b, activate(b, node, y))


def _imp_conv(b, node):
    a = node.attrs
    mode = _pad_mode(b, a)
    group = max(1, a["group"])
    bias = b.input(2) if len(node.inputs) > 2 else None
    if nhwc(b, node):
        wv = b.const(1)
        if wv is None or wv.ndim != 4:
            b.fail("NHWC convolutions need constant 4-D KHWC weights (input 1)")
        return [conv2d_nhwc(b, node, b.input(0), wv, bias, mode, group)]
    w = b.input(1)
    y = b.emit(_conv_prim(a, w.abstract.shape, mode, group), b.input(0), w)
    if bias is not None:
        y = b.emit(P.BiasAdd(), y, bias)
    return [activate(b, node, y)]


def _imp_conv_transpose(b, node):
    """Conv2dTransposeFusion: weights (C_in, kh, kw, C_out / group) in NHWC files, (C_in,
    C_out / group, kh, kw) in NCHW ones; the full transposed convolution, then pad_list
    cropped from it and output_paddings added at the end, as ONNX's ConvTranspose."""
    a = node.attrs
    if _pad_mode(b, a) == "same":
        b.fail("pad_mode SAME is not supported for transposed convolutions (give pad_list)")
    layout = nhwc(b, node)
    wv = b.const(1)
    if wv is None or wv.ndim != 4:
        b.fail("its weights (input 1) must be a constant 4-D tensor")
    w_nchw = np.transpose(wv, TO_NCHW) if layout else wv
    x = to_nchw(b, b.input(0)) if layout else b.input(0)
    group = max(1, a["group"])
    kernel = list(a["kernel_size"] or w_nchw.shape[2:])
    stride, dil = list(a["stride"] or (1, 1)), list(a["dilation"] or (1, 1))
    pads = list(a["pad_list"] or a["pad"] or (0, 0, 0, 0))
    extra = list(a["output_paddings"] or (0, 0))
    xs = x.abstract.shape
    natural = [stride[i] * (xs[2 + i] - 1) + dil[i] * (kernel[i] - 1) + 1 for i in range(2)]
    full = (xs[0], w_nchw.shape[1] * group, natural[0], natural[1])
    w = b.new_const(np.ascontiguousarray(w_nchw), b.model.tensors[node.inputs[1]].name + "_t")
    prim = P.Conv2DBackpropInput(out_channel=w_nchw.shape[0], kernel_size=tuple(kernel),
                                 pad_mode="pad", pad=(0, 0, 0, 0), stride=tuple(stride),
                                 dilation=tuple(dil), group=group)
    y = b.emit(prim, x, w, full)
    keep = [natural[0] - pads[0] - pads[1], natural[1] - pads[2] - pads[3]]
    if pads != [0, 0, 0, 0]:
        y = b.emit(P.Slice(), y, (0, 0, pads[0], pads[2]), (full[0], full[1], *keep))
    if any(extra):
        y = b.emit(P.PadV3(), y, (0, extra[1], 0, extra[0]), 0)
    if len(node.inputs) > 2:
        y = b.emit(P.BiasAdd(), y, b.input(2))
    y = activate(b, node, y)
    return [to_nhwc(b, y) if layout else y]


# ---- pooling --------------------------------------------------------------------------------
def _pool_out(n, k, s, lo, hi, ceil):
    span = n + lo + hi - k
    return (-(-span // s) if ceil else span // s) + 1


def _imp_pool(is_max):
    def rule(b, node):
        a = node.attrs
        layout = nhwc(b, node)
        x = b.input(0)
        if rank(x) != 4:
            b.fail(f"pooling needs a 4-D input, but got shape {list(x.abstract.shape)}")
        if a["global"]:
            axes = (1, 2) if layout else (2, 3)
            reduce = P.ReduceMax if is_max else P.ReduceMean
            return [activate(b, node, b.emit(reduce(keep_dims=True), x, axes))]
        x = to_nchw(b, x) if layout else x
        y = _pool_nchw(b, x, a, is_max)
        y = activate(b, node, y)
        return [to_nhwc(b, y) if layout else y]
    return rule


def _pool_nchw(b, x, a, is_max):
    """MaxPool / AvgPool of NCHW x with Lite's padding: SAME and VALID as mindlite's; PAD
    (explicit [up, down, left, right]) and CEIL rounding as a padded VALID pool: -inf for max,
    and for average the sum over the real elements only (nnacl's AvgPooling divides by the
    window's elements inside the input)."""
    kernel, strides = tuple(a["kernel_size"] or ()), tuple(a["strides"] or (1, 1))
    if len(kernel) != 2 or len(strides) != 2:
        b.fail(f"kernel_size {a['kernel_size']} and strides {a['strides']} must hold 2 values")
    mode = _pad_mode(b, a)
    ceil = a["round_mode"] == S.ROUND_CEIL
    cls = P.MaxPool if is_max else P.AvgPool
    if mode == "same" or (mode == "valid" and not ceil):
        return b.emit(cls(kernel, strides, mode), x)
    pad = list(a["pad"] or (0, 0, 0, 0)) if mode == "pad" else [0, 0, 0, 0]
    h, w = x.abstract.shape[2:]
    oh = _pool_out(h, kernel[0], strides[0], pad[0], pad[1], ceil)
    ow = _pool_out(w, kernel[1], strides[1], pad[2], pad[3], ceil)
    down = max(pad[1], (oh - 1) * strides[0] + kernel[0] - h - pad[0])
    right = max(pad[3], (ow - 1) * strides[1] + kernel[1] - w - pad[2])
    paddings = (pad[2], right, pad[0], down)
    if not any(paddings):
        return b.emit(cls(kernel, strides, "valid"), x)
    if is_max:
        padded = b.emit(P.PadV3(), x, paddings, float("-inf"))
        return b.emit(cls(kernel, strides, "valid"), padded)
    y = b.emit(cls(kernel, strides, "valid"), b.emit(P.PadV3(), x, paddings, 0.0))
    ones = np.pad(np.ones((h, w)), ((pad[0], down), (pad[2], right)))
    win = np.lib.stride_tricks.sliding_window_view(ones, kernel)[::strides[0], ::strides[1]]
    scale = kernel[0] * kernel[1] / win.sum(axis=(2, 3))
    c = b.new_const(scale[:oh, :ow].reshape(1, 1, oh, ow).astype(x.abstract.np),
                    f"{b.node.name}_avg_scale")
    return b.emit(P.Mul(), y, c)


# ---- padding and resizing -------------------------------------------------------------------
_PAD = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": None}


def _imp_pad(b, node):
    """PadFusion: paddings (input 1, [rank, 2], or the table's Vec2D) in axis order;
    PadV3 takes (before, after) pairs from the last axis."""
    a = node.attrs
    mode = _PAD.get(S.PADDING_MODE_NAME.get(a["padding_mode"]))
    if mode is None:
        b.fail(f"padding_mode {a['padding_mode']} is not supported (CONSTANT or REFLECT)")
    x = b.input(0)
    flat = const_ints(b, 1, "paddings") if len(node.inputs) > 1 else \
        tuple(v for row in a["paddings"] or () for v in row)
    if len(flat) != 2 * rank(x):
        b.fail(f"paddings {list(flat)} must hold 2 values for each of the {rank(x)} axes")
    pairs = [flat[2 * i:2 * i + 2] for i in range(rank(x))]
    keep = 1 if mode == "constant" else max(rank(x) - 2, 1)   # PadV3 reflects 1 to 3 axes of
    while len(pairs) > keep and pairs[0] == (0, 0):           # a tensor with 1 or 2 more
        pairs.pop(0)
    if mode == "reflect" and len(pairs) > 3:
        b.fail(f"reflect padding of more than 3 axes ({list(flat)}) is not supported")
    paddings = tuple(v for pair in reversed(pairs) for v in pair)
    if len(node.inputs) > 2 and b.const(2) is not None:
        value = float(np.asarray(b.const(2)).reshape(-1)[0])
    else:
        value = float(a["constant_value"])
    if mode == "constant":
        return [b.emit(P.PadV3(), x, paddings, value)]
    return [b.emit(P.PadV3(mode), x, paddings, None)]


def _imp_resize(b, node):
    a = node.attrs
    method = S.RESIZE_METHOD_NAME.get(a["method"])
    coord = S.COORDINATE_NAME.get(a["coordinate_transform_mode"])
    x = b.input(0)
    if rank(x) != 4:
        b.fail(f"Resize needs a 4-D input, but got shape {list(x.abstract.shape)}")
    layout = nhwc(b, node)
    h, w = x.abstract.shape[1:3] if layout else x.abstract.shape[2:]
    if len(node.inputs) > 1:
        v = b.const(1)
        if v is None:
            b.fail("its size or scales (input 1) must be a constant tensor")
        v = np.asarray(v).reshape(-1)
        if v.size not in (2, 4):
            b.fail(f"input 1 must hold 2 or 4 values, but holds {v.size}")
        hw = v[1:3] if v.size == 4 else v
        size = (int(hw[0]), int(hw[1])) if v.dtype.kind in "iu" else \
            (int(np.round(hw[0] * h)), int(np.round(hw[1] * w)))
    else:
        size = (int(a["new_height"]), int(a["new_width"]))
    if method == "NEAREST":
        nearest = S.NEAREST_NAME.get(a["nearest_mode"])
        flags = {("ASYMMETRIC", "FLOOR"): (False, False), ("ASYMMETRIC", "NORMAL"): (False, False),
                 ("ALIGN_CORNERS", "ROUND_HALF_UP"): (True, False),
                 ("HALF_PIXEL", "ROUND_HALF_UP"): (False, True)}.get((coord, nearest))
        prim = None if flags is None else P.ResizeNearestNeighborV2(*flags)
    elif method == "LINEAR":
        flags = {"ASYMMETRIC": (False, False), "ALIGN_CORNERS": (True, False),
                 "HALF_PIXEL": (False, True)}.get(coord)
        prim = None if flags is None else P.ResizeBilinearV2(*flags)
    else:
        prim = None
    if prim is None:
        b.fail(f"method {method}, coordinate_transform_mode {coord}, nearest_mode "
               f"{a['nearest_mode']} are not supported")
    y = b.emit(prim, to_nchw(b, x) if layout else x, size)
    return [to_nhwc(b, y) if layout else y]


# ---- matrix products, softmax, activations ---------------------------------------------------
def _imp_matmul(b, node):
    a = node.attrs
    x, w = b.input(0), b.input(1)
    if rank(x) == 2 and rank(w) == 2:
        y = b.emit(P.MatMul(a["transpose_a"], a["transpose_b"]), x, w)
    else:
        y = b.emit(P.BatchMatMul(a["transpose_a"], a["transpose_b"]), x, w)
    if len(node.inputs) > 2:
        bias = b.input(2)
        prim = P.Add() if rank(bias) != 1 else P.BiasAdd() if rank(y) == 2 else \
            P.BiasAdd("NHWC")                # channel last: MatMul + BiasAdd fuse at rank 2
        y = b.emit(prim, y, bias)
    return [activate(b, node, y)]


def _imp_full_connection(b, node):
    """FullConnection: x flattened from `axis` (use_axis) or to 2-D, times w (N, K) transposed,
    plus bias."""
    a = node.attrs
    x, w = b.input(0), b.input(1)
    shape = tuple(x.abstract.shape)
    axis = axis_of(b, a["axis"], x) if a["use_axis"] else 1
    lead = shape[:axis]
    x2 = b.emit(P.Reshape(), x, (int(np.prod(lead, dtype=np.int64)), -1))
    y = b.emit(P.MatMul(False, True), x2, w)
    if a["has_bias"] or len(node.inputs) > 2:
        y = b.emit(P.BiasAdd(), y, b.input(2))
    if len(lead) != 1:
        y = b.emit(P.Reshape(), y, lead + (w.abstract.shape[0],))
    return [activate(b, node, y)]


def _imp_softmax(b, node):
    axis = tuple(node.attrs["axis"] or (-1,))
    return [b.emit(P.Softmax(axis), b.input(0))]


def _imp_prelu(b, node):
    x, slope = b.input(0), b.input(1)
    layout = rank(x) == 4 and nhwc(b, node)
    if rank(x) >= 2 and rank(slope) == 1 and slope.abstract.shape[0] > 1:
        shape = [1] * rank(x)
        shape[-1 if layout else 1] = -1
        slope = b.emit(P.Reshape(), slope, tuple(shape))
    neg = b.emit(P.Mul(), b.emit(P.Minimum(), x, 0.0), slope)
    return [b.emit(P.Add(), b.emit(P.ReLU(), x), neg)]


def _imp_clip(b, node):
    x = b.input(0)
    lo = const_floats(b, 1, "min")[0] if len(node.inputs) > 1 else node.attrs["min"]
    hi = const_floats(b, 2, "max")[0] if len(node.inputs) > 2 else node.attrs["max"]
    return [b.emit(P.Minimum(), b.emit(P.Maximum(), x, float(lo)), float(hi))]


IMPORT = {
    **import_norm.IMPORT,
    "Conv2DFusion": _imp_conv, "Conv2dTransposeFusion": _imp_conv_transpose,
    "MaxPoolFusion": _imp_pool(True), "AvgPoolFusion": _imp_pool(False),
    "PadFusion": _imp_pad, "Resize": _imp_resize,
    "MatMulFusion": _imp_matmul, "FullConnection": _imp_full_connection,
    "Softmax": _imp_softmax,
    "LogSoftmax": lambda b, n: [b.emit(P.LogSoftmax(n.attrs["axis"]), b.input(0))],
    "Activation": lambda b, n: [activate(b, n, b.input(0))],
    "LeakyRelu": lambda b, n: [b.emit(P.LeakyReLU(float(n.attrs["negative_slope"])),
                                      b.input(0))],
    "Elu": lambda b, n: [b.emit(P.Elu(float(n.attrs["alpha"] or 1.0)), b.input(0))],
    "PReLUFusion": _imp_prelu, "Clip": _imp_clip,
    "BiasAdd": lambda b, n: [b.emit(P.BiasAdd("NHWC" if rank(b.input(0)) == 4 and nhwc(b, n)
                                              else "NCHW"), b.input(0), b.input(1))],
}
