"""numpy kernel of RandomCategorical, draw for draw MindSpore 2.10's CPU kernel (so seeded
results equal MindSpore's):

- the seed: MindSpore's random::GetSeed(0, seed), a 10-round Philox-4x32 mix of the seed
  (seed 0: a random seed, here from mindlite's global generator, so set_seed reproduces it);
- the engine: std::default_random_engine of libstdc++ (minstd_rand0: x = 16807 x mod
  2^31 - 1), seeded with that 64-bit value mod 2^31 - 1 (0 -> 1); its states are computed
  n at a time by doubling (x_{i+k} = x_i 16807^k), not one by one;
- a draw: uniform_real_distribution<double> (generate_canonical: two engine outputs,
  ((x1 - 1) + (x2 - 1) R) / R^2 in double, R = 2^31 - 2), rounded to float, then to the
  logits' dtype; one draw per sample, shared by every row;
- the search: cumulative exp(float(logit - max)) in the logits' dtype; sample j of a row is
  the first category c with not (cdf[c] < cdf[-1] * draw_j).

Each (seed, call form) keeps its engine state between calls of one primitive (MindSpore's
kernel object keeps its engine); the table is bounded and guarded by a lock.
"""
import threading

import numpy as np

from ... import random_state
from ..registry import register_kernel

_M, _A = 2147483647, 16807
_R = float(_M - 1)
_M32 = 0xFFFFFFFF
_LOCK = threading.Lock()
_MAX_STREAMS = 64              # per primitive: the oldest stream is dropped beyond this


def philox_seed(ops_seed):
    """MindSpore's random::GetSeed(0, ops_seed) for a nonzero seed (uint64 wrap)."""
    s = ops_seed & 0xFFFFFFFFFFFFFFFF
    c = [0, 0, s & _M32, s >> 32]
    k = [0x3ec8f720, 0x02461e29]
    for _ in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & _M32, (p0 >> 32) ^ c[3] ^ k[1], p0 & _M32]
        k = [(k[0] + 0x9E3779B9) & _M32, (k[1] + 0xBB67AE85) & _M32]
    return (c[1] << 32) | c[0]


def minstd_states(x0, n):
    """The next n states of minstd_rand0 after state x0 (int64 array)."""
    out = np.empty(n, np.int64)
    if n == 0:
        return out
    out[0] = x0 * _A % _M
    k, ak = 1, _A
    while k < n:
        m = min(k, n - k)
        out[k:k + m] = out[:m] * ak % _M           # x_{i+k} = x_i a^k (products < 2^62)
        ak, k = ak * ak % _M, 2 * k
    return out


def uniform_draws(x0, n):
    """(n float32 draws of uniform_real_distribution<double>(0, 1) rounded to float, the
    engine's last state)."""
    states = minstd_states(x0, 2 * n)
    lo = (states[0::2] - 1).astype(np.float64)
    hi = (states[1::2] - 1).astype(np.float64)
    u = (lo + hi * _R) / (_R * _R)
    u = np.minimum(u, np.nextafter(1.0, 0.0))
    return u.astype(np.float32), (int(states[-1]) if n else x0)


def _start(seed):
    if seed == 0:
        seed = int(random_state.generator().integers(1, 2 ** 32))   # random_device's role
    return philox_seed(seed) % _M or 1


def _draws(streams, key, seed, n):
    with _LOCK:
        x0 = streams.pop(key, None)
        if x0 is None:
            x0 = _start(seed)
            while len(streams) >= _MAX_STREAMS:
                streams.pop(next(iter(streams)))
        draws, streams[key] = uniform_draws(x0, n)
    return draws


@register_kernel("RandomCategorical", provider="numpy")
def random_categorical_numpy(logits, out, num_sample, seed, streams):
    t = logits.dtype
    key = (seed, num_sample, logits.shape, t.str)
    draws = _draws(streams, key, seed, num_sample).astype(t)
    if logits.shape[0] == 0 or logits.shape[1] == 0:
        out.fill(0)
        return
    with np.errstate(all="ignore"):
        first = logits[:, :1]
        mx = np.where(np.isnan(first), first,          # a NaN first entry stays the max
                      np.fmax.reduce(logits, axis=1, keepdims=True))
        e = np.exp((logits - mx).astype(np.float32)).astype(t)
        cdf = np.cumsum(e, axis=1, dtype=t)
        to_find = cdf[:, -1:] * draws[None, :]                       # (rows, samples)
    reached = ~(cdf[:, None, :] < to_find[:, :, None])               # (rows, samples, classes)
    reached[..., -1] = True                           # the search never runs past the end
    out[...] = reached.argmax(-1)
