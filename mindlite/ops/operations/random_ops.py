"""Random primitives of issue 13 (behind ops.rand, randn, randint, uniform, normal,
bernoulli, multinomial and dropout1d/2d/3d), RandpermV2 (ops.randperm) and RandomCategorical
(MindSpore's draws; its own seeding, see the class). Kernels: kernels/cpu/random_numpy.py.

Seeding as Dropout's: seed = seed2 = 0 draws from mindlite's global generator
(mindlite.set_seed); other values from a generator of their own, derived from (global seed,
seed, seed2) and renewed whenever set_seed installs a new global generator, so a fixed
global seed makes every sequence of draws reproducible. Draws are thread-safe (numpy's
Generator serialises them). Every primitive here carries a "seed" attribute (or
side_effect_hidden), which graph mode's passes treat as random: never folded or merged.
The samplers are not differentiable; Dropout2D / Dropout3D are (dout * mask / keep_prob).
"""
import itertools
import numbers

from ...common import dtype as mstype
from ...common.limits import MAX_INT_ATTR
from ...ir.rules import bprop_for, non_differentiable
from ...ir.primitive import Primitive, _runner_cache, prim_attr_register
from ..validator import (check_dtype, check_int, check_output_size,
                         check_shape_arg, tensor)
from .array_ops import Cast
from .math_ops import Mul

__all__ = ["UniformReal", "StandardNormal", "UniformInt", "Bernoulli", "Multinomial",
           "Dropout2D", "Dropout3D", "RandpermV2", "RandomCategorical"]

_cast, _mul = Cast(), Mul()
_INSTANCES = itertools.count()


class _Streams(dict):
    """(seed, call form) -> one RandomCategorical's engine state (the kernel locks it); a
    type of its own, so a primitive holding one is never cloned from a prototype."""


def _seeds(prim, seed, seed2):
    check_int(prim, "seed", seed, 0, MAX_INT_ATTR)
    check_int(prim, "seed2", seed2, 0, MAX_INT_ATTR)


def _shape(prim, shape):
    shape = check_shape_arg(prim, "shape", shape)
    for i, d in enumerate(shape):
        if d < 0:
            raise ValueError(f"For '{prim.name}', the {i}th dimension of input shape must be "
                             f"greater than or equal to 0, but got {d}.")
    check_output_size(prim, "the output shape", shape)
    return shape


class _Sampler(Primitive):
    input_names = ("shape",)
    const_inputs = (0,)

    @prim_attr_register
    def __init__(self, seed=0, seed2=0):
        _seeds(self, seed, seed2)

    def infer(self, shape):
        return tensor(mstype.float32, _shape(self, shape))

    def kernel_params(self, *args):
        return {"seed": self.attrs["seed"], "seed2": self.attrs["seed2"]}


class UniformReal(_Sampler):
    """float32 samples of U[0, 1) of the given shape."""


class StandardNormal(_Sampler):
    """float32 samples of N(0, 1) of the given shape."""


class UniformInt(_Sampler):
    """(shape, minval, maxval) -> integers uniform in [minval, maxval) (0-d int32 or int64
    tensors of one dtype, minval < maxval, checked by the kernel), in minval's dtype."""
    input_names = ("shape", "minval", "maxval")

    def infer(self, shape, minval, maxval):
        for name, t in (("minval", minval), ("maxval", maxval)):
            check_dtype(self, name, t, (mstype.int32, mstype.int64))
            if len(t.shape):
                raise ValueError(f"For '{self.name}', '{name}' must be a 0-d tensor, but got "
                                 f"shape {list(t.shape)}")
        if minval.dtype is not maxval.dtype:
            raise TypeError(f"For '{self.name}', 'minval' and 'maxval' must have one dtype, but "
                            f"got {minval.dtype} and {maxval.dtype}")
        return tensor(minval.dtype, _shape(self, shape))


_RANDPERM_TYPES = (mstype.uint8, mstype.int8, mstype.int16, mstype.int32, mstype.int64,
                  mstype.float16, mstype.float32, mstype.float64)


class RandpermV2(Primitive):
    """n -> a permutation of 0..n-1 in `dtype`, MindSpore's CPU kernel's bit for bit:
    std::shuffle driven by std::mt19937(offset if offset else seed), so a seed (0 too) gives
    the same permutation every launch; seed -1 draws the generator's seed from mindlite's."""
    input_names = ("n",)
    const_inputs = (0,)

    @prim_attr_register
    def __init__(self, seed=0, offset=0, dtype=mstype.int64):
        check_int(self, "seed", seed, -1, MAX_INT_ATTR)
        check_int(self, "offset", offset, 0, MAX_INT_ATTR)
        dtype = mstype.to_type(dtype)
        if dtype not in _RANDPERM_TYPES:
            raise TypeError(f"For '{self.name}', 'dtype' must be one of "
                            f"{[str(t) for t in _RANDPERM_TYPES]}, but got {dtype}")
        self.add_prim_attr("dtype", dtype)

    def infer(self, n):
        if not isinstance(n, numbers.Integral) or isinstance(n, bool):
            raise TypeError(f"For '{self.name}', 'n' must be an int, but got "
                            f"{type(n).__name__}")
        if n <= 0:
            raise ValueError(f"For '{self.name}', the input 'n' must be greater than 0, but "
                             f"got data: {n}.")
        check_output_size(self, "the output shape", (int(n),))
        return tensor(self.attrs["dtype"], (int(n),))

    def kernel_params(self, n):
        return {"seed": self.attrs["seed"], "offset": self.attrs["offset"]}


class Bernoulli(Primitive):
    """(x, p) -> 1 with probability p else 0, in x's dtype and shape; p (float, in [0, 1],
    checked by the kernel) has x's shape or one element."""
    input_names = ("x", "p")

    @prim_attr_register
    def __init__(self, seed=-1, offset=0):
        check_int(self, "seed", seed, -1, MAX_INT_ATTR)
        check_int(self, "offset", offset, 0, MAX_INT_ATTR)

    def infer(self, x, p):
        check_dtype(self, "x", x, (mstype.bool_,) + mstype.NUMBER_TYPES)
        check_dtype(self, "p", p, mstype.FLOAT_TYPES)
        size = 1
        for d in p.shape:
            size *= d
        if tuple(p.shape) != tuple(x.shape) and size != 1:
            raise ValueError(f"For '{self.name}', 'x' and 'p' should have same shape or 'p' "
                             f"have a size of 1, but got {list(x.shape)} and {list(p.shape)}")
        return x

    def kernel_params(self, x, p):
        seed = self.attrs["seed"]
        return {"seed": max(seed, 0), "seed2": self.attrs["offset"]}


class Multinomial(Primitive):
    """(x, num_samples) -> num_samples category indices per row of x (1-D or 2-D
    non-negative weights, each row with a positive sum; checked by the kernel), drawn with
    replacement, as `dtype` (int32 or int64)."""
    input_names = ("x", "num_samples")
    const_inputs = (1,)

    @prim_attr_register
    def __init__(self, seed=0, seed2=0, dtype=mstype.int32):
        _seeds(self, seed, seed2)
        try:
            t = mstype.to_type(dtype)
        except TypeError:
            t = None
        if t not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{self.name}', 'dtype' must be int32 or int64, but got "
                            f"{dtype!r}")
        self._out = t

    def infer(self, x, num_samples):
        check_dtype(self, "x", x, mstype.FLOAT_TYPES)
        if len(x.shape) not in (1, 2) or x.shape[-1] == 0:
            raise ValueError(f"For '{self.name}', 'x' must be a 1-D or 2-D tensor with at least "
                             f"one category, but got shape {list(x.shape)}")
        n = check_int(self, "num_samples", num_samples, 1, MAX_INT_ATTR)
        shape = tuple(x.shape[:-1]) + (n,)
        check_output_size(self, "the output shape", shape)
        return tensor(self._out, shape)

    def kernel_params(self, x, num_samples):
        return {"seed": self.attrs["seed"], "seed2": self.attrs["seed2"]}


class RandomCategorical(Primitive):
    """(logits, num_sample, seed) -> num_sample category indices per row of 2-D logits
    (float16/32/64), as `dtype` (int16/32/64): MindSpore 2.10's CPU kernel, draw for draw.
    One uniform draw per sample, shared by every row, from std::minstd_rand0 seeded with
    MindSpore's Philox mix of (0, seed) (seed 0: a random seed); each (seed, call form) keeps
    its stream between calls of this primitive, as MindSpore's kernel object does. Sample j
    of row r is the first category whose cumulative exp(logit - max) reaches the row's total
    times the draw. Not differentiable."""
    input_names = ("logits", "num_sample", "seed")
    const_inputs = (1, 2)

    @prim_attr_register
    def __init__(self, dtype=mstype.int64):
        try:
            t = mstype.to_type(dtype)
        except TypeError:
            t = None
        if t not in (mstype.int32, mstype.int16, mstype.int64):
            raise TypeError(f"For '{self.name}', the 'dtype' should be one of [mindspore.int32, "
                            f"mindspore.int16, mindspore.int64], but got '{dtype!r}'.")
        self._out = t
        self._streams = _Streams()
        self.add_prim_attr("side_effect_hidden", True)

    def infer(self, logits, num_sample, seed):
        check_dtype(self, "logits", logits, mstype.FLOAT_TYPES)
        if len(logits.shape) != 2:
            raise ValueError(f"For '{self.name}', logits shape size only support 2D, but got "
                             f"shape {list(logits.shape)}")
        for name, v in (("num_sample", num_sample), ("seed", seed)):
            if not isinstance(v, numbers.Integral) or isinstance(v, bool):
                raise TypeError(f"For '{self.name}', '{name}' must be an int, but got "
                                f"{type(v).__name__}")
        if num_sample <= 0:
            raise ValueError(f"For '{self.name}', num_sample can't has negative value, but got "
                             f"{num_sample}")
        shape = (logits.shape[0], int(num_sample))
        check_output_size(self, "the output shape", shape)
        return tensor(self._out, shape)

    def kernel_params(self, logits, num_sample, seed):
        return {"num_sample": int(num_sample), "seed": int(seed), "streams": self._streams}

    def _refresh_attrs_key(self):
        """Each instance its own compiled-call cache entry: the streams are this instance's."""
        super()._refresh_attrs_key()
        if "_instance" not in self.__dict__:
            self._instance = next(_INSTANCES)
        self.attrs_key += (("instance", self._instance),)
        self._runners = _runner_cache((type(self), self.name, self.attrs_key))


class _ChannelDropout(Primitive):
    """(output, mask): each (n, c) channel is kept (mask True) with probability keep_prob
    and then scaled by 1 / keep_prob, else zeroed; the mask is bool of x's shape. Gradient
    dout * mask / keep_prob."""
    input_names = ("x",)
    rank = 4

    @prim_attr_register
    def __init__(self, keep_prob=0.5):
        if not isinstance(keep_prob, numbers.Real) or isinstance(keep_prob, bool) or \
                not 0.0 <= keep_prob <= 1.0:
            raise ValueError(f"For '{self.name}', the 'keep_prob' must be in range of [0.0, "
                             f"1.0], but got {keep_prob!r}")
        self.add_prim_attr("side_effect_hidden", True)

    def infer(self, x):
        check_dtype(self, "x", x, mstype.NUMBER_TYPES)
        if len(x.shape) != self.rank:
            raise ValueError(f"For '{self.name}', the rank of input must be equal to "
                             f"{self.rank}, but got {len(x.shape)}.")
        return x, tensor(mstype.bool_, x.shape)

    def kernel_params(self, x):
        return {"keep_prob": float(self.attrs["keep_prob"])}


class Dropout2D(_ChannelDropout):
    """Channel dropout of x (N, C, H, W)."""


class Dropout3D(_ChannelDropout):
    """Channel dropout of x (N, C, D, H, W)."""
    rank = 5


non_differentiable(UniformReal, StandardNormal, UniformInt, Bernoulli, Multinomial,
                   RandpermV2, RandomCategorical)


@bprop_for(Dropout2D, Dropout3D)
def channel_dropout_bprop(prim, x, out, dout):
    keep = float(prim.attrs["keep_prob"])
    if x.dtype.kind != "f":
        return (None,)
    scaled = _mul(dout[0], _cast(out[1], x.dtype))
    return (_mul(scaled, 1.0 / keep) if keep > 0 else _mul(scaled, 0.0),)
