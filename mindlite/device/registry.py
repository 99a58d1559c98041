"""Device registry and plugin discovery: register_device, list_devices, get_device_context.

    register_device(name, factory)   factory(device_id) -> DeviceContext; eager ops and graphs
                                     reach it through backend/session.py's session_factory(name),
                                     which builds the device's session (backend/device_session.py)
    list_devices()                   registered names (plugins discovered first)
    get_device_context(name, id)     the DeviceContext, created once per (name, id)
    load_plugins()                   once: Python entry points of group "mindlite.devices"
                                     (name -> factory) and shared libraries named by
                                     MINDLITE_PLUGIN_PATH (the C ABI, device/c_plugin.py)
    resolve_target(name)             what set_context(device_target=...) calls: the name, or
                                     "CPU" with a warning when the plugin failed and the
                                     context allows fallback (device_fallback=True)

A plugin that fails to load is remembered in FAILED (name -> message) and reported when a
user picks it; it never stops `import mindlite` or the other devices.
"""
import os
import threading
import warnings

from ..common import api
from .base import DeviceContext, PluginError

ENTRY_POINT_GROUP = "mindlite.devices"
PLUGIN_PATH_ENV = "MINDLITE_PLUGIN_PATH"

DEVICES = {}          # name -> factory(device_id) -> DeviceContext
FAILED = {}           # plugin/device name -> why it could not load
_CONTEXTS = {}        # (name, device_id) -> DeviceContext
_LOADED = []          # non-empty once plugins were discovered
_LOCK = threading.RLock()
LISTENERS = []        # called with a device's name when it is (un)registered: the backend
                      # (backend/session.py) drops the session it built for that name


def register_device(name, factory, *, override=False):
    """Register device `name`; `factory(device_id)` returns its DeviceContext."""
    if not isinstance(name, str) or not name or not name.replace("_", "").isalnum():
        raise TypeError(f"For 'register_device', 'name' must be a non-empty alphanumeric str, "
                        f"but got {name!r}")
    if not callable(factory):
        raise TypeError(f"For 'register_device', 'factory' must be callable, but got "
                        f"{type(factory).__name__}")
    with _LOCK:
        if name in DEVICES and not override:
            raise ValueError(f"For 'register_device', device '{name}' is already registered "
                             f"(pass override=True to replace it)")
        DEVICES[name] = factory
        FAILED.pop(name, None)
        for key in [k for k in _CONTEXTS if k[0] == name]:
            del _CONTEXTS[key]
        for listener in LISTENERS:
            listener(name)


def unregister_device(name):
    """Remove a device registered by register_device (CPU cannot be removed)."""
    if name == "CPU":
        raise ValueError("For 'unregister_device', the built-in CPU device cannot be removed")
    with _LOCK:
        DEVICES.pop(name, None)
        for key in [k for k in _CONTEXTS if k[0] == name]:
            del _CONTEXTS[key]
        for listener in LISTENERS:
            listener(name)


def list_devices():
    """The names of the registered devices (built-in CPU and every plugin that loaded)."""
    load_plugins()
    return sorted(DEVICES)


def get_device_context(name=None, device_id=None):
    """The DeviceContext of `name` (default: the context's device_target) and `device_id`."""
    from ..context import CONTEXT
    if name is None:
        name = CONTEXT.values["device_target"]
    if device_id is None:
        device_id = CONTEXT.values["device_id"]
    ctx = _CONTEXTS.get((name, device_id))
    if ctx is not None:
        return ctx
    load_plugins()
    with _LOCK:
        ctx = _CONTEXTS.get((name, device_id))
        if ctx is not None:
            return ctx
        factory = DEVICES.get(name)
        if factory is None:
            if name in FAILED:
                raise PluginError(FAILED[name])
            raise ValueError(f"Device '{name}' is not registered; registered devices: "
                             f"{sorted(DEVICES)}")
        try:
            ctx = factory(device_id)
        except PluginError:
            raise
        except Exception as err:
            raise PluginError(f"Device plugin '{name}' failed to create device {device_id}: "
                              f"{type(err).__name__}: {err}") from err
        if not isinstance(ctx, DeviceContext):
            raise PluginError(f"Device plugin '{name}': its factory returned "
                              f"{type(ctx).__name__}, not a DeviceContext")
        if ctx.res_manager is None or (ctx.kernel_executor is None
                                       and ctx.graph_executor is None):
            raise PluginError(f"Device plugin '{name}' lacks a DeviceResManager or an executor "
                              f"(a KernelExecutor or a GraphExecutor is required)")
        _CONTEXTS[(name, device_id)] = ctx
        return ctx


def load_plugins(reload=False):
    """Discover plugins once (entry points, then MINDLITE_PLUGIN_PATH); failures go to FAILED."""
    with _LOCK:
        if _LOADED and not reload:
            return
        _LOADED.append(True)
        from . import cpu  # noqa: F401  (registers the built-in CPU device)
        _load_entry_points()
        _load_shared_libraries()


def _load_entry_points():
    from importlib.metadata import entry_points
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        where = f"entry point '{ep.name} = {ep.value}'"
        try:
            factory = ep.load()
        except Exception as err:
            FAILED[ep.name] = (f"Device plugin '{ep.name}' failed to load ({where}): "
                               f"{type(err).__name__}: {err}")
            continue
        if not callable(factory):
            FAILED[ep.name] = (f"Device plugin '{ep.name}' lacks its factory: {where} is a "
                               f"{type(factory).__name__}, expected a callable "
                               f"factory(device_id) -> DeviceContext")
            continue
        if ep.name not in DEVICES:
            register_device(ep.name, factory)


def _load_shared_libraries():
    from .c_plugin import load_library
    paths = []
    for entry in os.environ.get(PLUGIN_PATH_ENV, "").split(os.pathsep):
        if not entry:
            continue
        if os.path.isdir(entry):
            paths += sorted(os.path.join(entry, f) for f in os.listdir(entry)
                            if f.endswith((".so", ".dylib", ".dll")))
        else:
            paths.append(entry)
    for path in paths:
        try:
            name, factory = load_library(path)
        except PluginError as err:
            FAILED[os.path.basename(path)] = str(err)
            continue
        if name not in DEVICES:
            register_device(name, factory)


def resolve_target(name):
    """set_context(device_target=name): the device name to use. An unknown name is a
    ValueError; a plugin that cannot start is a PluginError, or "CPU" with a RuntimeWarning
    when set_context(device_fallback=True) allows it."""
    from ..context import CONTEXT
    if not isinstance(name, str) or not name:
        raise TypeError(f"For 'set_context', 'device_target' must be a non-empty str, but got "
                        f"{name!r}")
    if name.lower() == "cpu":
        return "CPU"
    load_plugins()
    if name not in DEVICES and name not in FAILED:
        failed = "".join(f"\n  {msg}" for msg in FAILED.values())
        raise ValueError(f"For 'set_context', 'device_target' must be one of "
                         f"{sorted(DEVICES)}, but got {name!r}" +
                         (f"; plugins that failed to load:{failed}" if failed else ""))
    try:
        get_device_context(name, CONTEXT.values["device_id"])
    except PluginError as err:
        if not CONTEXT.values.get("device_fallback"):
            raise
        warnings.warn(f"mindlite: {err}; running on the CPU device instead "
                      f"(device_fallback=True)", RuntimeWarning, stacklevel=3)
        return "CPU"
    return name


api.DEVICES.fill(resolve_target=resolve_target)
