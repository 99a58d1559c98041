"""Kernels of FusedConv2DBiasAdd (ops/operations/fused_ops.py), the node graph mode's
conv_biasadd_fusion pass (jit/passes/fuse_conv.py) makes of Conv2D -> BiasAdd (-> ReLU).

cpp: `_C.conv_bias_act` (csrc/bind/conv_fused_bind.cc), a builtin the graph runner and the
fast paths call without a Python frame: `_C.conv_small_forward` (the small-convolution loop
eager's Conv2D runs for these shapes, so the same values), then one pass over the still-hot
output adding the bias and applying ReLU in place (csrc/kernels/conv_fused.cc), bitwise what
BiasAdd then ReLU give. Selected exactly where conv_small_cpp.py's Conv2D kernel is.

numpy (every other shape, and the reference): the Conv2D kernel eager selects for these
inputs, then the bias and ReLU in numpy, in place on the output.
"""
import numpy as np

from ...abstract import abstract_tensor
from ...common import dtype as mstype
from ..registry import register_kernel, select_kernel
from ._cext import _C
from .conv_small_cpp import FLOATS, PRIORITY, _forward_small

_CONV_LAUNCH = {}


def _small(x, w, *_):
    """Where eager's Conv2D runs conv_small_cpp.py's kernel."""
    return _forward_small(x, w)


register_kernel("FusedConv2DBiasAdd", provider="cpp", dtypes=FLOATS, priority=PRIORITY,
                when=_small)(_C.conv_bias_act)


def conv_into(x, w, out, stride, dilation, pads, group):
    """out = Conv2D(x, w) by the built-in Conv2D kernel eager selects for these inputs."""
    key = (x.dtype, x.shape, w.shape, stride, dilation, pads, group)
    launch = _CONV_LAUNCH.get(key)
    if launch is None:
        dtype = mstype.from_numpy_dtype(x.dtype)
        abstracts = (abstract_tensor(dtype, x.shape), abstract_tensor(dtype, w.shape))
        kdef = select_kernel("Conv2D", "CPU", dtype, input_abstracts=abstracts)
        launch = kdef.bind({"stride": stride, "dilation": dilation, "pads": pads,
                            "group": group})
        if len(_CONV_LAUNCH) > 256:
            _CONV_LAUNCH.clear()
        _CONV_LAUNCH[key] = launch
    launch(x, w, out)


@register_kernel("FusedConv2DBiasAdd", provider="numpy")
def fused_conv2d_bias_add_numpy(*arrays, stride, dilation, pads, group, relu):
    x, w, *bias, out = arrays
    conv_into(x, w, out, tuple(stride), tuple(dilation), tuple(pads), group)
    if bias:                                  # as BiasAdd's and ReLU's reference kernels
        np.add(out, bias[0].reshape(-1, 1, 1), out=out)
    if relu:
        np.maximum(out, 0, out=out)
