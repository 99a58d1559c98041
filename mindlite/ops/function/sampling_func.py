"""Distribution samplers and candidate samplers of MindSpore 2.10's ops: random_gamma / gamma,
random_poisson / poisson (random_dist_ops' primitives), random_categorical and
multinomial_with_replacement (ops.multinomial's Multinomial), choice_with_mask, and the
uniform / log-uniform candidate samplers of sampled-softmax training. Draws come from mindlite's
generator (mindlite.set_seed); a nonzero seed gives a stream of its own, as random_ops.
"""
import math

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import random_dist_ops as RD
from ._typed_prims import typed_prim as _prim

__all__ = ["random_gamma", "gamma", "random_poisson", "poisson", "random_categorical",
           "multinomial_with_replacement", "choice_with_mask", "uniform_candidate_sampler",
           "log_uniform_candidate_sampler"]


def _F():
    from .. import functional as F
    return F


def _seeds(op, seed):
    if seed is None or seed == 0:
        return 0, 0
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise TypeError(f"For '{op}', 'seed' must be None or a non-negative int, but got "
                        f"{seed!r}")
    return int(seed), 1


def _generator(op, seed):
    from ...kernels.cpu.norm_numpy import _generator as gen
    return gen(*_seeds(op, seed))


def _shape_of(op, shape):
    if isinstance(shape, Tensor):
        return tuple(int(v) for v in shape.asnumpy().reshape(-1))
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"For '{op}', 'shape' must be a tuple or a Tensor, but got "
                        f"{type(shape).__name__}")
    return tuple(shape)


def random_gamma(shape, alpha, seed=None):
    """Gamma(alpha, 1) samples of shape `shape + alpha.shape` (alpha's float dtype)."""
    if not isinstance(alpha, Tensor):
        raise TypeError(f"For 'random_gamma', 'alpha' must be a Tensor, but got "
                        f"{type(alpha).__name__}")
    return _prim(RD.RandomGamma, *_seeds("random_gamma", seed))(
        _shape_of("random_gamma", shape), alpha)


def gamma(shape, alpha, beta, seed=None):
    """Gamma(alpha, rate beta) samples: shape broadcast with alpha's and beta's shapes."""
    F = _F()
    for name, t in (("alpha", alpha), ("beta", beta)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'gamma', '{name}' must be a Tensor, but got "
                            f"{type(t).__name__}")
    out = np.broadcast_shapes(_shape_of("gamma", shape), tuple(alpha.shape), tuple(beta.shape))
    a = F.broadcast_to(alpha, out)
    draws = _prim(RD.RandomGamma, *_seeds("gamma", seed))((), a)
    return F.div(draws, F.broadcast_to(F.cast(beta, draws.dtype), out))


def random_poisson(shape, rate, seed=None, dtype=mstype.float32):
    """Poisson(rate) samples of shape `shape + rate.shape`, as dtype."""
    if not isinstance(rate, Tensor):
        raise TypeError(f"For 'random_poisson', 'rate' must be a Tensor, but got "
                        f"{type(rate).__name__}")
    return _prim(RD.RandomPoisson, *_seeds("random_poisson", seed), dtype)(
        _shape_of("random_poisson", shape), rate)


def poisson(shape, mean, seed=None):
    """Poisson(mean) float32 samples of shape broadcast with mean's."""
    F = _F()
    if not isinstance(mean, Tensor):
        raise TypeError(f"For 'poisson', 'mean' must be a Tensor, but got "
                        f"{type(mean).__name__}")
    out = np.broadcast_shapes(_shape_of("poisson", shape), tuple(mean.shape))
    return _prim(RD.RandomPoisson, *_seeds("poisson", seed), mstype.float32)(
        (), F.broadcast_to(mean, out))


def random_categorical(logits, num_sample, seed=0, dtype=mstype.int64):
    """num_sample category indices per row of the 2-D logits (softmax weights), as dtype."""
    F = _F()
    if not isinstance(logits, Tensor) or len(logits.shape) != 2:
        raise ValueError("For 'random_categorical', 'logits' must be a 2-D Tensor")
    if dtype not in (mstype.int16, mstype.int32, mstype.int64):
        raise TypeError(f"For 'random_categorical', 'dtype' must be int16, int32 or int64, but "
                        f"got {dtype}")
    probs = F.softmax(F.cast(logits, mstype.float32), -1)
    out = F.multinomial(probs, int(num_sample), True, seed if seed else None)
    return F.cast(out, dtype)


def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    """numsamples category indices (int64) per row of the weights x."""
    F = _F()
    s = seed.asnumpy().item() if isinstance(seed, Tensor) else seed
    out = F.multinomial(x, int(numsamples), bool(replacement), int(s) if s else None)
    return F.cast(out, mstype.int64)


def choice_with_mask(input_x, count=256, seed=None):
    """(index, mask): `count` coordinates of True elements of the bool input_x in random order
    (int32, (count, rank)), zero-padded where fewer exist, and the mask of the real ones."""
    if not isinstance(input_x, Tensor) or input_x.dtype is not mstype.bool_:
        raise TypeError("For 'choice_with_mask', 'input_x' must be a bool Tensor")
    if not isinstance(count, (int, np.integer)) or count < 1:
        raise ValueError(f"For 'choice_with_mask', 'count' must be a positive int, but got "
                         f"{count!r}")
    coords = np.argwhere(input_x.asnumpy())
    picked = coords[_generator("choice_with_mask", seed).permutation(len(coords))][:count]
    index = np.zeros((count, max(input_x.ndim, 1)), np.int32)
    index[:len(picked)] = picked
    mask = np.arange(count) < len(picked)
    return Tensor(index), Tensor(mask)


def _candidates(op, true_classes, num_true, num_sampled, unique, range_max, seed, draw, prob):
    if not isinstance(true_classes, Tensor):
        raise TypeError(f"For '{op}', 'true_classes' must be a Tensor, but got "
                        f"{type(true_classes).__name__}")
    for name, v in (("num_true", num_true), ("num_sampled", num_sampled),
                    ("range_max", range_max)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
            raise TypeError(f"For '{op}', '{name}' must be a positive int, but got {v!r}")
    if not isinstance(unique, bool):
        raise TypeError(f"For '{op}', 'unique' must be a bool, but got {unique!r}")
    if unique and num_sampled > range_max:
        raise ValueError(f"For '{op}', 'num_sampled' {num_sampled} must not exceed "
                         f"'range_max' {range_max} when 'unique' is True")
    gen = _generator(op, seed)
    if unique:
        picked = []
        while len(picked) < num_sampled:
            for k in draw(gen, num_sampled):
                if k not in picked:
                    picked.append(int(k))
                    if len(picked) == num_sampled:
                        break
        sampled = np.array(picked, np.int64)
    else:
        sampled = np.asarray(draw(gen, num_sampled), np.int64)
    true = true_classes.asnumpy()
    return (Tensor(sampled.astype(true.dtype)),
            Tensor((num_sampled * prob(true)).astype(np.float32)),
            Tensor((num_sampled * prob(sampled)).astype(np.float32)))


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                              remove_accidental_hits=False):
    """(sampled classes from [0, range_max) uniformly, the expected counts of the true
    classes, of the sampled ones): num_sampled / range_max each."""
    return _candidates("uniform_candidate_sampler", true_classes, num_true, num_sampled,
                       unique, range_max, seed,
                       lambda g, n: g.integers(0, range_max, n),
                       lambda k: np.full(np.shape(k), 1.0 / range_max))


def log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True,
                                  range_max=5, seed=0):
    """As uniform_candidate_sampler with P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)
    (Zipfian: small classes are likelier)."""
    log_range = math.log(range_max + 1)

    def draw(g, n):
        k = np.floor(np.exp(g.random(n) * log_range)).astype(np.int64) - 1
        return np.clip(k, 0, range_max - 1)
    return _candidates("log_uniform_candidate_sampler", true_classes, num_true, num_sampled,
                       unique, range_max, seed, draw,
                       lambda k: np.log((np.asarray(k) + 2.0) / (np.asarray(k) + 1.0))
                       / log_range)
