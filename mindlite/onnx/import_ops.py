"""ONNX importers of math and nn ops (elementwise, activations, reductions, Gemm/MatMul,
Conv, pooling, normalization, If), registered by op type with importer.importer: each gets
an importer.Ctx and returns its outputs as values; shape and indexing ops are in
import_ops_array.py.
"""
import math

import numpy as np

from ..common import dtype as mstype
from ..ops import operations as P
from .import_ctx import Const, importer, ms_type

UNARY = {"Relu": P.ReLU, "Sigmoid": P.Sigmoid, "Tanh": P.Tanh, "Sqrt": P.Sqrt, "Exp": P.Exp,
         "Log": P.Log, "Neg": P.Neg, "Abs": P.Abs, "Erf": P.Erf, "Floor": P.Floor,
         "Ceil": P.Ceil, "Sin": P.Sin, "Cos": P.Cos, "Reciprocal": P.Reciprocal,
         "Softplus": P.Softplus, "Not": P.LogicalNot, "Sign": P.Sign, "Round": P.Round,
         "Softsign": P.Softsign, "Mish": P.Mish}
BINARY = {"Add": P.Add, "Sub": P.Sub, "Mul": P.Mul, "Pow": P.Pow, "Less": P.Less,
          "Greater": P.Greater, "Equal": P.Equal, "LessOrEqual": P.LessEqual,
          "GreaterOrEqual": P.GreaterEqual, "And": P.LogicalAnd, "Or": P.LogicalOr}
VARIADIC = {"Max": P.Maximum, "Min": P.Minimum, "Sum": P.Add}
REDUCE = {"ReduceSum": P.ReduceSum, "ReduceMean": P.ReduceMean, "ReduceMax": P.ReduceMax,
          "ReduceMin": P.ReduceMin, "ReduceProd": P.ReduceProd}


def scalar(ctx, value, like):
    """A 0-d constant of `like`'s dtype (keeps mindlite's promotion out of the way)."""
    return Const(np.asarray(value, ctx.abstract(like).dtype.np))


@importer(*UNARY)
def _unary(ctx):
    return ctx.call(UNARY[ctx.node.op_type](), ctx.t(0))


@importer("Identity", "Dropout")
def _identity(ctx):
    if ctx.node.op_type == "Dropout" and ctx.has(2):
        training = ctx.c(2)
        if training is not None and bool(training):
            ctx.fail("training_mode=True is not supported (inference only)")
    return [ctx.t(0), None]


@importer(*BINARY)
def _binary(ctx):
    return ctx.call(BINARY[ctx.node.op_type](), ctx.t(0), ctx.t(1))


@importer("Xor")
def _xor(ctx):
    return ctx.call(P.NotEqual(), ctx.t(0), ctx.t(1))


@importer("Div")
def _div(ctx):
    a, b = ctx.t(0), ctx.t(1)
    out = ctx.call(P.Div(), a, b)
    t = ctx.abstract(a).dtype
    if t.is_int:                        # ONNX integer Div truncates toward zero
        out = ctx.call(P.Cast(), out, t)
    return out


@importer("Mod")
def _mod(ctx):
    prim = P.Mod if ctx.attr("fmod", 0) else P.FloorMod
    a, b = ctx.t(0), ctx.t(1)
    if prim is P.FloorMod and ctx.abstract(a).dtype.is_float:
        ctx.fail("fmod=0 is defined for integers only")
    return ctx.call(prim(), a, b)


@importer(*VARIADIC, "Mean")
def _variadic(ctx):
    prim = VARIADIC.get(ctx.node.op_type, P.Add)
    out = ctx.t(0)
    for i in range(1, ctx.n_inputs):
        out = ctx.call(prim(), out, ctx.t(i))
    if ctx.node.op_type == "Mean":
        out = ctx.call(P.Div(), out, scalar(ctx, ctx.n_inputs, out))
    return out


@importer("Where")
def _where(ctx):
    c, x, y = ctx.t(0), ctx.t(1), ctx.t(2)
    shape = tuple(np.broadcast_shapes(*(ctx.shape(v) for v in (c, x, y))))
    vals = [v if ctx.shape(v) == shape else ctx.call(P.BroadcastTo(shape), v)
            for v in (c, x, y)]
    return ctx.call(P.Select(), *vals)


@importer("Cast")
def _cast(ctx):
    return ctx.call(P.Cast(), ctx.t(0), ms_type(ctx.attr("to")))


@importer("Clip")
def _clip(ctx):
    x = ctx.t(0)
    if ctx.has(1):
        x = ctx.call(P.Maximum(), x, ctx.t(1))
    if ctx.has(2):
        x = ctx.call(P.Minimum(), x, ctx.t(2))
    return x


@importer("Softmax", "LogSoftmax")
def _softmax(ctx):
    prim = P.Softmax if ctx.node.op_type == "Softmax" else P.LogSoftmax
    return ctx.call(prim(axis=int(ctx.attr("axis", -1))), ctx.t(0))


@importer("LeakyRelu")
def _leaky(ctx):
    return ctx.call(P.LeakyReLU(alpha=float(ctx.attr("alpha", 0.01))), ctx.t(0))


@importer("Elu")
def _elu(ctx):
    return ctx.call(P.Elu(alpha=float(ctx.attr("alpha", 1.0))), ctx.t(0))


@importer("HardSigmoid", "HardSwish")
def _hard_sigmoid(ctx):
    x = ctx.t(0)
    alpha, beta = float(ctx.attr("alpha", 0.2)), float(ctx.attr("beta", 0.5))
    if ctx.node.op_type == "HardSwish" or (abs(alpha - 1 / 6) < 1e-7 and beta == 0.5):
        y = ctx.call(P.HSigmoid(), x)
    else:
        y = ctx.call(P.Add(), ctx.call(P.Mul(), x, scalar(ctx, alpha, x)), scalar(ctx, beta, x))
        y = ctx.call(P.Minimum(), ctx.call(P.Maximum(), y, scalar(ctx, 0, x)), scalar(ctx, 1, x))
    return ctx.call(P.Mul(), x, y) if ctx.node.op_type == "HardSwish" else y


@importer("Gelu")
def _gelu(ctx):
    x = ctx.t(0)
    if ctx.attr("approximate", "none") == "tanh":
        return ctx.call(P.GeLU(), x)           # MindSpore's GeLU is the tanh form
    e = ctx.call(P.Erf(), ctx.call(P.Mul(), x, scalar(ctx, 1 / math.sqrt(2), x)))
    half = ctx.call(P.Mul(), x, scalar(ctx, 0.5, x))
    return ctx.call(P.Mul(), half, ctx.call(P.Add(), e, scalar(ctx, 1.0, x)))


def reduce_axes(ctx):
    """The axes of a Reduce* node: attribute (older opsets) or input 1 (ReduceSum from 13,
    the others from 18); None = every axis, () = none (noop_with_empty_axes)."""
    axes = ctx.attr("axes")
    if axes is None and ctx.has(1):
        axes = [int(a) for a in ctx.c(1).reshape(-1)]
    if not axes:
        return () if ctx.attr("noop_with_empty_axes", 0) else None
    return tuple(int(a) for a in axes)


@importer(*REDUCE)
def _reduce(ctx):
    x = ctx.t(0)
    axes = reduce_axes(ctx)
    if axes == ():
        return x
    keep = bool(ctx.attr("keepdims", 1))
    rank = len(ctx.shape(x))
    axes = tuple(range(rank)) if axes is None else tuple(a % rank for a in axes)
    return ctx.call(REDUCE[ctx.node.op_type](keep_dims=keep), x, axes)


@importer("ArgMax", "ArgMin")
def _arg(ctx):
    if ctx.attr("select_last_index", 0):
        ctx.fail("select_last_index=1 is not supported")
    prim = P.Argmax if ctx.node.op_type == "ArgMax" else P.Argmin
    axis = int(ctx.attr("axis", 0))
    out = ctx.call(prim(axis=axis, output_type=mstype.int64), ctx.t(0))
    if ctx.attr("keepdims", 1):
        out = ctx.call(P.ExpandDims(), out, axis % len(ctx.shape(ctx.t(0))))
    return out


def matmul(ctx, a, b, ta=False, tb=False):
    ra, rb = len(ctx.shape(a)), len(ctx.shape(b))
    if ra == 2 and rb == 2:
        return ctx.call(P.MatMul(transpose_a=ta, transpose_b=tb), a, b)
    if ra < 2 or rb < 2:
        ctx.fail("MatMul of 1-D tensors is not supported")
    return ctx.call(P.BatchMatMul(transpose_a=ta, transpose_b=tb), a, b)


@importer("MatMul")
def _matmul(ctx):
    return matmul(ctx, ctx.t(0), ctx.t(1))


@importer("Gemm")
def _gemm(ctx):
    a, b = ctx.t(0), ctx.t(1)
    y = matmul(ctx, a, b, bool(ctx.attr("transA", 0)), bool(ctx.attr("transB", 0)))
    alpha, beta = float(ctx.attr("alpha", 1.0)), float(ctx.attr("beta", 1.0))
    if alpha != 1.0:
        y = ctx.call(P.Mul(), y, scalar(ctx, alpha, y))
    if ctx.has(2) and beta != 0.0:
        c = ctx.t(2)
        if beta != 1.0:
            c = ctx.call(P.Mul(), c, scalar(ctx, beta, c))
        if len(ctx.shape(c)) == 1:
            y = ctx.call(P.BiasAdd(), y, c)
        else:
            y = ctx.call(P.Add(), y, c)
    return y


def _pads2d(ctx, n=2):
    pads = list(ctx.attr("pads", [0] * (2 * n)))
    auto = ctx.attr("auto_pad", "NOTSET")
    return pads, auto


@importer("Conv")
def _conv(ctx):
    x, w = ctx.t(0), ctx.t(1)
    wshape = ctx.shape(w)
    if len(wshape) != 4:
        ctx.fail(f"only 2-D convolutions are supported (weight shape {wshape})")
    pads, auto = _pads2d(ctx)
    kw = dict(kernel_size=tuple(ctx.attr("kernel_shape", wshape[2:])),
              stride=tuple(ctx.attr("strides", [1, 1])),
              dilation=tuple(ctx.attr("dilations", [1, 1])), group=int(ctx.attr("group", 1)))
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        if auto == "SAME_LOWER":
            ctx.fail("auto_pad=SAME_LOWER is not supported")
        kw["pad_mode"] = "same"
    elif auto == "VALID" or not any(pads):
        kw["pad_mode"] = "valid"
    else:
        kw.update(pad_mode="pad", pad=(pads[0], pads[2], pads[1], pads[3]))
    y = ctx.call(P.Conv2D(out_channel=wshape[0], **kw), x, w)
    if ctx.has(2):
        y = ctx.call(P.BiasAdd(), y, ctx.t(2))
    return y


@importer("ConvTranspose")
def _conv_transpose(ctx):
    """Conv2DBackpropInput to the full output, then the crop (pads) and the extra rows
    (output_padding) ONNX asks for, as nn.Conv2dTranspose does."""
    x, w = ctx.t(0), ctx.t(1)
    wshape, xshape = ctx.shape(w), ctx.shape(x)
    if len(wshape) != 4 or any(d < 0 for d in xshape):
        ctx.fail("only 2-D transposed convolutions of static shape are supported")
    if ctx.attr("auto_pad", "NOTSET") != "NOTSET" or ctx.attr("output_shape") is not None:
        ctx.fail("auto_pad / output_shape are not supported; give pads")
    group = int(ctx.attr("group", 1))
    kernel = list(ctx.attr("kernel_shape", wshape[2:]))
    stride, dil = list(ctx.attr("strides", [1, 1])), list(ctx.attr("dilations", [1, 1]))
    pads = list(ctx.attr("pads", [0, 0, 0, 0]))
    extra = list(ctx.attr("output_padding", [0, 0]))
    natural = [stride[i] * (xshape[2 + i] - 1) + dil[i] * (kernel[i] - 1) + 1 for i in range(2)]
    full = (xshape[0], wshape[1] * group, natural[0], natural[1])
    prim = P.Conv2DBackpropInput(out_channel=wshape[0], kernel_size=tuple(kernel),
                                 pad_mode="pad", pad=(0, 0, 0, 0), stride=tuple(stride),
                                 dilation=tuple(dil), group=group)
    y = ctx.call(prim, x, w, full)
    size = [natural[i] - pads[i] - pads[i + 2] + extra[i] for i in range(2)]
    keep = [min(size[i], natural[i] - pads[i]) for i in range(2)]
    if keep != natural or pads[:2] != [0, 0]:
        y = ctx.call(P.Slice(), y, (0, 0, pads[0], pads[1]), (full[0], full[1], *keep))
    grow = [size[i] - keep[i] for i in range(2)]
    if any(grow):
        y = ctx.call(P.PadV3(mode="constant"), y, (0, grow[1], 0, grow[0]), 0)
    if ctx.has(2):
        y = ctx.call(P.BiasAdd(), y, ctx.t(2))
    return y


@importer("MaxPool", "AveragePool")
def _pool(ctx):
    x = ctx.t(0)
    if len(ctx.shape(x)) != 4:
        ctx.fail("only 2-D pooling (NCHW input) is supported")
    if ctx.attr("ceil_mode", 0) or any(d != 1 for d in ctx.attr("dilations", [1, 1])):
        ctx.fail("ceil_mode and dilations are not supported")
    kernel = tuple(ctx.attr("kernel_shape"))
    strides = tuple(ctx.attr("strides", [1, 1]))
    pads, auto = _pads2d(ctx)
    is_max = ctx.node.op_type == "MaxPool"
    mode = "valid"
    if auto == "SAME_UPPER":
        mode = "same"
        if not is_max and ctx.attr("count_include_pad", 0):
            ctx.fail("count_include_pad=1 with SAME padding is not supported")
    elif auto not in ("NOTSET", "VALID"):
        ctx.fail(f"auto_pad={auto} is not supported")
    elif any(pads):
        if not is_max and not ctx.attr("count_include_pad", 0):
            # the average over the window's cells inside the input: AvgPool2D's, which pads
            # the same on both sides of an axis by at most half the kernel
            if pads[0] != pads[2] or pads[1] != pads[3] or pads[0] > kernel[0] // 2 or \
                    pads[1] > kernel[1] // 2:
                ctx.fail("count_include_pad=0 needs equal pads on both sides of an axis, at "
                         "most half the kernel")
            prim = P.AvgPool2D(kernel, strides, (pads[0], pads[1]), count_include_pad=False)
            return [ctx.call(prim, x), None]
        fill = -np.inf if is_max else 0
        paddings = (pads[1], pads[3], pads[0], pads[2])
        x = ctx.call(P.PadV3(mode="constant"), x, paddings, fill)
    prim = P.MaxPool if is_max else P.AvgPool
    return [ctx.call(prim(kernel_size=kernel, strides=strides, pad_mode=mode), x), None]


@importer("GlobalAveragePool", "GlobalMaxPool")
def _global_pool(ctx):
    x = ctx.t(0)
    axes = tuple(range(2, len(ctx.shape(x))))
    prim = P.ReduceMean if ctx.node.op_type == "GlobalAveragePool" else P.ReduceMax
    return ctx.call(prim(keep_dims=True), x, axes)


@importer("BatchNormalization")
def _batch_norm(ctx):
    if ctx.attr("training_mode", 0):
        ctx.fail("training_mode=1 is not supported (inference only)")
    x = ctx.t(0)
    if len(ctx.shape(x)) not in (2, 4):
        ctx.fail("only 2-D and 4-D inputs are supported")
    prim = P.BatchNorm(is_training=False, epsilon=float(ctx.attr("epsilon", 1e-5)))
    return [ctx.call(prim, x, *(ctx.t(i) for i in range(1, 5)))[0], None, None]


@importer("LayerNormalization")
def _layer_norm(ctx):
    x = ctx.t(0)
    rank = len(ctx.shape(x))
    axis = int(ctx.attr("axis", -1)) % rank
    gamma = ctx.t(1)
    beta = ctx.t(2) if ctx.has(2) else scalar(ctx, np.zeros(ctx.shape(gamma)), gamma)
    prim = P.LayerNorm(begin_norm_axis=axis, begin_params_axis=axis,
                       epsilon=float(ctx.attr("epsilon", 1e-5)))
    return [ctx.call(prim, x, gamma, beta)[0], None, None]


@importer("If")
def _if(ctx):
    cond = ctx.t(0)
    if ctx.abstract(cond).size != 1:
        ctx.fail("the condition must hold one element")
    return ctx.imp.if_node(ctx.scope, cond, ctx.attr("then_branch"), ctx.attr("else_branch"))
