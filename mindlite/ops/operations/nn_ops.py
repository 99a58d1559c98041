"""Neural-network primitives: activations, Softmax / LogSoftmax, BiasAdd.
Kernels: kernels/cpu/nn_*.py; bprops: ops/bprop/nn_bprop.py.

Activations other than ReLU accept float tensors only (as MindSpore's CPU kernels)
and compute in the input dtype; Sigmoid, Softplus, Softmax and LogSoftmax are
evaluated in numerically stable forms (no overflow for large |x|).
"""
import numbers

from ...common import dtype as mstype
from ..primitive import Primitive, prim_attr_register
from ..validator import check_axis, check_dtype, check_same_dtype, check_tensor
from ._base import FloatUnaryOp, UnaryOp

__all__ = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "GeLU", "SiLU", "Softplus", "Softmax",
           "LogSoftmax", "BiasAdd"]


class ReLU(UnaryOp):
    """y = max(x, 0); relu(nan) = nan. Gradient 1 for x > 0, 0 for x <= 0: at 0 it is 0 (as
    MindSpore, PyTorch, JAX)."""
    valid_types = mstype.SIGNED_TYPES


class ReLU6(FloatUnaryOp):
    """y = min(max(x, 0), 6). Gradient 1 for 0 < x < 6, else 0: at both kinks (0 and 6) it is
    0. Float only."""


class Sigmoid(FloatUnaryOp):
    """y = 1 / (1 + e**-x), evaluated as e**min(x,0) / (1 + e**-|x|) so that no exponential
    overflows; sigmoid(0) = 0.5. Gradient y (1 - y). Float only."""


class Tanh(FloatUnaryOp):
    """y = tanh(x). Gradient 1 - y**2. Float only."""


class GeLU(FloatUnaryOp):
    """y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3))), the tanh approximation MindSpore's
    GeLU primitive uses (ops.gelu(x, approximate='none') is the erf form). gelu(-inf) = nan
    (-inf * 0), as PyTorch's tanh form. Smooth: gradient defined everywhere. Float only."""


class SiLU(FloatUnaryOp):
    """y = x * sigmoid(x) (swish), with the stable sigmoid. Gradient s (1 + x (1 - s)),
    s = sigmoid(x). Float only."""


class Softplus(FloatUnaryOp):
    """y = ln(1 + e**x), evaluated as max(x, 0) + ln(1 + e**-|x|) (no overflow, exact for large
    |x|). Gradient sigmoid(x). Float only."""


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
        check_dtype(self, "x", x, mstype.FLOAT_TYPES)
        self._axis(x)
        return x

    def kernel_params(self, x):
        return {"axis": self._axis(x)}


class LogSoftmax(Softmax):
    """y = x - m - ln(sum(e**(x - m))) along `axis`, m = max along axis (stable). Gradient
    dy - e**y sum(dy). axis as Softmax. Float only."""


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
        check_dtype(self, "input_x", x, mstype.NUMBER_TYPES)
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
