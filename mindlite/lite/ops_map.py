"""mindlite primitives <-> MindSpore Lite op tables (the PrimitiveType members of schema.py).

    EXPORT[prim name](prim, args) -> (op type, attrs, inputs)     the converter's side
    IMPORT[op type](b, node) -> outputs                          the Lite runtime's side

Export: `args` are the call's inputs as the converter sees them (an AnfNode, or a Python
constant); `inputs` are what becomes the node's input tensors, in Lite's order (a constant
becomes a const tensor: Reshape's shape, Transpose's perm, an Add's scalar). Lite's fused
ops (Conv2DFusion, MatMulFusion + bias + activation) are made by converter fusions
(lite/fusion.py), which hand their attrs over as LiteOp primitives.

Import: the rules live by family in import_nn.py (convolution, pooling, normalization, ...)
and import_array.py (elementwise, shapes, slicing, ...); their interface is import_common.py's.
So a Lite op runs as one or more mindlite primitives through mindlite's kernel registry.
"""
import numpy as np

from ..common import dtype as mstype
from ..ir.anf import MAKE_TUPLE, CNode, ValueNode
from ..ir.primitive import Primitive
from . import import_array, import_nn
from . import schema as S

ELEMENTWISE = {"Add": "AddFusion", "Sub": "SubFusion", "Mul": "MulFusion", "Div": "DivFusion",
               "RealDiv": "RealDiv", "Maximum": "Maximum", "Minimum": "Minimum",
               "Greater": "Greater", "GreaterEqual": "GreaterEqual", "Less": "Less",
               "LessEqual": "LessEqual", "Equal": "Equal", "NotEqual": "NotEqual"}
ELEMENTWISE.update({"FloorDiv": "FloorDiv", "FloorMod": "FloorMod", "Mod": "Mod",
                    "LogicalAnd": "LogicalAnd", "LogicalOr": "LogicalOr"})
UNARY = {"Neg": "Neg", "Log": "Log", "Sqrt": "Sqrt", "Rsqrt": "Rsqrt", "Square": "Square",
         "Abs": "Abs", "Floor": "Floor", "Sin": "Sin", "Cos": "Cos", "Erf": "Erf", "Ceil": "Ceil",
         "Round": "Round", "Reciprocal": "Reciprocal", "LogicalNot": "LogicalNot"}
# mindlite activation primitive -> Lite's Activation type (GeLU is the tanh form: approximate)
ACTIVATIONS = {"ReLU": "RELU", "Sigmoid": "SIGMOID", "Tanh": "TANH", "GeLU": "GELU",
               "ReLU6": "RELU6", "HSwish": "HSWISH", "HSigmoid": "HSIGMOID", "Elu": "ELU",
               "LeakyReLU": "LEAKY_RELU", "Softplus": "SOFTPLUS", "SiLU": "SWISH",
               "Softsign": "SOFTSIGN", "SeLU": "SELU"}
FUSED_ACTIVATIONS = ("ReLU", "ReLU6")   # what Lite's kernels apply inside a Conv/MatMul/Add
REDUCES = {"ReduceSum": "ReduceSum", "ReduceMean": "ReduceMean", "ReduceMax": "ReduceMax",
           "ReduceMin": "ReduceMin", "ReduceProd": "ReduceProd"}


class LiteOp(Primitive):
    """A Lite op made by a converter fusion (e.g. MatMulFusion with bias and ReLU): its type
    and table fields; the node keeps the abstract of the pattern it replaced."""

    def __init__(self, op_type, attrs):
        super().__init__(op_type)
        self.lite_type = op_type
        self.lite_attrs = dict(attrs)


def _last2(v):
    v = tuple(v) if isinstance(v, (tuple, list)) else (v, v)
    return list(v[-2:])


def _pad_mode(mode):
    return S.PAD_MODE[str(mode).upper()]


# ---- export ---------------------------------------------------------------------------------
def _conv(prim, args):
    a = prim.attrs
    w = args[1].abstract.shape
    pad = a["pad"] if isinstance(a["pad"], (tuple, list)) else (a["pad"],) * 4
    return "Conv2DFusion", {
        "format": S.FORMAT_NCHW, "kernel_size": _last2(a["kernel_size"]),
        "stride": _last2(a["stride"]), "dilation": _last2(a["dilation"]),
        "pad_mode": _pad_mode(a["pad_mode"]), "pad_list": list(pad), "mode": a.get("mode", 1),
        "group": a["group"], "in_channel": int(w[1]) * a["group"],
        "out_channel": a["out_channel"]}, list(args)


def _pool(op_type):
    def rule(prim, args):
        a = prim.attrs
        return op_type, {"kernel_size": _last2(a["kernel_size"]), "strides": _last2(a["strides"]),
                         "pad_mode": _pad_mode(a["pad_mode"]), "round_mode": S.ROUND_FLOOR,
                         "format": S.FORMAT_NCHW}, list(args)
    return rule


def _axes(prim, args):
    axis = args[1] if len(args) > 1 else ()
    axis = (axis,) if isinstance(axis, int) else tuple(axis)
    if not axis:
        axis = tuple(range(len(args[0].abstract.shape)))
    return REDUCES[prim.name], axis


def _reduce(prim, args):
    mode, axis = _axes(prim, args)
    return "ReduceFusion", {"keep_dims": bool(prim.attrs["keep_dims"]), "mode": S.REDUCE[mode]}, \
        [args[0], np.asarray(axis, np.int32)]


def _reshape(prim, args):
    """x.reshape(n, -1) of an (n, ...) x is Lite's Flatten (it keeps the batch axis free, so
    Model.resize can change it); any other Reshape keeps its constant shape."""
    shape, src = tuple(args[1]), tuple(args[0].abstract.shape)
    if len(shape) == 2 and len(src) > 2 and shape[0] == src[0] and \
            shape[1] == int(np.prod(src[1:])):
        return "Flatten", {"axis": 1}, [args[0]]
    return "Reshape", {}, [args[0], np.asarray(shape, np.int32)]


def _softmax(prim, args):
    axis = prim.attrs["axis"]
    return "Softmax", {"axis": list(axis) if isinstance(axis, (tuple, list)) else [axis]}, \
        list(args)


def _custom(prim, args):
    return "Custom", {"type": prim.custom_type,
                      "attr": sorted(prim.custom_attrs.items())}, list(args)


def _cast(prim, args):
    dst = mstype.to_type(args[1])
    return "Cast", {}, [args[0], np.asarray(S.TYPE_ID[np.dtype(dst.np)], np.int32)]


def _int_list(v):
    return [int(x) for x in v] if isinstance(v, (tuple, list)) else [int(v)]


def _items(seq):
    """The tensors of a list input: a MakeTuple's inputs, or a constant tuple's items."""
    if isinstance(seq, CNode) and isinstance(seq.inputs[0], ValueNode) and \
            seq.inputs[0].value is MAKE_TUPLE:
        return list(seq.inputs[1:])
    if isinstance(seq, (tuple, list)):
        return list(seq)
    raise TypeError(f"converter: a list input must be a tuple of tensors, got {seq!r}")


def _batch_norm(prim, args):
    if prim.attrs["is_training"] or prim.attrs["data_format"] != "NCHW":
        raise NotImplementedError("converter: BatchNorm in training mode or NHWC has no "
                                  "MindSpore Lite inference form")
    return "FusedBatchNorm", {"epsilon": float(prim.attrs["epsilon"]),
                              "momentum": float(prim.attrs["momentum"])}, list(args)


def _activation(prim, args):
    act = ACTIVATIONS[prim.name]
    attrs = {"activation_type": S.ACT[act]}
    if act in ("ELU", "LEAKY_RELU"):
        attrs["alpha"] = float(prim.attrs["alpha"])
    if act == "GELU":
        attrs["approximate"] = True
    return "Activation", attrs, list(args)


def _pad(prim, args):
    """PadV3 -> PadFusion: paddings as a [rank, 2] int32 input in axis order (PadV3's are
    (before, after) pairs from the last axis), the fill value in constant_value."""
    mode = {"constant": "CONSTANT", "reflect": "REFLECT"}.get(prim.attrs["mode"])
    if mode is None:
        raise NotImplementedError(f"converter: PadV3 mode {prim.attrs['mode']!r} has no "
                                  "MindSpore Lite form (constant or reflect)")
    rank = len(args[0].abstract.shape)
    flat = [int(v) for v in args[1]]
    pairs = [[0, 0] for _ in range(rank)]
    for i in range(len(flat) // 2):
        pairs[rank - 1 - i] = flat[2 * i:2 * i + 2]
    value = args[2] if len(args) > 2 and args[2] is not None else 0.0
    return "PadFusion", {"padding_mode": S.PADDING_MODE[mode],
                         "constant_value": float(value)}, \
        [args[0], np.asarray(pairs, np.int32)]


def _conv_transpose(prim, args):
    """Conv2DBackpropInput(dout, w, input_size) -> Conv2dTransposeFusion: the output size
    as crop (pad_list) from the full transposed convolution, or output_paddings past it."""
    a = prim.attrs
    x, w = args[0].abstract.shape, args[1].abstract.shape
    size = tuple(args[2])[-2:]
    k, s, d = _last2(a["kernel_size"]), _last2(a["stride"]), _last2(a["dilation"])
    natural = [s[i] * (x[2 + i] - 1) + d[i] * (k[i] - 1) + 1 for i in range(2)]
    pads, extra = [], []
    given = a["pad"] if isinstance(a["pad"], (tuple, list)) else (a["pad"],) * 4
    for i in range(2):
        crop = natural[i] - size[i]
        if a["pad_mode"] == "pad":
            lo = given[2 * i]
        else:
            lo = max(crop, 0) // 2
        hi = max(crop - lo, 0)
        pads += [lo, hi]
        extra.append(size[i] - (natural[i] - lo - hi))
    if any(e < 0 or e >= max(s) for e in extra):
        raise NotImplementedError(f"converter: {prim.name} to size {list(size)} has no "
                                  "Conv2dTransposeFusion form")
    return "Conv2dTransposeFusion", {
        "format": S.FORMAT_NCHW, "kernel_size": k, "stride": s, "dilation": d,
        "pad_mode": S.PAD_MODE["PAD"], "pad": pads, "pad_list": pads, "mode": 1,
        "group": a["group"], "in_channel": int(w[0]), "out_channel": int(w[1]) * a["group"],
        "output_paddings": extra}, list(args[:2])


def _resize(prim, args):
    a = prim.attrs
    coord = "ALIGN_CORNERS" if a["align_corners"] else \
        "HALF_PIXEL" if a["half_pixel_centers"] else "ASYMMETRIC"
    nearest = prim.name == "ResizeNearestNeighborV2"
    size = tuple(args[1])
    return "Resize", {"format": S.FORMAT_NCHW, "method": S.RESIZE_METHOD[
        "NEAREST" if nearest else "LINEAR"], "new_height": size[0], "new_width": size[1],
        "coordinate_transform_mode": S.COORDINATE[coord], "cubic_coeff": -0.75,
        "nearest_mode": S.NEAREST["FLOOR" if coord == "ASYMMETRIC" else "ROUND_HALF_UP"]
        if nearest else 0}, [args[0]]


def _slice(prim, args):
    return "SliceFusion", {"axes": list(range(len(args[1])))}, \
        [args[0], np.asarray(args[1], np.int32), np.asarray(args[2], np.int32)]


def _strided_slice(prim, args):
    a = prim.attrs
    return "StridedSlice", {k: int(a[k]) for k in ("begin_mask", "end_mask", "ellipsis_mask",
                                                   "new_axis_mask", "shrink_axis_mask")}, \
        [args[0]] + [np.asarray(v, np.int32) for v in args[1:4]]


def _split(prim, args):
    n, axis = prim.attrs["output_num"], prim.attrs["axis"]
    dim = args[0].abstract.shape[axis]
    return "Split", {"output_num": n, "size_splits": [dim // n] * n, "axis": axis}, [args[0]]


def _gather(prim, args):
    if prim.attrs.get("batch_dims", 0):
        raise NotImplementedError("converter: Gather with batch_dims has no MindSpore Lite form")
    return "Gather", {}, [args[0], args[1], np.asarray([args[2]], np.int32)]


def _argmax(prim, args):
    if prim.attrs["output_type"] is not mstype.int32:
        raise NotImplementedError("converter: Argmax to a type other than int32 has no "
                                  "MindSpore Lite form")
    return "ArgMaxFusion", {"axis": int(prim.attrs["axis"]), "top_k": 1}, list(args)


def _fixed(op_type, attrs=None, const_dtype=np.int32):
    """Inputs as given; constants as const_dtype arrays (None: Python numbers stay, the
    exporter gives them the tensor input's dtype)."""
    def rule(prim, args):
        ins = [a if hasattr(a, "abstract") or const_dtype is None else
               np.asarray(a, const_dtype) for a in args]
        return op_type, dict(attrs or {}), ins
    return rule


def _matmul(prim, args):
    return "MatMulFusion", {"transpose_a": bool(prim.attrs["transpose_a"]),
                            "transpose_b": bool(prim.attrs["transpose_b"])}, list(args)


EXPORT = {
    "Conv2D": _conv, "MaxPool": _pool("MaxPoolFusion"), "AvgPool": _pool("AvgPoolFusion"),
    "MatMul": _matmul, "BatchMatMul": _matmul,
    "Conv2DBackpropInput": _conv_transpose, "Conv2DTranspose": _conv_transpose,
    "PadV3": _pad, "ResizeNearestNeighborV2": _resize, "ResizeBilinearV2": _resize,
    "Slice": _slice, "StridedSlice": _strided_slice, "Split": _split, "Gather": _gather,
    "Tile": lambda p, a: ("TileFusion", {"dims": list(range(len(a[1])))},
                          [a[0], np.asarray(a[1], np.int32)]),
    "BroadcastTo": lambda p, a: ("BroadcastTo", {}, [a[0], np.asarray(p.attrs["shape"],
                                                                       np.int32)]),
    "Select": lambda p, a: ("Where", {}, list(a)), "Shape": _fixed("Shape"),
    "Stack": lambda p, a: ("Stack", {"axis": p.attrs["axis"]}, _items(a[0])),
    "Pow": _fixed("PowFusion", {"scale": 1.0, "shift": 0.0}, const_dtype=None),
    "Argmax": _argmax,
    "BiasAdd": lambda p, a: ("BiasAdd", {"format": S.FORMAT_NCHW}, list(a)),
    "Reshape": _reshape, "Transpose": _fixed("Transpose"),
    "ExpandDims": _fixed("ExpandDims"), "Flatten": _fixed("Flatten", {"axis": 1}),
    "Softmax": _softmax, "LogSoftmax": lambda p, a: ("LogSoftmax", {"axis": p.attrs["axis"]},
                                                     list(a)),
    "Squeeze": lambda p, a: ("Squeeze", {"axis": _int_list(p.attrs["axis"])}, list(a)),
    "Concat": lambda p, a: ("Concat", {"axis": p.attrs["axis"]}, _items(a[0])),
    "AddN": lambda p, a: ("AddN", {}, _items(a[0])),
    "Exp": lambda p, a: ("ExpFusion", {}, list(a)),
    "Cast": _cast, "Custom": _custom, "BatchNorm": _batch_norm,
}
EXPORT.update({k: _fixed(v, const_dtype=None) for k, v in ELEMENTWISE.items()})
EXPORT.update({k: _fixed(v) for k, v in UNARY.items()})
EXPORT.update({k: _activation for k in ACTIVATIONS})
EXPORT.update({k: _reduce for k in REDUCES})


# ---- import: the Lite runtime's rules, by family ----------------------------------------------
IMPORT = {**import_nn.IMPORT, **import_array.IMPORT}
CONTROL = ("PartialFusion", "Switch", "Call")
