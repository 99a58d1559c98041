"""nn.Conv3dTranspose (MindSpore 2.10): x (N, in_channels, D, H, W) -> (N, out_channels, D',
H', W') with weight (in_channels, out_channels / group, kd, kh, kw).

Built from 2-D transposed convolutions, so gradients come from theirs: each depth tap t of
the kernel is a conv_transpose2d of every input depth slice with weight[:, :, t]; its result
lands at depths d * stride_d + t * dilation_d of the full (unpadded) output, where zeros are
interleaved for the depth stride. The full output is then cut to MindSpore's size per pad_mode
(as nn.Conv2dTranspose): 'same' D * stride (the excess split front // 2), 'valid' D * stride
+ max(dilation (k - 1) + 1 - stride, 0), 'pad' (D - 1) stride - head - tail + dilation
(k - 1) + 1 + output_padding, padding (head, tail, top, bottom, left, right).
"""
import math
import numbers

from ... import ops
from ...common import dtype as mstype
from ..cell import Cell
from .conv import _positive_int
from .conv_nd import _check_input, _check_pad_mode, _params, _tuple

__all__ = ["Conv3dTranspose"]


def _nonneg_tuple(cls, name, value, n):
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = (value,) * n
    if not isinstance(value, tuple) or len(value) != n or not all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 0
            for v in value):
        raise ValueError(f"For '{cls}', '{name}' must be an int or a tuple of {n} ints >= 0, "
                         f"but got {value!r}")
    return tuple(int(v) for v in value)


class Conv3dTranspose(Cell):
    """Transposed 3-D convolution (MindSpore's arguments; data_format 'NCDHW')."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, output_padding=0, has_bias=False,
                 weight_init=None, bias_init=None, data_format="NCDHW", dtype=mstype.float32):
        super().__init__()
        cls = "Conv3dTranspose"
        self.in_channels = _positive_int(cls, "in_channels", in_channels)
        self.out_channels = _positive_int(cls, "out_channels", out_channels)
        if in_channels % group or out_channels % group:
            raise ValueError("The argument 'group' should be divisible by 'in_channels' and "
                             "'out_channels'")
        self.kernel_size = _tuple(cls, "kernel_size", kernel_size, 3)
        self.stride = _tuple(cls, "stride", stride, 3)
        self.dilation = _tuple(cls, "dilation", dilation, 3)
        self.group = _positive_int(cls, "group", group)
        self.pad_mode = _check_pad_mode(cls, pad_mode)
        self.padding = _nonneg_tuple(cls, "padding", padding, 6)
        if self.pad_mode != "pad" and any(self.padding):
            raise ValueError(f"For '{cls}', 'padding' must be 0 when 'pad_mode' is not 'pad', "
                             f"but got {padding!r}")
        self.output_padding = _nonneg_tuple(cls, "output_padding", output_padding, 3)
        if data_format != "NCDHW":
            raise ValueError(f"For '{cls}', 'data_format' must be 'NCDHW' on the CPU, but got "
                             f"{data_format!r}")
        self.data_format = data_format
        shape = (self.in_channels, self.out_channels // self.group) + self.kernel_size
        _params(self, cls, shape, math.prod(shape[1:]), has_bias, self.out_channels, weight_init,
                bias_init, dtype)

    def _full(self, x):
        """The unpadded transposed convolution: (N, C_out, (D-1) s + dil (k-1) + 1, ...)."""
        n, c, depth, h, w = x.shape
        sd, dd, kd = self.stride[0], self.dilation[0], self.kernel_size[0]
        planes = ops.reshape(ops.transpose(x, (0, 2, 1, 3, 4)), (n * depth, c, h, w))
        full_d = (depth - 1) * sd + dd * (kd - 1) + 1
        out = None
        for t in range(kd):
            y = ops.conv_transpose2d(planes, self.weight[:, :, t], None, self.stride[1:], 0, 0,
                                     self.group, self.dilation[1:])
            hf, wf = y.shape[2:]
            y = ops.transpose(ops.reshape(y, (n, depth) + tuple(y.shape[1:])), (0, 2, 1, 3, 4))
            if sd > 1:               # interleave sd - 1 zero planes after every input depth
                flat = ops.reshape(y, (n, y.shape[1], depth, 1, hf * wf))
                zeros = ops.zeros((n, y.shape[1], depth, sd - 1, hf * wf), y.dtype)
                y = ops.reshape(ops.concat((flat, zeros), 3),
                                (n, y.shape[1], depth * sd, hf, wf))
                y = y[:, :, :(depth - 1) * sd + 1]
            before = t * dd
            y = ops.pad(y, (0, 0, 0, 0, before, full_d - before - y.shape[2]))
            out = y if out is None else out + y
        return out

    def _crops(self, sizes):
        out = []
        for i, size in enumerate(sizes):
            s, d, k = self.stride[i], self.dilation[i], self.kernel_size[i]
            full = (size - 1) * s + d * (k - 1) + 1
            if self.pad_mode == "same":
                out.append((max(full - size * s, 0) // 2, size * s))
            elif self.pad_mode == "valid":
                out.append((0, size * s + max(d * (k - 1) + 1 - s, 0)))
            else:
                lo, hi = self.padding[2 * i], self.padding[2 * i + 1]
                out.append((lo, full - lo - hi + self.output_padding[i]))
        return out

    def construct(self, x):
        _check_input("Conv3dTranspose", x, 5, self.in_channels)
        out = self._full(x)
        for axis, (start, length) in zip((2, 3, 4), self._crops(x.shape[2:])):
            if length <= 0:
                raise ValueError(f"For 'Conv3dTranspose', the output size along axis {axis} "
                                 f"must be positive, but got {length}")
            have = out.shape[axis]
            if start + length > have:            # zeros past the full output
                widths = [0] * 6                 # (w_lo, w_hi, h_lo, h_hi, d_lo, d_hi)
                widths[2 * (4 - axis) + 1] = start + length - have
                out = ops.pad(out, tuple(widths))
            if start or length != out.shape[axis]:
                out = ops.narrow(out, axis, start, length)
        if self.bias is not None:
            out = out + ops.reshape(self.bias, (1, -1, 1, 1, 1))
        return out
