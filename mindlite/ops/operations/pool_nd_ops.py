"""Adaptive and 3-D pooling primitives of issue 13 with their gradients and bprops
(gradients of gradients included): AdaptiveAvgPool2D <-> AdaptiveAvgPool2DGrad,
AdaptiveMaxPool2D -> AdaptiveMaxPool2DGrad <-> AdaptiveMaxPool2DGradGrad,
AvgPool3D <-> AvgPool3DGrad, MaxPool3DWithArgmax -> MaxPool3DGradWithArgmax <->
MaxPool3DGradGradWithArgmax. Kernels: kernels/cpu/pool_nd_numpy.py; functional names
(ops.adaptive_avg_pool1d/2d, adaptive_max_pool2d, avg_pool1d/3d, max_pool1d/3d):
ops/function/pool_resize_func.py.

Adaptive pooling (input (C, H, W) or (N, C, H, W)): output cell i of an axis of size n
pooled to m covers [floor(i n / m), ceil((i + 1) n / m)); output_size None keeps that axis.
AdaptiveMaxPool2D's argmax is the first maximum's flat index h * W + w (int64); NaN is a
maximum. 3-D pooling takes (N, C, D, H, W); explicit pads (before, after) per axis,
ceil_mode as PyTorch; max pooling pads with -inf and returns argmax d * H * W + h * W + w.
"""
import math
import numbers

from ...common import dtype as mstype
from ...common.limits import MAX_INT_ATTR
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import (check_bool, check_dtype, check_index_type, check_int, check_same_dtype,
                         tensor)
from ._base import cached_prim, linear_pair_bprops

__all__ = ["AdaptiveAvgPool2D", "AdaptiveMaxPool2D", "AvgPool3D", "MaxPool3DWithArgmax"]


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _check_float_x(prim, x, ranks):
    check_dtype(prim, "x", x, mstype.FLOAT_TYPES)
    if len(x.shape) not in ranks:
        raise ValueError(f"For '{prim.name}', 'x' must be a tensor of rank "
                         f"{' or '.join(map(str, ranks))}, but got shape {list(x.shape)}")


def _check_shape(prim, arg, t, want):
    if tuple(t.shape) != tuple(want):
        raise ValueError(f"For '{prim.name}', '{arg}' must have the shape {list(want)}, but got "
                         f"{list(t.shape)}")


# ---- adaptive ------------------------------------------------------------------------------
class _Adaptive(Primitive):
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, output_size):
        size = (output_size, output_size) if _is_int(output_size) or output_size is None \
            else output_size
        if not isinstance(size, (tuple, list)) or len(size) != 2 or not all(
                s is None or (_is_int(s) and 0 < s <= MAX_INT_ATTR) for s in size):
            raise ValueError(f"For '{self.name}', 'output_size' must be a positive int or a "
                             f"pair of positive ints or None, but got {output_size!r}")
        self._size = tuple(size)

    def out_shape(self, x):
        _check_float_x(self, x, (3, 4))
        if 0 in tuple(x.shape[-2:]):
            raise ValueError(f"For '{self.name}', the last two axes of 'x' must be non-empty, "
                             f"but got shape {list(x.shape)}")
        hw = tuple(n if s is None else int(s) for s, n in zip(self._size, x.shape[-2:]))
        return tuple(x.shape[:-2]) + hw


class AdaptiveAvgPool2D(_Adaptive):
    """Adaptive average pooling. Gradient: AdaptiveAvgPool2DGrad."""

    def infer(self, x):
        return tensor(x.dtype, self.out_shape(x))


class AdaptiveAvgPool2DGrad(_Adaptive):
    """(x, grad) -> dx: each output cell's grad spread evenly over its input cell; linear in
    grad, its adjoint is AdaptiveAvgPool2D."""
    input_names = ("x", "grad")

    def infer(self, x, grad):
        check_same_dtype(self, [("x", x), ("grad", grad)])
        _check_shape(self, "grad", grad, self.out_shape(x))
        return x


class AdaptiveMaxPool2D(_Adaptive):
    """(y, argmax int64). Gradient: AdaptiveMaxPool2DGrad scatters dy to argmax."""

    def infer(self, x):
        shape = self.out_shape(x)
        return tensor(x.dtype, shape), tensor(mstype.int64, shape)


class _ArgmaxScatter(Primitive):
    """(x, grad, argmax) -> dx of x's shape: grad added at each plane's argmax positions (the
    last `spatial` axes form a plane); its adjoint is the gather below."""
    input_names = ("x", "grad", "argmax")
    spatial = 2
    gather = False

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x, grad, argmax):
        check_dtype(self, "x", x, mstype.FLOAT_TYPES)
        check_same_dtype(self, [("x", x), ("grad", grad)])
        check_dtype(self, "argmax", argmax, (mstype.int32, mstype.int64))
        if (len(argmax.shape) != len(x.shape) or len(x.shape) < self.spatial
                or tuple(argmax.shape[:-self.spatial]) != tuple(x.shape[:-self.spatial])):
            raise ValueError(f"For '{self.name}', 'argmax' {list(argmax.shape)} must have the "
                             f"leading axes of 'x' {list(x.shape)}")
        _check_shape(self, "grad", grad, x.shape if self.gather else argmax.shape)
        return tensor(x.dtype, argmax.shape) if self.gather else x

    def kernel_params(self, *args):
        return {"spatial": self.spatial}


class AdaptiveMaxPool2DGrad(_ArgmaxScatter):
    """dx of AdaptiveMaxPool2D."""


class AdaptiveMaxPool2DGradGrad(_ArgmaxScatter):
    """grad (of x's shape) read at argmax: the adjoint of AdaptiveMaxPool2DGrad."""
    gather = True


class MaxPool3DGradWithArgmax(_ArgmaxScatter):
    """dx of MaxPool3DWithArgmax."""
    spatial = 3


class MaxPool3DGradGradWithArgmax(_ArgmaxScatter):
    """The adjoint of MaxPool3DGradWithArgmax."""
    spatial = 3
    gather = True


# ---- 3-D windows ---------------------------------------------------------------------------
def _triple(prim, arg, value, minimum, six=False):
    v = (value,) * 3 if _is_int(value) else value
    if isinstance(v, list):
        v = tuple(v)
    ok = (3, 6) if six else (3,)
    if not isinstance(v, tuple) or len(v) not in ok or not all(_is_int(e) and e >= minimum
                                                               for e in v):
        raise ValueError(f"For '{prim.name}', '{arg}' must be an int >= {minimum} or a tuple of "
                         f"{' or '.join(map(str, ok))} such ints, but got {value!r}")
    return tuple(int(e) for e in v)


def window_out(prim, shape, kernel, stride, pads, dilation, ceil_mode):
    """Output spatial sizes (PyTorch's formula, with the ceil_mode correction)."""
    out = []
    for n, k, s, (lo, hi), d in zip(shape, kernel, stride, pads, dilation):
        span = n + lo + hi - d * (k - 1) - 1
        o = (span + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and o > 0 and (o - 1) * s >= n + lo:
            o -= 1
        out.append(o)
    if min(out) <= 0:
        raise ValueError(f"For '{prim.name}', the kernel {kernel} with stride {stride}, dilation "
                         f"{dilation} and padding {pads} does not fit the input's spatial size "
                         f"{list(shape)}: the output would be {out}")
    return tuple(out)


class _Pool3D(Primitive):
    input_names = ("x",)

    def _set_geometry(self, kernel, stride, pads, dilation, ceil_mode):
        check_bool(self, "ceil_mode", ceil_mode)
        for (lo, hi), k, d in zip(pads, kernel, dilation):
            if max(lo, hi) > (d * (k - 1) + 1) // 2:
                raise ValueError(f"For '{self.name}', the padding {pads} must be at most half of "
                                 f"the (dilated) kernel {kernel}")
        self._geo = (kernel, stride, pads, dilation, ceil_mode)

    def out_shape(self, x):
        _check_float_x(self, x, (5,))
        kernel, stride, pads, dilation, ceil_mode = self._geo
        if self.attrs.get("pad_mode", "pad") != "pad":
            pads = self._auto_pads(x)
        return tuple(x.shape[:2]) + window_out(self, x.shape[2:], kernel, stride, pads,
                                               dilation, ceil_mode)

    def _auto_pads(self, x):
        kernel, stride = self._geo[:2]
        if self.attrs["pad_mode"] == "valid":
            return ((0, 0),) * 3
        pads = []
        for n, k, s in zip(x.shape[2:], kernel, stride):
            total = max((math.ceil(n / s) - 1) * s + k - n, 0)
            pads.append((total // 2, total - total // 2))
        return tuple(pads)

    def kernel_params(self, x, *rest):
        kernel, stride, pads, dilation, _ = self._geo
        if self.attrs.get("pad_mode", "pad") != "pad":
            pads = self._auto_pads(x)
        return {"kernel": kernel, "stride": stride, "pads": pads, "dilation": dilation}


class AvgPool3D(_Pool3D):
    """Average pooling of x (N, C, D, H, W). pad_mode 'valid', 'same' or 'pad' (with `pad`:
    an int or 6 ints (head, tail, top, bottom, left, right)); the divisor is
    divisor_override if non-zero, else the window's element count inside x
    (count_include_pad=False) or inside x + padding. Gradient: AvgPool3DGrad."""

    @prim_attr_register
    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", pad=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=0, data_format="NCDHW"):
        kernel = _triple(self, "kernel_size", kernel_size, 1)
        stride = _triple(self, "strides", strides, 1)
        p = _triple(self, "pad", pad, 0, six=True)
        p = p if len(p) == 6 else (p[0], p[0], p[1], p[1], p[2], p[2])
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("valid", "same", "pad"):
            raise ValueError(f"For '{self.name}', 'pad_mode' must be 'valid', 'same' or 'pad', "
                             f"but got {pad_mode!r}")
        self.add_prim_attr("pad_mode", pad_mode.lower())
        if pad_mode.lower() != "pad" and any(p):
            raise ValueError(f"For '{self.name}', 'pad' must be 0 when 'pad_mode' is not 'pad', "
                             f"but got {pad!r}")
        check_bool(self, "count_include_pad", count_include_pad)
        check_int(self, "divisor_override", divisor_override, 0, MAX_INT_ATTR)
        if data_format != "NCDHW":
            raise ValueError(f"For '{self.name}', 'data_format' must be 'NCDHW', but got "
                             f"{data_format!r}")
        self._set_geometry(kernel, stride, tuple(zip(p[::2], p[1::2])), (1, 1, 1), ceil_mode)

    def infer(self, x):
        return tensor(x.dtype, self.out_shape(x))

    def kernel_params(self, x, *rest):
        params = super().kernel_params(x)
        params.update(include_pad=self.attrs["count_include_pad"],
                      divisor=self.attrs["divisor_override"])
        return params


class AvgPool3DGrad(AvgPool3D):
    """(x, grad) -> dx of AvgPool3D; linear in grad, its adjoint is AvgPool3D."""
    input_names = ("x", "grad")

    def infer(self, x, grad):
        check_same_dtype(self, [("x", x), ("grad", grad)])
        _check_shape(self, "grad", grad, self.out_shape(x))
        return x


class MaxPool3DWithArgmax(_Pool3D):
    """(y, argmax): max pooling of x (N, C, D, H, W) with -inf padding (`pads`: an int or 3
    ints, at most half the dilated kernel), dilation and ceil_mode; argmax (argmax_type) is
    the first maximum's flat index in its (n, c) volume. Gradient: MaxPool3DGradWithArgmax."""

    @prim_attr_register
    def __init__(self, ksize, strides=None, pads=0, dilation=(1, 1, 1), ceil_mode=False,
                 data_format="NCDHW", argmax_type=mstype.int64):
        kernel = _triple(self, "ksize", ksize, 1)
        stride = kernel if strides is None else _triple(self, "strides", strides, 1)
        p = _triple(self, "pads", pads, 0)
        dil = _triple(self, "dilation", dilation, 1)
        if data_format != "NCDHW":
            raise ValueError(f"For '{self.name}', 'data_format' must be 'NCDHW', but got "
                             f"{data_format!r}")
        t = check_index_type(self, "argmax_type", argmax_type)
        self._argmax_type = t
        self._set_geometry(kernel, stride, tuple((e, e) for e in p), dil, ceil_mode)

    def infer(self, x):
        shape = self.out_shape(x)
        return tensor(x.dtype, shape), tensor(self._argmax_type, shape)


# ---- bprops --------------------------------------------------------------------------------
linear_pair_bprops(AdaptiveAvgPool2D, AdaptiveAvgPool2DGrad)
linear_pair_bprops(AvgPool3D, AvgPool3DGrad)


@bprop_for(AdaptiveMaxPool2D)
def adaptive_max_pool2d_bprop(prim, x, out, dout):
    return (cached_prim(AdaptiveMaxPool2DGrad)(x, dout[0], out[1]),)


@bprop_for(MaxPool3DWithArgmax)
def max_pool3d_with_argmax_bprop(prim, x, out, dout):
    return (cached_prim(MaxPool3DGradWithArgmax)(x, dout[0], out[1]),)


_ADJOINT = {AdaptiveMaxPool2DGrad: AdaptiveMaxPool2DGradGrad,
            AdaptiveMaxPool2DGradGrad: AdaptiveMaxPool2DGrad,
            MaxPool3DGradWithArgmax: MaxPool3DGradGradWithArgmax,
            MaxPool3DGradGradWithArgmax: MaxPool3DGradWithArgmax}


@bprop_for(*_ADJOINT)
def argmax_scatter_bprop(prim, x, grad, argmax, out, g):
    return None, cached_prim(_ADJOINT[type(prim)])(x, g, argmax), None
