"""numpy kernels for random_ops: UniformReal, StandardNormal, UniformInt, Bernoulli,
Multinomial, Dropout2D / Dropout3D, RandpermV2 (MindSpore's std::shuffle over std::mt19937:
_mt19937_jit.py).

Every draw comes from norm_numpy's generator lookup (Dropout's): the global generator of
mindlite.random_state for seed = seed2 = 0, else a generator derived from (global seed,
seed, seed2). Invalid values the inference cannot see (minval >= maxval, p outside [0, 1],
negative or all-zero multinomial weights) raise ValueError before anything is written.
Multinomial inverts each row's cumulative distribution with one searchsorted per row.
"""
import numpy as np

from ..registry import register_kernel
from .norm_numpy import _generator


@register_kernel("UniformReal", provider="numpy")
def uniform_real_numpy(out, seed, seed2):
    _generator(seed, seed2).random(out.shape, dtype=np.float32, out=out)


@register_kernel("StandardNormal", provider="numpy")
def standard_normal_numpy(out, seed, seed2):
    _generator(seed, seed2).standard_normal(out.shape, dtype=np.float32, out=out)


@register_kernel("UniformInt", provider="numpy")
def uniform_int_numpy(minval, maxval, out, seed, seed2):
    lo, hi = int(minval), int(maxval)
    if lo >= hi:
        raise ValueError(f"For 'UniformInt', 'minval' must be less than 'maxval', but got "
                         f"minval {lo} and maxval {hi}")
    out[...] = _generator(seed, seed2).integers(lo, hi, out.shape, dtype=out.dtype)


@register_kernel("Bernoulli", provider="numpy")
def bernoulli_numpy(x, p, out, seed, seed2):
    with np.errstate(invalid="ignore"):
        bad = ~((p >= 0) & (p <= 1))
    if bad.any():
        raise ValueError(f"For 'Bernoulli', 'p' must be in [0, 1], but got "
                         f"{p[bad].ravel()[0]}")
    u = _generator(seed, seed2).random(out.shape)
    out[...] = u < p.astype(np.float64)


@register_kernel("Multinomial", provider="numpy")
def multinomial_numpy(x, out, seed, seed2):
    w = np.atleast_2d(x).astype(np.float64)
    total = w.sum(-1)
    if not np.isfinite(w).all() or (w < 0).any() or (total <= 0).any():
        raise ValueError("For 'Multinomial', each row of 'x' must hold finite non-negative "
                         "weights with a positive sum")
    cdf = np.cumsum(w, -1) / total[:, None]
    u = _generator(seed, seed2).random((w.shape[0], out.shape[-1]))
    res = np.empty(u.shape, dtype=np.int64)
    for i in range(w.shape[0]):
        res[i] = np.searchsorted(cdf[i], u[i], side="right")
    np.minimum(res, w.shape[1] - 1, out=res)    # u can round onto the last bound
    out[...] = res.reshape(out.shape)


def _channel_dropout(x, out, mask, keep_prob):
    keep = _generator(0, 0).random(x.shape[:2], dtype=np.float32) < keep_prob
    mask[...] = keep.reshape(x.shape[:2] + (1,) * (x.ndim - 2))
    if keep_prob <= 0:
        out.fill(0)
        return
    out[...] = x * mask * (1.0 / keep_prob)


register_kernel("Dropout2D", provider="numpy", kernel=_channel_dropout)
register_kernel("Dropout3D", provider="numpy", kernel=_channel_dropout)


@register_kernel("RandpermV2", provider="numpy")
def randperm_v2_numpy(out, seed, offset):
    from ... import random_state
    from ._mt19937_jit import permutation
    final = offset if offset != 0 else seed if seed != -1 else \
        int(random_state.generator().integers(0, 2 ** 32))
    out[...] = permutation(out.shape[0], final & 0xFFFFFFFF)
