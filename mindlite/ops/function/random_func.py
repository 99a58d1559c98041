"""Random functional ops of issue 13 with MindSpore 2.10's signatures: ops.rand, randn,
randint, uniform, normal, bernoulli, multinomial, dropout1d / dropout2d / dropout3d.

Draws go through random_ops' primitives (mindlite's RNG: reproducible under
mindlite.set_seed, thread-safe). seed=None draws from the global generator; an int seed
gives the op a generator of its own derived from (global seed, seed), so two calls with
one seed continue one sequence (as MindSpore's stateful random ops). float16 / float64
samples are float32 draws cast. multinomial without replacement takes the top
num_samples keys log(u) / w (the Gumbel top-k trick, exact sampling without replacement).
"""
import numbers

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import math_ops as M
from ..operations import random_ops as RO
from ..operations import sort_ops as S
from ._typed_prims import typed_prim as _prim

__all__ = ["rand", "randn", "randint", "uniform", "normal", "bernoulli", "multinomial",
           "dropout1d", "dropout2d", "dropout3d"]

_cast, _expand = A.Cast(), A.ExpandDims()
_add, _sub, _mul, _div, _log = M.Add(), M.Sub(), M.Mul(), M.Div(), M.Log()


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _seeds(fn, seed):
    if seed is None:
        return 0, 0
    if not _is_int(seed) or seed < 0:
        raise ValueError(f"For '{fn}', 'seed' must be None or a non-negative int, but got "
                         f"{seed!r}")
    return int(seed), 1


def _size(fn, size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if not all(_is_int(d) for d in size):
        raise TypeError(f"For '{fn}', 'size' must be ints or a tuple or list of ints, but got "
                        f"{size!r}")
    return tuple(int(d) for d in size) if size else (1,)


def _float_dtype(fn, dtype):
    dtype = mstype.float32 if dtype is None else mstype.to_type(dtype)
    if dtype not in mstype.FLOAT_TYPES:
        raise ValueError(f"For '{fn}', the 'dtype' must be a float type, but got {dtype}.")
    return dtype


def _as(x, dtype):
    return x if x.dtype is dtype else _cast(x, dtype)


def rand(*size, dtype=None, seed=None):
    """Samples of U[0, 1) of shape `size` (ints or one tuple; none: (1,), as MindSpore)."""
    dtype = _float_dtype("rand", dtype)
    return _as(_prim(RO.UniformReal, *_seeds("rand", seed))(_size("rand", size)), dtype)


def randn(*size, dtype=None, seed=None):
    """Samples of N(0, 1) of shape `size`."""
    dtype = _float_dtype("randn", dtype)
    return _as(_prim(RO.StandardNormal, *_seeds("randn", seed))(_size("randn", size)), dtype)


def randint(low, high, size, seed=None, *, dtype=None):
    """Integers uniform in [low, high) of shape `size`, int64 unless `dtype` (an int type)."""
    for name, v in (("low", low), ("high", high)):
        if not _is_int(v):
            raise TypeError(f"For 'randint', '{name}' must be an int, but got {type(v)}.")
    dtype = mstype.int64 if dtype is None else mstype.to_type(dtype)
    if dtype not in mstype.INT_TYPES:
        raise ValueError(f"For 'randint', the 'dtype' must be an int type, but got {dtype}.")
    if low >= high:
        raise ValueError(f"For 'randint', 'low' must be less than 'high', but got low {low} "
                         f"and high {high}.")
    size = _size("randint", (size,) if isinstance(size, (tuple, list)) else (size,))
    bounds = (Tensor(np.int64(low)), Tensor(np.int64(high)))
    return _as(_prim(RO.UniformInt, *_seeds("randint", seed))(size, *bounds), dtype)


def _bshape(fn, shape, *tensors):
    shape = _size(fn, (shape,))
    try:
        return tuple(np.broadcast_shapes(shape, *(t.shape for t in tensors)))
    except ValueError:
        raise ValueError(f"For '{fn}', 'shape' {list(shape)} does not broadcast with "
                         f"{[list(t.shape) for t in tensors]}") from None


def uniform(shape, minval, maxval, seed=None, dtype=mstype.float32):
    """Samples uniform in [minval, maxval) (Tensors, broadcast with `shape`); an int dtype
    draws integers (minval and maxval one-element int tensors)."""
    for name, v in (("minval", minval), ("maxval", maxval)):
        if not isinstance(v, Tensor):
            raise TypeError(f"For functional operator[uniform], the input[{name}] must be a "
                            f"Tensor, but got {type(v).__name__}")
    dtype = mstype.to_type(dtype)
    seeds = _seeds("uniform", seed)
    if dtype in mstype.INT_TYPES:
        if minval.dtype not in mstype.INT_TYPES or maxval.dtype not in mstype.INT_TYPES or \
                minval.size != 1 or maxval.size != 1:
            raise TypeError(f"For 'uniform', an int 'dtype' needs one-element int 'minval' and "
                            f"'maxval', but got {minval.dtype} {list(minval.shape)} and "
                            f"{maxval.dtype} {list(maxval.shape)}")
        lo, hi = (Tensor(np.int64(t.asnumpy().item())) for t in (minval, maxval))
        return _as(_prim(RO.UniformInt, *seeds)(_size("uniform", (shape,)), lo, hi), dtype)
    if dtype not in mstype.FLOAT_TYPES:
        raise TypeError(f"For 'uniform', 'dtype' must be an int or float type, but got {dtype}")
    u = _as(_prim(RO.UniformReal, *seeds)(_bshape("uniform", shape, minval, maxval)), dtype)
    lo, hi = _as(minval, dtype), _as(maxval, dtype)
    return _add(lo, _mul(u, _sub(hi, lo)))


def normal(shape, mean, stddev, seed=None):
    """Samples of N(mean, stddev^2) (Tensors or numbers, broadcast with `shape`)."""
    parts = [v if isinstance(v, Tensor) else Tensor(np.float32(v)) for v in (mean, stddev)]
    for name, v in zip(("mean", "stddev"), parts):
        if v.dtype not in mstype.FLOAT_TYPES + mstype.INT_TYPES:
            raise TypeError(f"For 'normal', '{name}' must be a number or a real Tensor, but got "
                            f"{v.dtype}")
    dtype = next((v.dtype for v in parts if v.dtype in mstype.FLOAT_TYPES), mstype.float32)
    z = _prim(RO.StandardNormal, *_seeds("normal", seed))(_bshape("normal", shape, *parts))
    return _add(_mul(_as(z, dtype), _as(parts[1], dtype)), _as(parts[0], dtype))


def bernoulli(input, p=0.5, seed=None):
    """1 with probability p (a float, or a float Tensor of input's shape or one element) else
    0, in input's dtype and shape."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'bernoulli', 'input' must be a Tensor, but got "
                        f"{type(input).__name__}")
    if not isinstance(p, Tensor):
        if not isinstance(p, numbers.Real) or isinstance(p, bool) or not 0 <= p <= 1:
            raise ValueError(f"For bernoulli, p should be in [0, 1], but got {p}.")
        p = Tensor(np.float32(p))
    s = _seeds("bernoulli", seed)
    return _prim(RO.Bernoulli, s[0] if seed is not None else -1, s[1])(input, p)


def multinomial(input, num_samples, replacement=True, seed=None):
    """num_samples category indices (int32) per row of input (1-D or 2-D non-negative
    weights), with or without replacement."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'multinomial', 'input' must be a Tensor, but got "
                        f"{type(input).__name__}")
    if not _is_int(num_samples) or num_samples < 1:
        raise ValueError(f"For 'multinomial', 'num_samples' must be a positive int, but got "
                         f"{num_samples!r}")
    seeds = _seeds("multinomial", seed)
    if replacement:
        return _prim(RO.Multinomial, *seeds, mstype.int32)(input, int(num_samples))
    if input.ndim not in (1, 2) or num_samples > input.shape[-1]:
        raise ValueError(f"For 'multinomial', the 'num_samples' must be less than the last "
                         f"dimension of input without 'replacement', but got 'num_samples': "
                         f"{num_samples} and 'replacement': False")
    w = input.asnumpy()
    if input.dtype not in mstype.FLOAT_TYPES or (w < 0).any() or not np.isfinite(w).all() \
            or (w.sum(-1) <= 0).any():
        raise ValueError("For 'multinomial', 'input' must hold finite non-negative float "
                         "weights with a positive sum in each row")
    u = _as(_prim(RO.UniformReal, *seeds)(tuple(input.shape)), input.dtype)
    keys = _div(_log(u), input)
    return _as(_prim(S.TopK, True)(keys, int(num_samples))[1], mstype.int32)


def _dropout(fn, cls, x, p, training):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{fn}', 'input' must be a Tensor, but got {type(x).__name__}")
    if not isinstance(p, numbers.Real) or isinstance(p, bool) or not 0 <= p <= 1:
        raise ValueError(f"For '{fn}', 'p' must be a float in [0, 1], but got {p!r}")
    if not training or p == 0:
        return x
    return _prim(cls, 1.0 - float(p))(x)[0]


def dropout1d(input, p=0.5, training=True):
    """Zeroes whole channels of input (N, C, L) or (C, L) with probability p, scaling the rest
    by 1 / (1 - p)."""
    if isinstance(input, Tensor) and input.ndim not in (2, 3):
        raise ValueError(f"For dropout1d, input shape should be 2D or 3D, but got "
                         f"{input.ndim}.")
    if not isinstance(input, Tensor) or not training or p == 0:
        return _dropout("dropout1d", RO.Dropout2D, input, p, training)
    x = input if input.ndim == 3 else _expand(input, 0)
    y = _dropout("dropout1d", RO.Dropout2D, _expand(x, 3), p, training)
    y = _prim(A.Squeeze, (3,))(y)
    return y if input.ndim == 3 else _prim(A.Squeeze, (0,))(y)


def dropout2d(input, p=0.5, training=True):
    """Zeroes whole channels of input (N, C, H, W) with probability p, scaling the rest."""
    return _dropout("dropout2d", RO.Dropout2D, input, p, training)


def dropout3d(input, p=0.5, training=True):
    """Zeroes whole channels of input (N, C, D, H, W) with probability p, scaling the rest."""
    return _dropout("dropout3d", RO.Dropout3D, input, p, training)
