"""Neural-network primitives: activations, Softmax / LogSoftmax, BiasAdd, each with its bprop
below it. Kernels: kernels/cpu/nn_*.py. ReLU, ReLU6, Sigmoid, Tanh, Softmax, LogSoftmax and
BiasAdd differentiate through the fused gradient primitives of _grad_ops.py.

Activations other than ReLU accept float tensors only (as MindSpore's CPU kernels)
and compute in the input dtype; Sigmoid, Softplus, Softmax and LogSoftmax are
evaluated in numerically stable forms (no overflow for large |x|).
"""
import math
import numbers

from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_axis, check_dtype, check_same_dtype, check_tensor
from ._base import FloatUnaryOp, UnaryOp, cached_prim, needs_grad
from ._grad_ops import (BiasAddGrad, LogSoftmaxGrad, ReLU6Grad, ReluGrad, SigmoidGrad,
                        SoftmaxGrad, TanhGrad)
from .math_ops import Add, Mul, Sub

__all__ = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "GeLU", "Gelu", "SiLU", "Softplus", "Softmax",
           "LogSoftmax", "BiasAdd"]


class ReLU(UnaryOp):
    """y = max(x, 0); relu(nan) = nan. Gradient 1 for x > 0, 0 for x <= 0: at 0 it is 0 (as
    MindSpore, PyTorch, JAX)."""
    valid_types = mstype.SIGNED_TYPES + mstype.BF16_TYPES


_mul, _add, _sub = Mul(), Add(), Sub()
_relu_grad, _relu6_grad = ReluGrad(), ReLU6Grad()
_sigmoid_grad, _tanh_grad = SigmoidGrad(), TanhGrad()


@bprop_for(ReLU)
def relu_bprop(prim, x, out, dout):
    # out > 0 exactly where x > 0: the mask at x = 0 is 0
    return (_relu_grad(dout, out) if needs_grad(x) else None,)


class ReLU6(FloatUnaryOp):
    """y = min(max(x, 0), 6). Gradient 1 for 0 < x < 6, else 0: at both kinks (0 and 6) it is
    0. Float only."""


@bprop_for(ReLU6)
def relu6_bprop(prim, x, out, dout):
    return (_relu6_grad(dout, x),)


class Sigmoid(FloatUnaryOp):
    """y = 1 / (1 + e**-x), evaluated as e**min(x,0) / (1 + e**-|x|) so that no exponential
    overflows; sigmoid(0) = 0.5. Gradient y (1 - y). Float only."""
    valid_types = mstype.FLOAT_TYPES + mstype.BF16_TYPES


_sigmoid = Sigmoid()


@bprop_for(Sigmoid)
def sigmoid_bprop(prim, x, out, dout):
    return (_sigmoid_grad(out, dout),)


class Tanh(FloatUnaryOp):
    """y = tanh(x). Gradient 1 - y**2. Float only."""
    valid_types = mstype.FLOAT_TYPES + mstype.BF16_TYPES


_tanh = Tanh()


@bprop_for(Tanh)
def tanh_bprop(prim, x, out, dout):
    return (_tanh_grad(out, dout),)


class GeLU(FloatUnaryOp):
    """y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3))), the tanh approximation MindSpore's
    GeLU primitive uses (ops.gelu(x, approximate='none') is the erf form). gelu(-inf) = nan
    (-inf * 0), as PyTorch's tanh form. Smooth: gradient 0.5 (1 + t) + 0.5 x (1 - t**2) u',
    t = tanh(u), u = sqrt(2/pi) (x + 0.044715 x**3). Float only."""


_GELU_C = math.sqrt(2.0 / math.pi)
_GELU_A = 0.044715


@bprop_for(GeLU)
def gelu_bprop(prim, x, out, dout):
    x2 = _mul(x, x)
    t = _tanh(_mul(_mul(x, _add(_mul(x2, _GELU_A), 1.0)), _GELU_C))
    du = _mul(_add(_mul(x2, 3.0 * _GELU_A), 1.0), _GELU_C)
    dt = _sub(1.0, _mul(t, t))
    grad = _mul(_add(_add(t, 1.0), _mul(_mul(x, dt), du)), 0.5)
    return (_mul(dout, grad),)


Gelu = GeLU      # MindSpore's deprecated name of the same primitive


class SiLU(FloatUnaryOp):
    """y = x * sigmoid(x) (swish), with the stable sigmoid. Gradient s (1 + x (1 - s)),
    s = sigmoid(x). Float only."""


@bprop_for(SiLU)
def silu_bprop(prim, x, out, dout):
    s = _sigmoid(x)
    return (_mul(dout, _mul(s, _add(_mul(x, _sub(1.0, s)), 1.0))),)


class Softplus(FloatUnaryOp):
    """y = ln(1 + e**x), evaluated as max(x, 0) + ln(1 + e**-|x|) (no overflow, exact for large
    |x|). Gradient sigmoid(x). Float only."""


@bprop_for(Softplus)
def softplus_bprop(prim, x, out, dout):
    return (_mul(dout, _sigmoid(x)),)


def _check_axis_attr(prim, axis):
    """axis: an int or a 1-tuple/list of ints; returns the int (range is checked in infer)."""
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            raise ValueError(f"For '{prim.name}', 'axis' must be an int or a tuple of one int, "
                             f"but got {axis!r}")
        axis = axis[0]
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise TypeError(f"For '{prim.name}', 'axis' must be an int or a tuple of one int, but "
                        f"got {type(axis).__name__}: {axis!r}")
    return int(axis)


class Softmax(Primitive):
    """y = e**(x - m) / sum(e**(x - m)) along `axis`, m = max along axis (stable). A slice
    holding nan or +inf gives nan; -inf entries give 0. Gradient y (dy - sum(dy y)).
    axis: int or tuple of one int, in [-ndim, ndim) (-1 and 0 for a 0-d input). Float only."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, axis=-1):
        _check_axis_attr(self, axis)

    def _axis(self, x):
        return check_axis(self, "axis", _check_axis_attr(self, self.attrs["axis"]), len(x.shape))

    def infer(self, x):
        check_dtype(self, "x", x, mstype.FLOAT_TYPES + mstype.BF16_TYPES)
        self._axis(x)
        return x

    def kernel_params(self, x):
        return {"axis": self._axis(x)}


@bprop_for(Softmax)
def softmax_bprop(prim, x, out, dout):
    return (cached_prim(SoftmaxGrad, _check_axis_attr(prim, prim.attrs["axis"]))(out, dout),)


class LogSoftmax(Softmax):
    """y = x - m - ln(sum(e**(x - m))) along `axis`, m = max along axis (stable). Gradient
    dy - e**y sum(dy). axis as Softmax. Float only."""


@bprop_for(LogSoftmax)
def log_softmax_bprop(prim, x, out, dout):
    return (cached_prim(LogSoftmaxGrad, _check_axis_attr(prim, prim.attrs["axis"]))(out, dout),)


_CHANNEL_AXIS = {"NCHW": 1, "NCDHW": 1, "NHWC": -1}


class BiasAdd(Primitive):
    """y = x + b broadcast along the channel axis: axis 1 for 'NCHW' (any rank >= 2) and
    'NCDHW' (rank 5), the last axis for 'NHWC' (rank >= 2). bias is 1-D with one value per
    channel and the dtype of x. Gradient (dy, dy summed over every axis but the channel)."""
    input_names = ("input_x", "bias")

    @prim_attr_register
    def __init__(self, data_format="NCHW"):
        if not isinstance(data_format, str):
            raise TypeError(f"For '{self.name}', 'data_format' must be a str, but got "
                            f"{type(data_format).__name__}: {data_format!r}")
        if data_format not in _CHANNEL_AXIS:
            raise ValueError(f"For '{self.name}', 'data_format' must be one of "
                             f"{sorted(_CHANNEL_AXIS)}, but got {data_format!r}")

    def infer(self, x, bias):
        check_tensor(self, "input_x", x)
        check_tensor(self, "bias", bias)
        check_same_dtype(self, [("input_x", x), ("bias", bias)])
        check_dtype(self, "input_x", x, mstype.NUMBER_BF16_COMPLEX_TYPES)   # as MindSpore's CPU
        fmt = self.attrs["data_format"]
        rank = len(x.shape)
        if rank < 2 or (fmt == "NCDHW" and rank != 5):
            want = "5" if fmt == "NCDHW" else "at least 2"
            raise ValueError(f"For '{self.name}', the rank of 'input_x' must be {want} for "
                             f"data_format '{fmt}', but got shape {list(x.shape)}")
        if len(bias.shape) != 1:
            raise ValueError(f"For '{self.name}', 'bias' must be 1-D, but got shape "
                             f"{list(bias.shape)}")
        channels = x.shape[_CHANNEL_AXIS[fmt]]
        if bias.shape[0] != channels:
            raise ValueError(f"For '{self.name}', the size of 'bias' must equal the channel "
                             f"dimension of 'input_x' ({channels}, data_format '{fmt}'), but "
                             f"got bias shape {list(bias.shape)} and input_x shape "
                             f"{list(x.shape)}")
        return x

    def kernel_params(self, x, bias):
        return {"data_format": self.attrs["data_format"]}


@bprop_for(BiasAdd)
def bias_add_bprop(prim, x, bias, out, dout):
    return (dout if needs_grad(x) else None,
            cached_prim(BiasAddGrad, prim.attrs["data_format"])(dout) if needs_grad(bias) else None)
