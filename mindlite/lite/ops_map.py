"""mindlite primitives <-> MindSpore Lite op tables (the PrimitiveType members of schema.py).

    EXPORT[prim name](prim, args) -> (op type, attrs, inputs)     the converter's side
    IMPORT[op type](b, node) -> outputs                          the Lite runtime's side

Export: `args` are the call's inputs as the converter sees them (an AnfNode, or a Python
constant); `inputs` are what becomes the node's input tensors, in Lite's order (a constant
becomes a const tensor: Reshape's shape, Transpose's perm, an Add's scalar). Lite's fused
ops (Conv2DFusion, MatMulFusion + bias + activation) are made by converter fusions
(lite/fusion.py), which hand their attrs over as LiteOp primitives.

Import: `b` is the runtime's graph builder (lite/graph_build.py): `b.input(i)` the AnfNode
of the node's i-th input, `b.const(i)` its constant value (numpy) or None, `b.emit(prim,
*args)` adds a mindlite primitive call; the rule returns the node's output AnfNodes. So a
Lite op runs as one or more mindlite primitives through mindlite's kernel registry.
"""
import numpy as np

from ..common import dtype as mstype
from ..ir.anf import MAKE_TUPLE, CNode, ValueNode
from ..ops import operations as P
from ..ir.primitive import Primitive
from . import schema as S

ELEMENTWISE = {"Add": "AddFusion", "Sub": "SubFusion", "Mul": "MulFusion", "Div": "DivFusion",
               "RealDiv": "RealDiv", "Maximum": "Maximum", "Minimum": "Minimum",
               "Greater": "Greater", "GreaterEqual": "GreaterEqual", "Less": "Less",
               "LessEqual": "LessEqual", "Equal": "Equal", "NotEqual": "NotEqual"}
UNARY = {"Neg": "Neg", "Log": "Log", "Sqrt": "Sqrt", "Rsqrt": "Rsqrt", "Square": "Square",
         "Abs": "Abs", "Floor": "Floor", "Sin": "Sin", "Cos": "Cos", "Erf": "Erf"}
ACTIVATIONS = {"ReLU": "RELU", "Sigmoid": "SIGMOID", "Tanh": "TANH", "GeLU": "GELU"}
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


def _fixed(op_type, attrs=None, const_dtype=np.int32):
    """Inputs as given; constants as const_dtype arrays (None: Python numbers stay, the
    exporter gives them the tensor input's dtype)."""
    def rule(prim, args):
        ins = [a if hasattr(a, "abstract") or const_dtype is None else
               np.asarray(a, const_dtype) for a in args]
        return op_type, dict(attrs or {}), ins
    return rule


EXPORT = {
    "Conv2D": _conv, "MaxPool": _pool("MaxPoolFusion"), "AvgPool": _pool("AvgPoolFusion"),
    "MatMul": lambda p, a: ("MatMulFusion", {"transpose_a": bool(p.attrs["transpose_a"]),
                                             "transpose_b": bool(p.attrs["transpose_b"])}, list(a)),
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
EXPORT.update({k: (lambda act: lambda p, a: ("Activation", {"activation_type": S.ACT[act]},
                                             list(a)))(v) for k, v in ACTIVATIONS.items()})
EXPORT.update({k: _reduce for k in REDUCES})


# ---- import ---------------------------------------------------------------------------------
_ACT_PRIMS = {"RELU": P.ReLU, "SIGMOID": P.Sigmoid, "TANH": P.Tanh, "GELU": P.GeLU}


def _activate(b, node, out):
    act = S.ACT_NAME.get(node.attrs.get("activation_type", 0))
    if act is None or (act != "NO_ACTIVATION" and act not in _ACT_PRIMS):
        b.fail(f"activation_type {node.attrs.get('activation_type')} is not supported")
    return out if act == "NO_ACTIVATION" else b.emit(_ACT_PRIMS[act](), out)


def _with_bias(b, node, out, index):
    if len(node.inputs) > index:
        out = b.emit(P.BiasAdd(), out, b.input(index))
    return [_activate(b, node, out)]


_TO_NCHW, _TO_NHWC = (0, 3, 1, 2), (0, 2, 3, 1)


def _layout(b, node):
    """True for NHWC (as MindSpore Lite's converter writes convolutions), False for NCHW."""
    fmt = node.attrs.get("format", S.FORMAT_NCHW)
    if fmt not in (S.FORMAT_NCHW, S.FORMAT_NHWC):
        b.fail(f"format {fmt} is not supported (NCHW or NHWC)")
    return fmt == S.FORMAT_NHWC


def _imp_conv(b, node):
    a = node.attrs
    nhwc = _layout(b, node)
    mode = S.PAD_MODE_NAME.get(a["pad_mode"], "?").lower()
    if mode == "?":
        b.fail(f"pad_mode {a['pad_mode']} is not supported (PAD, SAME or VALID)")
    x, w = b.input(0), b.input(1)
    if nhwc:                                 # KHWC weights: transposed once, at build
        wv = b.const(1)
        if wv is None:
            b.fail("NHWC weights (input 1) must be a constant tensor")
        x = b.emit(P.Transpose(), x, _TO_NCHW)
        w = b.new_const(np.ascontiguousarray(np.transpose(wv, _TO_NCHW)),
                        b.model.tensors[node.inputs[1]].name + "_kchw")
    shape = w.abstract.shape
    pad = tuple(a["pad_list"] or (0, 0, 0, 0)) if mode == "pad" else 0
    conv = P.Conv2D(int(shape[0]), tuple(a["kernel_size"] or shape[2:]), mode=1,
                    pad_mode=mode, pad=pad, stride=tuple(a["stride"] or (1, 1)),
                    dilation=tuple(a["dilation"] or (1, 1)), group=max(1, a["group"]))
    out = _with_bias(b, node, b.emit(conv, x, w), 2)[0]
    return [b.emit(P.Transpose(), out, _TO_NHWC) if nhwc else out]


def _imp_pool(cls, reduce_cls):
    def rule(b, node):
        a = node.attrs
        nhwc = _layout(b, node)
        x = b.emit(P.Transpose(), b.input(0), _TO_NCHW) if nhwc else b.input(0)
        if a["global"]:
            out = b.emit(reduce_cls(keep_dims=True), x, (2, 3))
        else:
            mode = S.PAD_MODE_NAME.get(a["pad_mode"])
            if mode not in ("SAME", "VALID") or a["round_mode"] != S.ROUND_FLOOR or \
                    any(a["pad"] or ()):
                b.fail(f"pad_mode {a['pad_mode']}, round_mode {a['round_mode']}, pad "
                       f"{a['pad']} are not supported (SAME or VALID, FLOOR rounding)")
            out = b.emit(cls(tuple(a["kernel_size"]), tuple(a["strides"]), mode.lower()), x)
        out = _activate(b, node, out)
        return [b.emit(P.Transpose(), out, _TO_NHWC) if nhwc else out]
    return rule


def _imp_matmul(b, node):
    a = node.attrs
    out = b.emit(P.MatMul(transpose_a=a["transpose_a"], transpose_b=a["transpose_b"]),
                 b.input(0), b.input(1))
    return _with_bias(b, node, out, 2)


def _imp_binary(cls, fused):
    def rule(b, node):
        out = b.emit(cls(), b.input(0), b.input(1))
        return [_activate(b, node, out)] if fused else [out]
    return rule


def _imp_activation(b, node):
    return [_activate(b, node, b.input(0))]


def _const_arg(b, i, what):
    v = b.const(i)
    if v is None:
        b.fail(f"its {what} (input {i}) must be a constant tensor")
    return tuple(int(x) for x in np.asarray(v).reshape(-1))


def _imp_reduce(b, node):
    name = S.REDUCE_NAME.get(node.attrs["mode"])
    if name is None or node.attrs.get("reduce_to_end"):
        b.fail(f"reduce mode {node.attrs['mode']} is not supported")
    axes = _const_arg(b, 1, "axes") if len(node.inputs) > 1 else ()
    return [b.emit(getattr(P, name)(keep_dims=node.attrs["keep_dims"]), b.input(0), axes)]


def _imp_custom(b, node):
    from ..ops.operations.custom_ops import Custom
    prim = Custom(None, type=node.attrs["type"], attrs=dict(node.attrs["attr"] or []))
    return [b.emit(prim, *[b.input(i) for i in range(len(node.inputs))])]


def _imp_cast(b, node):
    code = _const_arg(b, 1, "destination type")[0]
    dt = S.DTYPE_OF.get(code)
    if dt is None:
        b.fail(f"destination TypeId {code} is not supported")
    return [b.emit(P.Cast(), b.input(0), mstype.to_type(dt))]


def _imp_batch_norm(b, node):
    if len(node.inputs) != 5 or len(node.outputs) not in (1, 5):
        b.fail("FusedBatchNorm needs 5 inputs (x, scale, bias, mean, variance) and 1 or 5 "
               "outputs")
    a = node.attrs
    out = b.emit(P.BatchNorm(False, a["epsilon"], a["momentum"]),
                 *[b.input(i) for i in range(5)])
    return [b.item(out, i) for i in range(len(node.outputs))]


def _imp_exp(b, node):
    a = node.attrs
    if (a["base"], a["scale"], a["shift"]) != (-1.0, 1.0, 0.0):
        b.fail("only base e, scale 1, shift 0 is supported")
    return [b.emit(P.Exp(), b.input(0))]


IMPORT = {
    "Conv2DFusion": _imp_conv, "MatMulFusion": _imp_matmul, "Activation": _imp_activation,
    "MaxPoolFusion": _imp_pool(P.MaxPool, P.ReduceMax),
    "AvgPoolFusion": _imp_pool(P.AvgPool, P.ReduceMean),
    "BiasAdd": lambda b, n: [b.emit(P.BiasAdd(), b.input(0), b.input(1))],
    "Reshape": lambda b, n: [b.emit(P.Reshape(), b.input(0), _const_arg(b, 1, "shape"))],
    "Transpose": lambda b, n: [b.emit(P.Transpose(), b.input(0), _const_arg(b, 1, "perm"))],
    "ExpandDims": lambda b, n: [b.emit(P.ExpandDims(), b.input(0),
                                       _const_arg(b, 1, "axis")[0])],
    "Flatten": lambda b, n: [b.emit(P.Flatten(), b.input(0))],
    "Softmax": lambda b, n: [b.emit(P.Softmax(tuple(n.attrs["axis"] or (-1,))), b.input(0))],
    "LogSoftmax": lambda b, n: [b.emit(P.LogSoftmax(n.attrs["axis"]), b.input(0))],
    "Squeeze": lambda b, n: [b.emit(P.Squeeze(tuple(n.attrs["axis"] or ())), b.input(0))],
    "Concat": lambda b, n: [b.emit(P.Concat(n.attrs["axis"]),
                                   tuple(b.input(i) for i in range(len(n.inputs))))],
    "AddN": lambda b, n: [b.emit(P.AddN(), tuple(b.input(i) for i in range(len(n.inputs))))],
    "ReduceFusion": _imp_reduce, "Custom": _imp_custom, "Cast": _imp_cast,
    "ExpFusion": _imp_exp, "FusedBatchNorm": _imp_batch_norm,
}
for _name, _lite in ELEMENTWISE.items():
    IMPORT[_lite] = _imp_binary(getattr(P, _name), _lite.endswith("Fusion"))
for _name, _lite in UNARY.items():
    IMPORT[_lite] = (lambda cls: lambda b, n: [b.emit(cls(), b.input(0))])(getattr(P, _name))
CONTROL = ("PartialFusion", "Switch", "Call")
