"""mint's samplers (mint.rand, mint.randn, mint.randint, mint.randperm, mint.normal,
mint.bernoulli, mint.multinomial, the *_like forms): PyTorch-style signatures over the random
primitives ops uses (mindlite's RNG, reproducible under mindlite.set_seed; `generator` is
accepted and the global generator is used)."""
from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..common.tensor_overload import overloaded_function
from ..ops import functional as F

__all__ = ['bernoulli', 'multinomial', 'normal', 'rand', 'rand_like', 'randint', 'randint_like',
           'randn', 'randn_like', 'randperm']


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def rand(*size, generator=None, dtype=None, device=None):
    return F.rand(*_size(size), dtype=dtype)


def randn(*size, generator=None, dtype=None, device=None):
    return F.randn(*_size(size), dtype=dtype)


def rand_like(input, *, dtype=None, device=None):
    return F.rand_like(input, dtype=dtype)


def randn_like(input, *, dtype=None, device=None):
    return F.randn_like(input, dtype=dtype)


def _randint(low, high, size, generator=None, dtype=None, device=None):
    return F.randint(low, high, tuple(size), dtype=dtype)


randint = overloaded_function(
    "randint",
    ("low: int, high: int, size: ints, *, generator: any = None, dtype: dtype? = None, "
     "device: any = None", _randint),
    ("high: int, size: ints, *, generator: any = None, dtype: dtype? = None, device: any = None",
     lambda high, size, generator, dtype, device: _randint(0, high, size, generator, dtype)))

randint_like = overloaded_function(
    "randint_like",
    ("input: tensor, low: int, high: int, *, dtype: dtype? = None, device: any = None",
     lambda input, low, high, dtype, device: F.randint_like(input, low, high, dtype=dtype)),
    ("input: tensor, high: int, *, dtype: dtype? = None, device: any = None",
     lambda input, high, dtype, device: F.randint_like(input, 0, high, dtype=dtype)))


def randperm(n, *, generator=None, dtype=mstype.int64):
    """A random permutation of 0..n-1 (a fresh one each call, from mindlite's RNG)."""
    if n == 0:
        return F.zeros((0,), dtype)
    return F.randperm(n, seed=-1, dtype=dtype)


def normal(mean=0.0, std=1.0, size=None, generator=None):
    """Samples of N(mean, std^2): mean / std Tensors (broadcast) or numbers with `size`."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        shape = tuple((mean if isinstance(mean, Tensor) else std).shape)
        if isinstance(mean, Tensor) and isinstance(std, Tensor):
            import numpy as np
            shape = tuple(np.broadcast_shapes(mean.shape, std.shape))
        return F.add(F.mul(F.randn(*shape) if shape else F.reshape(F.randn(1), ()), std), mean)
    if size is None:
        raise ValueError("For 'normal', 'size' is required when 'mean' and 'std' are numbers")
    return F.add(F.mul(F.randn(*tuple(size)), float(std)), float(mean))


def bernoulli(input, *, generator=None):
    """1 with probability input (elementwise) else 0, in input's dtype."""
    return F.bernoulli(input, input)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    return F.multinomial(input, num_samples, replacement)
