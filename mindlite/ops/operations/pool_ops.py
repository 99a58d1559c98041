"""Pooling primitives with their gradients and bprops (gradients of gradients included):
MaxPool -> MaxPoolGrad <-> MaxPoolGradGrad, AvgPool <-> AvgPoolGrad (MindSpore's pad_mode
'valid' / 'same'), and the explicit-padding forms behind ops.max_pool2d / ops.avg_pool2d and
the pooling layers' pad_mode='pad': MaxPoolWithArgmaxV2 -> MaxPoolGradWithArgmaxV2 <->
MaxPoolGradGradWithArgmax, AvgPool2D <-> AvgPool2DGrad. Kernels: kernels/cpu/pool_numpy.py.

Input (N, C, H, W), float16/32/64, NCHW only (as MindSpore's CPU). 'valid': H_out =
ceil((H - kh + 1) / sh), no padding; 'same': H_out = ceil(H / sh), padding split top =
total // 2, the odd one at the bottom; max pooling pads with -inf, average pooling divides by
the number of input elements in the window (padding excluded, as MindSpore's CPU). Max pooling's
gradient goes to the first maximum of each window in row-major order (NaN is a maximum).
"""
import math

from ...common import dtype as mstype
from ...common.limits import MAX_INT_ATTR
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import (check_bool, check_dtype, check_index_type, check_int, check_same_dtype,
                         check_tensor, tensor)
from ._base import linear_pair_bprops, sibling
from .conv_ops import check_nchw, check_str_choice, int_pair

__all__ = ["AvgPool", "AvgPool2D", "MaxPool", "MaxPoolWithArgmaxV2"]


def _check_x(prim, arg, x):
    check_dtype(prim, arg, x, mstype.FLOAT_TYPES)
    if len(x.shape) != 4:
        raise ValueError(f"For '{prim.name}', '{arg}' must be a 4-D tensor (NCHW), but got shape "
                         f"{list(x.shape)}")


def _check_shape(prim, arg, t, want, what):
    check_tensor(prim, arg, t)
    if tuple(t.shape) != tuple(want):
        raise ValueError(f"For '{prim.name}', '{arg}' must have the shape of {what} "
                         f"{list(want)}, but got {list(t.shape)}")


class _Pool(Primitive):
    """MindSpore's _Pool: kernel_size and strides an int or a pair (stored (1, 1, h, w)),
    pad_mode 'valid' or 'same' (case-insensitive, stored upper case)."""
    input_names = ("x",)
    include_pad = False

    @prim_attr_register
    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        self.add_prim_attr("kernel_size", (1, 1) + int_pair(self, "kernel_size", kernel_size))
        self.add_prim_attr("strides", (1, 1) + int_pair(self, "strides", strides))
        self.add_prim_attr("pad_mode",
                           check_str_choice(self, "pad_mode", pad_mode, ("valid", "same")).upper())
        check_nchw(self, data_format)

    def geometry(self, x):
        """((H_out, W_out), params for the kernels) for input abstract x."""
        kh, kw = self.attrs["kernel_size"][2:]
        sh, sw = self.attrs["strides"][2:]
        h, w = x.shape[2:]
        if self.attrs["pad_mode"] == "VALID":
            oh, ow = math.ceil((h - kh + 1) / sh), math.ceil((w - kw + 1) / sw)
            pads = (0, 0, 0, 0)
        else:
            oh, ow = math.ceil(h / sh), math.ceil(w / sw)
            th, tw = max(0, (oh - 1) * sh + kh - h), max(0, (ow - 1) * sw + kw - w)
            pads = (th // 2, th - th // 2, tw // 2, tw - tw // 2)
        if oh <= 0 or ow <= 0:
            raise ValueError(f"For '{self.name}', the kernel size {(kh, kw)} is larger than the "
                             f"input's spatial size {[h, w]} (pad_mode "
                             f"'{self.attrs['pad_mode']}'): the output would be {oh}x{ow}")
        params = {"kernel": (kh, kw), "stride": (sh, sw), "pads": pads, "dilation": (1, 1)}
        if isinstance(self, (AvgPool, AvgPoolGrad)):
            params.update(include_pad=False, divisor=0)
        return (oh, ow), params

    def out_shape(self, x):
        (oh, ow), _ = self.geometry(x)
        return x.shape[:2] + (oh, ow)

    def infer(self, x):
        _check_x(self, "x", x)
        return tensor(x.dtype, self.out_shape(x))

    def kernel_params(self, x, *rest):
        return self.geometry(x)[1]


class _PoolGrad(_Pool):
    """(x_origin, out_origin, grad) -> dx of the forward pooling with the same attributes."""
    input_names = ("x_origin", "out_origin", "grad")

    def infer(self, x, out, grad):
        _check_x(self, "x_origin", x)
        check_same_dtype(self, [("x_origin", x), ("out_origin", out), ("grad", grad)])
        want = self.out_shape(x)
        _check_shape(self, "out_origin", out, want, "the pooling output")
        _check_shape(self, "grad", grad, want, "the pooling output")
        return x


class MaxPool(_Pool):
    """y = max over each kh x kw window (stride `strides`); NaN propagates. Gradient: dout to
    the window's first maximum (row-major), via MaxPoolGrad."""


class MaxPoolGrad(_PoolGrad):
    """dx: grad[n, c, i, j] added at the first maximum of window (i, j); linear in grad, so its
    own gradient w.r.t. grad is MaxPoolGradGrad (0 w.r.t. x_origin and out_origin)."""


class MaxPoolGradGrad(_PoolGrad):
    """(x_origin, out_origin, grad of x's shape) -> grad read at each window's first maximum,
    of the pooling output's shape; the adjoint of MaxPoolGrad."""

    def infer(self, x, out, grad):
        _check_x(self, "x_origin", x)
        check_same_dtype(self, [("x_origin", x), ("out_origin", out), ("grad", grad)])
        want = self.out_shape(x)
        _check_shape(self, "out_origin", out, want, "the pooling output")
        _check_shape(self, "grad", grad, x.shape, "x_origin")
        return out


class AvgPool(_Pool):
    """y = mean of each window; 'same' padding is left out of the count. Gradient: AvgPoolGrad
    spreads dout / count over each window."""


class AvgPoolGrad(_PoolGrad):
    """dx of AvgPool; linear in grad, its adjoint is AvgPool."""


# ---- explicit padding, dilation, ceil_mode (ops.max_pool2d / ops.avg_pool2d) ---------------
def _explicit_geometry(prim, x, kernel, stride, pads, dilation, ceil_mode):
    h, w = x.shape[2:]
    out = []
    for size, k, s, p, d in zip((h, w), kernel, stride, (pads[0], pads[2]), dilation):
        span = size + 2 * p - d * (k - 1) - 1
        o = (span + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and o > 0 and (o - 1) * s >= size + p:
            o -= 1
        out.append(o)
    if out[0] <= 0 or out[1] <= 0:
        raise ValueError(f"For '{prim.name}', the kernel {kernel} with dilation {dilation} and "
                         f"padding {pads[::2]} does not fit the input's spatial size {[h, w]}: "
                         f"the output would be {out[0]}x{out[1]}")
    return tuple(out)


class _ExplicitPool(Primitive):
    """kernel_size, strides (None = kernel_size), pads (int or pair, at most half the
    kernel), dilation and ceil_mode as PyTorch's pooling."""
    input_names = ("x",)
    dilated = True

    def _init_pool(self, kernel_size, strides, pads, dilation, ceil_mode):
        kernel = int_pair(self, "kernel_size", kernel_size)
        stride = kernel if strides is None or strides == () else int_pair(self, "strides",
                                                                             strides)
        pad = int_pair(self, "pads", pads, minimum=0)
        dil = int_pair(self, "dilation", dilation)
        check_bool(self, "ceil_mode", ceil_mode)
        if not self.dilated and dil != (1, 1):
            raise ValueError(f"For '{self.name}', 'dilation' must be 1, but got {dilation!r}")
        if pad[0] > kernel[0] // 2 or pad[1] > kernel[1] // 2:
            raise ValueError(f"For '{self.name}', 'pads' must be at most half of 'kernel_size' "
                             f"{kernel}, but got {pad}")
        self._geo = (kernel, stride, (pad[0], pad[0], pad[1], pad[1]), dil, ceil_mode)

    def out_shape(self, x):
        return x.shape[:2] + _explicit_geometry(self, x, *self._geo)

    def kernel_params(self, x, *rest):
        kernel, stride, pads, dil, _ = self._geo
        return {"kernel": kernel, "stride": stride, "pads": pads, "dilation": dil}


class MaxPoolWithArgmaxV2(_ExplicitPool):
    """(y, argmax): max pooling with explicit padding (-inf), dilation and ceil_mode; argmax
    is the first maximum's flat index h * W + w in its (n, c) input plane, as `argmax_type`
    (int32 or int64). Gradient: MaxPoolGradWithArgmaxV2 scatters dy to argmax."""

    @prim_attr_register
    def __init__(self, kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False,
                 argmax_type=mstype.int64):
        self._init_pool(kernel_size, strides, pads, dilation, ceil_mode)
        # a MINDIR file holds a dtype attribute as its MindSpore TypeId (int32 34, int64 35)
        argmax_type = {34: mstype.int32, 35: mstype.int64}.get(argmax_type, argmax_type) \
            if isinstance(argmax_type, int) and not isinstance(argmax_type, bool) else argmax_type
        t = check_index_type(self, "argmax_type", argmax_type)
        self.add_prim_attr("argmax_type", t)

    def infer(self, x):
        _check_x(self, "x", x)
        shape = self.out_shape(x)
        return tensor(x.dtype, shape), tensor(self.attrs["argmax_type"], shape)


class _ArgmaxGrad(MaxPoolWithArgmaxV2):
    input_names = ("x", "grad", "argmax")

    def _check(self, x, grad, argmax, grad_shape):
        _check_x(self, "x", x)
        check_same_dtype(self, [("x", x), ("grad", grad)])
        check_dtype(self, "argmax", argmax, (mstype.int32, mstype.int64))
        _check_shape(self, "argmax", argmax, self.out_shape(x), "the pooling output")
        _check_shape(self, "grad", grad, grad_shape, "the gradient")


class MaxPoolGradWithArgmaxV2(_ArgmaxGrad):
    """dx: grad scattered (added) to the argmax positions; its adjoint is
    MaxPoolGradGradWithArgmax."""

    def infer(self, x, grad, argmax):
        self._check(x, grad, argmax, self.out_shape(x))
        return x


class MaxPoolGradGradWithArgmax(_ArgmaxGrad):
    """grad (of x's shape) read at the argmax positions; the adjoint of
    MaxPoolGradWithArgmaxV2."""

    def infer(self, x, grad, argmax):
        self._check(x, grad, argmax, x.shape)
        return tensor(x.dtype, argmax.shape)


class AvgPool2D(_ExplicitPool):
    """Average pooling with explicit zero padding and ceil_mode; the divisor is
    divisor_override if given, else the window's element count inside the input
    (count_include_pad=False) or inside input + padding (count_include_pad=True).
    NOTE: MindSpore 2.3's AvgPool2D takes these as call inputs; here they are attributes."""
    dilated = False

    @prim_attr_register
    def __init__(self, kernel_size, strides=None, pads=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        self._init_pool(kernel_size, strides, pads, 1, ceil_mode)
        check_bool(self, "count_include_pad", count_include_pad)
        if divisor_override is not None and divisor_override != 0:
            check_int(self, "divisor_override", divisor_override, 1, MAX_INT_ATTR)

    def infer(self, x):
        _check_x(self, "x", x)
        return tensor(x.dtype, self.out_shape(x))

    def kernel_params(self, x, *rest):
        params = super().kernel_params(x)
        params.update(include_pad=self.attrs["count_include_pad"],
                      divisor=self.attrs["divisor_override"] or 0)
        return params


class AvgPool2DGrad(AvgPool2D):
    """(x, grad) -> dx of AvgPool2D; linear in grad, its adjoint is AvgPool2D."""
    input_names = ("x", "grad")

    def infer(self, x, grad):
        _check_x(self, "x", x)
        check_same_dtype(self, [("x", x), ("grad", grad)])
        _check_shape(self, "grad", grad, self.out_shape(x), "the pooling output")
        return x


# ---- bprops -------------------------------------------------------------------------------
@bprop_for(MaxPool)
def max_pool_bprop(prim, x, out, dout):
    return (sibling(prim, MaxPoolGrad)(x, out, dout),)


@bprop_for(MaxPoolGrad)
def max_pool_grad_bprop(prim, x, out, grad, dx, g):
    return None, None, sibling(prim, MaxPoolGradGrad)(x, out, g)


@bprop_for(MaxPoolGradGrad)
def max_pool_grad_grad_bprop(prim, x, out, grad, y, g):
    return None, None, sibling(prim, MaxPoolGrad)(x, out, g)


@bprop_for(AvgPool)
def avg_pool_bprop(prim, x, out, dout):
    return (sibling(prim, AvgPoolGrad)(x, out, dout),)


@bprop_for(AvgPoolGrad)
def avg_pool_grad_bprop(prim, x, out, grad, dx, g):
    return None, None, sibling(prim, AvgPool)(g)


@bprop_for(MaxPoolWithArgmaxV2)
def max_pool_with_argmax_v2_bprop(prim, x, out, dout):
    return (sibling(prim, MaxPoolGradWithArgmaxV2)(x, dout[0], out[1]),)


@bprop_for(MaxPoolGradWithArgmaxV2)
def max_pool_grad_with_argmax_v2_bprop(prim, x, grad, argmax, dx, g):
    return None, sibling(prim, MaxPoolGradGradWithArgmax)(x, g, argmax), None


@bprop_for(MaxPoolGradGradWithArgmax)
def max_pool_grad_grad_with_argmax_bprop(prim, x, grad, argmax, y, g):
    return None, sibling(prim, MaxPoolGradWithArgmaxV2)(x, g, argmax), None


linear_pair_bprops(AvgPool2D, AvgPool2DGrad)
