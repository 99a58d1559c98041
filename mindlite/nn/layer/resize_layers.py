"""Padding, resizing and rearranging layers (mindspore.nn): Pad, ZeroPad2d, ConstantPad2d,
ReflectionPad2d, ReplicationPad2d, Upsample, PixelShuffle, PixelUnshuffle, Unfold, and the
channel dropouts Dropout1d / Dropout2d / Dropout3d. Each is a thin cell over the functional
ops (ops.pad, ops.interpolate, ops.dropout2d, ...) or a reshape/transpose composite, so
gradients and graph mode come from those.
"""
import numbers

from ... import ops
from ...common.tensor import Tensor
from ..cell import Cell

__all__ = ["Pad", "ZeroPad2d", "ConstantPad2d", "ReflectionPad2d", "ReplicationPad2d",
           "Upsample", "PixelShuffle", "PixelUnshuffle", "Unfold", "Dropout1d", "Dropout2d",
           "Dropout3d"]


class Pad(Cell):
    """paddings: ((before, after), ...) per leading-to-trailing axis (MindSpore's nn.Pad);
    mode 'CONSTANT' (zeros), 'REFLECT' or 'SYMMETRIC'."""

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
            raise ValueError(f"For 'Pad', 'mode' must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', "
                             f"but got {mode!r}")
        if not isinstance(paddings, tuple) or not all(
                isinstance(p, tuple) and len(p) == 2 and all(
                    isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in p)
                for p in paddings):
            raise TypeError(f"For 'Pad', 'paddings' must be a tuple of (before, after) pairs of "
                            f"ints >= 0, but got {paddings!r}")
        self.paddings, self.mode = paddings, mode

    def construct(self, x):
        if len(self.paddings) != x.ndim:
            raise ValueError(f"For 'Pad', 'paddings' must have one pair per axis of the input "
                             f"({x.ndim}), but got {len(self.paddings)}")
        pairs = list(self.paddings)
        while len(pairs) > 1 and pairs[0] == (0, 0):       # unpadded leading axes
            pairs.pop(0)
        if self.mode == "SYMMETRIC" or (self.mode == "REFLECT" and not (
                len(pairs) <= 3 and x.ndim - len(pairs) in (1, 2))):
            # mirror slices concatenated, axis by axis: 'SYMMETRIC' includes the edge (numpy's
            # 'symmetric'), 'REFLECT' does not (MindSpore's MirrorPad pads any axes; PadV3 only
            # 1 to 3 trailing ones of a tensor with one or two more)
            edge = 0 if self.mode == "SYMMETRIC" else 1
            for axis, (lo, hi) in enumerate(self.paddings):
                n = x.shape[axis]
                if edge and max(lo, hi) >= n:
                    raise ValueError(f"For 'Pad' REFLECT mode, the padding ({lo}, {hi}) of axis "
                                     f"{axis} must be less than its size {n}")
                parts = []
                if lo:
                    parts.append(ops.flip(ops.narrow(x, axis, edge, lo), (axis,)))
                parts.append(x)
                if hi:
                    parts.append(ops.flip(ops.narrow(x, axis, n - hi - edge, hi), (axis,)))
                if len(parts) > 1:
                    x = ops.concat(tuple(parts), axis)
            return x
        widths = tuple(v for pair in reversed(pairs) for v in pair)
        return ops.pad(x, widths, "constant" if self.mode == "CONSTANT" else "reflect")


def _four(cls, padding):
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        padding = (padding,) * 4
    if not isinstance(padding, tuple) or len(padding) != 4:
        raise TypeError(f"For '{cls}', 'padding' must be an int or a tuple of 4 ints (left, "
                        f"right, top, bottom), but got {padding!r}")
    return padding


class _Pad2d(Cell):
    mode = "constant"

    def __init__(self, padding, value=None):
        super().__init__()
        self.padding = _four(type(self).__name__, padding)
        self.value = value

    def construct(self, x):
        return ops.pad(x, self.padding, self.mode, self.value)


class ZeroPad2d(_Pad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ConstantPad2d(_Pad2d):
    def __init__(self, padding, value):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"For 'ConstantPad2d', 'value' must be a number, but got "
                            f"{type(value).__name__}")
        super().__init__(padding, value)


class ReflectionPad2d(_Pad2d):
    mode = "reflect"


class ReplicationPad2d(_Pad2d):
    mode = "replicate"


class Upsample(Cell):
    """ops.interpolate as a cell."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def construct(self, x):
        return ops.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                               self.recompute_scale_factor)


def _factor(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"For '{cls}', '{name}' must be a positive int, but got {value!r}")
    return int(value)


class PixelShuffle(Cell):
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = _factor("PixelShuffle", "upscale_factor", upscale_factor)

    def construct(self, x):
        r = self.upscale_factor
        if x.ndim < 3 or x.shape[-3] % (r * r):
            raise ValueError(f"For 'PixelShuffle', the input must have rank >= 3 and channels "
                             f"divisible by {r * r}, but got shape {list(x.shape)}")
        *lead, c, h, w = x.shape
        y = ops.reshape(x, (-1, c // (r * r), r, r, h, w))
        y = ops.transpose(y, (0, 1, 4, 2, 5, 3))
        return ops.reshape(y, tuple(lead) + (c // (r * r), h * r, w * r))


class PixelUnshuffle(Cell):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = _factor("PixelUnshuffle", "downscale_factor", downscale_factor)

    def construct(self, x):
        r = self.downscale_factor
        if x.ndim < 3 or x.shape[-1] % r or x.shape[-2] % r:
            raise ValueError(f"For 'PixelUnshuffle', the input must have rank >= 3 and H, W "
                             f"divisible by {r}, but got shape {list(x.shape)}")
        *lead, c, h, w = x.shape
        y = ops.reshape(x, (-1, c, h // r, r, w // r, r))
        y = ops.transpose(y, (0, 1, 3, 5, 2, 4))
        return ops.reshape(y, tuple(lead) + (c * r * r, h // r, w // r))


class Unfold(Cell):
    """Image patches (MindSpore's nn.Unfold / TensorFlow's extract_image_patches): x (N, C, H, W)
    -> (N, C kh kw, out_h, out_w), channel index (i kw + j) C + c for patch element (i, j).
    ksizes, strides, rates: [1, a, b, 1]; padding 'valid' or 'same'."""

    def __init__(self, ksizes, strides, rates, padding="valid"):
        super().__init__()
        for name, v in (("ksizes", ksizes), ("strides", strides), ("rates", rates)):
            if not isinstance(v, (tuple, list)) or len(v) != 4 or v[0] != 1 or v[3] != 1 \
                    or any(isinstance(e, bool) or not isinstance(e, int) or e < 1 for e in v):
                raise ValueError(f"For 'Unfold', '{name}' must be [1, a, b, 1] with positive "
                                 f"ints, but got {v!r}")
        if not isinstance(padding, str) or padding.lower() not in ("valid", "same"):
            raise ValueError(f"For 'Unfold', 'padding' must be 'valid' or 'same', but got "
                             f"{padding!r}")
        self.ksizes, self.strides, self.rates = tuple(ksizes), tuple(strides), tuple(rates)
        self.padding = padding.lower()

    def construct(self, x):
        if not isinstance(x, Tensor) or x.ndim != 4:
            raise ValueError("For 'Unfold', the input must be a 4-D Tensor (N, C, H, W)")
        (kh, kw), (sh, sw), (rh, rw) = self.ksizes[1:3], self.strides[1:3], self.rates[1:3]
        n, c, h, w = x.shape
        eh, ew = (kh - 1) * rh + 1, (kw - 1) * rw + 1
        if self.padding == "same":
            oh, ow = -(-h // sh), -(-w // sw)
            ph, pw = max((oh - 1) * sh + eh - h, 0), max((ow - 1) * sw + ew - w, 0)
            x = ops.pad(x, (pw // 2, pw - pw // 2, ph // 2, ph - ph // 2))
        else:
            oh, ow = (h - eh) // sh + 1, (w - ew) // sw + 1
        patches = []
        for i in range(kh):
            for j in range(kw):
                patches.append(x[:, :, i * rh:i * rh + (oh - 1) * sh + 1:sh,
                                 j * rw:j * rw + (ow - 1) * sw + 1:sw])
        return ops.concat(tuple(patches), 1)


class _DropoutNd(Cell):
    op_name = None          # the functional op: ops.dropout1d / 2d / 3d

    def __init__(self, p=0.5):
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= p <= 1.0:
            raise ValueError(f"For '{type(self).__name__}', 'p' must be a float in [0, 1], but "
                             f"got {p!r}")
        self.p = float(p)

    def construct(self, x):
        if not self.training or self.p == 0.0:
            return x
        return getattr(ops, self.op_name)(x, self.p, True)


class Dropout1d(_DropoutNd):
    op_name = "dropout1d"


class Dropout2d(_DropoutNd):
    op_name = "dropout2d"


class Dropout3d(_DropoutNd):
    op_name = "dropout3d"
