"""Tensor's in-place methods beyond add_/sub_/mul_/fill_ (tensor_methods_math.py), as MindSpore
2.10's Tensor: `zero_()`, `copy_(src)`, `masked_fill_`, `clamp_`, `div_`, `exp_`, `uniform_`,
`normal_`, `index_fill_`, `scatter_`, ...

Every one computes its result with the functional op first (so a failed call changes nothing:
shapes and dtypes are checked before the write), then writes it into the tensor the way
tensor_methods_math._write does: straight into its own buffer with no grad recorder open,
else recorded (the tapes' earlier references move to a snapshot and the tensor becomes the
recorded result, pynative/inplace.py), so backward differentiates through the write.
Random fills draw from mindlite's RNG (mindlite.set_seed) through the random primitives.
"""
import numbers

import numpy as np

from . import dtype as mstype
from .tensor_methods_math import _write
from .tensor_overload import overloaded

F = None      # mindlite.ops.functional, bound by tensor.py (functional imports Tensor)


Tensor = None   # the Tensor class, set by tensor.py (which imports this module)


def _tensor_type():
    return Tensor


def _scatter_(self, dim, index, src, reduce):
    return write_inplace(self, "scatter_",
                         lambda old: F.scatter_reduce_ext(old, dim, index, src, reduce))


def write_inplace(x, op, compute):
    """x takes the value compute(x_old) (broadcast to x's shape, cast to x's dtype) in place;
    the result is computed and checked before anything is written."""
    result = compute(x)
    try:
        np.broadcast_shapes(result.shape, x.shape)
        fits = np.broadcast_shapes(result.shape, x.shape) == x.shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"For 'Tensor.{op}', the result of shape {list(result.shape)} cannot be "
                         f"written into the tensor of shape {list(x.shape)}")
    return _write(x, lambda old: result if old is x else compute(old))


def _unary_(name):
    def method(self):
        return write_inplace(self, name + "_", getattr(F, name))
    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"self = {name}(self), in place."
    return method


def _random_fill(x, op, draw):
    """x's values become the float32 draw (cast to x's dtype); x must be a float tensor."""
    if x.dtype not in mstype.FLOAT_TYPES + (mstype.bfloat16,):
        raise TypeError(f"For 'Tensor.{op}', the tensor must be of a float type, but got "
                        f"{x.dtype}")
    sample = draw(x.shape)
    return write_inplace(x, op, lambda old: sample)


def _number(op, name, v):
    if not isinstance(v, (numbers.Real, np.number)) or isinstance(v, bool):
        raise TypeError(f"For 'Tensor.{op}', '{name}' must be a number, but got "
                        f"{type(v).__name__}")
    return float(v)


class InplaceTensorMethods:
    """In-place arithmetic, fills, masked / indexed writes and random fills."""
    __slots__ = ()

    def zero_(self):
        return write_inplace(self, "zero_", F.zeros_like)

    def div_(self, other, rounding_mode=None):
        return write_inplace(self, "div_", lambda old: F.div(old, other,
                                                             rounding_mode=rounding_mode))

    def floor_divide_(self, other):
        return write_inplace(self, "floor_divide_", lambda old: F.floor_divide(old, other))

    def remainder_(self, other):
        return write_inplace(self, "remainder_", lambda old: F.remainder(old, other))

    def clamp_(self, min=None, max=None):
        return write_inplace(self, "clamp_", lambda old: F.clamp(old, min, max))

    exp_ = _unary_("exp")
    log_ = _unary_("log")
    floor_ = _unary_("floor")
    sigmoid_ = _unary_("sigmoid")
    tanh_ = _unary_("tanh")
    sign_ = _unary_("sign")
    erfinv_ = _unary_("erfinv")

    def masked_fill_(self, mask, value):
        return write_inplace(self, "masked_fill_", lambda old: F.masked_fill(old, mask, value))

    def masked_scatter_(self, mask, source):
        return write_inplace(self, "masked_scatter_",
                             lambda old: F.masked_scatter(old, mask, source))

    def index_fill_(self, dim, index, value):
        return write_inplace(self, "index_fill_", lambda old: F.index_fill(old, dim, index, value))

    def index_add_(self, dim, index, source, *, alpha=1):
        return write_inplace(self, "index_add_",
                             lambda old: F.index_add_ext(old, dim, index, source, alpha=alpha))

    def index_copy_(self, dim, index, tensor):
        return write_inplace(self, "index_copy_",
                             lambda old: F.index_copy(old, dim, index, tensor))

    def index_put_(self, indices, values, accumulate=False):
        return write_inplace(self, "index_put_",
                             lambda old: F.index_put(old, indices, values, accumulate))

    scatter_ = overloaded(
        "scatter_", ("dim: int, index: tensor, src: tensor, *, reduce: str? = None", _scatter_),
        ("dim: int, index: tensor, value: any, *, reduce: str? = None", _scatter_))

    def scatter_add_(self, dim, index, src):
        return write_inplace(self, "scatter_add_",
                             lambda old: F.scatter_add_ext(old, dim, index, src))

    def put_(self, index, source, accumulate=False):
        return write_inplace(self, "put_", lambda old: F.put(old, index, source, accumulate))

    def fill_diagonal_(self, fill_value, wrap=False):
        return write_inplace(self, "fill_diagonal_",
                             lambda old: F.fill_diagonal(old, fill_value, wrap))

    def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
        return write_inplace(self, "addmm_", lambda old: F.addmm(old, mat1, mat2, beta=beta,
                                                                 alpha=alpha))

    # ---- random fills ------------------------------------------------------------------
    def uniform_(self, from_=0, to=1, *, generator=None):
        lo, hi = _number("uniform_", "from_", from_), _number("uniform_", "to", to)
        if lo > hi:
            raise ValueError(f"For 'Tensor.uniform_', 'from_' must be <= 'to', but got {lo} and "
                             f"{hi}")
        return _random_fill(self, "uniform_", lambda shape: F.add(F.mul(F.rand(shape), hi - lo),
                                                                  lo))

    def normal_(self, mean=0, std=1, *, generator=None):
        m, s = _number("normal_", "mean", mean), _number("normal_", "std", std)
        if s < 0:
            raise ValueError(f"For 'Tensor.normal_', 'std' must be >= 0, but got {s}")
        return _random_fill(self, "normal_", lambda shape: F.add(F.mul(F.randn(shape), s), m))

    def exponential_(self, lambd=1, *, generator=None):
        lam = _number("exponential_", "lambd", lambd)
        if lam <= 0:
            raise ValueError(f"For 'Tensor.exponential_', 'lambd' must be > 0, but got {lam}")
        return _random_fill(self, "exponential_",
                            lambda shape: F.div(F.neg(F.log1p(F.neg(F.rand(shape)))), lam))

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        m, s = _number("cauchy_", "median", median), _number("cauchy_", "sigma", sigma)
        return _random_fill(self, "cauchy_", lambda shape: F.add(
            F.mul(F.tan(F.mul(F.sub(F.rand(shape), 0.5), np.pi)), s), m))

    def log_normal_(self, mean=1.0, std=2.0):
        m, s = _number("log_normal_", "mean", mean), _number("log_normal_", "std", std)
        return _random_fill(self, "log_normal_",
                            lambda shape: F.exp(F.add(F.mul(F.randn(shape), s), m)))

    def bernoulli_(self, p=0.5, *, generator=None):
        Tensor = _tensor_type()
        prob = p if isinstance(p, Tensor) else _number("bernoulli_", "p", p)
        sample = F.bernoulli(self, prob)
        return write_inplace(self, "bernoulli_", lambda old: sample)

    def random_(self, from_=0, to=None, *, generator=None):
        """Integers uniform in [from_, to) (to None: up to the dtype's largest integer that
        fits, 2**24 for float32 as PyTorch's), cast to the tensor's dtype."""
        if to is None:
            from_, to = 0, from_ if from_ else (
                2 ** 24 if self.dtype is mstype.float32 else
                2 ** 53 if self.dtype is mstype.float64 else
                int(np.iinfo(self.dtype.np).max) if self.dtype.kind in "iu" else 2 ** 11)
        sample = F.randint(int(from_), int(to), self.shape)
        return write_inplace(self, "random_", lambda old: sample)


METHODS = InplaceTensorMethods
