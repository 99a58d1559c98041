"""Depthwise convolution kernels (csrc/kernels/conv_depthwise.h, entry points in
csrc/bind/conv_engine_bind.cc), registered as C builtins for Conv2D, Conv2DBackpropInput /
Conv2DTranspose and Conv2DBackpropFilter whenever the weight has one input channel per group
(then group == input channels: a depthwise convolution with O / C outputs per channel), float32
and float64, any kernel, stride, dilation and padding.

Per channel and sample the plane is copied into stride-many zero-padded phase planes in a
per-thread buffer, so each tap of an output row is one contiguous run (no padded copy of the
tensor, no strided loads for stride 2), and a vector of outputs sums its taps in registers;
the stride-1 input gradient is the same loop with the flipped kernel, other strides scatter
into dx's phase planes; the filter gradient keeps one vector of partial sums per tap. The
channels split over the thread pool. Before these, a depthwise Conv2D ran conv_cpp.py's
per-group Python loop of BLAS calls (MobileNetV2's 17 depthwise layers: ~14000 GEMM calls per
training step).
"""
from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C
from .conv_small_cpp import _shape

FLOATS = (mstype.float32, mstype.float64)
PRIORITY = 23            # above the dense engine's 22


def _sizes(s):
    return tuple(s) if isinstance(s, (tuple, list)) else _shape(s)


def _depthwise(x, w, *_):
    """Conv2D: one input channel per group (then group == input channels), several channels
    (a single-channel input, LeNet's first layer, keeps the small-convolution kernel)."""
    xs, ws = _shape(x), _shape(w)
    return xs is not None and ws is not None and ws[1] == 1 and xs[1] > 1


def _depthwise_input(dout, w, input_size=None, *_):
    xs, ws = _sizes(input_size), _shape(w)
    return xs is not None and len(xs) == 4 and ws is not None and ws[1] == 1 and xs[1] > 1


def _depthwise_filter(dout, x, filter_size=None, *_):
    fs, xs = _sizes(filter_size), _shape(x)
    return fs is not None and len(fs) == 4 and fs[1] == 1 and xs is not None and xs[1] > 1


register_kernel("Conv2D", provider="cpp", dtypes=FLOATS, priority=PRIORITY,
                when=_depthwise)(_C.conv_depthwise_forward)
register_kernel("Conv2DBackpropInput", provider="cpp", dtypes=FLOATS, priority=PRIORITY,
                when=_depthwise_input)(_C.conv_depthwise_input)
register_kernel("Conv2DTranspose", provider="cpp", dtypes=FLOATS, priority=PRIORITY,
                when=_depthwise_input)(_C.conv_depthwise_input)
register_kernel("Conv2DBackpropFilter", provider="cpp", dtypes=FLOATS, priority=PRIORITY,
                when=_depthwise_filter)(_C.conv_depthwise_filter)
