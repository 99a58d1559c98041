"""Session factory: `register_session(device)` classes, one instance per device target.

As MindSpore's SessionFactory, the forward executor asks for the session of the
context's device_target; a new device plugs in by registering a session class. A device
registered as a plugin (mindlite/device) without a session class of its own gets a
DeviceSession (backend/device_session.py) at its first use; re-registering or removing the
device drops it (the device registry's LISTENERS).
"""
from ..device import registry as _devices

SESSIONS = {}        # device target -> session class
_INSTANCES = {}      # device target -> session instance


def register_session(device):
    """Class decorator: the session class that runs ops for `device` (e.g. "CPU")."""
    if not isinstance(device, str) or not device:
        raise TypeError(f"For 'register_session', 'device' must be a non-empty str, but got "
                        f"{device!r}")

    def deco(cls):
        SESSIONS[device] = cls
        _INSTANCES.pop(device, None)
        return cls
    return deco


def session_factory(device):
    session = _INSTANCES.get(device)
    if session is None:
        if device not in SESSIONS:
            from . import cpu_session  # noqa: F401  (registers the built-in CPU session)
        cls = SESSIONS.get(device)
        if cls is None and device in _devices.DEVICES:
            from .device_session import register_device_session
            register_device_session(device)
            cls = SESSIONS[device]
        if cls is None:
            raise ValueError(f"No session is registered for device '{device}'; registered: "
                             f"{sorted(SESSIONS)}")
        session = _INSTANCES[device] = cls()
    return session


def _forget(device):
    """The device registry (re)registered or removed `device`: drop its plugin session."""
    if device != "CPU":
        SESSIONS.pop(device, None)
        _INSTANCES.pop(device, None)


_devices.LISTENERS.append(_forget)
