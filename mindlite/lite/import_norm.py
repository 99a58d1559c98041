"""The Lite runtime's import rules for the normalizations: FusedBatchNorm, BatchNorm,
LayerNormFusion, InstanceNorm, ScaleFusion (rule interface: import_common.py); IMPORT is
merged into import_nn.py's, which ops_map.py reads. A 4-D op in NHWC (import_common.nhwc)
takes its per-channel parameters on the last axis.
"""
import numpy as np

from ..ops import operations as P
from .import_common import activate, axis_of, nhwc, rank


# ---- normalization --------------------------------------------------------------------------
def _channel_params(b, node, x, layout, count):
    """Inputs 1..count as (C,) vectors, reshaped to broadcast over x's channel axis."""
    r = rank(x)
    shape = [1] * r
    channel = r - 1 if layout or r < 3 else 1
    shape[channel] = -1
    out = []
    for i in range(1, count + 1):
        v = b.const(i)
        if v is None:
            out.append(b.emit(P.Reshape(), b.input(i), tuple(shape)))
        else:
            out.append(b.new_const(np.ascontiguousarray(np.reshape(v, shape)),
                                   f"{b.node.name}_p{i}"))
    return out


def _imp_batch_norm(fused):
    def rule(b, node):
        """y = (x - mean) / sqrt(var + eps) * scale + bias over the channel axis: the last
        (nnacl's BatchNorm kernels), or axis 1 of a 4-D NCHW tensor (mindlite's own files
        before NHWC; their 5-output FusedBatchNorm runs as mindlite's BatchNorm)."""
        n_in = 5 if fused else 3
        if len(node.inputs) != n_in or len(node.outputs) not in ((1, 5) if fused else (1,)):
            b.fail(f"{node.op_type} needs {n_in} inputs and 1 output")
        x = b.input(0)
        layout = rank(x) != 4 or nhwc(b, node)
        eps = float(node.attrs.get("epsilon", 1e-5))
        if len(node.outputs) == 5:
            if layout:
                b.fail("a 5-output FusedBatchNorm must be NCHW")
            out = b.emit(P.BatchNorm(False, eps, node.attrs["momentum"]),
                         *[b.input(i) for i in range(5)])
            return [b.item(out, i) for i in range(5)]
        if fused:
            scale, bias, mean, var = _channel_params(b, node, x, layout, 4)
        else:
            mean, var = _channel_params(b, node, x, layout, 2)
            scale = bias = None
        inv = b.emit(P.Rsqrt(), b.emit(P.Add(), var, eps))
        y = b.emit(P.Mul(), b.emit(P.Sub(), x, mean), inv)
        if scale is not None:
            y = b.emit(P.Add(), b.emit(P.Mul(), y, scale), bias)
        return [y]
    return rule


def _imp_layer_norm(b, node):
    a = node.attrs
    x = b.input(0)
    if len(node.outputs) != 1 or len(node.inputs) not in (1, 3):
        b.fail(f"LayerNormFusion takes 1 or 3 inputs and gives 1 output, but has "
               f"{len(node.inputs)} and {len(node.outputs)}")
    bna = axis_of(b, a["begin_norm_axis"], x)
    eps = float(a["epsilon"])
    if len(node.inputs) == 3:
        prim = P.LayerNorm(begin_norm_axis=bna, begin_params_axis=axis_of(
            b, a["begin_params_axis"], x), epsilon=eps)
        return [b.item(b.emit(prim, x, b.input(1), b.input(2)), 0)]
    axes = tuple(range(bna, rank(x)))
    mean = b.emit(P.ReduceMean(keep_dims=True), x, axes)
    d = b.emit(P.Sub(), x, mean)
    var = b.emit(P.ReduceMean(keep_dims=True), b.emit(P.Square(), d), axes)
    return [b.emit(P.Mul(), d, b.emit(P.Rsqrt(), b.emit(P.Add(), var, eps)))]


def _imp_instance_norm(b, node):
    x = b.input(0)
    if rank(x) != 4 or len(node.inputs) != 3:
        b.fail("InstanceNorm needs a 4-D input, scale and bias")
    layout = nhwc(b, node)
    axes = (1, 2) if layout else (2, 3)
    eps = float(node.attrs["epsilon"])
    mean = b.emit(P.ReduceMean(keep_dims=True), x, axes)
    d = b.emit(P.Sub(), x, mean)
    var = b.emit(P.ReduceMean(keep_dims=True), b.emit(P.Square(), d), axes)
    scale, bias = _channel_params(b, node, x, layout, 2)
    y = b.emit(P.Mul(), d, b.emit(P.Rsqrt(), b.emit(P.Add(), var, eps)))
    return [b.emit(P.Add(), b.emit(P.Mul(), y, scale), bias)]


def _imp_scale(b, node):
    """ScaleFusion: y = x * scale (+ bias), scale's axes starting at `axis` of x."""
    x = b.input(0)
    axis = axis_of(b, node.attrs["axis"], x)
    r = rank(x)
    outs = []
    for i in range(1, len(node.inputs)):
        p = b.input(i)
        n = rank(p)
        if axis + n > r:
            b.fail(f"input {i} of shape {list(p.abstract.shape)} does not fit x of shape "
                   f"{list(x.abstract.shape)} at axis {axis}")
        outs.append(b.emit(P.Reshape(), p, tuple(p.abstract.shape) + (1,) * (r - axis - n))
                    if axis + n < r else p)
    y = b.emit(P.Mul(), x, outs[0])
    if len(outs) > 1:
        y = b.emit(P.Add(), y, outs[1])
    return [activate(b, node, y)]


IMPORT = {
    "FusedBatchNorm": _imp_batch_norm(True), "BatchNorm": _imp_batch_norm(False),
    "LayerNormFusion": _imp_layer_norm, "InstanceNorm": _imp_instance_norm,
    "ScaleFusion": _imp_scale,
}
