"""UntypedStorage: the bytes under a Tensor, as MindSpore 2.10's
mindspore.common.storage.UntypedStorage (what `Tensor.untyped_storage()` returns). On the
ground floor beside tensor.py: it reads the tensor's host buffer and writes through the
tensor's in-place path (so autograd and views see a copy_ as any in-place write).
"""
import numpy as np


class UntypedStorage:
    """The storage of one Tensor: its size in bytes (element size 1), dtype and device, its
    buffer's address, and copy_ of another storage of the same size."""

    def __init__(self, tensor):
        self._tensor = tensor

    def _bytes(self):
        return np.ascontiguousarray(self._tensor.asnumpy()).reshape(-1).view(np.uint8)

    def nbytes(self):
        return int(self._tensor.nbytes)

    def size(self):
        return self.nbytes()

    def element_size(self):
        return 1

    @property
    def dtype(self):
        return self._tensor.dtype

    @property
    def device(self):
        return "CPU"

    def is_shared(self):
        return False

    def data_ptr(self):
        return self._tensor.data_ptr()

    def copy_(self, src, non_blocking=False):
        """This storage's bytes become src's (an UntypedStorage of the same size)."""
        if not isinstance(src, UntypedStorage):
            raise TypeError(f"For 'UntypedStorage.copy_', 'src' must be an UntypedStorage, "
                            f"but got {type(src).__name__}")
        if src.nbytes() != self.nbytes():
            raise ValueError(f"For 'UntypedStorage.copy_', the sizes must match, but got "
                             f"{self.nbytes()} and {src.nbytes()} bytes")
        t = self._tensor
        arr = np.ascontiguousarray(t.asnumpy())
        values = src._bytes().copy().view(arr.dtype).reshape(arr.shape)
        from .tensor_methods_inplace import write_inplace
        write_inplace(t, "copy_", lambda old: type(t)(values, dtype=t.dtype))
        return self

    def __repr__(self):
        return f"UntypedStorage(nbytes={self.nbytes()}, dtype={self.dtype}, device=CPU)"
