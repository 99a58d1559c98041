"""Activation cells (mindspore.nn): ReLU, ReLU6, Sigmoid, Tanh, GELU, SiLU, Softmax, LogSoftmax,
and get_activation(name) for the `activation` argument of layers such as Dense.

Each cell calls its primitive through mindlite.ops; the repr is the class name plus the
attributes MindSpore shows (`ReLU()`, `Softmax(axis=-1)`).
"""
import numbers

from ... import ops
from ..cell import Cell

__all__ = [
    "GELU",
    "LogSoftmax",
    "ReLU",
    "ReLU6",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Tanh",
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


_ACTIVATIONS = {
    "relu": ReLU, "relu6": ReLU6, "sigmoid": Sigmoid, "tanh": Tanh, "gelu": GELU, "silu": SiLU,
    "softmax": Softmax, "logsoftmax": LogSoftmax,
}


def _extra_activations(extra):
    """MindSpore's names for the cells of activation_extra.py."""
    return {"leakyrelu": extra.LeakyReLU, "elu": extra.ELU, "hswish": extra.HSwish,
            "hsigmoid": extra.HSigmoid, "mish": extra.Mish, "softsign": extra.Softsign,
            "hardtanh": extra.Hardtanh, "logsigmoid": extra.LogSigmoid, "prelu": extra.PReLU,
            "softmin": extra.Softmin, "tanhshrink": extra.Tanhshrink}


def get_activation(name, prim_name=None):
    """The activation cell named `name` ('relu', 'gelu', ...); None for None."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"For '{prim_name or 'get_activation'}', the activation name must be a "
                        f"str, but got {type(name).__name__}")
    from . import activation_extra as extra
    cls = _ACTIVATIONS.get(name.lower()) or _extra_activations(extra).get(name.lower())
    if cls is None:
        raise KeyError(f"For '{prim_name or 'get_activation'}', unknown activation '{name}'; "
                       f"expected one of {sorted({**_ACTIVATIONS, **_extra_activations(extra)})}")
    return cls()
