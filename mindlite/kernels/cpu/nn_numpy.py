"""numpy reference kernels for nn_ops: activations, Softmax / LogSoftmax, BiasAdd.

alloc="runtime" kernels writing into the preallocated output (kernels/registry.py),
computing in the input dtype, using `out` as scratch where a formula has several
steps. Sigmoid, Softplus, Softmax and LogSoftmax use the stable forms documented on
their primitives; overflow in intermediate values (GeLU's x**3 in float16) and
inf * 0 edges are computed silently (np.errstate), as IEEE says.
"""
import math

import numpy as np

from ..registry import register_kernel


@register_kernel("ReLU", provider="numpy")
def relu_numpy(x, out):
    np.maximum(x, 0, out=out)


@register_kernel("ReLU6", provider="numpy")
def relu6_numpy(x, out):
    # NOTE: not np.clip, which keeps -0.0; max(x, 0) gives +0.0 as ReLU and the C++ kernel do
    np.minimum(np.maximum(x, 0, out=out), 6, out=out)


def _sigmoid_into(x, out):
    """sigmoid(x) = e**min(x,0) / (1 + e**-|x|): no exponential of a positive number."""
    e = np.exp(-np.abs(x))
    np.add(e, 1, out=out)
    np.divide(np.where(x < 0, e, x.dtype.type(1)), out, out=out)


@register_kernel("Sigmoid", provider="numpy")
def sigmoid_numpy(x, out):
    _sigmoid_into(x, out)


@register_kernel("Tanh", provider="numpy")
def tanh_numpy(x, out):
    np.tanh(x, out=out)


_GELU_C = math.sqrt(2.0 / math.pi)


@register_kernel("GeLU", provider="numpy")
def gelu_numpy(x, out):
    with np.errstate(all="ignore"):
        np.multiply(x, x, out=out)
        out *= x
        out *= 0.044715
        out += x
        out *= _GELU_C
        np.tanh(out, out=out)
        out += 1
        out *= x
        out *= 0.5


@register_kernel("SiLU", provider="numpy")
def silu_numpy(x, out):
    _sigmoid_into(x, out)
    with np.errstate(all="ignore"):
        out *= x


@register_kernel("Softplus", provider="numpy")
def softplus_numpy(x, out):
    np.abs(x, out=out)
    np.negative(out, out=out)
    np.exp(out, out=out)
    np.log1p(out, out=out)
    out += np.maximum(x, 0)


def _shifted(x, out, axis):
    """out = x - max(x, axis); returns the (x, out) to reduce over (0-d seen as shape (1,))."""
    if x.ndim == 0:
        x, out = x.reshape(1), out.reshape(1)
    np.subtract(x, np.max(x, axis=axis, keepdims=True), out=out)
    return out


@register_kernel("Softmax", provider="numpy")
def softmax_numpy(x, out, axis):
    if x.size == 0:
        return
    with np.errstate(all="ignore"):
        out = _shifted(x, out, axis)
        np.exp(out, out=out)
        out /= np.sum(out, axis=axis, keepdims=True)


@register_kernel("LogSoftmax", provider="numpy")
def log_softmax_numpy(x, out, axis):
    if x.size == 0:
        return
    with np.errstate(all="ignore"):
        out = _shifted(x, out, axis)
        out -= np.log(np.sum(np.exp(out), axis=axis, keepdims=True))


@register_kernel("BiasAdd", provider="numpy")
def bias_add_numpy(x, bias, out, data_format):
    if data_format != "NHWC":
        bias = bias.reshape((-1,) + (1,) * (x.ndim - 2))
    np.add(x, bias, out=out)
