"""MindSpore's RandpermV2 CPU kernel, bit for bit: std::shuffle of 0..n-1 driven by
std::mt19937(seed), as libstdc++ (the C++ library MindSpore 2.10's CPU build links) defines
them: the Mersenne Twister (MT19937, seeded by init_genrand), uniform_int_distribution by
rejection and downscaling, and shuffle's two swaps per draw while n * n fits the generator's
range. Imported by ops.randperm on its first call (it imports numba).
"""
import numpy as np

from .._numba_jit import njit

_jit = njit(nogil=True)
_MASK = np.uint64(0xFFFFFFFF)


@_jit
def _seed(state, seed):
    state[0] = np.uint64(seed) & np.uint64(0xFFFFFFFF)
    for i in range(1, 624):
        prev = state[i - 1]
        state[i] = (np.uint64(1812433253) * (prev ^ (prev >> np.uint64(30))) + np.uint64(i)) \
            & np.uint64(0xFFFFFFFF)


@_jit
def _twist(state):
    upper, lower = np.uint64(0x80000000), np.uint64(0x7FFFFFFF)
    for i in range(624):
        y = (state[i] & upper) | (state[(i + 1) % 624] & lower)
        v = state[(i + 397) % 624] ^ (y >> np.uint64(1))
        if y & np.uint64(1):
            v ^= np.uint64(0x9908B0DF)
        state[i] = v


@_jit
def _next(state, pos):
    """The next 32-bit output; pos[0] is the index into the state (624: twist first)."""
    if pos[0] >= 624:
        _twist(state)
        pos[0] = 0
    y = state[pos[0]]
    pos[0] += 1
    y ^= y >> np.uint64(11)
    y ^= (y << np.uint64(7)) & np.uint64(0x9D2C5680)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    y ^= y >> np.uint64(18)
    return y & np.uint64(0xFFFFFFFF)


@_jit
def _uniform(state, pos, hi):
    """uniform_int_distribution(0, hi): downscale, rejecting draws past the last full bucket."""
    uerange = np.uint64(hi) + np.uint64(1)
    scaling = np.uint64(0xFFFFFFFF) // uerange
    past = uerange * scaling
    r = _next(state, pos)
    while r >= past:
        r = _next(state, pos)
    return r // scaling


@_jit
def permutation(n, seed):
    out = np.arange(n)
    state = np.zeros(624, np.uint64)
    pos = np.full(1, 624, np.int64)
    _seed(state, seed)
    if n < 2:
        return out
    if np.uint64(0xFFFFFFFF) // np.uint64(n) >= np.uint64(n):
        i = 1
        if n % 2 == 0:
            j = _uniform(state, pos, 1)
            out[i], out[j] = out[j], out[i]
            i += 1
        while i != n:
            b1 = np.uint64(i + 2)
            x = _uniform(state, pos, np.uint64(i + 1) * b1 - np.uint64(1))
            p1, p2 = x // b1, x % b1
            out[i], out[p1] = out[p1], out[i]
            i += 1
            out[i], out[p2] = out[p2], out[i]
            i += 1
        return out
    for i in range(1, n):
        j = _uniform(state, pos, i)
        out[i], out[j] = out[j], out[i]
    return out
