"""Kernels of FusedInvertedResidual (ops/operations/inverted_residual_ops.py), the node the
Lite runtime's inverted_residual_fusion pass (jit/passes/fuse_inverted_residual.py) makes of
MobileNetV2's expand 1x1 -> depthwise -> project 1x1 FusedConvAct chains.

cpp: `_C.inverted_residual_forward` (csrc/bind/inverted_residual_bind.cc): the block over
bands of output rows, the expanded and depthwise bands in per-thread buffers (L2), each step
the unfused kernels' own loop on the band, so the result is bit for bit what the three
FusedConvAct kernels give; for a geometry whose unfused kernels it does not mirror it declines
and the three FusedConvAct kernels run one by one (the fallback, also the reference).

numpy (the reference): the three FusedConvAct numpy kernels in turn.
"""
import numpy as np

from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C
from .conv_fused_act_cpp import fused_conv_act_cpp, fused_conv_act_numpy

FLOATS = (mstype.float32, mstype.float64)
_ONE = {"stride": (1, 1), "dilation": (1, 1), "pads": (0, 0, 0, 0), "group": 1}


def _operands(arrays, has_biases, has_residual, expand):
    """x, [(w, bias or None)] * 3 ((None, None) first without expansion), residual or None,
    out."""
    x, *rest = arrays
    out = rest.pop()
    stages = [] if expand else [(None, None)]
    for has in has_biases[0 if expand else 1:]:
        w = rest.pop(0)
        stages.append((w, rest.pop(0) if has else None))
    return x, stages, rest[0] if has_residual else None, out


def _one_by_one(conv, arrays, stride, dilation, pads, acts, has_biases, has_residual, expand):
    """The three (two without expansion) FusedConvAct kernels `conv` (cpp or numpy) in turn."""
    x, stages, residual, out = _operands(arrays, has_biases, has_residual, expand)
    e = stages[1][0].shape[0]
    n, _, h, w = x.shape
    mid = np.empty((n, e, h, w), x.dtype) if expand else x
    dw = np.empty((n, e) + out.shape[2:], x.dtype)
    geoms = (_ONE, {"stride": stride, "dilation": dilation, "pads": pads, "group": e}, _ONE)
    for (wt, b), src, dst, geo, act, res in zip(stages, (x, mid, dw), (mid, dw, out), geoms,
                                                acts, (None, None, residual)):
        if wt is None:                       # no expansion
            continue
        inputs = [src, wt] + [a for a in (b, res) if a is not None] + [dst]
        conv(*inputs, **geo, act=act, has_bias=b is not None, has_residual=res is not None)


@register_kernel("FusedInvertedResidual", provider="cpp", dtypes=FLOATS)
def fused_inverted_residual_cpp(*arrays, stride, dilation, pads, acts, has_biases,
                                has_residual, expand=True):
    x, ((w1, b1), (w2, b2), (w3, b3)), residual, out = _operands(arrays, has_biases,
                                                                 has_residual, expand)
    if not _C.inverted_residual_forward(x, w1, b1, w2, b2, w3, b3, residual, out, stride,
                                        dilation, pads, acts):
        _one_by_one(fused_conv_act_cpp, arrays, stride, dilation, pads, acts, has_biases,
                    has_residual, expand)


@register_kernel("FusedInvertedResidual", provider="numpy")
def fused_inverted_residual_numpy(*arrays, stride, dilation, pads, acts, has_biases,
                                  has_residual, expand=True):
    _one_by_one(fused_conv_act_numpy, arrays, stride, dilation, pads, acts, has_biases,
                has_residual, expand)
