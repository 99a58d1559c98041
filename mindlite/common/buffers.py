"""Copy-on-write of tensor buffers, before any in-place write (Tensor.__setitem__, Assign,
AssignAdd, the optimizers, BatchNorm's moving statistics, a compiled graph's in-place steps):
when a live view made by a view kernel shares the tensor's memory (common/views.py), or the
memory was imported zero-copy through DLPack (common/interop.py), the tensor moves to a private
copy first, so results returned earlier never change. What the grad recorder makes of an
in-place write is pynative/inplace.py's.
"""
from .. import _C
from . import interop as _interop
from . import views as _views
from .interop import is_external
from .views import shared


def own_buffer(t):
    """t's array, made private to t first when a live view shares its memory or it is memory
    imported zero-copy through DLPack (common/interop.py)."""
    arr = t._data()
    if (arr.flags.writeable and shared(arr)) or is_external(arr):
        arr = t._arr = arr.copy()          # an imported DLPack buffer is never written
    return arr


def own_buffers(*tensors):
    """own_buffer for each Tensor among `tensors`, at the cost of two dict checks when no view
    and no imported buffer exists (a compiled graph's in-place steps call it per run:
    backend/lowering.py)."""
    if _views._SHARED or _interop._EXTERNAL:
        for t in tensors:
            if isinstance(t, _C.TensorBase):       # a Tensor (its C base)
                own_buffer(t)
