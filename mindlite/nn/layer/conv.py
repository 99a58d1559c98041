"""Convolution layers (mindspore.nn): Conv2d over the Conv2D primitive (+ BiasAdd).

Defaults as MindSpore 2.x: pad_mode='same', has_bias=False, weight_init None ->
HeUniform(negative_slope=sqrt(5)) = U(+-1/sqrt(fan_in)), bias_init None -> U(+-1/sqrt(fan_in)),
fan_in = in_channels / group * kh * kw. An input with a wrong rank or channel count raises
ValueError naming the layer at the call, before any op runs.
"""
import math
import numbers

from ...common import dtype as mstype
from ...common.initializer import HeUniform, Uniform, initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ops.operations.conv_ops import Conv2D
from ...ops.operations.nn_ops import BiasAdd
from ..cell import Cell

__all__ = ["Conv2d"]


def _positive_int(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"For '{cls}', '{name}' must be an int, but got "
                        f"{type(value).__name__}: {value!r}")
    if value <= 0:
        raise ValueError(f"For '{cls}', '{name}' must be a positive int, but got {value}")
    return int(value)


def _twice(cls, name, value):
    """An int or a tuple of two positive ints -> (h, w) (MindSpore's `twice`)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = (value, value)
    if not isinstance(value, tuple) or len(value) != 2:
        raise TypeError(f"For '{cls}', '{name}' must be an int or a tuple of two ints, but got "
                        f"{value!r}")
    return tuple(_positive_int(cls, f"{name} item", v) for v in value)


class Conv2d(Cell):
    """2-D convolution layer: x (N, in_channels, H, W) -> (N, out_channels, H_out, W_out);
    weight (out_channels, in_channels / group, kh, kw). See ops.Conv2D for the geometry."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, data_format="NCHW", dtype=mstype.float32):
        super().__init__()
        self.in_channels = _positive_int("Conv2d", "in_channels", in_channels)
        self.out_channels = _positive_int("Conv2d", "out_channels", out_channels)
        self.kernel_size = _twice("Conv2d", "kernel_size", kernel_size)
        self.stride = _twice("Conv2d", "stride", stride)
        self.dilation = _twice("Conv2d", "dilation", dilation)
        self.group = _positive_int("Conv2d", "group", group)
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid", "pad"):
            raise ValueError(f"For 'Conv2d', 'pad_mode' must be one of ['same', 'valid', 'pad'], "
                             f"but got {pad_mode!r}")
        if isinstance(padding, bool) or not isinstance(padding, (numbers.Integral, tuple)):
            raise TypeError(f"For 'Conv2d', the type of 'padding' must be int or tuple(int), but "
                            f"got {type(padding).__name__}")
        if not isinstance(has_bias, bool):
            raise TypeError(f"For 'Conv2d', 'has_bias' must be a bool, but got "
                            f"{type(has_bias).__name__}")
        for name, n in (("in_channels", in_channels), ("out_channels", out_channels)):
            if n % group:
                raise ValueError(f"For 'Conv2d', '{name}' must be divisible by 'group', but got "
                                 f"'{name}': {n} and 'group': {group}")
        if data_format != "NCHW":
            raise ValueError(f"For 'Conv2d', 'data_format' must be 'NCHW' on CPU ('NHWC' is "
                             f"GPU-only in MindSpore), but got {data_format!r}")
        self.pad_mode, self.padding, self.data_format = pad_mode, padding, data_format
        self.has_bias = has_bias
        shape = (self.out_channels, self.in_channels // self.group) + self.kernel_size
        fan_in = shape[1] * shape[2] * shape[3]
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight_init, self.bias_init = weight_init, bias_init
        if isinstance(weight_init, Tensor) and weight_init.shape != shape:
            raise ValueError(f"For 'Conv2d', 'weight_init' must have shape {list(shape)}, but "
                             f"got {list(weight_init.shape)}")
        self.weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
        self.bias = None
        if has_bias:
            if bias_init is None:
                bias_init = Uniform(1.0 / math.sqrt(fan_in))
            self.bias = Parameter(initializer(bias_init, (self.out_channels,), dtype),
                                  name="bias")
            self.bias_add = BiasAdd()
        self.conv2d = Conv2D(self.out_channels, self.kernel_size, mode=1, pad_mode=pad_mode,
                             pad=padding, stride=self.stride, dilation=self.dilation,
                             group=self.group)

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'Conv2d', the input must be a Tensor, but got "
                            f"{type(x).__name__}")
        shape = x.shape
        if len(shape) != 4 or shape[1] != self.in_channels:
            raise ValueError(f"For 'Conv2d', the input must have shape (N, in_channels, H, W) "
                             f"with in_channels = {self.in_channels}, but got shape "
                             f"{list(shape)}")
        out = self.conv2d(x, self.weight)
        if self.has_bias:
            out = self.bias_add(out, self.bias)
        return out

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}, weight_init={self.weight_init}, "
                f"bias_init={self.bias_init}, format={self.data_format}")
