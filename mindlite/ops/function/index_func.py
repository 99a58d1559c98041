"""Slicing and gathering functions (ops.gather, one_hot, unique, masked_select, slice,
strided_slice) and Tensor indexing: `t[index]` and `t[index] = value`.

tensor_getitem: ints, slices (any step, negative too), Ellipsis and None, alone or in a
tuple, become ONE BasicIndex call (ops/operations/index_ops.py) whose ints and slice starts
are runtime inputs, never part of a cache key: `for row in x` runs one cached runner for
every row. One int index array (a Tensor, list or
ndarray of ints) anywhere in the tuple adds one Gather along the axis numpy would put its
dimensions at; a bool mask (Tensor, list or ndarray) alone selects as numpy does (a mask
of x's shape is one MaskedSelect call). Out-of-range ints and index values raise
IndexError (the Python convention) before any op runs.

tensor_setitem (`t[index] = value`, same index rules) lives in setitem_func.py: an in-place
write, recorded as ops while the grad recorder is open.
"""
import builtins
import numbers

import numpy as np

from ... import cache_limits
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations.index_ops import FULL, INT, NEW, BasicIndex
from ..operations import slice_ops as S
from .array_func import cached_prim

__all__ = ['gather', 'one_hot', 'unique', 'masked_select', 'slice', 'strided_slice',
           'tensor_getitem', 'tensor_setitem']

_reshape = A.Reshape()
_slice = S.Slice()
_unique = S.Unique()
_masked_select = S.MaskedSelect()
_basic_index = BasicIndex()
_ROW = (INT, 0)


def gather(input_params, input_indices, axis, batch_dims=0):
    return cached_prim(S.Gather, batch_dims)(input_params, input_indices, axis)


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    return cached_prim(S.OneHot, axis)(indices, depth, on_value, off_value)


def unique(input):
    return _unique(input)


def masked_select(input, mask):
    return _masked_select(input, mask)


def slice(input_x, begin, size):
    return _slice(input_x, tuple(begin), tuple(size))


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0):
    prim = cached_prim(S.StridedSlice, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                       shrink_axis_mask)
    return prim(input_x, tuple(begin), tuple(end), tuple(strides))


# ---- indexing ------------------------------------------------------------------------------
_SLICE = builtins.slice
_FULL = _SLICE(None)
_BASIC = (numbers.Integral, type(None), type(Ellipsis), _SLICE)


def _as_index_array(item):
    """An advanced index as an ndarray (int or bool), or None if `item` is basic."""
    if isinstance(item, Tensor):
        arr = item.asnumpy()
        if arr.ndim == 0 and arr.dtype.kind in "iu":
            return None
    elif isinstance(item, np.ndarray):
        arr = item
    elif isinstance(item, list):
        arr = np.asarray(item)
        if arr.size == 0:
            arr = arr.astype(np.int64)
    else:
        return None
    if arr.dtype.kind not in "iub" or (arr.ndim == 0 and arr.dtype.kind == "b"):
        raise IndexError(f"tensors used as indices must be integer, or bool with at least one "
                         f"dimension, but got {arr.dtype} of shape {list(arr.shape)}")
    return arr


def _plan(shape, index):
    """Split `index` into a basic tuple (ints checked and non-negative) and at most one
    advanced index: returns (basic, adv) with adv None or (position in basic, array, axis of
    x it indexes, axis of x[basic] it indexes, whether numpy puts its dims first)."""
    items = list(index) if isinstance(index, tuple) else [index]
    adv = None
    basic = []
    for pos, item in enumerate(items):
        arr = _as_index_array(item)
        if arr is not None:
            if adv is not None:
                raise IndexError("mindlite supports at most one tensor/list index per indexing")
            adv = (pos, arr)
            basic.append(_FULL)
        elif isinstance(item, (bool, np.bool_)):
            raise IndexError("a Python bool is not a supported index")
        elif isinstance(item, Tensor):
            basic.append(int(item))
        elif isinstance(item, _BASIC):
            basic.append(item)
        else:
            raise IndexError(f"only integers, slices, ellipsis, None, and integer or bool "
                             f"tensors/lists are valid indices, but got {type(item).__name__}")
    if sum(1 for b in basic if b is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    ndim = len(shape)
    consuming = sum(1 for b in basic if b is not None and b is not Ellipsis)
    if adv is not None and adv[1].dtype == np.bool_:
        consuming += adv[1].ndim - 1
    if consuming > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    axis = out_axis = 0
    for pos, b in enumerate(basic):
        if adv is not None and pos == adv[0]:
            adv = (pos, adv[1], axis, out_axis)
        if b is Ellipsis:
            axis += ndim - consuming
            out_axis += ndim - consuming
        elif b is None:
            out_axis += 1
        elif isinstance(b, numbers.Integral):
            d = shape[axis]
            if not -d <= b < d:
                raise IndexError(f"index {b} is out of bounds for axis {axis} with size {d}")
            basic[pos] = int(b) % d
            axis += 1
        else:
            if b.step == 0:
                raise ValueError("slice step cannot be zero")
            axis += 1
            out_axis += 1
    if adv is not None:
        adv = adv + (_separated(items, adv[0]),)
    return tuple(basic), adv


def _separated(items, pos):
    """numpy's rule: with an index array, ints are advanced indices too; if a slice, None or
    Ellipsis lies between two advanced indices, their dimensions go first."""
    adv = [i for i, b in enumerate(items) if i == pos or (
        isinstance(b, (numbers.Integral, Tensor)) and not isinstance(b, (bool, np.bool_)))]
    return any(i not in adv for i in builtins.range(adv[0], adv[-1] + 1))


def _basic_args(shape, basic):
    """(spec, starts, template) of a planned basic index (ints checked and non-negative): the
    BasicIndex layout, its start values, and per start (position in the index, axis size,
    axis) for an int or (None, start, None) for a slice."""
    spec, starts, template = [], [], []
    ndim = len(shape)
    consuming = sum(1 for b in basic if b is not None and b is not Ellipsis)
    axis = 0
    for pos, b in enumerate(basic):
        if b is None:
            spec += (NEW, 0)
        elif b is Ellipsis:
            spec += (FULL, 0) * (ndim - consuming)
            axis += ndim - consuming
        elif isinstance(b, numbers.Integral):
            spec += (INT, 0)
            starts.append(int(b))
            template.append((pos, shape[axis], axis))
            axis += 1
        else:
            d = shape[axis]
            axis += 1
            if b.start is None and b.stop is None and b.step in (None, 1):
                spec += (FULL, 0)
                continue
            start, stop, step = b.indices(d)
            n = len(builtins.range(start, stop, step))
            start = start if n else 0
            spec += (n, step)
            starts.append(start)
            template.append((None, start, None))
    while spec[-2:] == [FULL, 0]:
        del spec[-2:]
    return tuple(spec), starts, tuple(template)


def _basic_getitem(x, basic):
    spec, starts, _ = _basic_args(x.shape, basic)
    return _basic_index(x, spec, *starts)


def _check_int_index(arr, d, axis):
    if arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if lo < -d or hi >= d:
            bad = lo if lo < -d else hi
            raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {d}")
    return np.where(arr < 0, arr + d, arr).astype(np.int64)


def _check_mask(arr, shape, axis):
    if arr.shape != tuple(shape[axis:axis + arr.ndim]):
        raise IndexError(f"boolean index of shape {list(arr.shape)} does not match the indexed "
                         f"tensor's shape {list(shape)} at axis {axis}")


# (abstract of x, index structure) -> (spec, template) for indices made of Python ints, None,
# Ellipsis and int slices; the structure has every int replaced by the marker `int`, so a plan
# serves every value of the ints (bounded: GETITEM_PLAN_CAP, mindlite/cache_limits.py).
# NOTE: a repeated `t[i, j]` skips the planning; the ints are range-checked here per call.
_BASIC_PLANS = {}


def _index_key(index):
    """The structure of an index of ints / None / Ellipsis / int slices, else None."""
    items = index if type(index) is tuple else (index,)
    key = []
    for i in items:
        t = type(i)
        if t is int:
            key.append(int)
        elif i is None or i is Ellipsis:
            key.append(i)
        elif t is _SLICE:
            a, b, c = i.start, i.stop, i.step
            if not ((a is None or type(a) is int) and (b is None or type(b) is int)
                    and (c is None or type(c) is int)):
                return None
            key.append((a, b, c))
        else:
            return None
    return tuple(key)


def _planned(x, index, plan):
    spec, template = plan
    items = index if type(index) is tuple else (index,)
    starts = []
    for pos, d, axis in template:
        if pos is None:
            starts.append(d)
            continue
        i = items[pos]
        if i < 0:
            i += d
        if not 0 <= i < d:
            raise IndexError(f"index {items[pos]} is out of bounds for axis {axis} with size {d}")
        starts.append(i)
    return _basic_index(x, spec, *starts)


def tensor_getitem(x, index):
    """x[index] (see the module docstring)."""
    if type(index) is int:                        # x[i], `for row in x`
        shape = x._abs.shape
        if shape:
            d = shape[0]
            if 0 <= index < d:
                return _basic_index(x, _ROW, index)
            if -d <= index < 0:
                return _basic_index(x, _ROW, index + d)
    key = _index_key(index)
    if key is not None:
        plan = _BASIC_PLANS.get((x._abs, key))
        if plan is not None:
            return _planned(x, index, plan)
    basic, adv = _plan(x.shape, index)
    if adv is None:
        spec, starts, template = _basic_args(x.shape, basic)
        y = _basic_index(x, spec, *starts)
        if key is not None:
            if len(_BASIC_PLANS) >= cache_limits.GETITEM_PLAN_CAP:
                cache_limits.drop_oldest_half(_BASIC_PLANS, cache_limits.GETITEM_PLAN_CAP)
            _BASIC_PLANS[(x._abs, key)] = (spec, template)
        return y
    _, arr, axis, out_axis, front = adv
    if arr.dtype == np.bool_:
        if len(basic) != 1:
            raise IndexError("mindlite supports a bool mask only as the whole index")
        _check_mask(arr, x.shape, 0)
        mask = Tensor.from_numpy(arr)
        if arr.shape == x.shape:
            return _masked_select(x, mask)
        lead = int(np.prod(arr.shape))
        flat = _reshape(x, (lead,) + x.shape[arr.ndim:])
        idx = Tensor.from_numpy(np.flatnonzero(arr).astype(np.int64))
        return gather(flat, idx, 0)
    idx = Tensor.from_numpy(_check_int_index(arr, x.shape[axis], axis))
    trivial = all(b is Ellipsis or (isinstance(b, _SLICE) and b == _FULL) for b in basic)
    y = gather(x if trivial else _basic_getitem(x, basic), idx, out_axis)
    if front and out_axis:
        k = arr.ndim
        perm = tuple(builtins.range(out_axis, out_axis + k)) + tuple(builtins.range(out_axis)) \
            + tuple(builtins.range(out_axis + k, y.ndim))
        y = cached_prim(A.Transpose)(y, perm)
    return y


from .setitem_func import tensor_setitem  # noqa: E402,F401  (setitem_func uses _plan)
