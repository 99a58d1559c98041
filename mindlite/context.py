"""Global context: set_context / get_context / set_device, as mindspore.context.

Keys that change how ops run (backend_policy, kernel_provider, device_target)
bump `CONTEXT.version`; cached runners remember the version they were built
under and are rebuilt when it changes, so a context change is never ignored.

Under GRAPH_MODE a Cell's __call__ compiles its construct to a graph and runs that
(mindlite/jit, docs/graph_mode.md); functions compile with `mindlite.jit` in any mode.
A device_target is checked by the device registry (mindlite/device), through its slot
(common/api.py's DEVICES): the devices sit above this floor.
"""
from .common.api import DEVICES

GRAPH_MODE = 0
PYNATIVE_MODE = 1

_DEFAULTS = {
    "mode": PYNATIVE_MODE,
    "device_target": "CPU",
    "device_id": 0,
    "save_graphs": False,
    "save_graphs_path": ".",
    "backend_policy": "ms",       # "ms": registered kernels; "vm": numpy reference kernels
    "kernel_provider": None,      # a provider name that wins kernel selection when it applies
    "pynative_synchronize": True,
    "max_call_depth": 1000,
    "device_fallback": False,     # a device plugin that fails: run on CPU (warn) or raise
}
_CHOICES = {
    "mode": (GRAPH_MODE, PYNATIVE_MODE),
    "backend_policy": ("ms", "vm"),
}
_RUNNER_KEYS = ("backend_policy", "kernel_provider", "device_target")


class _Context:
    def __init__(self):
        self.values = dict(_DEFAULTS)
        self.version = 0
        self.listeners = []       # called when a key that affects cached runners changes


CONTEXT = _Context()


def set_context(**kwargs):
    """Set context keys, e.g. set_context(mode=PYNATIVE_MODE, device_target='CPU')."""
    for key, value in sorted(kwargs.items(), key=lambda kv: kv[0] == "device_target"):
        if key not in _DEFAULTS:
            raise ValueError(f"For 'set_context', unknown key '{key}'; expected one of "
                             f"{sorted(_DEFAULTS)}")
        if key == "device_target":        # CPU or a registered plugin (mindlite/device)
            value = DEVICES.resolve_target(value)
        choices = _CHOICES.get(key)
        if choices is not None and value not in choices:
            raise ValueError(f"For 'set_context', '{key}' must be one of {list(choices)}, but got "
                             f"{value!r}")
        if key in ("save_graphs", "save_graphs_path"):
            _check_save_graphs(key, value)
        if key == "device_fallback" and not isinstance(value, bool):
            raise TypeError(f"For 'set_context', 'device_fallback' must be a bool, but got "
                            f"{type(value).__name__}")
        if key == "kernel_provider" and value is not None and not isinstance(value, str):
            raise TypeError("For 'set_context', 'kernel_provider' must be a str or None, but got "
                            f"{type(value).__name__}")
        CONTEXT.values[key] = value
        if key in _RUNNER_KEYS:
            CONTEXT.version += 1
            for listener in CONTEXT.listeners:
                listener()


def _check_save_graphs(key, value):
    """save_graphs: False/True or 0..3 (mindlite/jit/save_graphs.py); save_graphs_path: a
    str or path-like."""
    import os
    if key == "save_graphs":
        if not isinstance(value, int) or not 0 <= value <= 3:
            raise (ValueError if isinstance(value, int) else TypeError)(
                f"For 'set_context', 'save_graphs' must be a bool or an int in [0, 3], but got "
                f"{value!r}")
    elif not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
        raise TypeError(f"For 'set_context', 'save_graphs_path' must be a non-empty str or "
                        f"path, but got {value!r}")


def get_context(key):
    if key not in CONTEXT.values:
        raise ValueError(f"For 'get_context', unknown key '{key}'; expected one of "
                         f"{sorted(CONTEXT.values)}")
    return CONTEXT.values[key]


def set_device(device_target, device_id=None):
    """Select the device: 'CPU' or a registered plugin (mindlite.device.list_devices())."""
    set_context(device_target=device_target)
    if device_id is not None:
        if not isinstance(device_id, int) or device_id < 0:
            raise ValueError(f"For 'set_device', 'device_id' must be a non-negative int, but got "
                             f"{device_id!r}")
        CONTEXT.values["device_id"] = device_id


# The auto-parallel context (data-parallel training) lives with the communication package.
from .communication.auto_parallel import (ParallelMode, get_auto_parallel_context,  # noqa: E402,F401
                                          reset_auto_parallel_context,
                                          set_auto_parallel_context)
