"""DLPack and foreign-array interop: `from_dlpack`, `to_dlpack`, Tensor's DLPack protocol.

Import (`from_dlpack(x)`, x a DLPack producer such as a torch tensor or an ndarray, or a
legacy capsule): zero-copy. The Tensor views the producer's memory through a READ-ONLY
numpy array registered here as external. mindlite's in-place writers go through
`common/buffers.own_buffer`, which gives an external buffer's tensor a private copy before
writing (copy-on-write), so a mindlite write never reaches memory the producer owns; writes
made by the producer itself are seen by the tensor (shared memory, as MindSpore documents
for its `from_dlpack`). A kernel that would write without `own_buffer` meets a read-only
array and raises instead of writing silently.

Export (`t.__dlpack__()`, `to_dlpack(t)`, `np.from_dlpack(t)`, `torch.from_dlpack(t)`):
zero-copy too; the consumer shares the tensor's memory (MindSpore's `to_dlpack` does the
same), and a consumer's write is seen by the tensor.
"""
import weakref

import numpy as np

_EXTERNAL = {}        # id(ndarray) -> weakref of an array imported zero-copy through DLPack


class _Capsule:
    """Wraps a legacy DLPack PyCapsule so np.from_dlpack can consume it."""
    __slots__ = ("_capsule",)

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)                                     # kDLCPU


def _forget(key):
    return lambda _ref: _EXTERNAL.pop(key, None)


def is_external(arr):
    """True when arr is (a view of) memory imported zero-copy through DLPack."""
    if not _EXTERNAL:                                     # the common case: nothing imported
        return False
    while arr is not None:
        ref = _EXTERNAL.get(id(arr))
        if ref is not None and ref() is arr:
            return True
        arr = arr.base if isinstance(arr.base, np.ndarray) else None
    return False


def import_array(obj, op="from_dlpack"):
    """A read-only, registered ndarray viewing the memory of DLPack producer `obj`."""
    if type(obj).__name__ == "PyCapsule":
        obj = _Capsule(obj)
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"For '{op}', 'dlpack' must be an object with __dlpack__ (a torch "
                        f"tensor, an ndarray, ...) or a DLPack capsule, but got "
                        f"{type(obj).__name__}")
    if hasattr(obj, "__dlpack_device__") and obj.__dlpack_device__()[0] != 1:
        raise ValueError(f"For '{op}', only CPU memory can be imported (mindlite is a CPU "
                         f"framework), but got DLPack device {obj.__dlpack_device__()}")
    try:
        src = np.from_dlpack(obj)
    except (BufferError, TypeError, RuntimeError) as e:
        raise TypeError(f"For '{op}', the DLPack object of type {type(obj).__name__} cannot "
                        f"be imported: {e}") from None
    arr = src.view()
    arr.flags.writeable = False
    _EXTERNAL[id(arr)] = weakref.ref(arr, _forget(id(arr)))
    return arr


def from_dlpack(dlpack):
    """A Tensor sharing memory with a DLPack producer (see the module docstring)."""
    from . import abstract
    arr = import_array(dlpack)
    t = Tensor.__new__(Tensor)
    t._arr = arr                                   # the registered array itself (own_buffer)
    t._abs = abstract.abstract_of_array(arr)       # a clear TypeError for unsupported dtypes
    return t


def to_dlpack(tensor):
    """A DLPack capsule sharing the tensor's memory (MindSpore's `to_dlpack`)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"For 'to_dlpack', 'tensor' must be a Tensor, but got "
                        f"{type(tensor).__name__}")
    return tensor.__dlpack__()


class DLPackMethods:
    """Tensor's DLPack protocol methods (mixed into Tensor)."""
    __slots__ = ()

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        arr = self._data()
        kwargs = {"stream": stream}
        if max_version is not None:
            kwargs.update(max_version=max_version, dl_device=dl_device, copy=copy)
        try:
            return arr.__dlpack__(**kwargs)
        except BufferError:
            if arr.flags.writeable or max_version is not None:
                raise
            # an old consumer cannot be told the buffer is read-only: hand it a copy
            return np.array(arr).__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (1, 0)                                     # kDLCPU, device 0

    @staticmethod
    def from_dlpack(dlpack):
        """`Tensor.from_dlpack(dlpack)`: as `mindlite.from_dlpack`."""
        return from_dlpack(dlpack)

    def to_dlpack(self):
        """`t.to_dlpack()`: a DLPack capsule sharing t's memory."""
        return to_dlpack(self)


F = None                  # ops.functional, bound by tensor.py (unused: the protocol needs none)
Tensor = None             # the Tensor class, bound by tensor.py (it imports this module)
METHODS = DLPackMethods
