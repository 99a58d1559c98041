"""Tensor's runtime / storage methods of MindSpore 2.10 (`x.device`, `x.data`, `x.value()`,
`x.get_bytes()`, `x.resize(...)`, `x.itemset(...)`, `x.set_(src)`, `x.to_(...)`, the
initialization flags, ...) and the remaining deprecated math methods that wrap ops
(`x.cauchy()`, `x.choose(...)`, `x.reverse_sequence(...)`, `x.unique_with_pad(...)`,
`x.unsorted_segment_max(...)`). mindlite keeps every tensor in host memory, so device moves
return the tensor (or a copy) and the device / pinning / sharing queries answer as a CPU
tensor does in MindSpore. Listed in tensor.py's `_METHOD_MODULES`.
"""
import weakref

import numpy as np

from . import dtype as mstype

F = None      # mindlite.ops.functional, bound by tensor.py (functional imports Tensor)


_CONST_ARGS = {}      # id -> weakref of the tensors marked by set_const_arg()


Tensor = None   # the Tensor class, set by tensor.py (which imports this module)


def _tensor_type():
    return Tensor


class RuntimeTensorMethods:
    """Storage, device and initialization queries; deprecated ops-backed methods."""
    __slots__ = ()

    # ---- storage and device ------------------------------------------------------------------
    @property
    def data(self):
        """The tensor's data (the tensor itself: there is no separate storage object)."""
        return self

    @property
    def device(self):
        return "CPU"

    @property
    def const_arg(self):
        ref = _CONST_ARGS.get(id(self))
        return ref is not None and ref() is self

    def set_const_arg(self, const_arg=True):
        """Mark (or unmark) the tensor as a constant argument of jit functions; returns
        self."""
        if not isinstance(const_arg, bool):
            raise TypeError(f"For 'set_const_arg', 'const_arg' must be a bool, but got "
                            f"{type(const_arg).__name__}")
        key = id(self)
        if const_arg:
            _CONST_ARGS[key] = weakref.ref(self, lambda _, key=key: _CONST_ARGS.pop(key, None))
        else:
            _CONST_ARGS.pop(key, None)
        return self

    init = None                 # no pending initializer: the data is there
    init_flag = False
    init_finished = True
    is_meta = False
    virtual_flag = False
    param_info = None
    parent_tensor_ = None
    index_of_parent_ = None
    symbolic_shape = None
    delta_seed = 0

    @property
    def has_init(self):
        return False

    def is_init(self): return False
    def is_pinned(self): return False
    def is_shared(self): return False
    def pin_memory(self): return self
    def data_sync(self, wait=True): return None
    def wait_pipeline(self): return None
    def flush_from_cache(self): return None

    def delete_(self, non_blocking=False):
        """Release device memory (host memory stays with the tensor)."""
        return None

    def to_(self, device=None, non_blocking=False):
        """The tensor (its data is on the host already)."""
        if device not in ("Ascend", "CPU"):
            raise ValueError(f"The value of 'to' must be one of ['Ascend', 'CPU'], but got "
                             f"{device}")
        return self

    def move_to(self, to, blocking=True):
        """A copy on device `to` (every device is the host here)."""
        if to not in ("Ascend", "GPU", "CPU"):
            raise ValueError(f"For 'move_to', 'to' must be one of 'Ascend', 'GPU', 'CPU', but "
                             f"got {to!r}")
        if not isinstance(blocking, bool):
            raise ValueError(f"For 'move_to', 'blocking' must be a bool, but got {blocking!r}")
        if to != "CPU":
            raise RuntimeError(f"The value of arg 'to' of method 'move_to' should be same with "
                               f"device target, but got to:{to}, device target: CPU")
        return F.cast(self, self.dtype)

    def value(self):
        """The tensor's value."""
        return self

    def get_bytes(self):
        """The raw bytes of the data in C order."""
        return np.ascontiguousarray(self.asnumpy()).tobytes()

    def set_(self, source=None):
        """The tensor takes source's values, shape and dtype in place (no source: it becomes
        empty, shape (0,)); returns self."""
        if source is None:
            return self.assign_value(np.zeros((0,), self.dtype.np))
        if not isinstance(source, _tensor_type()):
            raise TypeError(f"For 'Tensor.set_', 'source' must be a Tensor, but got "
                            f"{type(source).__name__}")
        return self.assign_value(source)

    def resize(self, *new_shape):
        """A new tensor of new_shape holding the elements in order, zeros after them (numpy's
        ndarray.resize)."""
        if len(new_shape) == 1 and isinstance(new_shape[0], (tuple, list)):
            new_shape = tuple(new_shape[0])
        if not new_shape:
            return F.cast(self, self.dtype)
        flat = F.reshape(self, (-1,))
        n = int(np.prod(new_shape, dtype=np.int64))
        if n <= flat.shape[0]:
            out = F.narrow(flat, 0, 0, n) if n < flat.shape[0] else flat
        else:
            out = F.concat((flat, F.zeros((n - flat.shape[0],), self.dtype)), 0)
        return F.reshape(out, tuple(new_shape))

    def itemset(self, *args):
        """tensor[args[:-1]] = args[-1] in place (one argument: a one-element tensor);
        returns self."""
        if not args:
            raise TypeError("For 'itemset', at least one argument is required")
        *index, item = args
        if not index:
            if self.size != 1:
                raise ValueError("For 'itemset', a lone value only fits a one-element tensor")
            index = (0,) * self.ndim
        elif len(index) == 1 and isinstance(index[0], (int, np.integer)) and self.ndim != 1:
            index = np.unravel_index(int(index[0]), self.shape)
        elif len(index) == 1 and isinstance(index[0], tuple):
            index = index[0]
        arr = self.asnumpy().copy()
        arr[tuple(index)] = item
        return self.assign_value(_tensor_type()(arr))

    # ---- ops-backed (deprecated in MindSpore 2.10) --------------------------------------------
    def cauchy(self, median=0.0, sigma=1.0):
        """The tensor filled in place with Cauchy(median, sigma) samples; returns it."""
        from .tensor_methods_inplace import _random_fill
        u = float(median), float(sigma)
        return _random_fill(self, "cauchy", lambda shape: F.add(
            F.mul(F.tan(F.mul(F.sub(F.rand(shape), 0.5), float(np.pi))), u[1]), u[0]))

    def choose(self, choices, mode="clip"):
        """out[i] = choices[self[i]][i] (self holds indices; out-of-range ones: 'clip' to the
        ends, 'wrap' around, 'raise'), as MindSpore 2.10's: a Tensor of choices is broadcast
        whole to (n,) + the result's shape, and values pass through int32 (float choices
        come back truncated)."""
        T = _tensor_type()
        if isinstance(choices, T):
            shape = tuple(np.broadcast_shapes(self.shape, choices.shape[1:]))
            stacked = F.broadcast_to(choices, (choices.shape[0],) + shape)
        else:
            choices = [c if isinstance(c, T) else T(c) for c in choices]
            shape = tuple(np.broadcast_shapes(self.shape, *[c.shape for c in choices]))
            stacked = F.stack([F.broadcast_to(c, shape) for c in choices], 0)
        if self.ndim == 0 or stacked.ndim == 0:
            raise ValueError("For 'Tensor.choose', the original tensor and the argument "
                             "'choices' cannot be scalars.")
        n = stacked.shape[0]
        idx = F.cast(F.broadcast_to(self, shape), mstype.int32)
        if mode == "clip":
            idx = F.clamp(idx, 0, n - 1)
        elif mode == "wrap":
            idx = F.floor_mod(idx, n)
        elif mode == "raise":
            vals = idx.asnumpy()
            if vals.size and (vals.min() < 0 or vals.max() >= n):
                raise ValueError("For 'choose', an index is out of range of 'choices'")
        else:
            raise ValueError(f"For 'choose', 'mode' must be 'clip', 'wrap' or 'raise', but got "
                             f"{mode!r}")
        picked = F.gather_elements(F.cast(stacked, mstype.int32), 0,
                                   F.cast(F.expand_dims(idx, 0), mstype.int64))
        return F.cast(F.squeeze(picked, 0), stacked.dtype)

    def reverse_sequence(self, seq_lengths, seq_dim=0, batch_dim=0):
        return F.reverse_sequence(self, seq_lengths, seq_dim, batch_dim)

    def unique_with_pad(self, pad_num):
        return F.unique_with_pad(self, pad_num)

    def unsorted_segment_max(self, segment_ids, num_segments):
        return F.unsorted_segment_max(self, segment_ids, num_segments)

    def unsorted_segment_min(self, segment_ids, num_segments):
        return F.unsorted_segment_min(self, segment_ids, num_segments)

    def unsorted_segment_prod(self, segment_ids, num_segments):
        return F.unsorted_segment_prod(self, segment_ids, num_segments)

    def geqrf(self): return F.geqrf(self)
    def orgqr(self, input2): return F.orgqr(self, input2)

    def ormqr(self, input2, input3, left=True, transpose=False):
        return F.ormqr(self, input2, input3, left, transpose)

    def lu_solve(self, LU_data, LU_pivots):
        """x with A x = self, A given by its packed LU and pivots."""
        return F.lu_solve(self, LU_data, LU_pivots)


METHODS = RuntimeTensorMethods
