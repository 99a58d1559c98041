"""Initializers (mindspore.common.initializer): objects that fill an array of a given shape.

`initializer(init, shape, dtype)` returns a lazy Tensor; the data is made by
`materialize` when the tensor (or a Parameter holding it) is first used.
Random draws use the global generator seeded by `mindlite.set_seed`.
"""
import math
import numbers

import numpy as np

from . import dtype as mstype
from .. import random_state


class Initializer:
    """Base class: subclasses implement `_fill(shape) -> float64 ndarray`."""

    def __init__(self, **kwargs):
        self.shape = None
        self.dtype = None
        self._kwargs = kwargs

    def _fill(self, shape):
        raise NotImplementedError

    def __call__(self, arr):
        arr[...] = self._fill(arr.shape)

    def __repr__(self):
        args = ", ".join(f"{k}={v}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


class Zero(Initializer):
    def _fill(self, shape):
        return np.zeros(shape)


class One(Initializer):
    def _fill(self, shape):
        return np.ones(shape)


class Constant(Initializer):
    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _fill(self, shape):
        return np.full(shape, self.value)


class Normal(Initializer):
    def __init__(self, sigma=0.01, mean=0.0):
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = sigma, mean

    def _fill(self, shape):
        return random_state.generator().normal(self.mean, self.sigma, shape)


class Uniform(Initializer):
    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _fill(self, shape):
        return random_state.generator().uniform(-self.scale, self.scale, shape)


class TruncatedNormal(Initializer):
    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _fill(self, shape):
        gen = random_state.generator()
        out = gen.normal(self.mean, self.sigma, shape)
        bad = (out < self.a) | (out > self.b)
        while bad.any():
            out[bad] = gen.normal(self.mean, self.sigma, int(bad.sum()))
            bad = (out < self.a) | (out > self.b)
        return out


def _fans(shape):
    if len(shape) < 2:
        raise ValueError(f"fan in/out need a shape of rank >= 2, but got {list(shape)}")
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _gain(nonlinearity, a):
    if nonlinearity in ("relu",):
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        return math.sqrt(2.0 / (1 + a * a))
    if nonlinearity == "tanh":
        return 5.0 / 3
    return 1.0


class HeUniform(Initializer):
    """U(-b, b), b = gain * sqrt(3 / fan); default (a=0, leaky_relu) as MindSpore."""

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.a, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _fill(self, shape):
        fan_in, fan_out = _fans(shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        bound = _gain(self.nonlinearity, self.a) * math.sqrt(3.0 / fan)
        return random_state.generator().uniform(-bound, bound, shape)


class HeNormal(Initializer):
    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.a, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _fill(self, shape):
        fan_in, fan_out = _fans(shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        std = _gain(self.nonlinearity, self.a) / math.sqrt(fan)
        return random_state.generator().normal(0.0, std, shape)


class XavierUniform(Initializer):
    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _fill(self, shape):
        fan_in, fan_out = _fans(shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return random_state.generator().uniform(-bound, bound, shape)


_NAMES = {"zeros": Zero, "zero": Zero, "ones": One, "one": One, "normal": Normal,
          "uniform": Uniform, "truncatednormal": TruncatedNormal, "heuniform": HeUniform,
          "henormal": HeNormal, "xavieruniform": XavierUniform, "he_uniform": HeUniform,
          "he_normal": HeNormal, "xavier_uniform": XavierUniform}


def _as_initializer(init):
    if isinstance(init, Initializer):
        return init
    if isinstance(init, str):
        cls = _NAMES.get(init.lower())
        if cls is None:
            raise ValueError(f"For 'initializer', unknown initializer name '{init}'; expected one "
                             f"of {sorted(set(_NAMES))}")
        return cls()
    if isinstance(init, numbers.Number) and not isinstance(init, bool):
        return Constant(init)
    raise TypeError("For 'initializer', 'init' must be an Initializer, a name, a number or a "
                    f"Tensor, but got {type(init).__name__}")


Tensor = None      # the Tensor class, bound by tensor.py (it imports this module)


def initializer(init, shape=None, dtype=mstype.float32):
    """A lazily initialised Tensor of `shape` and `dtype` filled by `init` when first used."""
    if isinstance(init, Tensor):
        if shape is not None and tuple(shape) != init.shape:
            raise ValueError(f"For 'initializer', the Tensor's shape {init.shape} does not match "
                             f"'shape' {tuple(shape)}")
        return init
    if shape is None:
        raise ValueError("For 'initializer', 'shape' is required")
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"For 'initializer', 'shape' must be non-negative, but got {list(shape)}")
    obj = _as_initializer(init)
    obj.shape, obj.dtype = shape, mstype.to_type(dtype)
    return Tensor(shape=shape, dtype=obj.dtype, init=obj)


def materialize(init, shape, dtype):
    """Run an initializer: returns a new ndarray of `shape` and `dtype`."""
    obj = _as_initializer(init)
    arr = np.empty(shape, dtype=dtype.np)
    if arr.size:
        arr[...] = obj._fill(shape)
    return arr
