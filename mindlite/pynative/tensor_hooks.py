"""Tensor.register_hook: functions called with a tensor's gradient during backward.

HOOKS maps id(tensor) -> (weakref to the tensor, {handle id: hook}); an entry whose tensor
is gone is dropped when met (ids are reused). The backward walk (pynative/grad.py) calls
`apply(tensor, grad)` when the gradient of a hooked tensor is complete: for a tensor an op
produced, before that op's bprop runs (so what the hook returns flows on to the op's
inputs); for a leaf (an input of the differentiated function), at the end of the walk. A
hook returning None keeps the gradient, a Tensor replaces it. Hooks run in registration
order. Guarded by a lock (registration may come from any thread; the dict stays bounded by
the live hooked tensors).
"""
import itertools
import threading
import weakref

HOOKS = {}
_LOCK = threading.Lock()
_IDS = itertools.count()


class TensorHookHandle:
    """What Tensor.register_hook returns; remove() unregisters the hook."""

    def __init__(self, tensor, key):
        self._tensor_id = id(tensor)
        self._key = key

    def remove(self):
        with _LOCK:
            entry = HOOKS.get(self._tensor_id)
            if entry is not None:
                entry[1].pop(self._key, None)
                if not entry[1]:
                    del HOOKS[self._tensor_id]


def register(tensor, hook):
    if not callable(hook):
        raise TypeError(f"For 'Tensor.register_hook', 'hook' must be a function, but got "
                        f"{type(hook).__name__}")
    key = next(_IDS)
    with _LOCK:
        entry = HOOKS.get(id(tensor))
        if entry is None or entry[0]() is not tensor:
            entry = HOOKS[id(tensor)] = (weakref.ref(tensor), {})
        entry[1][key] = hook
    return TensorHookHandle(tensor, key)


def hooks_of(tensor):
    entry = HOOKS.get(id(tensor))
    if entry is None:
        return ()
    if entry[0]() is not tensor:
        with _LOCK:
            if HOOKS.get(id(tensor)) is entry:
                del HOOKS[id(tensor)]
        return ()
    return tuple(entry[1].values())


def apply(tensor, grad):
    """grad after every hook of `tensor` (each may replace it)."""
    for hook in hooks_of(tensor):
        new = hook(grad)
        if new is not None:
            grad = new
    return grad
