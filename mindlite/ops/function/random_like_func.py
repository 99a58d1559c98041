"""Functional creation-like and sampling ops of MindSpore 2.10: full_like, rand_like,
randn_like, randint_like, randperm, the window functions (bartlett, blackman, hamming, hann,
kaiser), standard_normal, standard_laplace, laplace, shuffle, rrelu, gumbel_softmax, the
in-place samplers uniform_ / normal_ / exponential_ / bernoulli_ / zero_, and the 1.x
reduce_* names.

Samples come from random_ops' primitives through random_func (mindlite's RNG,
reproducible under mindlite.set_seed); windows are built with numpy from their length only
(constants, as creation ops are).
"""
import numbers

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import random_ops as RA
from . import random_func as R
from ._typed_prims import typed_prim as _prim

__all__ = ['full_like', 'rand_like', 'randn_like', 'randint_like', 'randperm',
           'bartlett_window', 'blackman_window', 'hamming_window', 'hann_window',
           'kaiser_window', 'standard_normal', 'standard_laplace', 'laplace', 'shuffle', 'rrelu',
           'gumbel_softmax', 'uniform_', 'normal_', 'exponential_', 'bernoulli_', 'zero_',
           'random_', 'bernoulli_ext', 'erfinv_', 'tanh_', 'inplace_sigmoid',
           'reduce_sum', 'reduce_max', 'reduce_min', 'reduce_mean']


def _F():
    from .. import functional as F
    return F


def _tensor(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def full_like(input, fill_value, *, dtype=None):
    """A tensor of input's shape filled with fill_value (input's dtype unless `dtype`)."""
    _tensor("full_like", "input", input)
    return _F().full(input.shape, fill_value, dtype=input.dtype if dtype is None else dtype)


def _float_like(op, input, dtype):
    _tensor(op, "input", input)
    dtype = input.dtype if dtype is None else mstype.to_type(dtype)
    if dtype not in mstype.FLOAT_TYPES:
        raise TypeError(f"For '{op}', the dtype must be a float type, but got {dtype}")
    return dtype


def rand_like(input, seed=None, *, dtype=None):
    """U[0, 1) samples of input's shape (input's float dtype unless `dtype`)."""
    dtype = _float_like("rand_like", input, dtype)
    return R.rand(input.shape or (), dtype=dtype, seed=seed) if input.shape else \
        _F().reshape(R.rand(1, dtype=dtype, seed=seed), ())


def randn_like(input, seed=None, *, dtype=None):
    dtype = _float_like("randn_like", input, dtype)
    return R.randn(input.shape, dtype=dtype, seed=seed) if input.shape else \
        _F().reshape(R.randn(1, dtype=dtype, seed=seed), ())


def randint_like(input, low, high, seed=None, *, dtype=None):
    """Integers uniform in [low, high) of input's shape (input's dtype unless `dtype`)."""
    _tensor("randint_like", "input", input)
    dtype = input.dtype if dtype is None else mstype.to_type(dtype)
    if dtype not in mstype.INT_TYPES:
        raise ValueError(f"For 'randint_like', the 'dtype' must be an int type, but got "
                         f"{dtype}.")
    out = R.randint(low, high, input.shape if input.shape else (1,), seed, dtype=mstype.int64)
    out = out if input.shape else _F().reshape(out, ())
    return _F().cast(out, dtype)


def randperm(n, seed=0, offset=0, dtype=mstype.int64):
    """A permutation of 0..n-1, the one MindSpore 2.10's CPU kernel gives (the RandpermV2
    primitive: std::shuffle driven by std::mt19937(offset if offset else seed)), so a seed
    (the default 0 too) always gives the same permutation, as there; seed -1 draws a fresh
    one from mindlite's RNG (reproducible under mindlite.set_seed)."""
    return _prim(RA.RandpermV2, seed, offset, dtype)(n)


def _window(op, window_length, periodic, dtype, make, tensor_length=False, default=None):
    """tensor_length: MindSpore's Bartlett / Blackman primitives take window_length as a 0-D
    int Tensor (a Python int is a TypeError there); the others take an int."""
    if tensor_length:
        if not isinstance(window_length, Tensor) or window_length.dtype not in \
                mstype.INT_TYPES or window_length.size != 1:
            raise TypeError(f"For Primitive[{op}], the type of input argument[window_length] "
                            f"must be Tensor but got {type(window_length).__name__}")
        window_length = int(window_length.asnumpy().reshape(()))
    elif isinstance(window_length, bool) or not isinstance(window_length, numbers.Integral):
        raise TypeError(f"For '{op}', 'window_length' must be a non-negative integer, but got "
                        f"{type(window_length)}")
    if window_length < 0:
        raise ValueError(f"For '{op}', 'window_length' must be a non-negative integer, but got "
                         f"{window_length}")
    dtype = (default or mstype.float32) if dtype is None else mstype.to_type(dtype)
    if window_length in (0, 1):
        return Tensor(np.ones(window_length, dtype.np))
    m = window_length + 1 if periodic else window_length
    w = make(m)
    return Tensor(w[:window_length].astype(dtype.np))


def bartlett_window(window_length, periodic=True, *, dtype=None):
    """window_length: a 0-D int Tensor (as MindSpore's BartlettWindow); float32 default."""
    return _window("BartlettWindow", window_length, periodic, dtype, np.bartlett, True)


def blackman_window(window_length, periodic=True, *, dtype=None):
    return _window("BlackmanWindow", window_length, periodic, dtype, np.blackman, True)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    return _window("hamming_window", window_length, periodic, dtype,
                   lambda m: alpha - beta * np.cos(2 * np.pi * np.arange(m) / (m - 1)))


def hann_window(window_length, periodic=True, *, dtype=None):
    """float64 unless `dtype` (as MindSpore 2.10's hann_window)."""
    return _window("hann_window", window_length, periodic, dtype, np.hanning,
                   default=mstype.float64)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    """float64 unless `dtype` (as MindSpore 2.10's kaiser_window)."""
    return _window("kaiser_window", window_length, periodic, dtype,
                   lambda m: np.kaiser(m, beta), default=mstype.float64)


def standard_normal(shape, seed=None):
    return R.randn(tuple(shape) if isinstance(shape, (tuple, list)) else (shape,), seed=seed)


def standard_laplace(shape, seed=None):
    """Laplace(0, 1) samples: -sign(u) log(1 - 2|u|), u uniform in (-1/2, 1/2)."""
    F = _F()
    u = F.sub(R.rand(tuple(shape) if isinstance(shape, (tuple, list)) else (shape,),
                     seed=seed), 0.5)
    return F.neg(F.mul(F.sign(u), F.log1p(F.mul(F.abs(u), -2.0))))


def laplace(shape, mean, lambda_param, seed=None):
    F = _F()
    return F.add(F.mul(standard_laplace(shape, seed), lambda_param), mean)


def shuffle(x, seed=None):
    """x with its first dim randomly permuted."""
    _tensor("shuffle", "x", x)
    if x.ndim == 0:
        return x
    perm = _F().argsort(R.rand(x.shape[0], seed=seed))
    return _F().gather(x, perm, 0)


def rrelu(input, lower=0.125, upper=1.0 / 3):
    """Randomized leaky ReLU: negative inputs scaled by a slope drawn from U[lower, upper)."""
    F = _F()
    _tensor("rrelu", "input", input)
    slope = F.add(F.mul(R.rand(input.shape or (1,), dtype=input.dtype), upper - lower), lower)
    return F.where(F.greater_equal(input, 0), input, F.mul(input, F.reshape(slope,
                                                                            input.shape)))


def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    """softmax((logits + Gumbel noise) / tau) along dim; with hard, the one-hot of its
    argmax (gradients through the soft sample)."""
    F = _F()
    _tensor("gumbel_softmax", "logits", logits)
    u = R.rand(logits.shape, dtype=logits.dtype)
    g = F.neg(F.log(F.neg(F.log(F.add(u, 1e-20)))))
    y = F.softmax(F.div(F.add(logits, g), tau), dim)
    if not hard:
        return y
    idx = F.argmax(y, dim, True)
    hard_y = F.scatter_reduce_ext(F.zeros_like(y), dim, idx, 1.0)
    return F.add(F.stop_gradient(F.sub(hard_y, y)), y)


def uniform_(input, from_=0, to=1, *, generator=None):
    return input.uniform_(from_, to)


def normal_(input, mean=0, std=1, *, generator=None):
    return input.normal_(mean, std)


def exponential_(input, lambd=1, *, generator=None):
    return input.exponential_(lambd)


def bernoulli_(input, p=0.5, *, generator=None):
    return input.bernoulli_(p)


def zero_(input):
    return input.zero_()


def random_(input, from_=0, to=None, *, generator=None):
    return input.random_(from_, to)


def bernoulli_ext(input, *, generator=None):
    """1 with probability input (elementwise) else 0."""
    return R.bernoulli(input, input)


def erfinv_(input):
    return input.erfinv_()


def tanh_(input):
    return input.tanh_()


def inplace_sigmoid(input):
    return input.sigmoid_()


def _reduce(name):
    def fn(x, axis=()):
        return getattr(_F(), name)(x, axis)
    fn.__name__ = fn.__qualname__ = f"reduce_{name.lstrip('a')}"
    return fn


reduce_sum = _reduce("sum")
reduce_max = _reduce("amax")
reduce_min = _reduce("amin")
reduce_mean = _reduce("mean")
