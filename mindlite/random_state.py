"""The global random generator behind initializers, dropout and dataset shuffles.

The unseeded generator is made on first use: numpy.random (and the secrets/hashlib
it imports) stays out of `import mindlite`. Threads: the generator is made once, under a
lock (two threads' first draws at once share one generator; a second one made alongside
would reset what a seed-derived generator, such as Dropout's, was derived from), and
numpy's Generator serialises concurrent draws itself.
"""
import threading

import numpy as np

_STATE = {"seed": None, "gen": None}
_LOCK = threading.Lock()


def set_seed(seed):
    """Seed every random draw in mindlite (as mindspore.set_seed)."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"For 'set_seed', 'seed' must be a non-negative int, but got {seed!r}")
    gen = np.random.default_rng(seed)
    with _LOCK:
        _STATE["seed"] = seed
        _STATE["gen"] = gen


def get_seed():
    return _STATE["seed"]


def generator():
    gen = _STATE["gen"]
    if gen is None:
        with _LOCK:
            gen = _STATE["gen"]
            if gen is None:
                gen = _STATE["gen"] = np.random.default_rng()
    return gen
