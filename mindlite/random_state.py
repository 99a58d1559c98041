"""The global random generator behind initializers, dropout and dataset shuffles."""
import numpy as np

_STATE = {"seed": None, "gen": np.random.default_rng()}


def set_seed(seed):
    """Seed every random draw in mindlite (as mindspore.set_seed)."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"For 'set_seed', 'seed' must be a non-negative int, but got {seed!r}")
    _STATE["seed"] = seed
    _STATE["gen"] = np.random.default_rng(seed)


def get_seed():
    return _STATE["seed"]


def generator():
    return _STATE["gen"]
