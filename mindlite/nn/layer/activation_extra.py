"""More activation cells (mindspore.nn): LeakyReLU, ELU, SeLU, CELU, HSwish, HSigmoid, Mish,
Softsign, Hardtanh, LogSigmoid, Softmin, Tanhshrink, PReLU and Identity.

Each calls the functional op of the same name (ops/function/activation_func.py), so the
attribute checks and errors are the op's, raised at the call as MindSpore's cells do (its
constructors accept any value). The repr is the bare class name, as MindSpore prints these.
PReLU holds its learnable slope `w` (one per channel, axis 1) as a Parameter.
"""
import numbers

import numpy as np

from ... import ops
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ..cell import Cell
from .activation import _Unary

__all__ = ["LeakyReLU", "ELU", "SeLU", "CELU", "HSwish", "HSigmoid", "Mish", "Softsign",
           "Hardtanh", "LogSigmoid", "Softmin", "Tanhshrink", "PReLU", "Identity"]


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
