"""Tensor.register_hook: functions called with a tensor's gradient during backward (the
registry sits on the ground floor beside Tensor; the backward walk above reads it).

HOOKS maps id(tensor) -> (weakref to the tensor, {handle id: hook}); the weakref's callback
drops the entry when the tensor dies (so the table holds only live hooked tensors). The
backward walk (pynative/grad.py) calls `apply(tensor, grad)` when the gradient of a hooked
tensor is complete: for a tensor an op produced, before that op's bprop runs (so what the
hook returns flows on to the op's inputs); for a leaf (an input of the differentiated
function), at the end of the walk. A hook returning None keeps the gradient, a Tensor
replaces it. Hooks run in registration order. Guarded by a lock (registration may come from
any thread).
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
    tid = id(tensor)
    with _LOCK:
        entry = HOOKS.get(tid)
        if entry is None or entry[0]() is not tensor:
            entry = HOOKS[tid] = (weakref.ref(tensor, lambda ref: _forget(tid, ref)), {})
        entry[1][key] = hook
    return TensorHookHandle(tensor, key)


def _forget(tid, ref):
    """The hooked tensor died: drop its entry (unless the id already holds a new tensor's)."""
    with _LOCK:
        entry = HOOKS.get(tid)
        if entry is not None and entry[0] is ref:
            del HOOKS[tid]


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
