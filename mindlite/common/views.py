"""Which kernel results share memory with their inputs: copy-on-write for in-place writers.

Reshape, ExpandDims, Squeeze, Flatten and StopGradient return numpy views of their input
(no copy: a few microseconds whatever the size). Their kernels register each such view
with `share(view)`. An in-place writer (Tensor.__setitem__, Assign, AssignAdd, the
optimizers; pynative/inplace.py) asks `shared(arr)` before writing into a tensor's array
and, when a live view registered here uses the same memory (the target itself may be
that view), the writer's tensor moves to a private copy first. So a result once returned
never changes afterwards, and a write through a view never reaches its source
(MindSpore's results are independent tensors).

NOTE: measured (benchmarks/inplace_views.py): copying in the view ops would cost every
Reshape of a 2048x2048 float32 ~4 ms instead of ~5 us; copy-on-write costs a writer one
dict lookup, and a copy only when a view of its target is alive.

Arrays shared on purpose are not registered (Tensor.from_numpy, asnumpy): writes stay
visible through them, as in MindSpore. Kernels know nothing of tensors; this module deals
in arrays only. Entries are keyed by the id of the memory's owner and hold weak
references, so they never keep an array alive; dead entries are swept as the table grows.
Threads may view one Parameter at once: new entries, sweeps and prunes take a lock; the
common registration (an append) and the writers' check take none.
"""
import threading
import weakref

import numpy as np

_SHARED = {}          # id(owner of the memory) -> [weakref.ref(view) registered on it]
_sweep_at = 1024      # table size that triggers a sweep of dead entries (grows if all live)
_LOCK = threading.Lock()   # new entries, sweeps and prunes; appends and shared() take none
_ref = weakref.ref
_ndarray = np.ndarray


def _owner(arr):
    """The object owning arr's memory (numpy collapses most chains of views already)."""
    owner = arr.base
    if owner is None:
        return arr
    while type(owner) is _ndarray and owner.base is not None:
        owner = owner.base
    return owner


def _sweep():
    global _sweep_at
    dead = [k for k, refs in _SHARED.items() if all(r() is None for r in refs)]
    for k in dead:
        del _SHARED[k]
    _sweep_at = max(1024, 2 * len(_SHARED))


def _register(key, ref):
    with _LOCK:
        refs = _SHARED.get(key)
        if refs is None:
            if len(_SHARED) >= _sweep_at:
                _sweep()
            _SHARED[key] = [ref]
        else:
            refs.append(ref)


def _prune(refs):
    """Drop the dead refs at the front of `refs`, in place: a concurrent append lands
    after them and is kept."""
    with _LOCK:
        n = len(refs)
        refs[:n] = [r for r in refs[:n] if r() is not None]


def share(view):
    """Register `view`, an array a kernel returns that may use its input's memory; returns
    it. An array owning its memory (numpy had to copy) is not registered.
    NOTE: the common case takes no lock: list.append is atomic, and the entry is checked
    again after it, since a sweep may have dropped the (all dead) list in between."""
    owner = view.base
    if owner is None:
        return view
    while type(owner) is _ndarray and owner.base is not None:
        owner = owner.base
    key = id(owner)
    ref = _ref(view)
    refs = _SHARED.get(key)
    if refs is None:
        _register(key, ref)
        return view
    n = len(refs)
    if n >= 16 and not n & (n - 1):          # at 16, 32, 64, ...: drop the dead ones
        _prune(refs)
    refs.append(ref)
    if _SHARED.get(key) is not refs:
        _register(key, ref)
    return view


def shared(arr):
    """True when a live registered view uses arr's memory (arr itself included: a write
    through a view must not reach the array it views)."""
    if not _SHARED:
        return False
    refs = _SHARED.get(id(_owner(arr)))
    if refs is None:
        return False
    for r in tuple(refs):          # a snapshot: a concurrent prune shifts the list
        if r() is not None:
            return True
    return False
