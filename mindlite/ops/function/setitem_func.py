"""Tensor item assignment `t[index] = value` (Tensor.__setitem__), in place.

tensor_setitem validates the whole assignment first (index range, value shape broadcast to
the indexed shape; a value of another dtype, Tensor or Python, is cast to t's dtype as
MindSpore 2.10 does: float into int truncates, any nonzero into bool is True), so a failed
call leaves t unchanged. Then:
  - with no grad recorder open it writes with numpy into t's own array (after
    common/buffers.own_buffer: a copy first when a live view shares that memory);
  - while the recorder is open it is recorded, as MindSpore records it: the tapes' earlier
    references to t move to a snapshot of its old values, and t's new value is computed by
    differentiable primitives, new = Select(written, Gather(value, source), old), so the
    gradient is zero at the written positions for the old value, and the written values'
    gradient is gathered and summed back to `value` (broadcasting, duplicates: the last
    write wins as in numpy, and only it gets a gradient).
Index rules (ints, slices, None, Ellipsis, one int or bool index array) are getitem's
(index_func._plan).
"""
import numbers

import numpy as np

from ...common.tensor import Tensor
from ...common.api import PYNATIVE
from ...common.interop import is_external
from ...common.buffers import own_buffer
from ..operations import array_ops as A
from ..operations import logic_ops as L
from ..operations import slice_ops as S
from .index_func import _check_int_index, _check_mask, _plan

_reshape = A.Reshape()
_cast = A.Cast()
_gather = S.Gather()
_select = L.Select()


def _value_array(x, value):
    """value as an ndarray that numpy can write into x without changing x's dtype."""
    target = x.dtype.np
    if isinstance(value, Tensor):
        value = value.asnumpy()
    if isinstance(value, (numbers.Number, np.generic, np.ndarray, list, tuple)):
        with np.errstate(invalid="ignore", over="ignore"):
            return np.asarray(value).astype(target)
    raise TypeError(f"For 'tensor_setitem', 'value' must be a Tensor, number, list or "
                    f"ndarray, but got {type(value).__name__}")


def _check_broadcast(value, target_shape):
    shape = value.shape
    while len(shape) > len(target_shape) and shape[0] == 1:
        shape = shape[1:]
    try:
        ok = np.broadcast_shapes(shape, target_shape) == tuple(target_shape)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"For 'tensor_setitem', 'value' of shape {list(value.shape)} cannot be "
                         f"broadcast to the indexed shape {list(target_shape)}")
    return value.reshape(shape)


def _write_key(x, arr, basic, adv):
    """(numpy index into x's array, shape of the indexed region) for a planned index."""
    if adv is None:
        key = basic if any(b is Ellipsis for b in basic) else basic + (Ellipsis,)
        return key, arr[key].shape
    pos, idx, axis, out_axis, front = adv
    if idx.dtype == np.bool_:
        if len(basic) != 1:
            raise IndexError("mindlite supports a bool mask only as the whole index")
        _check_mask(idx, x.shape, 0)
        return idx, (int(idx.sum()),) + x.shape[idx.ndim:]
    idx = _check_int_index(idx, x.shape[axis], axis)
    view_shape = arr[basic].shape
    rest = view_shape[:out_axis] + view_shape[out_axis + 1:]
    target = idx.shape + rest if front else \
        view_shape[:out_axis] + idx.shape + view_shape[out_axis + 1:]
    return basic[:pos] + (idx,) + basic[pos + 1:], target


def tensor_setitem(x, index, value):
    """x[index] = value, in place (see the module docstring)."""
    arr = x.asnumpy()
    basic, adv = _plan(x.shape, index)
    val = _value_array(x, value)
    if not arr.flags.writeable and not is_external(arr):
        raise ValueError("For 'tensor_setitem', the tensor is backed by a read-only array")
    key, target = _write_key(x, arr, basic, adv)
    val = _check_broadcast(val, target)
    if PYNATIVE.grad.recording:
        _recorded_setitem(x, key, target, value, val)
        return x
    arr = own_buffer(x)                # no tape is open: nothing to log
    arr[key] = val
    return x


def _recorded_setitem(x, key, target, value, val):
    """The write as recorded ops (module docstring). Integer and bool tensors carry no
    gradient: for them the snapshot alone keeps earlier nodes right."""
    written = np.arange(x.size, dtype=np.int64).reshape(x.shape)[key].reshape(-1)
    if not written.size:
        return                     # nothing is written
    old = PYNATIVE.snapshot(x)
    if value is x:
        value = old                # x[...] = x: the value is x's old self
    if x.dtype.kind != "f" or not any(id(old) in tape.tracked or id(value) in tape.tracked
                                      for tape in PYNATIVE.grad.tapes):
        x._arr[key] = val          # no gradient can depend on x's old values or on value
        return
    source = np.zeros(x.size, dtype=np.int64)
    source[written] = np.arange(written.size, dtype=np.int64)     # the last write wins
    mask = np.zeros(x.size, dtype=np.bool_)
    mask[written] = True
    if isinstance(value, Tensor):
        v = value if value.dtype is x.dtype else _cast(value, x.dtype)
        if v.shape != val.shape:
            v = _reshape(v, val.shape)
        if val.shape != tuple(target):
            v = A.BroadcastTo(tuple(target))(v)
        v = _reshape(v, (written.size,))
    else:
        v = Tensor.from_numpy(np.ascontiguousarray(np.broadcast_to(val, target)).reshape(-1))
    placed = _reshape(_gather(v, Tensor.from_numpy(source), 0), x.shape)
    new = _select(Tensor.from_numpy(mask.reshape(x.shape)), placed, old)
    PYNATIVE.adopt(x, new)
