"""More pooling layers (mindspore.nn): MaxPool1d, AvgPool1d (MaxPool2d / AvgPool2d over a unit
height, as MindSpore), MaxPool3d, AvgPool3d (the functional max_pool3d / avg_pool3d), and the
adaptive AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool2d. Inputs may omit the batch
axis ((C, L), (C, D, H, W), ...), as MindSpore's.

pad_mode 'same' for the 3-D pools pads asymmetrically (the extra element after, as MindSpore
and TensorFlow) with -inf for max; the average counts the padded zeros unless
count_include_pad=False. AdaptiveAvgPool1d takes any output size (MindSpore 2.10 requires
one dividing the length).
"""
import math
import numbers

from ... import ops
from ...common.tensor import Tensor
from ..cell import Cell
from .pooling import AvgPool2d, MaxPool2d, _check_mode

__all__ = ["MaxPool1d", "AvgPool1d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveMaxPool2d"]


def _int(cls, name, value, low=1):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"For '{cls}', '{name}' must be an int >= {low}, but got {value!r}")
    return int(value)


def _input(cls, x, ranks):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{cls}', the input must be a Tensor, but got {type(x).__name__}")
    if x.ndim not in ranks:
        raise ValueError(f"For '{cls}', the input must have rank {' or '.join(map(str, ranks))}, "
                         f"but got shape {list(x.shape)}")


class MaxPool1d(MaxPool2d):
    """x (N, C, L) or (C, L): the maximum of each kernel_size window moved by `stride`."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        k, s = _int("MaxPool1d", "kernel_size", kernel_size), _int("MaxPool1d", "stride", stride)
        p = _int("MaxPool1d", "padding", padding, 0)
        d = _int("MaxPool1d", "dilation", dilation)
        super().__init__((1, k), (1, s), pad_mode, (0, p) if p else 0, (1, d) if d != 1 else 1,
                         return_indices, ceil_mode)

    def construct(self, x):
        _input("MaxPool1d", x, (2, 3))
        out = self._run(ops.expand_dims(x, -2))
        if isinstance(out, tuple):
            return tuple(ops.squeeze(o, o.ndim - 2) for o in out)
        return ops.squeeze(out, out.ndim - 2)


class AvgPool1d(AvgPool2d):
    """x (N, C, L) or (C, L): the mean of each kernel_size window moved by `stride`."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True):
        k, s = _int("AvgPool1d", "kernel_size", kernel_size), _int("AvgPool1d", "stride", stride)
        p = _int("AvgPool1d", "padding", padding, 0)
        super().__init__((1, k), (1, s), pad_mode, (0, p) if p else 0, ceil_mode,
                         count_include_pad)

    def construct(self, x):
        _input("AvgPool1d", x, (2, 3))
        out = self._run(ops.expand_dims(x, -2))
        return ops.squeeze(out, out.ndim - 2)


def _triple(cls, name, value, low=1):
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = (value,) * 3
    if not isinstance(value, (tuple, list)) or len(value) != 3:
        raise ValueError(f"For '{cls}', '{name}' must be an int or a tuple of 3 ints, but got "
                         f"{value!r}")
    return tuple(_int(cls, name, v, low) for v in value)


class _Pool3d(Cell):
    def __init__(self, kernel_size, stride, pad_mode, padding, ceil_mode):
        super().__init__()
        cls = type(self).__name__
        self.kernel_size = _triple(cls, "kernel_size", kernel_size)
        self.stride = _triple(cls, "stride", stride)
        self.padding = _triple(cls, "padding", padding, 0)
        self.pad_mode = _check_mode(cls, pad_mode, "NCHW")
        if self.pad_mode != "pad" and any(self.padding):
            raise ValueError(f"For '{cls}', 'padding' must be 0 when 'pad_mode' is not 'pad', "
                             f"but got {padding!r}")
        self.ceil_mode = bool(ceil_mode)

    def _same_pads(self, x):
        """ops.pad widths (last axis first) giving ceil(n / stride) outputs per axis."""
        widths = []
        for n, k, s in reversed(list(zip(x.shape[-3:], self.kernel_size, self.stride))):
            total = max((math.ceil(n / s) - 1) * s + k - n, 0)
            widths += [total // 2, total - total // 2]
        return tuple(widths)

    def construct(self, x):
        cls = type(self).__name__
        _input(cls, x, (4, 5))
        unbatched = x.ndim == 4
        if unbatched:
            x = ops.expand_dims(x, 0)
        out = self._pool(x)
        if unbatched:
            out = tuple(ops.squeeze(o, 0) for o in out) if isinstance(out, tuple) \
                else ops.squeeze(out, 0)
        return out


class MaxPool3d(_Pool3d):
    """x (N, C, D, H, W) or (C, D, H, W): maxima of kernel_size windows."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.dilation = _triple("MaxPool3d", "dilation", dilation)
        self.return_indices = bool(return_indices)
        if self.pad_mode == "same" and (self.return_indices or self.dilation != (1, 1, 1)):
            raise ValueError("For 'MaxPool3d', 'return_indices' and 'dilation' need pad_mode "
                             "'valid' or 'pad', but got 'same'")

    def _pool(self, x):
        if self.pad_mode == "same":
            x = ops.pad(x, self._same_pads(x), value=float("-inf"))
        return ops.max_pool3d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                              self.ceil_mode, self.return_indices)


class AvgPool3d(_Pool3d):
    """x (N, C, D, H, W) or (C, D, H, W): means of kernel_size windows."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.count_include_pad = bool(count_include_pad)
        self.divisor_override = divisor_override or 0

    def _pool(self, x):
        if self.pad_mode != "same":
            return ops.avg_pool3d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                  self.count_include_pad, self.divisor_override)
        pads = self._same_pads(x)
        if self.count_include_pad:          # the padded zeros count, as MindSpore's
            return ops.avg_pool3d(ops.pad(x, pads), self.kernel_size, self.stride)
        window = math.prod(self.kernel_size)
        sums = ops.avg_pool3d(ops.pad(x, pads), self.kernel_size, self.stride) * window
        counts = ops.avg_pool3d(ops.pad(ops.ones_like(x[:1, :1]), pads), self.kernel_size,
                                self.stride) * window
        return sums / counts


class _Adaptive(Cell):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size


class AdaptiveAvgPool1d(_Adaptive):
    """x (N, C, L) -> (N, C, output_size): means over adaptive windows."""

    def __init__(self, output_size):
        super().__init__(_int("AdaptiveAvgPool1d", "output_size", output_size))

    def construct(self, x):
        _input("AdaptiveAvgPool1d", x, (2, 3))
        return ops.adaptive_avg_pool1d(x, self.output_size)


class AdaptiveAvgPool2d(_Adaptive):
    """x (N, C, H, W) or (C, H, W) -> (..., *output_size); None keeps that size."""

    def construct(self, x):
        _input("AdaptiveAvgPool2d", x, (3, 4))
        return ops.adaptive_avg_pool2d(x, self.output_size)


class AdaptiveMaxPool2d(_Adaptive):
    """x (N, C, H, W) or (C, H, W) -> maxima over adaptive windows (and their indices)."""

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = bool(return_indices)

    def construct(self, x):
        _input("AdaptiveMaxPool2d", x, (3, 4))
        return ops.adaptive_max_pool2d(x, self.output_size, self.return_indices)
