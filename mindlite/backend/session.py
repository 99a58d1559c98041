"""Session factory: `register_session(device)` classes, one instance per device target.

As MindSpore's SessionFactory, the forward executor asks for the session of the
context's device_target; a new device plugs in by registering a session class.
"""
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
        if cls is None:
            raise ValueError(f"No session is registered for device '{device}'; registered: "
                             f"{sorted(SESSIONS)}")
        session = _INSTANCES[device] = cls()
    return session
