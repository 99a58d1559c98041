"""Activation cells (mindspore.nn): ReLU, ReLU6, Sigmoid, Tanh, GELU, SiLU, Softmax, LogSoftmax,
LeakyReLU, ELU, SeLU, CELU, HSwish, HSigmoid, Mish, Softsign, Hardtanh, LogSigmoid, Softmin,
Tanhshrink, PReLU and Identity, and get_activation(name) for the `activation` argument of
layers such as Dense.

The first eight call their primitive through mindlite.ops; the repr is the class name plus
the attributes MindSpore shows (`ReLU()`, `Softmax(axis=-1)`). The others call the functional
op of the same name (ops/function/activation_func.py), so the attribute checks and errors are
the op's, raised at the call as MindSpore's cells do (its constructors accept any value); their
repr is the bare class name, as MindSpore prints these. PReLU holds its learnable slope `w`
(one per channel, axis 1) as a Parameter.
"""
import numbers

import numpy as np

from ... import ops
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ..cell import Cell

__all__ = [
    "CELU",
    "ELU",
    "GELU",
    "HSigmoid",
    "HSwish",
    "Hardtanh",
    "Identity",
    "LeakyReLU",
    "LogSigmoid",
    "LogSoftmax",
    "Mish",
    "PReLU",
    "ReLU",
    "ReLU6",
    "SeLU",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softmin",
    "Softsign",
    "Tanh",
    "Tanhshrink",
    "get_activation",
]


class _Unary(Cell):
    """A cell applying one primitive (a class attribute `prim_class`) to its input."""
    prim_class = None

    def __init__(self):
        super().__init__()
        self._op = self.prim_class()

    def construct(self, x):
        return self._op(x)


class ReLU(_Unary):
    """max(x, 0)."""
    prim_class = ops.ReLU


class ReLU6(_Unary):
    """min(max(x, 0), 6)."""
    prim_class = ops.ReLU6


class Sigmoid(_Unary):
    """1 / (1 + e**-x)."""
    prim_class = ops.Sigmoid


class Tanh(_Unary):
    """tanh(x)."""
    prim_class = ops.Tanh


class SiLU(_Unary):
    """x * sigmoid(x)."""
    prim_class = ops.SiLU


class GELU(Cell):
    """GELU(approximate=True): the tanh approximation (MindSpore's default); approximate=False
    is the exact x * Phi(x)."""

    def __init__(self, approximate=True):
        super().__init__()
        if not isinstance(approximate, bool):
            raise TypeError(f"For 'GELU', 'approximate' must be a bool, but got "
                            f"{type(approximate).__name__}")
        self.approximate = approximate

    def construct(self, x):
        return ops.gelu(x, approximate="tanh" if self.approximate else "none")


class _AxisCell(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, (numbers.Integral, tuple)):
            raise TypeError(f"For '{type(self).__name__}', 'axis' must be an int or a tuple of "
                            f"one int, but got {type(axis).__name__}: {axis!r}")
        self.axis = axis


class Softmax(_AxisCell):
    """exp(x) / sum(exp(x), axis), computed stably."""

    def construct(self, x):
        return ops.softmax(x, self.axis)


class LogSoftmax(_AxisCell):
    """x - log(sum(exp(x), axis)), computed stably."""

    def construct(self, x):
        return ops.log_softmax(x, self.axis)


class LeakyReLU(Cell):
    """max(alpha x, x)."""

    def __init__(self, alpha=0.2):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.leaky_relu(x, self.alpha)


class ELU(Cell):
    """x for x > 0, alpha (e**x - 1) otherwise (MindSpore supports alpha = 1.0 only)."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.elu(x, self.alpha)


class CELU(Cell):
    """max(0, x) + min(0, alpha (e**(x / alpha) - 1))."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.celu(x, self.alpha)


class Hardtanh(Cell):
    """min(max(x, min_val), max_val)."""

    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val

    def construct(self, x):
        return ops.hardtanh(x, self.min_val, self.max_val)


class SeLU(_Unary):
    """scale x for x > 0, scale alpha (e**x - 1) otherwise."""
    prim_class = ops.SeLU


class HSwish(_Unary):
    """x relu6(x + 3) / 6."""
    prim_class = ops.HSwish


class HSigmoid(_Unary):
    """relu6(x + 3) / 6."""
    prim_class = ops.HSigmoid


class Mish(_Unary):
    """x tanh(softplus(x))."""
    prim_class = ops.Mish


class Softsign(_Unary):
    """x / (1 + |x|)."""
    prim_class = ops.Softsign


class LogSigmoid(_Unary):
    """log(sigmoid(x)), computed stably."""
    prim_class = ops.LogSigmoid


class Softmin(Cell):
    """softmax(-x, axis)."""

    def __init__(self, axis=-1):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, (numbers.Integral, tuple)):
            raise TypeError(f"For 'Softmin', 'axis' must be an int or a tuple of ints, but got "
                            f"{type(axis).__name__}: {axis!r}")
        self.axis = axis

    def construct(self, x):
        return ops.softmax(-x, self.axis)


class Tanhshrink(Cell):
    """x - tanh(x)."""

    def construct(self, x):
        return x - ops.tanh(x)


class PReLU(Cell):
    """max(0, x) + w min(0, x), with a learnable slope `w` per channel (axis 1 of x), or one
    shared by all (channel=1). `w`: a float, or a Tensor of shape (channel,)."""

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        if isinstance(channel, bool) or not isinstance(channel, numbers.Integral) or channel < 1:
            raise ValueError(f"For 'PReLU', 'channel' must be a positive int, but got {channel!r}")
        if isinstance(w, Tensor):
            if w.shape not in ((channel,), (1,)) or w.dtype.kind != "f":
                raise ValueError(f"For 'PReLU', 'w' must be a float Tensor of shape ({channel},), "
                                 f"but got {w.dtype} {w.shape}")
            data = np.broadcast_to(w.asnumpy(), (channel,)).astype(w.dtype.np)
        elif isinstance(w, numbers.Real) and not isinstance(w, bool):
            data = np.full((channel,), w, np.float32)
        else:
            raise TypeError(f"For 'PReLU', 'w' must be a float or a Tensor, but got "
                            f"{type(w).__name__}")
        self.channel = channel
        self.w = Parameter(Tensor(data), name="a")

    def construct(self, x):
        w = self.w
        if x.ndim >= 2 and self.channel > 1:
            if x.shape[1] != self.channel:
                raise ValueError(f"For 'PReLU', the channel axis (1) of the input must be "
                                 f"{self.channel}, but got shape {x.shape}")
            w = ops.reshape(w, (self.channel,) + (1,) * (x.ndim - 2))
        elif self.channel > 1:
            raise ValueError(f"For 'PReLU', an input of rank {x.ndim} has no channel axis for "
                             f"channel={self.channel}")
        return ops.maximum(x, 0.0) + w * ops.minimum(x, 0.0)


class Identity(Cell):
    """Returns its input unchanged; any constructor arguments are ignored, as MindSpore's."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def construct(self, x):
        return x


_ACTIVATIONS = {          # MindSpore's names
    "relu": ReLU, "relu6": ReLU6, "sigmoid": Sigmoid, "tanh": Tanh, "gelu": GELU, "silu": SiLU,
    "softmax": Softmax, "logsoftmax": LogSoftmax, "leakyrelu": LeakyReLU, "elu": ELU,
    "hswish": HSwish, "hsigmoid": HSigmoid, "mish": Mish, "softsign": Softsign,
    "hardtanh": Hardtanh, "logsigmoid": LogSigmoid, "prelu": PReLU, "softmin": Softmin,
    "tanhshrink": Tanhshrink,
}


def get_activation(name, prim_name=None):
    """The activation cell named `name` ('relu', 'gelu', ...); None for None."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"For '{prim_name or 'get_activation'}', the activation name must be a "
                        f"str, but got {type(name).__name__}")
    cls = _ACTIVATIONS.get(name.lower())
    if cls is None:
        raise KeyError(f"For '{prim_name or 'get_activation'}', unknown activation '{name}'; "
                       f"expected one of {sorted(_ACTIVATIONS)}")
    return cls()
