"""Pooling layers (mindspore.nn): MaxPool2d and AvgPool2d.

pad_mode 'valid' / 'same' (case-insensitive) use the MaxPool / AvgPool primitives; pad_mode
'pad' (or padding, dilation, ceil_mode, return_indices, divisor_override) use the explicit
MaxPoolWithArgmaxV2 / AvgPool2D primitives, as MindSpore 2.x. Inputs are (N, C, H, W) or
(C, H, W); any other rank raises ValueError naming the layer at the call.
"""
from ...common.tensor import Tensor
from ...ops.operations import pool_ops as P
from ...ops.operations.array_ops import ExpandDims, Squeeze
from ..cell import Cell

__all__ = ["AvgPool2d", "MaxPool2d"]


def _check_mode(cls, pad_mode, data_format):
    if not isinstance(pad_mode, str) or pad_mode.lower() not in ("valid", "same", "pad"):
        raise ValueError(f"For '{cls}', 'pad_mode' must be one of ['valid', 'same', 'pad'] "
                         f"(case-insensitive), but got {pad_mode!r}")
    if data_format != "NCHW":
        raise ValueError(f"For '{cls}', 'data_format' must be 'NCHW' on CPU ('NHWC' is GPU-only "
                         f"in MindSpore), but got {data_format!r}")
    return pad_mode.lower()


class _Pool2d(Cell):
    def _setup(self, kernel_size, stride, pad_mode, padding):
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.pad_mode = pad_mode
        self.expand_dims, self.squeeze = ExpandDims(), Squeeze(0)

    def _run(self, x):
        name = type(self).__name__
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{name}', the input must be a Tensor, but got "
                            f"{type(x).__name__}")
        if x.ndim not in (3, 4):
            raise ValueError(f"For '{name}', the input must be 3-D (C, H, W) or 4-D (N, C, H, W),"
                             f" but got shape {list(x.shape)}")
        unbatched = x.ndim == 3
        if unbatched:
            x = self.expand_dims(x, 0)
        out = self.pool(x)
        if isinstance(out, tuple):
            out = tuple(self.squeeze(o) for o in out) if unbatched else out
            return out if self.return_indices else out[0]
        return self.squeeze(out) if unbatched else out

    def construct(self, x):
        return self._run(x)

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


class MaxPool2d(_Pool2d):
    """2-D max pooling: the maximum of each kernel_size window moved by `stride`."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
        super().__init__()
        mode = _check_mode("MaxPool2d", pad_mode, data_format)
        explicit = mode == "pad" or padding != 0 or dilation != 1 or return_indices or ceil_mode
        if explicit and mode == "same":
            raise ValueError("For 'MaxPool2d', 'padding', 'dilation', 'return_indices' and "
                             "'ceil_mode' need pad_mode 'pad' or 'valid', but got 'same'")
        self._setup(kernel_size, stride, pad_mode, padding)
        self.return_indices = return_indices
        if explicit:
            self.pool = P.MaxPoolWithArgmaxV2(kernel_size, stride, padding, dilation, ceil_mode)
        else:
            self.pool = P.MaxPool(kernel_size, stride, mode)


class AvgPool2d(_Pool2d):
    """2-D average pooling: the mean of each kernel_size window moved by `stride`."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__()
        mode = _check_mode("AvgPool2d", pad_mode, data_format)
        explicit = mode == "pad" or padding != 0 or ceil_mode or bool(divisor_override)
        if explicit and mode == "same":
            raise ValueError("For 'AvgPool2d', 'padding', 'ceil_mode' and 'divisor_override' "
                             "need pad_mode 'pad' or 'valid', but got 'same'")
        self._setup(kernel_size, stride, pad_mode, padding)
        self.return_indices = False
        if explicit:
            self.pool = P.AvgPool2D(kernel_size, stride, padding, ceil_mode, count_include_pad,
                                    divisor_override)
        else:
            self.pool = P.AvgPool(kernel_size, stride, mode)
