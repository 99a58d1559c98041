"""ONNX converters of mindlite's math and nn primitives (elementwise, reductions, MatMul,
BiasAdd, Conv2D, pooling, normalization, activations), registered by primitive name with
export.converter. Each gets an export.Op and returns the ONNX name(s) of its output(s);
array primitives (shapes, indexing, resize, pad) are in export_ops_array.py.
"""
import math

from ..common import dtype as mstype
from . import _lib
from ._lib import onnx_dtype
from .export_op import converter

UNARY = {"ReLU": "Relu", "Sigmoid": "Sigmoid", "Tanh": "Tanh", "Sqrt": "Sqrt", "Exp": "Exp",
         "Log": "Log", "Neg": "Neg", "Abs": "Abs", "Erf": "Erf", "Floor": "Floor",
         "Ceil": "Ceil", "Sin": "Sin", "Cos": "Cos", "Reciprocal": "Reciprocal",
         "Softplus": "Softplus", "Sign": "Sign", "Round": "Round",
         "Identity": "Identity", "StopGradient": "Identity", "Depend": "Identity"}
ARITH = {"Add": "Add", "Sub": "Sub", "Mul": "Mul", "Div": "Div", "RealDiv": "Div",
         "Pow": "Pow", "Maximum": "Max", "Minimum": "Min"}
BOOL_ARITH = {"Add": "Or", "Maximum": "Or", "Mul": "And", "Minimum": "And"}
COMPARE = {"Less": "Less", "Greater": "Greater", "Equal": "Equal", "LessEqual": "LessOrEqual",
           "GreaterEqual": "GreaterOrEqual", "NotEqual": "Equal"}
LOGICAL = {"LogicalAnd": "And", "LogicalOr": "Or", "LogicalXor": "Xor"}
REDUCE = {"ReduceSum": "ReduceSum", "ReduceMean": "ReduceMean", "ReduceMax": "ReduceMax",
          "ReduceMin": "ReduceMin", "ReduceProd": "ReduceProd"}


@converter(*UNARY)
def _unary(op):
    return op.node(UNARY[op.name], [op.input(0)])


@converter(*ARITH)
def _arith(op):
    t = op.out.dtype
    onnx_op = ARITH[op.name]
    if t is mstype.bool_:                     # bool arithmetic is logic (no ONNX bool Add)
        onnx_op = BOOL_ARITH.get(op.name)
        if onnx_op is None:
            op.fail("has no ONNX form on bool tensors")
    return op.node(onnx_op, [op.input(0, t), op.input(1, t)])


@converter("FloorDiv", "FloorMod", "Mod", "TruncateDiv")
def _div_mod(op):
    """FloorDiv / FloorMod (Python's // and %), Mod and TruncateDiv (C's, sign of the
    dividend): ONNX Mod with fmod=0 is the floor form on ints only, fmod=1 the truncated."""
    t = op.out.dtype
    a, b = op.input(0, t), op.input(1, t)
    if op.name == "Mod":
        return op.node("Mod", [a, b], fmod=1)
    if op.name == "TruncateDiv":
        q = op.node("Div", [a, b])
        if t.is_float:           # trunc(q) = sign(q) * floor(|q|): keeps NaN, inf, huge q
            q = op.node("Mul", [op.node("Sign", [q]), op.node("Floor", [op.node("Abs", [q])])])
        return q
    if t.is_float:
        q = op.node("Floor", [op.node("Div", [a, b])])
        if op.name == "FloorDiv":
            return q
        return op.node("Sub", [a, op.node("Mul", [b, q])])
    r = op.node("Mod", [a, b], fmod=0)
    if op.name == "FloorMod":
        return r
    return op.node("Div", [op.node("Sub", [a, r]), b])        # exact: a - r divides by b


def _compare_type(op):
    """The dtype both operands were promoted to (a Python scalar adopts the tensor's kind)."""
    types = [op.dtype(i) for i in range(2)]
    tensors = [t for t in types if t is not None]
    if not tensors:
        op.fail("needs at least one tensor operand")
    t = tensors[0] if len(tensors) == 1 else mstype.promote(*tensors)
    for i, ty in enumerate(types):
        if ty is None:
            t = mstype.promote_scalar(t, type(op.const(i)))
    return t


@converter(*COMPARE)
def _compare(op):
    t = _compare_type(op)
    out = op.node(COMPARE[op.name], [op.input(0, t), op.input(1, t)])
    return op.node("Not", [out]) if op.name == "NotEqual" else out


@converter(*LOGICAL)
def _logical(op):
    return op.node(LOGICAL[op.name], [op.input(0, mstype.bool_), op.input(1, mstype.bool_)])


@converter("LogicalNot")
def _logical_not(op):
    return op.node("Not", [op.input(0, mstype.bool_)])


@converter("Select")
def _select(op):
    t = op.out.dtype
    return op.node("Where", [op.input(0, mstype.bool_), op.input(1, t), op.input(2, t)])


@converter("Rsqrt")
def _rsqrt(op):
    return op.node("Reciprocal", [op.node("Sqrt", [op.input(0)])])


@converter("ReLU6")
def _relu6(op):
    t = op.out.dtype.np
    return op.node("Clip", [op.input(0), op.em.const(0, t), op.em.const(6, t)])


@converter("HSigmoid")
def _hsigmoid(op):
    return op.node("HardSigmoid", [op.input(0)], alpha=1.0 / 6, beta=0.5)


@converter("SiLU")
def _silu(op):
    x = op.input(0)
    return op.node("Mul", [x, op.node("Sigmoid", [x])])


@converter("GeLU")
def _gelu(op):
    """MindSpore's GeLU primitive is the tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715
    x^3))) (ops.gelu(approximate='none') reaches the graph as Erf, not GeLU)."""
    x, t = op.input(0), op.out.dtype.np
    cube = op.node("Mul", [op.node("Mul", [x, x]), x])
    inner = op.node("Add", [x, op.node("Mul", [cube, op.em.const(0.044715, t)])])
    th = op.node("Tanh", [op.node("Mul", [inner, op.em.const(math.sqrt(2 / math.pi), t)])])
    half = op.node("Mul", [x, op.em.const(0.5, t)])
    return op.node("Mul", [half, op.node("Add", [th, op.em.const(1.0, t)])])


@converter("LeakyReLU")
def _leaky(op):
    return op.node("LeakyRelu", [op.input(0)], alpha=float(op.attrs.get("alpha", 0.2)))


@converter("Elu")
def _elu(op):
    return op.node("Elu", [op.input(0)], alpha=float(op.attrs.get("alpha", 1.0)))


@converter("Softmax", "LogSoftmax")
def _softmax(op):
    axis = op.attrs.get("axis", -1)
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            op.fail(f"ONNX {op.name} takes one axis, got {axis}")
        axis = axis[0]
    return op.node(op.name, [op.input(0)], axis=int(axis))


@converter("Cast")
def _cast(op):
    return op.node("Cast", [op.input(0)], to=onnx_dtype(op.out.dtype))


def _axes(op, i):
    """A reduction's axis input as a list (empty: every axis)."""
    axis = op.const(i) if len(op.args) > i else ()
    if axis is None:
        return []
    axes = [axis] if isinstance(axis, int) else list(axis)
    rank = op.rank(0)
    return [a % rank if rank else 0 for a in axes]


@converter(*REDUCE)
def _reduce(op):
    axes = _axes(op, 1) or list(range(op.rank(0)))
    keep = int(bool(op.attrs.get("keep_dims", False)))
    onnx_op = REDUCE[op.name]
    x = op.input(0)
    if not axes:                                   # a 0-d tensor: nothing to reduce
        return op.node("Identity", [x])
    if op.name == "ReduceSum" or op.em.opset >= 18:
        return op.node(onnx_op, [x, op.em.ints(axes)], keepdims=keep)
    return op.node(onnx_op, [x], axes=axes, keepdims=keep)


def _transposed_last2(op, name, rank):
    perm = list(range(rank))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return op.node("Transpose", [name], perm=perm)


@converter("MatMul", "BatchMatMul")
def _matmul(op):
    t = op.out.dtype
    a, b = op.input(0, t), op.input(1, t)
    if op.attrs.get("transpose_a"):
        a = _transposed_last2(op, a, op.rank(0))
    if op.attrs.get("transpose_b"):
        b = _transposed_last2(op, b, op.rank(1))
    return op.node("MatMul", [a, b])


def _fuse_bias(op, x, b):
    """MindSpore's exporter merges Conv2D + BiasAdd into Conv and MatMul + BiasAdd into Gemm
    when the product has no other user; so does this one. Returns the fused name or None."""
    src = op.args[0]
    if op.em.model.uses.get(src.id, 0) != 1 or not hasattr(src, "inputs"):
        return None
    prim = getattr(src.inputs[0], "value", None)
    node = op.em.producer(x)
    name = getattr(prim, "name", None)
    if node is None or op.rank(1) != 1:
        return None
    if name == "Conv2D" and node.op_type == "Conv" and len(node.input) == 2:
        node.input.append(b)
        return x
    if name == "MatMul" and node.op_type == "MatMul" and op.rank(0) == 2 and not \
            prim.attrs.get("transpose_a"):
        a, w = node.input
        trans = op.em.producer(w)
        helper = _lib.onnx().helper
        kw = {}
        if prim.attrs.get("transpose_b") and trans is not None and trans.op_type == "Transpose":
            w = trans.input[0]
            kw["transB"] = 1
            op.em.nodes.remove(trans)
        idx = op.em.nodes.index(node)
        op.em.nodes[idx] = helper.make_node("Gemm", [a, w, b], [x], name=node.name, **kw)
        return x
    return None


@converter("BiasAdd")
def _bias_add(op):
    x, b = op.input(0), op.input(1)
    fused = _fuse_bias(op, x, b)
    if fused is not None:
        return fused
    rank = op.rank(0)
    fmt = op.attrs.get("data_format", "NCHW")
    if rank > 2 and fmt != "NHWC":
        b = op.node("Unsqueeze", [b, op.em.ints(list(range(1, rank - 1)))])
    return op.node("Add", [x, b])


def _hw(v):
    v = tuple(v) if isinstance(v, (tuple, list)) else (v, v)
    return list(v[-2:])


@converter("Conv2D")
def _conv2d(op):
    a = op.attrs
    if a.get("data_format", "NCHW") != "NCHW":
        op.fail("only data_format='NCHW' can be exported")
    kw = dict(kernel_shape=_hw(a["kernel_size"]), strides=_hw(a.get("stride", 1)),
              dilations=_hw(a.get("dilation", 1)), group=int(a.get("group", 1)))
    mode = str(a.get("pad_mode", "valid")).lower()
    if mode == "same":
        kw["auto_pad"] = "SAME_UPPER"
    elif mode == "pad":
        top, bottom, left, right = _pads4(a.get("pad", 0))
        kw["pads"] = [top, left, bottom, right]
    else:
        kw["pads"] = [0, 0, 0, 0]
    return op.node("Conv", [op.input(0), op.input(1)], **kw)


def _pads4(pad):
    if isinstance(pad, int):
        return pad, pad, pad, pad
    pad = tuple(pad)
    return pad if len(pad) == 4 else (pad[0], pad[0], pad[1], pad[1])


@converter("Conv2DBackpropInput")
def _conv_transpose(op):
    """Conv2dTranspose: ONNX ConvTranspose with the pads (and output_padding) that give the
    requested output size (input 2); the weight layout (C_in, C_out / group, kh, kw) is
    ONNX's."""
    a = op.attrs
    if a.get("data_format", "NCHW") != "NCHW":
        op.fail("only data_format='NCHW' can be exported")
    kernel, stride, dil = _hw(a["kernel_size"]), _hw(a.get("stride", 1)), _hw(a.get("dilation",
                                                                                    1))
    target = list(op.const(2))[2:]
    size_in = op.shape(0)[2:]
    mode = str(a.get("pad_mode", "valid")).lower()
    begin, end, extra = [0, 0], [0, 0], [0, 0]
    for i in range(2):
        natural = stride[i] * (size_in[i] - 1) + dil[i] * (kernel[i] - 1) + 1
        if mode == "pad":
            top, bottom, left, right = _pads4(a.get("pad", 0))
            begin[i], end[i] = (top, bottom) if i == 0 else (left, right)
        else:
            total = max(natural - target[i], 0)
            begin[i], end[i] = total // 2, total - total // 2
        extra[i] = target[i] - (natural - begin[i] - end[i])
        if not 0 <= extra[i] < max(stride[i], dil[i]):
            op.fail(f"output size {target} is not reachable from input {list(size_in)}")
    kw = dict(kernel_shape=kernel, strides=stride, dilations=dil,
              group=int(a.get("group", 1)), pads=begin + end)
    if any(extra):
        kw["output_padding"] = extra
    return op.node("ConvTranspose", [op.input(0), op.input(1)], **kw)


@converter("AdaptiveAvgPool2D", "AdaptiveMaxPool2D")
def _adaptive_pool(op):
    """Exported when it is a plain pooling: output (1, 1) (global) or an input size that the
    output size divides (kernel = stride = in / out)."""
    size_in = op.shape(0)[-2:]
    out = op.out[0] if isinstance(op.out, tuple) else op.out
    size_out = list(out.shape[-2:])
    if any(d < 0 for d in size_in) or any(i % o for i, o in zip(size_in, size_out)):
        op.fail(f"input size {list(size_in)} is not a multiple of the output size {size_out}")
    k = [i // o for i, o in zip(size_in, size_out)]
    is_max = op.name == "AdaptiveMaxPool2D"
    y = op.node("MaxPool" if is_max else "AveragePool", [op.input(0)], kernel_shape=k,
                strides=k)
    return (y, None) if isinstance(op.out, tuple) else y     # no argmax output


@converter("MaxPool", "AvgPool")
def _pool(op):
    a = op.attrs
    if a.get("data_format", "NCHW") != "NCHW":
        op.fail("only data_format='NCHW' can be exported")
    kw = dict(kernel_shape=_hw(a["kernel_size"]), strides=_hw(a.get("strides", 1)))
    if str(a.get("pad_mode", "VALID")).upper() == "SAME":
        kw["auto_pad"] = "SAME_UPPER"
    onnx_op = "MaxPool" if op.name == "MaxPool" else "AveragePool"
    return op.node(onnx_op, [op.input(0)], **kw)


@converter("BatchNorm")
def _batch_norm(op):
    a = op.attrs
    if a.get("is_training"):
        op.fail("BatchNorm in training mode cannot be exported; call net.set_train(False)")
    if a.get("data_format", "NCHW") != "NCHW":
        op.fail("only data_format='NCHW' can be exported")
    y = op.node("BatchNormalization", [op.input(i) for i in range(5)],
                epsilon=float(a.get("epsilon", 1e-5)))
    return (y, None, None, None, None)


@converter("LayerNorm")
def _layer_norm(op):
    """Decomposed (ONNX LayerNormalization needs opset 17): outputs y, mean, variance."""
    a = op.attrs
    rank = op.rank(0)
    begin = a.get("begin_norm_axis", 1) % rank
    axes = list(range(begin, rank))
    t = op.out[0].dtype.np
    x, gamma, beta = op.input(0), op.input(1), op.input(2)

    def mean(v):
        if op.em.opset >= 18:
            return op.node("ReduceMean", [v, op.em.ints(axes)], keepdims=1)
        return op.node("ReduceMean", [v], axes=axes, keepdims=1)
    mu = mean(x)
    d = op.node("Sub", [x, mu])
    var = mean(op.node("Mul", [d, d]))
    std = op.node("Sqrt", [op.node("Add", [var, op.em.const(a.get("epsilon", 1e-7), t)])])
    y = op.node("Add", [op.node("Mul", [op.node("Div", [d, std]), gamma]), beta])
    return (y, mu, var)


@converter("Dropout")
def _dropout(op):
    """Inference: the identity (MindSpore's mask output has no ONNX inference form)."""
    return (op.node("Identity", [op.input(0)]), None)
