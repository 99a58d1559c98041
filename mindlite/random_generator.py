"""Random generators with MindSpore 2.10's API: `Generator` (`manual_seed`, `seed`,
`initial_seed`, `get_state`, `set_state`), `default_generator` (the global generator of
mindlite.random_state that ops' random draws, initializers and dropout use), and the
top-level `manual_seed`, `seed`, `initial_seed`, `get_rng_state`, `set_rng_state`.

A state is a UInt8 Tensor, as MindSpore's, holding the numpy PCG64 state (128-bit state
and increment, the buffered 32-bit half) and the initial seed: `set_rng_state(
get_rng_state())` replays the same draws. (Its bytes are mindlite's own: MindSpore's
16-byte seed/offset state is not accepted, nor is mindlite's by MindSpore.)
"""
import os
import threading

import numpy as np

from . import random_state
from .common import dtype as mstype
from .common.tensor import Tensor

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state"]

_STATE_BYTES = 16 + 16 + 1 + 4 + 8


def _encode(gen, initial):
    st = gen.bit_generator.state
    if st["bit_generator"] != "PCG64":
        raise TypeError(f"For 'get_state', the generator must be PCG64, but got "
                        f"{st['bit_generator']}")
    raw = (st["state"]["state"].to_bytes(16, "little") + st["state"]["inc"].to_bytes(16, "little")
           + bytes([st["has_uint32"]]) + int(st["uinteger"]).to_bytes(4, "little")
           + int(initial or 0).to_bytes(8, "little"))
    return Tensor(np.frombuffer(raw, np.uint8).copy())


def _decode(state):
    if not isinstance(state, Tensor) or state.dtype != mstype.uint8 or \
            state.shape != (_STATE_BYTES,):
        got = f"{state.dtype} {list(state.shape)}" if isinstance(state, Tensor) else \
            type(state).__name__
        raise ValueError(f"For 'set_state', 'state' must be a UInt8 Tensor of shape "
                         f"[{_STATE_BYTES}] from get_state, but got {got}")
    raw = state.asnumpy().tobytes()
    return ({"bit_generator": "PCG64",
             "state": {"state": int.from_bytes(raw[:16], "little"),
                       "inc": int.from_bytes(raw[16:32], "little")},
             "has_uint32": raw[32], "uinteger": int.from_bytes(raw[33:37], "little")},
            int.from_bytes(raw[37:45], "little"))


def _os_seed():
    """A fresh 63-bit seed from the OS (os.urandom: `secrets` stays out of the import)."""
    return int.from_bytes(os.urandom(8), "little") >> 1


def _check_seed(value, where):
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"For '{where}', 'seed' must be a non-negative int, but got {value!r}")
    return value


class Generator:
    """A random generator (PCG64) with its own state: `manual_seed(s)` seeds it, `seed()` seeds
    it from the OS and returns that seed, `get_state()` / `set_state(state)` save and restore
    it."""

    def __init__(self):
        self._lock = threading.Lock()
        self._initial = _os_seed()
        self._gen = np.random.default_rng(self._initial)

    def _numpy(self):
        return self._gen

    def manual_seed(self, seed):
        seed = _check_seed(seed, "Generator.manual_seed")
        with self._lock:
            self._initial = seed
            self._gen = np.random.default_rng(seed)
        return self

    def seed(self):
        value = _os_seed()
        self.manual_seed(value)
        return value

    def initial_seed(self):
        return self._initial

    def get_state(self):
        with self._lock:
            return _encode(self._numpy(), self._initial)

    def set_state(self, state):
        st, initial = _decode(state)
        with self._lock:
            self._numpy().bit_generator.state = st
            self._initial = initial


class _DefaultGenerator(Generator):
    """The global generator (mindlite.random_state): what `set_seed` seeds and what random
    ops, initializers and dropout draw from."""

    def __init__(self):
        self._lock = threading.Lock()

    def _numpy(self):
        return random_state.generator()

    @property
    def _initial(self):
        seed_ = random_state.get_seed()
        return 0 if seed_ is None else seed_

    def manual_seed(self, seed):
        random_state.set_seed(_check_seed(seed, "manual_seed"))
        return self

    def set_state(self, state):
        st, initial = _decode(state)
        with self._lock:
            if random_state.get_seed() != initial:
                random_state.set_seed(initial)
            self._numpy().bit_generator.state = st


default_generator = _DefaultGenerator()


def manual_seed(seed):
    """Seed the default generator (as `set_seed`)."""
    default_generator.manual_seed(seed)


def seed():
    """Seed the default generator from the OS; returns the seed."""
    return default_generator.seed()


def initial_seed():
    """The seed the default generator was last seeded with (0 when never seeded)."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state (a UInt8 Tensor)."""
    return default_generator.get_state()


def set_rng_state(state):
    """Restore the default generator's state from get_rng_state()."""
    default_generator.set_state(state)
