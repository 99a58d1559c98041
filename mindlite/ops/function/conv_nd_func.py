"""Functional convolutions and activations of issue 13, as composites of existing
primitives (so their gradients are those primitives' bprops), MindSpore 2.10 signatures:
ops.conv1d (Conv2D over a unit height, as MindSpore does), ops.conv3d (one batched Conv2D per
kernel depth tap, the taps summed: a 3-D cross-correlation), ops.conv_transpose2d
(Conv2DBackpropInput; PyTorch's semantics: MindSpore 2.10 has no CPU kernel for it),
ops.prelu (the PReLU primitive of pointwise_loss_ops, channel axis 1) and ops.glu
(a * sigmoid(b)).
"""
import math
import numbers

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import conv_ops as C
from ..operations import pointwise_loss_ops as LX
from ..operations import math_ops as M
from ..operations import nn_ops as N
from . import pool_resize_func as NX
from ._typed_prims import typed_prim as _prim

__all__ = ["conv1d", "conv3d", "conv_transpose2d", "prelu", "glu"]

_expand, _reshape, _transpose = A.ExpandDims(), A.Reshape(), A.Transpose()
_mul, _addn, _cast = M.Mul(), M.AddN(), A.Cast()
_sigmoid = N.Sigmoid()


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _tensor(fn, arg, x, rank=None):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{fn}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    if rank is not None and x.ndim != rank:
        raise ValueError(f"For '{fn}', '{arg}' must be a {rank}-D tensor, but got shape "
                         f"{list(x.shape)}")
    return x


def _ints(fn, arg, value, n, minimum):
    v = (value,) * n if _is_int(value) else value
    if isinstance(v, list):
        v = tuple(v)
    if not isinstance(v, tuple) or len(v) != n or not all(_is_int(e) and e >= minimum
                                                          for e in v):
        raise ValueError(f"For '{fn}', '{arg}' must be an int >= {minimum} or a tuple or list "
                         f"of {n} such integers, but got {value!r}")
    return tuple(int(e) for e in v)


def _bias(fn, out, bias):
    if bias is None:
        return out
    return _prim(N.BiasAdd)(out, _tensor(fn, "bias", bias))


# ---- conv1d --------------------------------------------------------------------------------
def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,
           groups=1):
    """1-D convolution of input (N, C_in, L) with weight (C_out, C_in / groups, k), plus
    bias (C_out,); padding (an int or a 1-tuple) with pad_mode='pad' only."""
    _tensor("conv1d", "input", input, 3)
    _tensor("conv1d", "weight", weight, 3)
    if isinstance(padding, (tuple, list)):
        if len(padding) != 1:
            raise ValueError(f"For 'conv1d', padding must be a tuple or list with 1 element or "
                             f"int, but got {tuple(padding)}.")
        padding = padding[0]
    s = _ints("conv1d", "stride", stride, 1, 1)[0]
    d = _ints("conv1d", "dilation", dilation, 1, 1)[0]
    prim = _prim(C.Conv2D, weight.shape[0], (1, weight.shape[2]), 1, pad_mode,
                 (0, 0, padding, padding) if _is_int(padding) else padding, (1, s), (1, d),
                 groups)
    out = _bias("conv1d", prim(_expand(input, 2), _expand(weight, 2)), bias)
    return _prim(A.Squeeze, (2,))(out)


# ---- conv3d --------------------------------------------------------------------------------
def _pads3d(x_sp, kernel, stride, dilation, pad_mode, padding):
    if pad_mode == "pad":
        p = _ints("conv3d", "padding", padding, 3, 0) if not isinstance(padding, (tuple, list)) \
            or len(padding) == 3 else None
        if p is None:
            raise ValueError(f"For 'conv3d', 'padding' must be a tuple or list of 3 integers, "
                             f"but got {tuple(padding)}.")
        return [(e, e) for e in p]
    if padding != 0 and padding != (0, 0, 0):
        raise ValueError(f"For 'conv3d', 'padding' must be 0 when 'pad_mode' is "
                         f"'{pad_mode}', but got {padding!r}")
    if pad_mode == "valid":
        return [(0, 0)] * 3
    pads = []
    for n, k, s, d in zip(x_sp, kernel, stride, dilation):
        total = max(0, (math.ceil(n / s) - 1) * s + d * (k - 1) + 1 - n)
        pads.append((total // 2, total - total // 2))
    return pads


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,
           groups=1):
    """3-D convolution of input (N, C_in, D, H, W) with weight (C_out, C_in / groups, kd, kh,
    kw), plus bias (C_out,); pad_mode 'valid', 'same' or 'pad' (padding: an int or 3 ints)."""
    _tensor("conv3d", "input", input, 5)
    _tensor("conv3d", "weight", weight, 5)
    if not isinstance(pad_mode, str) or pad_mode.lower() not in ("valid", "same", "pad"):
        raise ValueError(f"For 'conv3d', 'pad_mode' must be one of ['valid', 'same', 'pad'], "
                         f"but got {pad_mode!r}")
    pad_mode = pad_mode.lower()
    kernel = tuple(weight.shape[2:])
    stride = _ints("conv3d", "stride", stride, 3, 1)
    dilation = _ints("conv3d", "dilation", dilation, 3, 1)
    (d0, d1), (h0, h1), (w0, w1) = _pads3d(input.shape[2:], kernel, stride, dilation, pad_mode,
                                           padding)
    n, c, depth = input.shape[:3]
    kd, sd, dd = kernel[0], stride[0], dilation[0]
    out_d = (depth + d0 + d1 - dd * (kd - 1) - 1) // sd + 1
    if out_d <= 0:
        raise ValueError(f"For 'conv3d', the kernel depth {kd} (dilation {dd}) does not fit "
                         f"the padded input depth {depth + d0 + d1}")
    x = NX.pad(input, (0, 0, 0, 0, d0, d1)) if d0 or d1 else input
    prim = _prim(C.Conv2D, weight.shape[0], kernel[1:], 1, "pad", (h0, h1, w0, w1), stride[1:],
                 dilation[1:], groups)
    taps = []
    for t in range(kd):
        xs = x[:, :, t * dd:t * dd + sd * (out_d - 1) + 1:sd]
        xs = _reshape(_transpose(xs, (0, 2, 1, 3, 4)), (n * out_d, c) + tuple(input.shape[3:]))
        taps.append(prim(xs, weight[:, :, t]))
    y = taps[0] if kd == 1 else _addn(taps)
    y = _transpose(_reshape(y, (n, out_d) + tuple(y.shape[1:])), (0, 2, 1, 3, 4))
    if bias is not None:
        b = _tensor("conv3d", "bias", bias)
        y = M.Add()(y, _reshape(b, (1, -1, 1, 1, 1)))
    return y


# ---- conv_transpose2d ----------------------------------------------------------------------
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 2-D convolution (the gradient of conv2d wrt its input) of input
    (N, C_in, H, W) with weight (C_in, C_out / groups, kh, kw): H_out = (H - 1) * stride -
    2 * padding + dilation * (kh - 1) + output_padding + 1 (output_padding < stride)."""
    _tensor("conv_transpose2d", "input", input, 4)
    _tensor("conv_transpose2d", "weight", weight, 4)
    s = _ints("conv_transpose2d", "stride", stride, 2, 1)
    p = _ints("conv_transpose2d", "padding", padding, 2, 0)
    op = _ints("conv_transpose2d", "output_padding", output_padding, 2, 0)
    d = _ints("conv_transpose2d", "dilation", dilation, 2, 1)
    if any(o >= max(si, di) for o, si, di in zip(op, s, d)):
        raise ValueError(f"For 'conv_transpose2d', 'output_padding' {op} must be smaller than "
                         f"'stride' {s} or 'dilation' {d}")
    if not _is_int(groups) or groups < 1 or input.shape[1] != weight.shape[0] or \
            weight.shape[0] % groups:
        raise ValueError(f"For 'conv_transpose2d', 'weight' {list(weight.shape)} must have "
                         f"C_in = {input.shape[1]} rows divisible by 'groups' {groups!r}")
    k = tuple(weight.shape[2:])
    hw = tuple((n - 1) * si - 2 * pi + di * (ki - 1) + oi + 1
               for n, si, pi, di, ki, oi in zip(input.shape[2:], s, p, d, k, op))
    if min(hw) <= 0:
        raise ValueError(f"For 'conv_transpose2d', the output size {list(hw)} must be positive")
    lead = (input.shape[0], weight.shape[1] * groups)
    if all(o < si for o, si in zip(op, s)):      # some Conv2D input size gives input's shape
        prim = _prim(C.Conv2DBackpropInput, weight.shape[0], k, "pad",
                     (p[0], p[0], p[1], p[1]), None, 1, s, d, groups)
        return _bias("conv_transpose2d", prim(input, weight, lead + hw), bias)
    # output_padding >= stride (allowed when dilation is larger): the unpadded transposed
    # convolution holds every contribution; crop `padding` off the front and cut or
    # zero-extend the end (no input reaches beyond it) to the requested size
    full = tuple((n - 1) * si + di * (ki - 1) + 1
                 for n, si, di, ki in zip(input.shape[2:], s, d, k))
    prim = _prim(C.Conv2DBackpropInput, weight.shape[0], k, "valid", 0, None, 1, s, d, groups)
    y = prim(input, weight, lead + full)
    crop = (-p[1], hw[1] - full[1] + p[1], -p[0], hw[0] - full[0] + p[0])
    return _bias("conv_transpose2d", NX.pad(y, crop), bias)


# ---- activations ---------------------------------------------------------------------------
def prelu(input, weight):
    """max(0, x) + weight * min(0, x), weight (1,) or (C,) along axis 1 (the gradient at
    x = 0 is weight's, as PyTorch)."""
    _tensor("prelu", "input", input)
    _tensor("prelu", "weight", weight)
    if input.dtype not in mstype.FLOAT_TYPES or weight.dtype not in mstype.FLOAT_TYPES:
        raise TypeError(f"For 'prelu', 'input' and 'weight' must be float tensors, but got "
                        f"{input.dtype} and {weight.dtype}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.ndim > 1 or weight.size not in (1, channels):
        raise ValueError(f"For 'prelu', the length of 'weight' must be equal to number of "
                         f"channels: {channels}, but got {list(weight.shape)}")
    if weight.ndim == 0:
        weight = _reshape(weight, (1,))
    if weight.dtype is not input.dtype:
        weight = _cast(weight, input.dtype)
    return _prim(LX.PReLU)(input, weight)


def glu(x, axis=-1):
    """a * sigmoid(b), where a and b are the two halves of x along `axis`."""
    _tensor("glu", "x", x)
    if not _is_int(axis) or not -max(x.ndim, 1) <= axis < max(x.ndim, 1):
        raise ValueError(f"For 'glu', 'axis' must be an int in [{-x.ndim}, {x.ndim}), but got "
                         f"{axis!r}")
    axis %= x.ndim
    n = x.shape[axis]
    if n % 2:
        raise ValueError(f"For 'glu', x.shape[{axis}] must be divisible by 2, but got {n}")
    head = (slice(None),) * axis
    a, b = x[head + (slice(0, n // 2),)], x[head + (slice(n // 2, n),)]
    return _mul(a, _sigmoid(b))
