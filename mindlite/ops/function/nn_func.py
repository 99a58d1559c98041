"""Functional neural-network ops: ops.relu, ops.softmax, ops.gelu, ops.bias_add, ...

Each calls a module-level primitive instance; primitives with an attribute (Softmax's
axis) are kept one per attribute value in a dict, so repeated calls reuse the same
primitive and its runner cache. gelu(approximate='none') and softplus with beta != 1
are compositions of primitives (differentiable through their bprops).
"""
import math

from ...cache_limits import remember
from ...common import dtype as mstype
from ..operations import math_ops as M
from ..operations import nn_ops as P

__all__ = ['relu', 'relu6', 'sigmoid', 'tanh', 'gelu', 'silu', 'softplus', 'softmax',
           'log_softmax', 'bias_add']

_relu, _relu6, _sigmoid, _tanh = P.ReLU(), P.ReLU6(), P.Sigmoid(), P.Tanh()
_gelu, _silu, _softplus = P.GeLU(), P.SiLU(), P.Softplus()
_softmax = {(int, -1): P.Softmax(-1)}
_log_softmax = {(int, -1): P.LogSoftmax(-1)}
_bias_add = {(str, "NCHW"): P.BiasAdd("NCHW")}
_mul, _add, _div, _erf = M.Mul(), M.Add(), M.Div(), M.Erf()
_greater, _select = M.Greater(), M.Select()


def _prim(cache, cls, attr):
    """The cached primitive for one attribute value (keyed by type too: True is not 1)."""
    key = (type(attr), tuple(attr) if isinstance(attr, list) else attr)
    prim = cache.get(key)
    if prim is None:
        prim = remember(cache, key, cls(attr))
    return prim

_BOOL = mstype.bool_


def relu(input, inplace=False):
    """max(input, 0); a bool input is returned as a copy (MindSpore); `inplace` (MindSpore's
    second parameter) is accepted and ignored, as there."""
    if getattr(input, "dtype", None) is _BOOL:
        return input.copy()
    return _relu(input)


def relu6(x):
    return _relu6(x)


def sigmoid(input):
    return _sigmoid(input)


def tanh(input):
    return _tanh(input)


def silu(input):
    return _silu(input)


def gelu(input, approximate='none'):
    """'tanh': the GeLU primitive, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3)));
    'none' (MindSpore's default): the exact x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2)))."""
    if approximate == 'tanh':
        return _gelu(input)
    if approximate != 'none':
        raise ValueError(f"For 'gelu', 'approximate' must be 'none' or 'tanh', but got "
                         f"{approximate!r}")
    if getattr(input, "dtype", None) not in mstype.FLOAT_TYPES:
        raise TypeError(f"For 'gelu', 'input' must be a float16, float32 or float64 Tensor, but "
                        f"got {getattr(input, 'dtype', type(input).__name__)}")
    cdf = _mul(_add(_erf(_mul(input, 1.0 / math.sqrt(2.0))), 1.0), 0.5)
    return _mul(input, cdf)


def softplus(input, beta=1, threshold=20):
    """ln(1 + e**(beta x)) / beta, and x itself where beta x > threshold (MindSpore's form).
    With the defaults this is the Softplus primitive alone: for x > 20 the two differ by
    less than 2.1e-9, below float32 resolution at that magnitude."""
    if beta == 1 and threshold == 20:
        return _softplus(input)
    scaled = _mul(input, beta)
    out = _div(_softplus(scaled), beta)
    return _select(_greater(scaled, threshold), input, out)


def softmax(input, axis=-1, *, dtype=None):
    if dtype is not None:
        from .array_func import cast
        input = cast(input, dtype)
    return _prim(_softmax, P.Softmax, axis)(input)


def log_softmax(logits, axis=-1):
    return _prim(_log_softmax, P.LogSoftmax, axis)(logits)


def bias_add(input_x, bias, data_format="NCHW"):
    return _prim(_bias_add, P.BiasAdd, data_format)(input_x, bias)
