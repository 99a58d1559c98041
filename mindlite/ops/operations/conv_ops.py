"""Convolution primitives: Conv2D and its gradients Conv2DBackpropInput (alias Conv2DTranspose)
and Conv2DBackpropFilter (MindSpore's _grad_ops), with inference and bprops. The bprops are
written with the three primitives themselves, so grad(grad(f)) works. Kernels:
kernels/cpu/conv_numpy.py (im2col + BLAS, the reference) and conv_cpp.py (C++ im2col /
col2im loops, csrc/kernels/conv_loops.cc, around the same GEMMs).

Geometry (MindSpore's; NCHW only, as on MindSpore's CPU): x (N, C_in, H, W), weight
(C_out, C_in / group, kh, kw), effective kernel e = d (k - 1) + 1 per axis:
  'valid'  no padding, H_out = ceil((H - e + 1) / s)
  'same'   H_out = ceil(H / s); total padding max(0, (H_out - 1) s + e - H), top = total // 2,
           the odd one at the bottom (right)
  'pad'    explicit pad (top, bottom, left, right), H_out = floor((H + top + bottom - e) / s) + 1
pad_mode is case-insensitive; a non-zero pad with a pad_mode other than 'pad' is a ValueError.
Attributes are stored normalised as MindSpore does: kernel_size (kh, kw), stride and dilation
(1, 1, h, w), pad (top, bottom, left, right), pad_mode lower case.
"""
import math
import numbers

from ...cache_limits import remember
from ...common import dtype as mstype
from ...common.limits import MAX_INT_ATTR
from ...ir.rules import bprop_for
from ._base import needs_grad
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import (check_dtype, check_int, check_output_size, check_same_dtype,
                         check_tensor, tensor)

__all__ = ["Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput", "Conv2DTranspose"]


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _in_range(v, minimum):
    """An int in [minimum, MAX_INT_ATTR]: larger sizes fit no kernel (common/limits.py)."""
    return _is_int(v) and minimum <= v <= MAX_INT_ATTR


def int_pair(prim, arg, value, allow_four=False, minimum=1):
    """An int or a tuple of 2 ints (or 4: (1, 1, h, w)), each in [minimum, MAX_INT_ATTR]
    -> (h, w)."""
    if isinstance(value, list):
        value = tuple(value)
    if _is_int(value):
        value = (value, value)
    lengths = "two or four" if allow_four else "two"
    if not isinstance(value, tuple):
        raise TypeError(f"For '{prim.name}', '{arg}' must be an int or a tuple of {lengths} ints, "
                        f"but got {type(value).__name__}: {value!r}")
    if len(value) == 4 and allow_four and tuple(value[:2]) == (1, 1):
        value = value[2:]
    if len(value) != 2 or not all(_in_range(v, minimum) for v in value):
        four = " (a 4-tuple must be (1, 1, h, w))" if allow_four else ""
        raise ValueError(f"For '{prim.name}', '{arg}' must be an int in [{minimum}, "
                         f"{MAX_INT_ATTR}] or a tuple of {lengths} such ints{four}, but got "
                         f"{value!r}")
    return (int(value[0]), int(value[1]))


def check_str_choice(prim, arg, value, choices, lower=True):
    if not isinstance(value, str):
        raise TypeError(f"For '{prim.name}', '{arg}' must be a str, but got "
                        f"{type(value).__name__}: {value!r}")
    v = value.lower() if lower else value
    if v not in choices:
        case = " (case-insensitive)" if lower else ""
        raise ValueError(f"For '{prim.name}', '{arg}' must be one of {list(choices)}{case}, but "
                         f"got {value!r}")
    return v


def check_nchw(prim, data_format):
    fmt = check_str_choice(prim, "data_format", data_format, ("NCHW", "NHWC"), lower=False)
    if fmt != "NCHW":
        raise ValueError(f"For '{prim.name}', the 'NHWC' format is only supported on GPU (as "
                         f"MindSpore), but got 'data_format' {data_format!r} on CPU")
    return fmt


def _check_pad(prim, pad, pad_mode):
    if isinstance(pad, list):
        pad = tuple(pad)
    if _is_int(pad):
        pad = (pad,) * 4
    if not isinstance(pad, tuple):
        raise TypeError(f"For '{prim.name}', 'pad' must be an int or a tuple of 4 ints, but got "
                        f"{type(pad).__name__}: {pad!r}")
    if len(pad) != 4 or not all(_in_range(p, 0) for p in pad):
        raise ValueError(f"For '{prim.name}', 'pad' must be an int in [0, {MAX_INT_ATTR}] or a "
                         f"tuple of 4 such ints (top, bottom, left, right), but got {pad!r}")
    if pad_mode != "pad" and any(pad):
        raise ValueError(f"For '{prim.name}', 'pad' must be zero when 'pad_mode' is not 'pad', "
                         f"but got 'pad' {pad!r} and 'pad_mode' {pad_mode!r}")
    return tuple(int(p) for p in pad)


def conv_out_dim(size, k, s, d, mode, before, after):
    """(out size, pad before, pad after) along one axis; out may be <= 0 (caller checks)."""
    e = d * (k - 1) + 1
    if mode == "valid":
        return (size - e) // s + 1 if size >= e else 0, 0, 0
    if mode == "same":
        out = math.ceil(size / s)
        total = max(0, (out - 1) * s + e - size)
        return out, total // 2, total - total // 2
    padded = size + before + after
    return ((padded - e) // s + 1 if padded >= e else 0), before, after


class _ConvBase(Primitive):
    """Attribute checks and geometry shared by Conv2D and its two gradients."""

    def _init_conv(self, out_channel, kernel_size, mode, pad_mode, pad, stride, dilation, group,
                   data_format):
        check_int(self, "out_channel", out_channel, 1, MAX_INT_ATTR)
        check_int(self, "group", group, 1, MAX_INT_ATTR)
        kernel = int_pair(self, "kernel_size", kernel_size)
        stride = int_pair(self, "stride", stride, allow_four=True)
        dilation = int_pair(self, "dilation", dilation, allow_four=True)
        check_int(self, "mode", mode)
        if mode != 1:
            raise ValueError(f"For '{self.name}', 'mode' must be 1, but got {mode}")
        pad_mode = check_str_choice(self, "pad_mode", pad_mode, ("valid", "same", "pad"))
        pad = _check_pad(self, pad, pad_mode)
        check_nchw(self, data_format)
        if out_channel % group:
            raise ValueError(f"For '{self.name}', 'out_channel' must be divisible by 'group', but "
                             f"got 'out_channel' {out_channel} and 'group' {group}")
        self.add_prim_attr("kernel_size", kernel)
        self.add_prim_attr("stride", (1, 1) + stride)
        self.add_prim_attr("dilation", (1, 1) + dilation)
        self.add_prim_attr("pad_mode", pad_mode)
        self.add_prim_attr("pad", pad)

    def _explicit_pad(self):
        return self.attrs["pad"]

    def geometry(self, x_shape, arg="x", kernel=None):
        """(output H, W), pads (top, bottom, left, right) for an input of shape x_shape and a
        kernel of `kernel` (default: the kernel_size attribute)."""
        a = self.attrs
        kh, kw = kernel or a["kernel_size"]
        sh, sw = a["stride"][2:]
        dh, dw = a["dilation"][2:]
        t, b, l, r = self._explicit_pad()
        oh, pt, pb = conv_out_dim(x_shape[2], kh, sh, dh, a["pad_mode"], t, b)
        ow, pl, pr = conv_out_dim(x_shape[3], kw, sw, dw, a["pad_mode"], l, r)
        if oh <= 0 or ow <= 0:
            raise ValueError(f"For '{self.name}', the kernel {a['kernel_size']} with dilation "
                             f"{(dh, dw)} does not fit the (padded) spatial size of '{arg}' "
                             f"{list(x_shape[2:])} (pad_mode '{a['pad_mode']}', pad "
                             f"{(t, b, l, r)}): the output would be {oh}x{ow}")
        return (oh, ow), (pt, pb, pl, pr)

    def check_weight(self, w, x_channels, x_arg="x", w_arg="weight"):
        a = self.attrs
        group = a["group"]
        if w.shape[0] != a["out_channel"]:
            raise ValueError(f"For '{self.name}', '{w_arg}'.shape[0] must equal 'out_channel' "
                             f"{a['out_channel']}, but got {w_arg} shape {list(w.shape)}")
        if tuple(w.shape[2:]) != a["kernel_size"]:
            raise ValueError(f"For '{self.name}', '{w_arg}'.shape[2:] must equal 'kernel_size' "
                             f"{a['kernel_size']}, but got {w_arg} shape {list(w.shape)}")
        if x_channels != w.shape[1] * group:
            raise ValueError(f"For '{self.name}', the channels of '{x_arg}' ({x_channels}) must "
                             f"equal {w_arg}.shape[1] * group = {w.shape[1]} * {group}, but got "
                             f"{w_arg} shape {list(w.shape)}")

    def check_rank4(self, arg, x):
        check_tensor(self, arg, x)
        if len(x.shape) != 4:
            raise ValueError(f"For '{self.name}', '{arg}' must be a 4-D tensor (NCHW), but got "
                             f"shape {list(x.shape)}")

    def check_size_arg(self, arg, size):
        if isinstance(size, list):
            size = tuple(size)
        if not isinstance(size, tuple) or len(size) != 4 or not all(
                _is_int(v) and v >= 0 for v in size):
            raise ValueError(f"For '{self.name}', '{arg}' must be a tuple of 4 non-negative ints, "
                             f"but got {size!r}")
        return check_output_size(self, f"'{arg}'", tuple(int(v) for v in size))

    def params(self, x_shape, kernel=None):
        _, pads = self.geometry(x_shape, kernel=kernel)
        a = self.attrs
        return {"stride": a["stride"][2:], "dilation": a["dilation"][2:], "pads": pads,
                "group": a["group"]}


class Conv2D(_ConvBase):
    """2-D cross-correlation: out[n, o] = sum_c ccor(weight[o, c], x[n, g * C_in/group + c]),
    g = o // (out_channel / group). x and weight: float16/32/64, the same dtype. Linear in
    each input, so differentiable everywhere: dx = Conv2DBackpropInput(dout, weight, x.shape),
    dweight = Conv2DBackpropFilter(dout, x, weight.shape)."""
    input_names = ("x", "weight")

    @prim_attr_register
    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1,
                 dilation=1, group=1, data_format="NCHW"):
        self._init_conv(out_channel, kernel_size, mode, pad_mode, pad, stride, dilation, group,
                        data_format)

    def infer(self, x, w):
        self.check_rank4("x", x)
        self.check_rank4("weight", w)
        check_dtype(self, "x", x, mstype.FLOAT_TYPES)
        check_same_dtype(self, [("x", x), ("weight", w)])
        self.check_weight(w, x.shape[1])
        (oh, ow), _ = self.geometry(x.shape)
        shape = (x.shape[0], w.shape[0], oh, ow)
        return tensor(x.dtype, check_output_size(self, "the output shape", shape))

    def kernel_params(self, x, w):
        return self.params(x.shape)


class Conv2DBackpropInput(_ConvBase):
    """dx of Conv2D (a transposed convolution): (dout, weight, input_size) -> dx of shape
    input_size, for the Conv2D with the same attributes. dout must have exactly the shape that
    Conv2D gives for input_size. `pad_list` (top, bottom, left, right) is accepted as MindSpore
    does and, when given with pad_mode 'pad', overrides `pad`. Bilinear: d(dout) = Conv2D(g,
    weight), d(weight) = Conv2DBackpropFilter(dout, g, weight.shape)."""
    input_names = ("dout", "weight", "input_size")
    const_inputs = (2,)

    @prim_attr_register
    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None, mode=1,
                 stride=1, dilation=1, group=1, data_format="NCHW"):
        self._init_conv(out_channel, kernel_size, mode, pad_mode, pad, stride, dilation, group,
                        data_format)
        if pad_list is not None:
            self.add_prim_attr("pad_list", _check_pad(self, pad_list, "pad"))

    def _explicit_pad(self):
        pad_list = self.attrs.get("pad_list")
        if pad_list is not None and self.attrs["pad_mode"] == "pad" and any(pad_list):
            return pad_list
        return self.attrs["pad"]

    def infer(self, dout, w, input_size):
        self.check_rank4("dout", dout)
        self.check_rank4("weight", w)
        check_dtype(self, "dout", dout, mstype.FLOAT_TYPES)
        check_same_dtype(self, [("dout", dout), ("weight", w)])
        size = self.check_size_arg("input_size", input_size)
        # as MindSpore 2.10: the weight's shape, not out_channel / kernel_size, sets the
        # output channels and the kernel (Conv2DBackpropInput(4, 1) takes a (1, 1, 3, 3)
        # weight); only the channels must agree with input_size
        group = self.attrs["group"]
        if size[1] != w.shape[1] * group:
            raise ValueError(f"For '{self.name}', the channels of 'input_size' ({size[1]}) must "
                             f"equal weight.shape[1] * group = {w.shape[1]} * {group}, but got "
                             f"weight shape {list(w.shape)}")
        (oh, ow), _ = self.geometry(size, "input_size", tuple(w.shape[2:]))
        want = (size[0], w.shape[0], oh, ow)
        if tuple(dout.shape) != want:
            raise ValueError(f"For '{self.name}', 'dout' must have the Conv2D output shape "
                             f"{list(want)} for input_size {list(size)}, but got "
                             f"{list(dout.shape)}")
        return tensor(dout.dtype, size)

    def kernel_params(self, dout, w, input_size):
        return self.params(tuple(input_size), tuple(w.shape[2:]))


class Conv2DTranspose(Conv2DBackpropInput):
    """MindSpore's alias of Conv2DBackpropInput."""


class Conv2DBackpropFilter(_ConvBase):
    """dweight of Conv2D: (dout, x, filter_size) -> dweight of shape filter_size =
    (out_channel, C_in / group, kh, kw). Bilinear: d(dout) = Conv2D(x, g),
    d(x) = Conv2DBackpropInput(dout, g, x.shape)."""
    input_names = ("dout", "x", "filter_size")
    const_inputs = (2,)

    @prim_attr_register
    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=(0, 0, 0, 0),
                 mode=1, stride=(1, 1), dilation=(1, 1, 1, 1), group=1, data_format="NCHW"):
        self._init_conv(out_channel, kernel_size, mode, pad_mode, pad, stride, dilation, group,
                        data_format)
        self.add_prim_attr("pad_list", _check_pad(self, pad_list, "pad"))

    _explicit_pad = Conv2DBackpropInput._explicit_pad

    def infer(self, dout, x, filter_size):
        self.check_rank4("dout", dout)
        self.check_rank4("x", x)
        check_dtype(self, "dout", dout, mstype.FLOAT_TYPES)
        check_same_dtype(self, [("dout", dout), ("x", x)])
        size = self.check_size_arg("filter_size", filter_size)
        # as MindSpore 2.10: filter_size, not out_channel / kernel_size, sets the output
        # channels and the kernel (Conv2DBackpropFilter(4, 1) gives a (1, 1, 3, 3) dweight);
        # only the input channels must agree with x
        group = self.attrs["group"]
        if size[1] * group != x.shape[1]:
            raise ValueError(f"For '{self.name}', 'filter_size' must be (C_out, C_in / group, "
                             f"kh, kw) with C_in / group = {x.shape[1]} / {group} for x shape "
                             f"{list(x.shape)}, but got {list(size)}")
        (oh, ow), _ = self.geometry(x.shape, kernel=tuple(size[2:]))
        if tuple(dout.shape) != (x.shape[0], size[0], oh, ow):
            raise ValueError(f"For '{self.name}', 'dout' must have the Conv2D output shape "
                             f"{[x.shape[0], size[0], oh, ow]}, but got {list(dout.shape)}")
        return tensor(dout.dtype, size)

    def kernel_params(self, dout, x, filter_size):
        return self.params(x.shape, tuple(filter_size[2:]))


# ---- bprops -------------------------------------------------------------------------------
_FAMILY = {}


def _family(prim):
    """(Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter) with prim's geometry (cached)."""
    a = prim.attrs
    pads = prim._explicit_pad()
    key = (a["out_channel"], a["kernel_size"], a["pad_mode"], pads, a["stride"], a["dilation"],
           a["group"])
    fam = _FAMILY.get(key)
    if fam is None:
        kw = {"pad_mode": a["pad_mode"], "pad": pads if a["pad_mode"] == "pad" else 0,
                  "stride": a["stride"], "dilation": a["dilation"], "group": a["group"]}
        fam = (Conv2D(a["out_channel"], a["kernel_size"], **kw),
               Conv2DBackpropInput(a["out_channel"], a["kernel_size"], **kw),
               Conv2DBackpropFilter(a["out_channel"], a["kernel_size"], **kw))
        remember(_FAMILY, key, fam)
    return fam


@bprop_for(Conv2D)
def conv2d_bprop(prim, x, w, out, dout):
    _, bp_input, bp_filter = _family(prim)
    return (bp_input(dout, w, x.shape) if needs_grad(x) else None,
            bp_filter(dout, x, w.shape) if needs_grad(w) else None)


@bprop_for(Conv2DBackpropInput, Conv2DTranspose)
def conv2d_backprop_input_bprop(prim, dout, w, input_size, out, g):
    conv, _, bp_filter = _family(prim)
    return conv(g, w), bp_filter(dout, g, w.shape), None


@bprop_for(Conv2DBackpropFilter)
def conv2d_backprop_filter_bprop(prim, dout, x, filter_size, out, g):
    conv, bp_input, _ = _family(prim)
    return conv(x, g), bp_input(dout, g, x.shape), None
