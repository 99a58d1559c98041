"""Abstract values: what inference sees of an input (shape and dtype, never data).

`AbstractTensor` objects are interned: there is exactly one live object per (dtype,
shape), so a tensor's signature is a pointer, the runner cache hashes by identity and a
cache key is a tuple of these objects. The tables are bounded (ABSTRACT_CAP, see
mindlite/cache_limits.py): a full table is cleared, and a weak table still returns the
abstract that tensors or cache keys hold, so identity never splits; a key holds its
abstracts, so a freed abstract's address can never match a stale key. A dimension of -1
means "known only after the kernel ran" (dynamic shape, e.g. Unique). A lazily initialised tensor or
Parameter carries a private, non-interned abstract so that no cached runner can
match it before its data exists.
"""
import threading
import weakref

from .. import cache_limits
from . import dtype as mstype


class AbstractTensor:
    """Shape and dtype of a tensor; `value` is set only by constant-folding inference."""
    __slots__ = ("dtype", "shape", "np", "size", "value", "__weakref__")

    def __init__(self, dtype, shape, value=None):
        self.dtype = dtype
        self.shape = shape
        self.np = dtype.np
        size = 1
        for d in shape:
            size *= d
        self.size = size
        self.value = value

    def __repr__(self):
        return f"AbstractTensor(shape={list(self.shape)}, dtype={self.dtype})"

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def is_dynamic(self):
        return any(d < 0 for d in self.shape)


class AbstractScalar:
    """A Python value passed where a primitive expects a constant (axis, shape, dtype...)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"AbstractScalar({self.value!r})"


_INTERN = {}                            # (dtype, shape) -> abstract, recently made
_LIVE = weakref.WeakValueDictionary()   # (dtype, shape of ints) -> every live abstract
_LOCK = threading.Lock()                # a miss: two threads must not make two abstracts


def abstract_tensor(dtype, shape):
    """The unique AbstractTensor for (dtype, shape); shape must be a tuple of ints."""
    a = _INTERN.get((dtype, shape))
    if a is None:
        a = _intern(dtype, shape)
    return a


def _intern(dtype, shape):
    norm = tuple(int(d) for d in shape)
    key = (dtype, norm)
    with _LOCK:
        a = _LIVE.get(key)
        if a is None:
            a = _LIVE[key] = AbstractTensor(dtype, norm)
        if len(_INTERN) >= cache_limits.ABSTRACT_CAP:
            _INTERN.clear()
        _INTERN[key] = a
        _INTERN[(dtype, shape)] = a
    return a


_NP_INTERN = {}


def abstract_of_array(arr):
    """Interned abstract of a numpy array (fast path keyed by numpy dtype and shape)."""
    key = (arr.dtype, arr.shape)
    a = _NP_INTERN.get(key)
    if a is None:
        a = abstract_tensor(mstype.from_numpy_dtype(arr.dtype), arr.shape)
        if len(_NP_INTERN) >= cache_limits.ABSTRACT_CAP:
            _NP_INTERN.clear()
        _NP_INTERN[key] = a
    return a


def interned_count():
    """Entries of the strongly held tables (each at most ABSTRACT_CAP)."""
    return len(_INTERN), len(_NP_INTERN)


def lazy_abstract(dtype, shape):
    """A fresh (not interned) abstract for data that does not exist yet."""
    return AbstractTensor(dtype, tuple(shape))
