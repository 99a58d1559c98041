"""mint.nn's convolution, pooling, padding, folding and resampling layers (Conv1d/2d/3d,
ConvTranspose2d, AvgPool*, AdaptiveAvgPool*, AdaptiveMaxPool*, MaxUnpool2d, the Pad layers,
Fold, Unfold, Upsample*, PixelShuffle): Cells over mint.nn.functional with PyTorch's
constructor arguments and parameter initialisation (weight HeUniform(a=sqrt(5)), bias
U(+-1/sqrt(fan_in))).
"""
import math

from ...common import dtype as mstype
from ...common.initializer import HeUniform, Uniform, initializer
from ...common.parameter import Parameter
from ...nn.cell import Cell
from . import functional as F

__all__ = ['AdaptiveAvgPool1d', 'AdaptiveAvgPool2d', 'AdaptiveAvgPool3d', 'AdaptiveMaxPool1d',
           'AdaptiveMaxPool2d', 'AvgPool1d', 'AvgPool2d', 'AvgPool3d', 'ConstantPad1d',
           'ConstantPad2d', 'ConstantPad3d', 'Conv1d', 'Conv2d', 'Conv3d', 'ConvTranspose2d',
           'Fold', 'MaxUnpool2d', 'PixelShuffle', 'ReflectionPad1d', 'ReflectionPad2d',
           'ReflectionPad3d', 'ReplicationPad1d', 'ReplicationPad2d', 'ReplicationPad3d',
           'Unfold', 'Upsample', 'UpsamplingBilinear2d', 'UpsamplingNearest2d', 'ZeroPad1d',
           'ZeroPad2d', 'ZeroPad3d']


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


class _ConvNd(Cell):
    dims = 2
    transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", dtype=None, output_padding=0):
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError(f"For '{type(self).__name__}', only padding_mode 'zeros' is "
                             f"supported on CPU, but got {padding_mode!r}")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"For '{type(self).__name__}', 'in_channels' and 'out_channels' "
                             f"must be divisible by 'groups' {groups}")
        dtype = mstype.float32 if dtype is None else dtype
        k = _tuple(kernel_size, self.dims)
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, k
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.output_padding = output_padding
        shape = ((in_channels, out_channels // groups) if self.transposed else
                 (out_channels, in_channels // groups)) + k
        self.weight = Parameter(initializer(HeUniform(math.sqrt(5)), shape, dtype),
                                name="weight")
        self.bias = None
        if bias:
            fan_in = shape[1] * math.prod(k)
            self.bias = Parameter(initializer(Uniform(1 / math.sqrt(fan_in)), (out_channels,),
                                              dtype), name="bias")

    def extend_repr(self):
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, padding={self.padding}")


class Conv1d(_ConvNd):
    dims = 1

    def construct(self, input):
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class Conv2d(_ConvNd):
    def construct(self, input):
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class Conv3d(_ConvNd):
    dims = 3

    def construct(self, input):
        return F.conv3d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class ConvTranspose2d(_ConvNd):
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, dtype, output_padding)

    def construct(self, input):
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self.output_padding, self.groups, self.dilation)


def _pool(name, fn, params, doc):
    def __init__(self, *args, **kwargs):
        Cell.__init__(self)
        values = dict(zip([p for p, _ in params], args))
        values.update(kwargs)
        for p, default in params:
            setattr(self, p, values.get(p, default))

    def construct(self, input):
        return fn(input, *[getattr(self, p) for p, _ in params])
    return type(name, (Cell,), {"__init__": __init__, "construct": construct, "__doc__": doc,
                                "__module__": __name__})


_AVG = (("kernel_size", None), ("stride", None), ("padding", 0), ("ceil_mode", False),
        ("count_include_pad", True))
AvgPool1d = _pool("AvgPool1d", F.avg_pool1d, _AVG, "1-D average pooling.")
AvgPool2d = _pool("AvgPool2d", F.avg_pool2d, _AVG + (("divisor_override", None),),
                  "2-D average pooling.")
AvgPool3d = _pool("AvgPool3d", F.avg_pool3d, _AVG + (("divisor_override", None),),
                  "3-D average pooling.")
AdaptiveAvgPool1d = _pool("AdaptiveAvgPool1d", F.adaptive_avg_pool1d, (("output_size", None),),
                          "1-D adaptive average pooling.")
AdaptiveAvgPool2d = _pool("AdaptiveAvgPool2d", F.adaptive_avg_pool2d, (("output_size", None),),
                          "2-D adaptive average pooling.")
AdaptiveAvgPool3d = _pool("AdaptiveAvgPool3d", F.adaptive_avg_pool3d, (("output_size", None),),
                          "3-D adaptive average pooling.")
AdaptiveMaxPool1d = _pool("AdaptiveMaxPool1d", F.adaptive_max_pool1d,
                          (("output_size", None), ("return_indices", False)),
                          "1-D adaptive max pooling.")
AdaptiveMaxPool2d = _pool("AdaptiveMaxPool2d", F.adaptive_max_pool2d,
                          (("output_size", None), ("return_indices", False)),
                          "2-D adaptive max pooling.")
PixelShuffle = _pool("PixelShuffle", F.pixel_shuffle, (("upscale_factor", None),),
                     "(*, C r^2, H, W) -> (*, C, H r, W r).")
Unfold = _pool("Unfold", F.unfold, (("kernel_size", None), ("dilation", 1), ("padding", 0),
                                    ("stride", 1)), "im2col.")
Fold = _pool("Fold", F.fold,
             (("output_size", None), ("kernel_size", None), ("dilation", 1), ("padding", 0),
              ("stride", 1)), "col2im.")
Upsample = _pool("Upsample", F.interpolate,
                 (("size", None), ("scale_factor", None), ("mode", "nearest"),
                  ("align_corners", None), ("recompute_scale_factor", None)), "Resampling.")
UpsamplingNearest2d = _pool("UpsamplingNearest2d",
                            lambda x, size, scale: F.interpolate(x, size, scale, "nearest"),
                            (("size", None), ("scale_factor", None)), "Nearest 2-D resampling.")
UpsamplingBilinear2d = _pool("UpsamplingBilinear2d",
                             lambda x, size, scale: F.interpolate(x, size, scale, "bilinear",
                                                                  True),
                             (("size", None), ("scale_factor", None)),
                             "Bilinear 2-D resampling (align_corners=True).")


class MaxUnpool2d(Cell):
    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


def _pad_layer(name, n, mode):
    def __init__(self, padding, value=0.0):
        Cell.__init__(self)
        self.padding = _tuple(padding, 2 * n)
        self.value = value

    def construct(self, input):
        return F.pad(input, self.padding, mode, self.value if mode == "constant" else None)
    return type(name, (Cell,), {"__init__": __init__, "construct": construct,
                                "__doc__": f"{mode} padding of the last {n} dims.",
                                "__module__": __name__})


ConstantPad1d, ConstantPad2d, ConstantPad3d = (_pad_layer(f"ConstantPad{n}d", n, "constant")
                                               for n in (1, 2, 3))
ZeroPad1d, ZeroPad2d, ZeroPad3d = (_pad_layer(f"ZeroPad{n}d", n, "constant") for n in (1, 2, 3))
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (
    _pad_layer(f"ReflectionPad{n}d", n, "reflect") for n in (1, 2, 3))
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (
    _pad_layer(f"ReplicationPad{n}d", n, "replicate") for n in (1, 2, 3))
