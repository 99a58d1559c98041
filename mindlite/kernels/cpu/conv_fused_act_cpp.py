"""Kernels of FusedConvAct (ops/operations/conv_fused_ops.py), the node graph mode's
conv_act_fusion pass (jit/passes/fuse_conv_act.py) makes of Conv2D -> BiasAdd -> Add -> ReLU /
ReLU6 chains whose Conv2D eager runs through the convolution engine or the depthwise kernel.

cpp: `_C.conv_forward_fused` (csrc/bind/conv_engine_bind.cc): the engine's GEMM (or the
depthwise loops) with the bias, the residual and the activation applied as each output value
is written, in the order the unfused kernels apply them (conv value + bias, + residual, then
ReLU / ReLU6 with their NaN and -0 rules), so the result is bit for bit what eager's Conv2D,
BiasAdd, Add and ReLU give; one pass over the output instead of four.

numpy (the reference): the Conv2D kernel eager selects, then the bias, the residual and the
activation in numpy.
"""
import numpy as np

from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C
from .conv_fused_cpp import _launch

FLOATS = (mstype.float32, mstype.float64)


CLIP = 5


def _split(arrays, has_bias, has_residual, act):
    x, w, *rest = arrays
    out = rest.pop()
    bounds = rest[-2:] if act == CLIP else None
    if bounds is not None:
        rest = rest[:-2]
    bias = rest[0] if has_bias else None
    residual = rest[-1] if has_residual else None
    return x, w, bias, residual, bounds, out


def _clip(out, bounds):
    np.maximum(out, bounds[0], out=out)
    np.minimum(out, bounds[1], out=out)


@register_kernel("FusedConvAct", provider="cpp", dtypes=FLOATS)
def fused_conv_act_cpp(*arrays, stride, dilation, pads, group, act, has_bias, has_residual):
    x, w, bias, residual, bounds, out = _split(arrays, has_bias, has_residual, act)
    if bounds is not None and not (float(bounds[0]) == 0 and float(bounds[1]) == 6):
        # other bounds (read at run time, as the unfused graph reads them): no kernel form
        _C.conv_forward_fused(x, w, bias, residual, out, stride, dilation, pads, group, 0)
        return _clip(out, bounds)
    _C.conv_forward_fused(x, w, bias, residual, out, stride, dilation, pads, group, act)


@register_kernel("FusedConvAct", provider="numpy")
def fused_conv_act_numpy(*arrays, stride, dilation, pads, group, act, has_bias, has_residual):
    x, w, bias, residual, bounds, out = _split(arrays, has_bias, has_residual, act)
    params = {"stride": tuple(stride), "dilation": tuple(dilation), "pads": tuple(pads),
              "group": group}
    _launch("Conv2D", (x, w), params)(x, w, out)
    if bias is not None:
        np.add(out, bias.reshape(-1, 1, 1), out=out)
    if residual is not None:
        np.add(out, residual, out=out)
    if bounds is not None:
        _clip(out, bounds)
    elif act:                                 # 1 ReLU, 2 ReLU6
        np.maximum(out, 0, out=out)
        if act == 2:
            np.minimum(out, 6, out=out)
