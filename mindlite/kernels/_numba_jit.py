"""numba.njit with an on-disk cache where one can be written, in-memory compilation where not.

Imported only by the numba loop modules (kernels/cpu/_*_jit.py) and the "numba" Custom ops, on
their first launch: it imports numba. numba's cache=True raises `RuntimeError: cannot cache
function ...: no locator available` at decoration time when neither the source's __pycache__,
NUMBA_CACHE_DIR nor the user cache directory is writable (a read-only install in a container).
`njit` then compiles in memory instead (each process compiles again), with one RuntimeWarning
per process saying what to set. A function with no source file (exec'd code) compiles in
memory without a warning: there is nothing to cache it against.
"""
import os
import threading
import warnings

import numba

_WARNED = []
_LOCK = threading.Lock()


def _no_locator(exc):
    return isinstance(exc, RuntimeError) and "cannot cache function" in str(exc)


def _has_source(fn):
    code = getattr(fn, "__code__", None)
    return code is not None and os.path.exists(code.co_filename)


def cached(fn, **options):
    """numba.njit(cache=True, **options)(fn), or njit(**options)(fn) when no cache locator
    can be found (one warning per process)."""
    try:
        return numba.njit(cache=True, **options)(fn)
    except RuntimeError as e:
        if not _no_locator(e):
            raise
        with _LOCK:
            first = not _WARNED and _has_source(fn)
            if first:
                _WARNED.append(getattr(fn, "__qualname__", repr(fn)))
        if first:
            warnings.warn(f"mindlite: numba cannot cache compiled kernels here ({e}); they are "
                          "compiled in memory for this process. Set NUMBA_CACHE_DIR to a "
                          "writable folder to keep them between runs", RuntimeWarning,
                          stacklevel=3)
        return numba.njit(**options)(fn)


def njit(**options):
    """Decorator: `@njit(nogil=True)` is numba.njit(cache=True, nogil=True) with the fallback
    of `cached`."""
    def deco(fn):
        return cached(fn, **options)
    return deco
