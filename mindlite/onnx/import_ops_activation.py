"""More ONNX importers (registered with importer.importer like import_ops*.py): PRelu, Selu,
Celu, IsNaN, IsInf, Einsum, GatherElements, OneHot, Trilu, ReduceL1 / ReduceL2 /
ReduceSumSquare / ReduceLogSumExp, InstanceNormalization (decomposed into reductions), and
nodes of the "ai.mindlite.custom" domain: `ops.Custom(None, type=op_type, attrs=...)` with
the output shapes and dtypes of the file's value_info, running the kernels registered for
the type (register_kernel(type, custom=True)), as MindSpore Lite runs a Custom node.
"""
import numpy as np

from ..common import dtype as mstype
from ..ops import operations as P
from .import_ops import reduce_axes, scalar
from ._lib import CUSTOM_DOMAIN
from .import_ctx import Const, importer, ms_type

SELU_ALPHA, SELU_GAMMA = 1.67326319217681884765625, 1.05070102214813232421875


@importer("PRelu")
def _prelu(ctx):
    """mindlite's PReLU weight is per channel (axis 1) or one value: a (C, 1, 1) slope
    (torch's export) is reshaped to (C,); other broadcasts are written out."""
    x, w = ctx.t(0), ctx.t(1)
    xs, ws = ctx.shape(x), ctx.shape(w)
    size = int(np.prod(ws)) if ws else 1
    channel = xs[1] if len(xs) > 1 else None
    if size == 1 or (size == channel and len(ws) <= len(xs) - 1 and ws[0] == channel):
        w = ctx.call(P.Reshape(), w, (size,))
        return ctx.call(P.PReLU(), x, w)
    neg = ctx.call(P.Mul(), ctx.call(P.Minimum(), x, scalar(ctx, 0, x)), w)
    return ctx.call(P.Add(), ctx.call(P.ReLU(), x), neg)


@importer("Selu")
def _selu(ctx):
    x = ctx.t(0)
    alpha, gamma = float(ctx.attr("alpha", SELU_ALPHA)), float(ctx.attr("gamma", SELU_GAMMA))
    if abs(alpha - SELU_ALPHA) < 1e-6 and abs(gamma - SELU_GAMMA) < 1e-6:
        return ctx.call(P.SeLU(), x)
    elu = ctx.call(P.Elu(alpha=1.0), x)            # gamma * (x > 0 ? x : alpha (e^x - 1))
    neg = ctx.call(P.Mul(), ctx.call(P.Minimum(), elu, scalar(ctx, 0, x)), scalar(ctx, alpha, x))
    out = ctx.call(P.Add(), ctx.call(P.ReLU(), x), neg)
    return ctx.call(P.Mul(), out, scalar(ctx, gamma, x))


@importer("Celu")
def _celu(ctx):
    return ctx.call(P.CeLU(alpha=float(ctx.attr("alpha", 1.0))), ctx.t(0))


@importer("IsNaN")
def _isnan(ctx):
    return ctx.call(P.IsNan(), ctx.t(0))


@importer("IsInf")
def _isinf(ctx):
    if not (ctx.attr("detect_positive", 1) and ctx.attr("detect_negative", 1)):
        ctx.fail("detect_positive / detect_negative = 0 are not supported")
    return ctx.call(P.IsInf(), ctx.t(0))


@importer("Einsum")
def _einsum(ctx):
    parts = tuple(ctx.t(i) for i in range(ctx.n_inputs))
    return ctx.call(P.Einsum(equation=ctx.attr("equation").replace(" ", "")), parts)


@importer("GatherElements")
def _gather_elements(ctx):
    x, idx = ctx.t(0), ctx.t(1)
    axis = int(ctx.attr("axis", 0)) % len(ctx.shape(x))
    if isinstance(idx, Const):
        idx = Const(np.where(idx.array < 0, idx.array + ctx.shape(x)[axis], idx.array))
    return ctx.call(P.GatherD(), x, axis, idx)


@importer("OneHot")
def _one_hot(ctx):
    depth = int(np.asarray(ctx.c(1)).reshape(-1)[0])
    values = ctx.c(2)
    if values is None or values.size != 2:
        ctx.fail("values must be a constant [off, on]")
    idx = ctx.t(0)
    if ctx.abstract(idx).dtype.kind == "f":     # float indices: truncated (onnxruntime)
        idx = Const(idx.array.astype(np.int64)) if isinstance(idx, Const) else \
            ctx.call(P.Cast(), idx, mstype.int64)
    if isinstance(idx, Const):
        idx = Const(np.where(idx.array < 0, idx.array + depth, idx.array))
    else:          # an index in [-depth, -1] counts from the end (ONNX), known at run time
        neg = ctx.call(P.Less(), idx, scalar(ctx, 0, idx))
        idx = ctx.call(P.Select(), neg, ctx.call(P.Add(), idx, scalar(ctx, depth, idx)), idx)
    off, on = Const(values.reshape(-1)[0]), Const(values.reshape(-1)[1])
    return ctx.call(P.OneHot(axis=int(ctx.attr("axis", -1))), idx, depth, on, off)


@importer("Trilu")
def _trilu(ctx):
    k = int(ctx.c(1).reshape(-1)[0]) if ctx.has(1) else 0
    prim = P.Triu if ctx.attr("upper", 1) else P.Tril
    return ctx.call(prim(diagonal=k), ctx.t(0))


def _reduce_frame(ctx):
    x = ctx.t(0)
    rank = len(ctx.shape(x))
    axes = reduce_axes(ctx)
    axes = tuple(range(rank)) if axes is None else tuple(a % rank for a in axes)
    return x, axes, bool(ctx.attr("keepdims", 1))


@importer("ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSumExp")
def _reduce_more(ctx):
    x, axes, keep = _reduce_frame(ctx)
    kind = ctx.node.op_type
    if not axes:
        ctx.fail("noop_with_empty_axes is not supported here")
    if kind == "ReduceLogSumExp":           # max + log(sum(exp(x - max))), stable
        m = ctx.call(P.ReduceMax(keep_dims=True), x, axes)
        s = ctx.call(P.ReduceSum(keep_dims=keep), ctx.call(P.Exp(), ctx.call(P.Sub(), x, m)),
                     axes)
        m = m if keep else ctx.call(P.Squeeze(axis=axes), m)
        return ctx.call(P.Add(), ctx.call(P.Log(), s), m)
    v = ctx.call(P.Abs(), x) if kind == "ReduceL1" else ctx.call(P.Mul(), x, x)
    s = ctx.call(P.ReduceSum(keep_dims=keep), v, axes)
    return ctx.call(P.Sqrt(), s) if kind == "ReduceL2" else s


@importer("InstanceNormalization")
def _instance_norm(ctx):
    """(x - mean) / sqrt(var + eps) * scale + bias over the spatial axes, per channel."""
    x, scale, bias = ctx.t(0), ctx.t(1), ctx.t(2)
    rank = len(ctx.shape(x))
    axes = tuple(range(2, rank))
    eps = float(ctx.attr("epsilon", 1e-5))
    mean = ctx.call(P.ReduceMean(keep_dims=True), x, axes)
    d = ctx.call(P.Sub(), x, mean)
    var = ctx.call(P.ReduceMean(keep_dims=True), ctx.call(P.Mul(), d, d), axes)
    y = ctx.call(P.Div(), d, ctx.call(P.Sqrt(), ctx.call(P.Add(), var, scalar(ctx, eps, x))))
    shape = (ctx.shape(scale)[0],) + (1,) * (rank - 2)
    y = ctx.call(P.Mul(), y, ctx.call(P.Reshape(), scale, shape))
    return ctx.call(P.Add(), y, ctx.call(P.Reshape(), bias, shape))


@importer(CUSTOM_DOMAIN)
def _custom(ctx):
    from ..ops.operations.custom_ops import Custom
    shapes, dtypes = [], []
    for name in ctx.node.output:
        vi = ctx.imp.value_info(name)
        tt = vi.type.tensor_type if vi is not None else None
        if tt is None or not tt.HasField("shape"):
            ctx.fail(f"custom op output '{name}' has no shape and dtype in the file's "
                     f"value_info")
        dims = tuple(d.dim_value if d.HasField("dim_value") else -1 for d in tt.shape.dim)
        if any(d < 0 for d in dims):
            ctx.fail(f"custom op output '{name}' has a dynamic shape")
        shapes.append(dims)
        dtypes.append(ms_type(tt.elem_type))
    attrs = {a.name: a.s for a in ctx.node.attribute if a.type == a.STRING}
    if len(attrs) != len(ctx.node.attribute):
        ctx.fail("custom op attributes must be byte strings")
    one = len(shapes) == 1
    prim = Custom(None, out_shape=shapes[0] if one else shapes,
                  out_dtype=dtypes[0] if one else dtypes, type=ctx.node.op_type,
                  attrs=attrs or None)
    out = ctx.call(prim, *(ctx.t(i) for i in range(ctx.n_inputs)))
    return [out] if one else list(out)
