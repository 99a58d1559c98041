"""MindSpore's `mindspore.common.seed` path: the global seed (mindlite/random_state.py)."""
from ..random_state import get_seed, set_seed  # noqa: F401
