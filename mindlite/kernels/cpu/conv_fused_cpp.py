"""Kernels of FusedConv2DBiasAdd (ops/operations/fused_ops.py), the node graph mode's
conv_biasadd_fusion pass (jit/passes/fuse_conv.py) makes of Conv2D -> BiasAdd (-> ReLU).

cpp: `_C.conv_bias_act` (csrc/bind/conv_fused_bind.cc), a builtin the graph runner and the
fast paths call without a Python frame: `_C.conv_small_forward` (the small-convolution loop
eager's Conv2D runs for these shapes, so the same values), then one pass over the still-hot
output adding the bias and applying ReLU in place (csrc/kernels/conv_fused.cc), bitwise what
BiasAdd then ReLU give; with pool_stride, the result then goes through MaxPool's own 2 x 2
loop into the output. Selected exactly where conv_small_cpp.py's Conv2D kernel is.

numpy (every other shape, and the reference): the Conv2D kernel eager selects for these
inputs, then the bias and ReLU in numpy, in place, then the MaxPool kernel eager selects.
"""
import numpy as np

from ...common.abstract import abstract_tensor
from ...common import dtype as mstype
from ..registry import register_kernel, select_kernel
from ._cext import _C
from .conv_small_cpp import FLOATS, PRIORITY, _forward_small

_LAUNCH = {}


def _small(x, w, *_):
    """Where eager's Conv2D runs conv_small_cpp.py's kernel."""
    return _forward_small(x, w)


register_kernel("FusedConv2DBiasAdd", provider="cpp", dtypes=FLOATS, priority=PRIORITY,
                when=_small)(_C.conv_bias_act)


def _launch(op, arrays, params):
    """The launch function of the built-in `op` kernel eager selects for these input arrays."""
    key = (op, tuple((a.dtype, a.shape) for a in arrays), tuple(params.items()))
    launch = _LAUNCH.get(key)
    if launch is None:
        dtype = mstype.from_numpy_dtype(arrays[0].dtype)
        abstracts = tuple(abstract_tensor(dtype, a.shape) for a in arrays)
        launch = select_kernel(op, "CPU", dtype, input_abstracts=abstracts).bind(params)
        if len(_LAUNCH) > 256:
            _LAUNCH.clear()
        _LAUNCH[key] = launch
    return launch


def _conv_hw(x, w, stride, dilation, pads):
    """The convolution's output (H, W) before pooling: pads are explicit (top, bottom, left,
    right; the primitive's infer resolved them and checked the kernel fits)."""
    return tuple((size + before + after - d * (k - 1) - 1) // s + 1
                 for size, k, s, d, before, after in zip(x.shape[2:], w.shape[2:], stride,
                                                         dilation, pads[0::2], pads[1::2]))


@register_kernel("FusedConv2DBiasAdd", provider="numpy")
def fused_conv2d_bias_add_numpy(*arrays, stride, dilation, pads, group, relu, pool_stride):
    x, w, *bias, out = arrays
    conv_params = {"stride": tuple(stride), "dilation": tuple(dilation), "pads": tuple(pads),
                   "group": group}
    y = out
    if pool_stride:
        y = np.empty((x.shape[0], w.shape[0]) + _conv_hw(x, w, stride, dilation, pads),
                     dtype=out.dtype)
    _launch("Conv2D", (x, w), conv_params)(x, w, y)
    if bias:                                  # as BiasAdd's and ReLU's reference kernels
        np.add(y, bias[0].reshape(-1, 1, 1), out=y)
    if relu:
        np.maximum(y, 0, out=y)
    if pool_stride:
        pool_params = {"kernel": (2, 2), "stride": tuple(pool_stride), "pads": (0, 0, 0, 0),
                       "dilation": (1, 1)}
        _launch("MaxPool", (y,), pool_params)(y, out)
