"""More convolution layers (mindspore.nn): Conv1d, Conv3d, Conv2dTranspose, Conv1dTranspose.

As MindSpore 2.10: Conv1d is a Conv2d over a unit height, with weight (out, in/group, 1, k);
Conv1dTranspose likewise over Conv2dTranspose, weight (in, out/group, 1, k); Conv3d's weight is
(out, in/group, kd, kh, kw). Transposed output sizes per pad_mode: 'same' L * stride, 'valid'
L * stride + max(dilation (k - 1) + 1 - stride, 0), 'pad' (L - 1) stride - 2 padding +
dilation (k - 1) + 1 + output_padding. Initializers: HeUniform(sqrt(5)) weights, uniform
+-1/sqrt(fan_in) bias, as Conv2d.
"""
import math
import numbers

from ... import ops
from ...common import dtype as mstype
from ...common.initializer import HeUniform, Uniform, initializer
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ..cell import Cell
from .conv import Conv2d, _positive_int

__all__ = ["Conv1d", "Conv3d", "Conv2dTranspose", "Conv1dTranspose"]


def _tuple(cls, name, value, n):
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = (value,) * n
    if not isinstance(value, tuple) or len(value) != n:
        raise TypeError(f"For '{cls}', '{name}' must be an int or a tuple of {n} ints, but got "
                        f"{value!r}")
    return tuple(_positive_int(cls, f"{name} item", v) for v in value)


def _check_pad_mode(cls, pad_mode):
    if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid", "pad"):
        raise ValueError(f"For '{cls}', 'pad_mode' must be one of ['same', 'valid', 'pad'], but "
                         f"got {pad_mode!r}")
    return pad_mode.lower()


def _params(cell, cls, shape, fan_in, has_bias, bias_len, weight_init, bias_init, dtype):
    if not isinstance(has_bias, bool):
        raise TypeError(f"For '{cls}', 'has_bias' must be a bool, but got "
                        f"{type(has_bias).__name__}")
    if weight_init is None:
        weight_init = HeUniform(math.sqrt(5))
    if isinstance(weight_init, Tensor) and weight_init.shape != shape:
        raise ValueError(f"For '{cls}', 'weight_init' must have shape {list(shape)}, but got "
                         f"{list(weight_init.shape)}")
    cell.weight_init, cell.bias_init, cell.has_bias = weight_init, bias_init, has_bias
    cell.weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
    cell.bias = None
    if has_bias:
        init = bias_init if bias_init is not None else Uniform(1.0 / math.sqrt(fan_in))
        cell.bias = Parameter(initializer(init, (bias_len,), dtype), name="bias")


def _check_input(cls, x, rank, channels):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{cls}', the input must be a Tensor, but got {type(x).__name__}")
    if len(x.shape) != rank or x.shape[1] != channels:
        raise ValueError(f"For '{cls}', the input must have rank {rank} and {channels} channels "
                         f"(axis 1), but got shape {list(x.shape)}")


def _weight_1d(cls, weight_init, shape):
    """A Tensor weight_init is (a, b, k), as MindSpore's; stored as (a, b, 1, k)."""
    if isinstance(weight_init, Tensor):
        if weight_init.shape != shape:
            raise ValueError(f"For '{cls}', 'weight_init' must have shape {list(shape)}, but "
                             f"got {list(weight_init.shape)}")
        return ops.expand_dims(weight_init, 2)
    return weight_init


class Conv1d(Conv2d):
    """1-D convolution: x (N, in_channels, L) -> (N, out_channels, L_out)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, dtype=mstype.float32):
        for name, v in (("kernel_size", kernel_size), ("stride", stride),
                        ("dilation", dilation)):
            _positive_int("Conv1d", name, v)
        if isinstance(padding, bool) or not isinstance(padding, numbers.Integral) or padding < 0:
            raise ValueError(f"For 'Conv1d', 'padding' must be an int >= 0, but got {padding!r}")
        weight_init = _weight_1d("Conv1d", weight_init, (out_channels, in_channels // group,
                                                         kernel_size))
        super().__init__(in_channels, out_channels, (1, kernel_size), (1, stride), pad_mode,
                         (0, 0, padding, padding), (1, dilation), group, has_bias, weight_init,
                         bias_init, "NCHW", dtype)

    def construct(self, x):
        _check_input("Conv1d", x, 3, self.in_channels)
        return ops.squeeze(super().construct(ops.expand_dims(x, 2)), 2)


class Conv3d(Cell):
    """3-D convolution: x (N, in_channels, D, H, W) -> (N, out_channels, D', H', W')."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, data_format="NCDHW", dtype=mstype.float32):
        super().__init__()
        cls = "Conv3d"
        self.in_channels = _positive_int(cls, "in_channels", in_channels)
        self.out_channels = _positive_int(cls, "out_channels", out_channels)
        self.kernel_size = _tuple(cls, "kernel_size", kernel_size, 3)
        self.stride = _tuple(cls, "stride", stride, 3)
        self.dilation = _tuple(cls, "dilation", dilation, 3)
        self.group = _positive_int(cls, "group", group)
        self.pad_mode = _check_pad_mode(cls, pad_mode)
        self.padding, self.data_format = padding, data_format
        if in_channels % group or out_channels % group:
            raise ValueError(f"For 'Conv3d', 'in_channels' and 'out_channels' must be divisible "
                             f"by 'group', but got {in_channels}, {out_channels} and {group}")
        shape = (self.out_channels, self.in_channels // self.group) + self.kernel_size
        _params(self, cls, shape, math.prod(shape[1:]), has_bias, self.out_channels, weight_init,
                bias_init, dtype)

    def construct(self, x):
        _check_input("Conv3d", x, 5, self.in_channels)
        pad = self.padding if isinstance(self.padding, int) else tuple(self.padding)
        return ops.conv3d(x, self.weight, self.bias, self.stride, self.pad_mode, pad,
                          self.dilation, self.group)


class Conv2dTranspose(Cell):
    """Transposed 2-D convolution: x (N, in_channels, H, W) -> (N, out_channels, H', W')."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, output_padding=0, dilation=1, group=1, has_bias=False,
                 weight_init=None, bias_init=None, dtype=mstype.float32):
        super().__init__()
        cls = type(self).__name__
        self.in_channels = _positive_int(cls, "in_channels", in_channels)
        self.out_channels = _positive_int(cls, "out_channels", out_channels)
        self.kernel_size = _tuple(cls, "kernel_size", kernel_size, 2)
        self.stride = _tuple(cls, "stride", stride, 2)
        self.dilation = _tuple(cls, "dilation", dilation, 2)
        self.group = _positive_int(cls, "group", group)
        self.pad_mode = _check_pad_mode(cls, pad_mode)
        if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
            padding = (padding,) * 4
        if not isinstance(padding, tuple) or len(padding) != 4 or min(padding) < 0:
            raise ValueError(f"For '{cls}', 'padding' must be an int or a tuple of 4 ints >= 0, "
                             f"but got {padding!r}")
        if self.pad_mode != "pad" and any(padding):
            raise ValueError(f"For '{cls}', 'padding' must be 0 when 'pad_mode' is not 'pad', "
                             f"but got {padding!r}")
        if isinstance(output_padding, numbers.Integral) and not isinstance(output_padding, bool):
            output_padding = (output_padding,) * 2
        self.padding, self.output_padding = padding, tuple(output_padding)
        if in_channels % group or out_channels % group:
            raise ValueError(f"For '{cls}', 'in_channels' and 'out_channels' must be divisible "
                             f"by 'group', but got {in_channels}, {out_channels} and {group}")
        shape = (self.in_channels, self.out_channels // self.group) + self.kernel_size
        _params(self, cls, shape, math.prod(shape[1:]), has_bias, self.out_channels, weight_init,
                bias_init, dtype)

    def _crops(self, sizes):
        """(start, length) per spatial axis of the full transposed output to keep."""
        out = []
        for i, n in enumerate(sizes):
            s, d, k = self.stride[i], self.dilation[i], self.kernel_size[i]
            full = (n - 1) * s + d * (k - 1) + 1
            if self.pad_mode == "same":
                extra = max(full - n * s, 0)
                out.append((extra // 2, n * s))
            elif self.pad_mode == "valid":
                out.append((0, n * s + max(d * (k - 1) + 1 - s, 0)))
            else:
                lo, hi = self.padding[2 * i], self.padding[2 * i + 1]
                out.append((lo, full - lo - hi + self.output_padding[i]))
        return out

    def _transpose2d(self, x):
        out = ops.conv_transpose2d(x, self.weight, None, self.stride, 0, 0, self.group,
                                   self.dilation)
        for axis, (start, length) in zip((2, 3), self._crops(x.shape[2:])):
            have = out.shape[axis]
            if start + length > have:              # 'valid' with k < stride: zeros after
                widths = [0, 0, 0, 0]            # (left, right, top, bottom)
                widths[2 * (3 - axis) + 1] = start + length - have
                out = ops.pad(out, tuple(widths))
            if start or length != out.shape[axis]:
                out = ops.narrow(out, axis, start, length)
        if self.bias is not None:
            out = ops.bias_add(out, self.bias)
        return out

    def construct(self, x):
        _check_input(type(self).__name__, x, 4, self.in_channels)
        return self._transpose2d(x)


class Conv1dTranspose(Conv2dTranspose):
    """Transposed 1-D convolution: x (N, in_channels, L) -> (N, out_channels, L')."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, dtype=mstype.float32):
        for name, v in (("kernel_size", kernel_size), ("stride", stride),
                        ("dilation", dilation)):
            _positive_int("Conv1dTranspose", name, v)
        if isinstance(padding, bool) or not isinstance(padding, numbers.Integral) or padding < 0:
            raise ValueError(f"For 'Conv1dTranspose', 'padding' must be an int >= 0, but got "
                             f"{padding!r}")
        weight_init = _weight_1d("Conv1dTranspose", weight_init,
                                 (in_channels, out_channels // group, kernel_size))
        super().__init__(in_channels, out_channels, (1, kernel_size), (1, stride), pad_mode,
                         (0, 0, padding, padding), 0, (1, dilation), group, has_bias,
                         weight_init, bias_init, dtype)

    def construct(self, x):
        _check_input("Conv1dTranspose", x, 3, self.in_channels)
        return ops.squeeze(self._transpose2d(ops.expand_dims(x, 2)), 2)
