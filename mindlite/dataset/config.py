"""mindlite.dataset.config: the dataset seed (MindSpore's mindspore.dataset.config).

Dataset shuffles draw from mindlite's one global generator, so these are
mindlite.set_seed / get_seed under the names MindSpore scripts use.
"""
from ..random_state import get_seed, set_seed

__all__ = ["get_seed", "set_seed"]
