"""Functional convolution, pooling, normalisation and dropout (MindSpore 2.x signatures):
ops.conv2d, max_pool2d, avg_pool2d, batch_norm, layer_norm, dropout.

Each builds its primitive once per attribute combination (cached here), so repeated calls hit
the primitive's runner cache. max_pool2d / avg_pool2d use MaxPool / AvgPool ('valid') when
there is no padding, dilation, ceil_mode or index output, else MaxPoolWithArgmaxV2 / AvgPool2D.
"""
import numbers

import numpy as np

from ...cache_limits import remember
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import conv_ops as C
from ..operations import nn_ops as N
from ..operations import norm_ops as B
from ..operations import pool_ops as P

__all__ = ['avg_pool2d', 'batch_norm', 'conv2d', 'dropout', 'layer_norm', 'max_pool2d']

_PRIMS = {}


def _key(v):
    """A hashable key that keeps True apart from 1 and (1, 2) apart from [1, 2]'s type."""
    if isinstance(v, (tuple, list)):
        return tuple(_key(e) for e in v)
    return (type(v), v)


def _prim(cls, *args, **kwargs):
    key = (cls, _key(args), _key(tuple(sorted(kwargs.items()))))
    prim = _PRIMS.get(key)
    if prim is None:
        prim = remember(_PRIMS, key, cls(*args, **kwargs))
    return prim


def _tensor(fn, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{fn}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,
           groups=1):
    """2-D convolution of input (N, C_in, H, W) with weight (C_out, C_in / groups, kh, kw),
    plus bias (C_out,) if given. padding: int or (top, bottom, left, right), with
    pad_mode='pad' only."""
    _tensor("conv2d", "input", input)
    _tensor("conv2d", "weight", weight)
    if weight.ndim != 4:
        raise ValueError(f"For 'conv2d', 'weight' must be a 4-D tensor (C_out, C_in / groups, "
                         f"kh, kw), but got shape {list(weight.shape)}")
    prim = _prim(C.Conv2D, weight.shape[0], tuple(weight.shape[2:]), pad_mode=pad_mode,
                 pad=padding, stride=stride, dilation=dilation, group=groups)
    out = prim(input, weight)
    if bias is not None:
        out = _prim(N.BiasAdd)(out, _tensor("conv2d", "bias", bias))
    return out


def _zero(v):
    return v == 0 or (isinstance(v, (tuple, list)) and all(e == 0 for e in v))


def _one(v):
    return v == 1 or (isinstance(v, (tuple, list)) and all(e == 1 for e in v))


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False):
    """Max pooling of x (N, C, H, W) with -inf padding (at most half the kernel),
    dilation and ceil_mode as PyTorch; stride None means kernel_size. With return_indices,
    (output, argmax) where argmax (int64) is the flat index h * W + w in each input plane."""
    _tensor("max_pool2d", "x", x)
    if stride is None:
        stride = kernel_size
    if _zero(padding) and _one(dilation) and not return_indices and not ceil_mode:
        return _prim(P.MaxPool, kernel_size, stride, "valid")(x)
    prim = _prim(P.MaxPoolWithArgmaxV2, kernel_size, stride, padding, dilation, ceil_mode)
    out, argmax = prim(x)
    return (out, argmax) if return_indices else out


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Average pooling of input_x (N, C, H, W) with zero padding (at most half the kernel) and
    ceil_mode as PyTorch; the divisor is divisor_override if given, else the window's size
    counted with (count_include_pad) or without the padding."""
    _tensor("avg_pool2d", "input_x", input_x)
    if _zero(padding) and not ceil_mode and not divisor_override:
        return _prim(P.AvgPool, kernel_size, stride, "valid")(input_x)
    return _prim(P.AvgPool2D, kernel_size, stride, padding, ceil_mode, count_include_pad,
                 divisor_override)(input_x)


def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1,
               eps=1e-5):
    """Batch normalisation over axis 1; in training the batch statistics are used and
    running_mean / running_var are updated in place: running = (1 - momentum) running +
    momentum batch (the primitive's convention)."""
    prim = _prim(B.BatchNorm, training, eps, momentum)
    return prim(input_x, weight, bias, running_mean, running_var)[0]


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Layer normalisation over the last len(normalized_shape) axes; weight (gamma) and bias
    (beta) default to ones and zeros of normalized_shape."""
    _tensor("layer_norm", "input", input)
    if isinstance(normalized_shape, numbers.Integral) and not isinstance(normalized_shape, bool):
        normalized_shape = (int(normalized_shape),)
    if not isinstance(normalized_shape, (tuple, list)) or not normalized_shape:
        raise TypeError(f"For 'layer_norm', 'normalized_shape' must be an int or a non-empty "
                        f"tuple of ints, but got {normalized_shape!r}")
    normalized_shape = tuple(normalized_shape)
    rank = input.ndim
    if rank < len(normalized_shape) or tuple(input.shape[rank - len(normalized_shape):]) != \
            normalized_shape:
        raise ValueError(f"For 'layer_norm', the trailing dimensions of 'input' "
                         f"{list(input.shape)} must equal 'normalized_shape' "
                         f"{list(normalized_shape)}")
    dt = input.dtype.np
    if weight is None:
        weight = Tensor.from_numpy(np.ones(normalized_shape, dtype=dt))
    if bias is None:
        bias = Tensor.from_numpy(np.zeros(normalized_shape, dtype=dt))
    axis = rank - len(normalized_shape)
    return _prim(B.LayerNorm, axis, axis, eps)(input, weight, bias)[0]


def dropout(input, p=0.5, training=True, seed=None):
    """Zeroes each element with probability p and scales the rest by 1 / (1 - p) when
    training; the input itself otherwise (or when p is 0)."""
    _tensor("dropout", "input", input)
    if not isinstance(p, numbers.Real) or isinstance(p, bool) or not 0 <= p <= 1:
        raise ValueError(f"For 'dropout', 'p' must be a float in [0, 1], but got {p!r}")
    if not training or p == 0:
        return input
    if p == 1:
        return _prim(A.ZerosLike)(input)
    if input.dtype not in mstype.FLOAT_TYPES:
        raise TypeError(f"For 'dropout', 'input' must be a float tensor, but got {input.dtype}")
    return _prim(B.Dropout, 1.0 - float(p), seed or 0, 0)(input)[0]
