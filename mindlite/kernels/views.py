"""Which kernel results share memory with their inputs: copy-on-write for in-place writers.

Reshape, ExpandDims, Squeeze, Flatten and StopGradient return numpy views of their input
(no copy: a few microseconds whatever the size). Their kernels register each such view
with `share(src, view)`. An in-place writer (Tensor.__setitem__, Assign, AssignAdd, the
optimizers; pynative/inplace.py) asks `shared(arr)` before writing into a tensor's array
and, when another live array registered here uses the same memory, the writer's tensor
moves to a private copy first. So a result once returned never changes afterwards, and a
write through a view never reaches its source (MindSpore's results are independent
tensors).

NOTE: measured (benchmarks/inplace_views.py): copying in the view ops would cost every
Reshape of a 2048x2048 float32 ~4 ms instead of ~5 us; copy-on-write costs a writer one
dict lookup, and a copy only when a view of its target is alive.

Arrays shared on purpose are not registered (Tensor.from_numpy, asnumpy): writes stay
visible through them, as in MindSpore. Kernels know nothing of tensors; this module deals
in arrays only. Entries are keyed by the id of the memory's owner and hold weak
references, so they never keep an array alive; dead entries are swept as the table grows.
"""
import weakref

import numpy as np

_SHARED = {}          # id(owner of the memory) -> [weakref.ref(array) registered on it]
_MAX_REFS = 16        # refs of one owner before its dead ones are dropped
_sweep_at = 1024      # table size that triggers a sweep of dead entries (grows if all live)


def _owner(arr):
    """The object owning arr's memory (numpy collapses chains of ndarray views)."""
    owner = arr
    while isinstance(owner, np.ndarray) and owner.base is not None:
        owner = owner.base
    return owner


def _sweep():
    global _sweep_at
    dead = [k for k, refs in _SHARED.items() if all(r() is None for r in refs)]
    for k in dead:
        del _SHARED[k]
    _sweep_at = max(1024, 2 * len(_SHARED))


def share(src, view):
    """Register `view` (returned by a kernel) as sharing `src`'s memory; returns view.
    A result that is a copy (numpy could not make a view) is not registered."""
    owner = _owner(src)
    if _owner(view) is not owner:
        return view
    key = id(owner)
    refs = _SHARED.get(key)
    if refs is None:
        if len(_SHARED) >= _sweep_at:
            _sweep()
        _SHARED[key] = [weakref.ref(src), weakref.ref(view)]
        return view
    if len(refs) >= _MAX_REFS:
        refs[:] = [r for r in refs if r() is not None]
    if not any(r() is src for r in refs):
        refs.append(weakref.ref(src))
    refs.append(weakref.ref(view))
    return view


def shared(arr):
    """True when another live array registered by `share` uses arr's memory."""
    refs = _SHARED.get(id(_owner(arr)))
    if refs is None:
        return False
    for r in refs:
        a = r()
        if a is not None and a is not arr:
            return True
    return False
