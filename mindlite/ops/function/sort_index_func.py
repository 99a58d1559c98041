"""Functional ops of issue 13's sort/search/index family, with MindSpore 2.x's signatures:
ops.sort / argsort / topk / cummax / cummin over sort_ops; ops.gather_elements, scatter,
scatter_add, index_add, tensor_scatter_update / add, masked_fill, nonzero, count_nonzero
and unstack / unbind over scatter_index_ops and mask_ops; index_select, narrow,
chunk, swapaxes, moveaxis and repeat_interleave as compositions of Gather, Slice and
Transpose (so their gradients are those primitives').

ops.scatter_add and ops.index_add also write their result into input_x (a Tensor or
Parameter), as MindSpore 2.10's ref primitives do; the returned tensor is the op's output,
differentiable through ScatterAdd / IndexAdd.
"""
import numbers

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import mask_ops as E
from ..operations import scatter_index_ops as SI
from ..operations import sort_ops as SO
from ..operations.array_ops import Cast, Reshape, Transpose
from ..operations.creation_ops import Assign
from ..operations.slice_ops import Gather, Slice
from ._typed_prims import typed_prim as _prim

__all__ = ["sort", "argsort", "topk", "cummax", "cummin", "gather_elements", "gather_d",
           "gather_nd", "scatter", "scatter_add", "index_select", "index_add",
           "tensor_scatter_update", "tensor_scatter_add", "tensor_scatter_elements",
           "masked_fill", "nonzero", "count_nonzero", "narrow", "chunk", "unstack", "unbind",
           "swapaxes", "swapdims", "moveaxis", "repeat_interleave"]

_cast, _reshape, _transpose, _slice = Cast(), Reshape(), Transpose(), Slice()
_gather, _gather_d, _assign = Gather(), SO.GatherD(), Assign()
_masked_fill, _nonzero = E.MaskedFill(), E.NonZero()
_topk_sorted, _sort_asc = SO.TopK(True), SO.Sort(-1, False)     # the defaults, no table lookup


def _tensor(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def _int(op, arg, value):
    if type(value) is int:
        return value
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype in mstype.INT_TYPES:
        value = int(value.asnumpy())
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"For '{op}', '{arg}' must be an int, but got "
                        f"{type(value).__name__}: {value!r}")
    return int(value)


def _axis(op, arg, axis, ndim):
    axis = _int(op, arg, axis)
    lim = max(ndim, 1)
    if not -lim <= axis < lim:
        raise ValueError(f"For '{op}', '{arg}' must be in range [{-lim}, {lim}), but got {axis}")
    return axis % lim


# ---- sorting and searching -----------------------------------------------------------------
def sort(input_x, axis=-1, descending=False):
    """(values, indices int32) sorted along `axis`; stable, NaN largest."""
    if type(axis) is int and axis == -1 and descending is False:
        return _sort_asc(input_x)
    return _prim(SO.Sort, axis, descending)(input_x)


def argsort(input, axis=-1, descending=False):
    """The int32 indices that sort `input` along `axis` (Sort's second output)."""
    return _prim(SO.Sort, axis, descending)(input)[1]


def _swap_last(x, dim):
    perm = list(range(x.ndim))
    perm[dim], perm[-1] = perm[-1], perm[dim]
    return tuple(perm)


def topk(input, k, dim=None, largest=True, sorted=True):
    """(values, indices int32): the k largest (smallest when not `largest`) entries along
    `dim` (default the last), in order (largest first, or smallest first)."""
    if largest is True and dim is None and sorted is True and not isinstance(k, Tensor):
        return _topk_sorted(input, k)                     # TopK's inference checks the rest
    if largest and (dim is None or dim == -1) and not isinstance(k, Tensor):
        return _prim(SO.TopK, sorted)(input, k)         # TopK's inference checks the rest
    _tensor("topk", "input", input)
    if input.ndim == 0:
        raise ValueError("For 'topk', the rank of 'input' must be greater than 0, but got a "
                         "0-d tensor")
    dim = -1 if dim is None else dim
    dim = _axis("topk", "dim", dim, input.ndim)
    k = _int("topk", "k", k)
    if not largest:
        n = input.shape[dim]
        if not 0 < k <= n:
            raise ValueError(f"For 'topk', 'k' must be in (0, {n}], but got {k}")
        values, indices = sort(input, dim, False)
        size = list(input.shape)
        size[dim] = k
        begin = (0,) * input.ndim
        return _slice(values, begin, tuple(size)), _slice(indices, begin, tuple(size))
    if dim == input.ndim - 1:
        return _prim(SO.TopK, sorted)(input, k)
    perm = _swap_last(input, dim)
    values, indices = _prim(SO.TopK, sorted)(_transpose(input, perm), k)
    return _transpose(values, perm), _transpose(indices, perm)


def cummax(input, axis):
    """(values, indices int64): the running maximum along `axis` and where it was taken."""
    return _prim(SO.Cummax, _int("cummax", "axis", axis))(input)


def cummin(input, axis):
    """(values, indices int32): the running minimum along `axis` and where it was taken."""
    return _prim(SO.Cummin, _int("cummin", "axis", axis))(input)


# ---- gathering and scattering --------------------------------------------------------------
def gather_elements(input, dim, index):
    """y[i][j] = input[index[i][j]][j] for dim 0 (likewise any dim); y has index's shape."""
    return _gather_d(input, _int("gather_elements", "dim", dim), index)


def _as_updates(op, src, like, shape):
    if isinstance(src, Tensor):
        return src
    if isinstance(src, numbers.Number) and not isinstance(src, bool):
        return Tensor.from_numpy(np.full(shape, src, like.dtype.np))
    raise TypeError(f"For '{op}', 'src' must be a Tensor or a number, but got "
                    f"{type(src).__name__}")


def scatter(input, axis, index, src):
    """input with src written at index along axis (TensorScatterElements, reduction none);
    src a Tensor of index's shape, or a number."""
    _tensor("scatter", "input", input)
    _tensor("scatter", "index", index)
    src = _as_updates("scatter", src, input, index.shape)
    return _prim(SI.TensorScatterElements, _int("scatter", "axis", axis), "none")(
        input, index, src)


def _write_back(target, result):
    """MindSpore's ref semantics: target (a Tensor or Parameter) takes result's values."""
    _assign(target, result)
    return result


def scatter_add(input_x, indices, updates):
    """input_x + updates added at row `indices` (repeats accumulate); also written into
    input_x, as MindSpore's ops.scatter_add."""
    return _write_back(input_x, _prim(SI.ScatterAdd, False)(input_x, indices, updates))


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """x + y's slices added at `indices` (1-D int32) along axis; also written into x, as
    MindSpore's ops.index_add."""
    prim = _prim(SI.IndexAdd, _int("index_add", "axis", axis), use_lock, check_index_bound)
    return _write_back(x, prim(x, indices, y))


def tensor_scatter_update(input_x, indices, updates):
    return _prim(SI.TensorScatterUpdate)(input_x, indices, updates)


def tensor_scatter_add(input_x, indices, updates):
    return _prim(SI.TensorScatterAdd)(input_x, indices, updates)


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    return _prim(SI.TensorScatterElements, axis, reduction)(input_x, indices, updates)


def gather_d(x, dim, index):
    return _gather_d(x, _int("gather_d", "dim", dim), index)


def gather_nd(input_x, indices):
    return _prim(SI.GatherNd)(input_x, indices)


def index_select(input, axis, index):
    """input's slices at the 1-D int32/int64 `index` along `axis` (a Gather)."""
    _tensor("index_select", "input", input)
    _tensor("index_select", "index", index)
    if index.ndim != 1:
        raise ValueError(f"For 'index_select', the dimension of 'index' must be 1, but got "
                         f"{index.ndim}")
    return _gather(input, index, _int("index_select", "axis", axis))


# ---- masks and counts ------------------------------------------------------------------------
def masked_fill(input_x, mask, value):
    """value where mask else input_x (broadcast); value a number or 0-d Tensor, taken in
    input_x's dtype."""
    _tensor("masked_fill", "input_x", input_x)
    if isinstance(value, Tensor):
        if value.dtype is not input_x.dtype:
            value = _cast(value, input_x.dtype)
    elif isinstance(value, numbers.Number):
        value = Tensor.from_numpy(np.array(value, input_x.dtype.np))
    else:
        raise TypeError(f"For 'masked_fill', 'value' must be a number or a 0-d Tensor, but "
                        f"got {type(value).__name__}")
    return _masked_fill(input_x, mask, value)


def nonzero(input, *, as_tuple=False):
    """int64 (count, rank) indices of input's nonzero elements; as_tuple: one 1-D int64
    tensor per axis."""
    out = _nonzero(input)
    if not as_tuple:
        return out
    return tuple(_prim(E.Unstack, 1)(out))


def count_nonzero(x, axis=(), keep_dims=False, dtype=mstype.int32):
    """The number of nonzero entries over `axis` (() all), in `dtype`."""
    _tensor("count_nonzero", "x", x)
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    out = _prim(E.CountNonZero, axes)(x)
    if keep_dims:
        red = {a % max(x.ndim, 1) for a in axes} if axes else set(range(x.ndim))
        out = _reshape(out, tuple(1 if i in red else d for i, d in enumerate(x.shape)))
    return out if dtype is mstype.int64 else _cast(out, dtype)


# ---- slicing and moving axes ----------------------------------------------------------------
def narrow(input, axis, start, length):
    """input's `length` entries from `start` along axis (a Slice)."""
    _tensor("narrow", "input", input)
    axis = _axis("narrow", "axis", axis, input.ndim)
    start, length = _int("narrow", "start", start), _int("narrow", "length", length)
    n = input.shape[axis]
    if not 0 <= start < n:
        raise ValueError(f"For 'narrow', 'start' must be in range [0, {n}), but got {start}")
    if not 0 <= length <= n - start:
        raise ValueError(f"For 'narrow', 'length' must be in range [0, {n - start}], but got "
                         f"{length}")
    begin, size = [0] * input.ndim, list(input.shape)
    begin[axis], size[axis] = start, length
    return _slice(input, tuple(begin), tuple(size))


def chunk(input, chunks, axis=0):
    """input cut into at most `chunks` pieces of ceil(n / chunks) along axis (the last
    one smaller), a tuple."""
    _tensor("chunk", "input", input)
    if input.ndim == 0:
        raise ValueError("For 'chunk', the rank of 'input' must be greater than 0, but got a "
                         "0-d tensor")
    chunks = _int("chunk", "chunks", chunks)
    if chunks <= 0:
        raise ValueError(f"For 'chunk', 'chunks' must be greater than 0, but got {chunks}")
    axis = _axis("chunk", "axis", axis, input.ndim)
    n = input.shape[axis]
    step = max(-(-n // chunks), 1)
    parts = []
    for start in range(0, max(n, 1), step):
        begin, size = [0] * input.ndim, list(input.shape)
        begin[axis], size[axis] = start, min(step, n - start)
        parts.append(_slice(input, tuple(begin), tuple(size)))
    return tuple(parts)


def _unstack(op, arg, x, axis):
    prim = _prim(E.Unstack, _int(op, arg, axis))
    if isinstance(x, Tensor) and x.ndim and -x.ndim <= axis < x.ndim and not x.shape[axis]:
        return ()                   # no slices: no outputs (the primitive needs one at least)
    return prim(x)


def unstack(input_x, axis=0):
    """The slices of input_x along axis, that axis removed (a tuple)."""
    return _unstack("unstack", "axis", input_x, axis)


def unbind(input, dim=0):
    return _unstack("unbind", "dim", input, dim)


def swapaxes(input, axis0, axis1):
    _tensor("swapaxes", "input", input)
    a = _axis("swapaxes", "axis0", axis0, input.ndim)
    b = _axis("swapaxes", "axis1", axis1, input.ndim)
    perm = list(range(input.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return _transpose(input, tuple(perm))


def swapdims(input, dim0, dim1):
    """swapaxes under PyTorch's name (as MindSpore's ops.swapdims)."""
    return swapaxes(input, dim0, dim1)


def moveaxis(x, source, destination):
    """x with the axes `source` moved to `destination` (ints or sequences, numpy's rule)."""
    _tensor("moveaxis", "x", x)
    src = (source,) if isinstance(source, numbers.Integral) else tuple(source)
    dst = (destination,) if isinstance(destination, numbers.Integral) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError(f"For 'moveaxis', 'source' and 'destination' must have the same "
                         f"number of elements, but got {len(src)} and {len(dst)}")
    src = [_axis("moveaxis", "source", a, x.ndim) for a in src]
    dst = [_axis("moveaxis", "destination", a, x.ndim) for a in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"For 'moveaxis', repeated axis in 'source' {source} or "
                         f"'destination' {destination}")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _transpose(x, tuple(order))


def repeat_interleave(input, repeats, axis=None):
    """Each entry of input repeated along `axis` (None: of the flattened input) `repeats`
    times: an int, or one count per entry (list, tuple or 1-D int Tensor). A Gather."""
    _tensor("repeat_interleave", "input", input)
    if axis is None:
        input, axis = _reshape(input, (-1,)), 0
    else:
        axis = _axis("repeat_interleave", "axis", axis, input.ndim)
    n = input.shape[axis] if input.ndim else 1
    if isinstance(repeats, Tensor):
        repeats = repeats.asnumpy().reshape(-1).tolist()
    if isinstance(repeats, numbers.Integral) and not isinstance(repeats, bool):
        repeats = [int(repeats)]
    if not isinstance(repeats, (list, tuple)) or not all(
            isinstance(r, numbers.Integral) and not isinstance(r, bool) for r in repeats):
        raise TypeError(f"For 'repeat_interleave', 'repeats' must be an int, or a list, tuple "
                        f"or Tensor of ints, but got {repeats!r}")
    if len(repeats) not in (1, n) or any(r < 0 for r in repeats):
        raise ValueError(f"For 'repeat_interleave', 'repeats' must hold 1 or {n} (the size of "
                         f"axis {axis}) counts >= 0, but got {list(repeats)}")
    index = np.repeat(np.arange(n, dtype=np.int64), repeats if len(repeats) == n else repeats[0])
    return _gather(input, Tensor.from_numpy(index), axis)
