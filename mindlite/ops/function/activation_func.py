"""Functional activations of issue 13: ops.leaky_relu, ops.elu, ops.selu, ops.celu,
ops.hardswish, ops.hardsigmoid, ops.hardtanh, ops.mish, ops.softsign, ops.logsigmoid,
with MindSpore 2.x's signatures. Each calls one primitive of operations/activation_ops.py;
primitives with attributes are kept one per attribute value (bounded), so repeated calls
reuse a primitive and its runner cache.
"""
import numbers

from ..operations import activation_ops as P
from ._typed_prims import typed_prim as _prim

__all__ = ["leaky_relu", "elu", "selu", "celu", "hardswish", "hardsigmoid", "hardtanh", "mish",
           "softsign", "logsigmoid"]

_selu, _hswish, _hsigmoid = P.SeLU(), P.HSwish(), P.HSigmoid()
_mish, _softsign, _logsigmoid = P.Mish(), P.Softsign(), P.LogSigmoid()


def _number(op, arg, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{op}', the type of '{arg}' should be one of ['float', 'int'], "
                        f"but got type '{type(value).__name__}'")
    return float(value)


def leaky_relu(input, alpha=0.2):
    """max(alpha * input, input)."""
    return _prim(P.LeakyReLU, _number("leaky_relu", "alpha", alpha))(input)


def elu(input_x, alpha=1.0):
    """input_x for input_x > 0, alpha (e**input_x - 1) otherwise; alpha must be 1.0."""
    return _prim(P.Elu, alpha)(input_x)


def selu(input_x):
    return _selu(input_x)


def celu(x, alpha=1.0):
    return _prim(P.CeLU, alpha)(x)


def hardswish(input):
    return _hswish(input)


def hardsigmoid(input):
    return _hsigmoid(input)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """min(max(input, min_val), max_val)."""
    return _prim(P.Hardtanh, _number("hardtanh", "min_val", min_val),
                 _number("hardtanh", "max_val", max_val))(input)


def mish(x):
    return _mish(x)


def softsign(x):
    return _softsign(x)


def logsigmoid(x):
    return _logsigmoid(x)
