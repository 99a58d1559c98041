"""Functional scatter and indexed-write ops of MindSpore 2.10: tensor_scatter_sub / mul / div /
max / min, scatter_nd, the ref ops scatter_update / scatter_nd_update / scatter_max ... (which
also write their result into input_x, as MindSpore's ref primitives), inplace_update / add /
sub, and the dim-indexed forms of mint and Tensor: index_fill, index_copy, index_add_ext,
index_put, put, masked_scatter, select_scatter, slice_scatter, diagonal_scatter,
fill_diagonal, scatter_add_ext, scatter_reduce_ext.

All compose the scatter primitives (scatter_index_ops, tensor_scatter_ops) with Transpose,
Reshape and Select, so they are differentiable through those primitives' bprops. Index
arrays that depend only on shapes (a diagonal's positions) are built once per call from the
shape, never from the data.
"""
import numbers

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import scatter_index_ops as SI
from ..operations import tensor_scatter_ops as TS
from ..operations.array_ops import Cast, ExpandDims, Reshape, Transpose
from ..operations.creation_ops import Assign, Zeros
from ..operations.logic_ops import Select
from ._typed_prims import typed_prim as _prim

__all__ = ['tensor_scatter_sub', 'tensor_scatter_mul', 'tensor_scatter_div',
           'tensor_scatter_max', 'tensor_scatter_min', 'scatter_nd', 'scatter_nd_update',
           'scatter_nd_add', 'scatter_nd_sub', 'scatter_nd_mul', 'scatter_nd_div',
           'scatter_nd_max', 'scatter_nd_min', 'scatter_update', 'scatter_max', 'scatter_min',
           'scatter_mul', 'scatter_div', 'scatter_sub', 'inplace_update', 'inplace_add',
           'inplace_sub', 'inplace_index_add', 'index_fill', 'index_copy', 'index_add_ext',
           'index_put', 'put', 'masked_scatter', 'select_scatter', 'slice_scatter',
           'diagonal_scatter', 'fill_diagonal', 'scatter_add_ext', 'scatter_reduce_ext']

_cast, _reshape, _transpose, _expand = Cast(), Reshape(), Transpose(), ExpandDims()
_assign, _zeros, _select = Assign(), Zeros(), Select()
_ND = {"update": SI.TensorScatterUpdate, "add": SI.TensorScatterAdd, "sub": TS.TensorScatterSub,
       "mul": TS.TensorScatterMul, "div": TS.TensorScatterDiv, "max": TS.TensorScatterMax,
       "min": TS.TensorScatterMin}


def _tensor(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def _dim(op, dim, ndim):
    if not isinstance(dim, numbers.Integral) or isinstance(dim, bool):
        raise TypeError(f"For '{op}', 'dim' must be an int, but got {dim!r}")
    lim = max(ndim, 1)
    if not -lim <= dim < lim:
        raise ValueError(f"For '{op}', 'dim' must be in [{-lim}, {lim}), but got {dim}")
    return int(dim) % lim


def _nd(kind, x, indices, updates):
    return _prim(_ND[kind])(x, indices, updates)


def _write_back(target, result):
    """MindSpore's ref semantics: target (a Tensor or Parameter) takes result's values."""
    _assign(target, result)
    return result


# ---- tensor_scatter_* and scatter_nd ---------------------------------------------------------
def tensor_scatter_sub(input_x, indices, updates):
    return _nd("sub", input_x, indices, updates)


def tensor_scatter_mul(input_x, indices, updates):
    return _nd("mul", input_x, indices, updates)


def tensor_scatter_div(input_x, indices, updates):
    return _nd("div", input_x, indices, updates)


def tensor_scatter_max(input_x, indices, updates):
    return _nd("max", input_x, indices, updates)


def tensor_scatter_min(input_x, indices, updates):
    return _nd("min", input_x, indices, updates)


def scatter_nd(indices, updates, shape):
    """zeros(shape) with updates added at indices (repeated indices accumulate)."""
    _tensor("scatter_nd", "updates", updates)
    if not isinstance(shape, (tuple, list)) or not shape:
        raise TypeError(f"For 'scatter_nd', 'shape' must be a non-empty tuple of ints, but got "
                        f"{shape!r}")
    return _nd("add", _zeros(tuple(shape), updates.dtype), indices, updates)


def _ref_nd(kind):
    def fn(input_x, indices, updates, use_locking=False):
        return _write_back(input_x, _nd(kind, input_x, indices, updates))
    fn.__name__ = fn.__qualname__ = f"scatter_nd_{kind}"
    fn.__doc__ = (f"input_x with its slices at indices[..., :N] {kind}-combined with updates, "
                  f"also written into input_x (a ref op, as MindSpore's).")
    return fn


scatter_nd_update, scatter_nd_add, scatter_nd_sub = (_ref_nd(k) for k in ("update", "add",
                                                                          "sub"))
scatter_nd_mul, scatter_nd_div = _ref_nd("mul"), _ref_nd("div")
scatter_nd_max, scatter_nd_min = _ref_nd("max"), _ref_nd("min")


def _rows(kind):
    """input_x's rows (axis 0) at `indices` (any int shape) combined with updates (shape
    indices.shape + input_x.shape[1:]), written back into input_x."""
    def fn(input_x, indices, updates, use_locking=False):
        _tensor(f"scatter_{kind}", "input_x", input_x)
        _tensor(f"scatter_{kind}", "indices", indices)
        return _write_back(input_x, _nd(kind, input_x, _expand(indices, -1), updates))
    name = "scatter_update" if kind == "update" else f"scatter_{kind}"
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"input_x's rows at indices {kind}-combined with updates (a ref op)."
    return fn


scatter_update, scatter_max, scatter_min = _rows("update"), _rows("max"), _rows("min")
scatter_mul, scatter_div, scatter_sub = _rows("mul"), _rows("div"), _rows("sub")


def _inplace(kind, x, v, indices):
    _tensor("inplace_" + kind, "x", x)
    if isinstance(indices, numbers.Integral):
        indices = (int(indices),)
        if v.ndim == x.ndim - 1:
            v = _expand(v, 0)
    idx = indices if isinstance(indices, Tensor) else Tensor(np.array(indices, np.int64))
    return _nd(kind, x, _expand(_cast(idx, mstype.int64), -1), v)


def inplace_update(x, v, indices):
    """x with its rows at `indices` replaced by v's rows (out of place, as MindSpore 2.x)."""
    return _inplace("update", x, v, indices)


def _int_or_tuple(op, indices):
    if isinstance(indices, Tensor) or not isinstance(indices, (numbers.Integral, tuple)):
        raise TypeError(f"For '{op}', the type of 'indices' should be one of '['tuple', "
                        f"'int']', but got type '{type(indices).__name__}'")


def inplace_add(x, v, indices):
    """x with v's rows added at the rows `indices` (an int or a tuple of ints)."""
    _int_or_tuple("InplaceAdd", indices)
    return _inplace("add", x, v, indices)


def inplace_sub(x, v, indices):
    _int_or_tuple("InplaceSub", indices)
    return _inplace("sub", x, v, indices)


def inplace_index_add(var, indices, updates, axis):
    """var with updates' slices added at indices along axis, written into var."""
    return _write_back(var, index_add_ext(var, axis, indices, updates))


# ---- dim-indexed writes (mint / Tensor forms) ------------------------------------------------
def _to_front(x, dim):
    perm = (dim,) + tuple(i for i in range(x.ndim) if i != dim)
    return _transpose(x, perm), perm


def _from_front(x, perm):
    inv = tuple(int(i) for i in np.argsort(perm))
    return _transpose(x, inv)


def _index_1d(op, index, n):
    _tensor(op, "index", index)
    if index.dtype not in mstype.INT_TYPES or index.ndim > 1:
        raise TypeError(f"For '{op}', 'index' must be a 0-D or 1-D int Tensor, but got "
                        f"{index.dtype} of shape {list(index.shape)}")
    return _expand(_cast(_reshape(index, (-1,)), mstype.int64), -1)


def _along(kind, op, input, dim, index, source):
    """input with source's slices combined (kind) at `index` along `dim`."""
    _tensor(op, "input", input)
    dim = _dim(op, dim, input.ndim)
    idx = _index_1d(op, index, input.shape[dim] if input.ndim else 1)
    if input.ndim == 0:
        return _reshape(_along(kind, op, _reshape(input, (1,)), 0, index,
                               _reshape(source, (-1,))), ())
    front, perm = _to_front(input, dim)
    src, _ = _to_front(source, dim) if source.ndim == input.ndim else (source, None)
    return _from_front(_nd(kind, front, idx, _cast(src, input.dtype)), perm)


def index_copy(input, dim, index, tensor):
    """input with tensor's slices copied to the positions `index` along dim."""
    return _along("update", "index_copy", input, dim, index, _tensor("index_copy", "tensor",
                                                                     tensor))


def index_add_ext(input, dim, index, source, *, alpha=1):
    """input + alpha * source's slices added at the int32 `index` along dim (repeats
    accumulate; int32 as MindSpore's CPU IndexAdd)."""
    _tensor("index_add", "source", source)
    if isinstance(index, Tensor) and index.dtype is not mstype.int32:
        raise TypeError(f"For primitive[IndexAdd], the input argument[indices type] must be a "
                        f"type of {{Tensor[Int32]}}, but got Tensor[{index.dtype}].")
    if alpha != 1:
        source = source * alpha
    return _along("add", "index_add", input, dim, index, source)


def index_fill(x, axis, index, value):
    """x with its slices at `index` along axis set to value (a number or 0-D Tensor)."""
    input = _tensor("index_fill", "x", x)
    d = _dim("index_fill", axis, input.ndim)
    n = input.shape[d] if input.ndim else 1
    picked = _index_1d("index_fill", index, n)
    hit = _zeros((n,), mstype.int64)
    hit = _nd("update", hit, picked, _cast(_reshape(picked, (-1,)) * 0 + 1, mstype.int64))
    shape = [1] * max(input.ndim, 1)
    shape[d] = n
    mask = _cast(_reshape(hit, tuple(shape) if input.ndim else ()), mstype.bool_)
    if isinstance(value, Tensor):
        value = _cast(_reshape(value, ()), input.dtype)
    return _select(mask, value, input)


def index_put(input, indices, values, accumulate=False):
    """input with values written (or added) at the advanced index `indices` (a tuple of int
    or bool Tensors, broadcast against each other)."""
    _tensor("index_put", "input", input)
    if not isinstance(indices, (tuple, list)) or not indices:
        raise TypeError(f"For 'index_put', 'indices' must be a non-empty tuple of Tensors, but "
                        f"got {type(indices).__name__}")
    arrays = []
    for t in indices:
        _tensor("index_put", "indices", t)
        a = t.asnumpy()
        arrays.extend(np.nonzero(a) if a.dtype == np.bool_ else (a.astype(np.int64),))
    arrays = np.broadcast_arrays(*arrays)
    idx = np.stack([np.where(a < 0, a + input.shape[k], a) for k, a in enumerate(arrays)], -1)
    slot = idx.shape[:-1] + input.shape[len(arrays):]
    vals = values if isinstance(values, Tensor) else Tensor(np.asarray(values), input.dtype)
    if vals.ndim != 1:
        raise ValueError(f"For primitive[IndexPut], the rank of x2 must be equal to 1, but got "
                         f"{vals.ndim}.")
    from .array_func import broadcast_to
    vals = broadcast_to(_cast(vals, input.dtype), slot)
    return _nd("add" if accumulate else "update", input, Tensor(idx), vals)


def put(input, index, source, accumulate=False):
    """input (read flat) with source's elements written (or added) at the flat `index`."""
    _tensor("put", "input", input)
    _tensor("put", "index", index)
    n = input.size
    flat_idx = _cast(_reshape(index, (-1, 1)), mstype.int64)
    if index.size:
        lo, hi = int(index.asnumpy().min()), int(index.asnumpy().max())
        if lo < -n or hi >= n:
            raise IndexError(f"For 'put', 'index' values must be in [{-n}, {n}), but got "
                             f"{lo if lo < -n else hi}")
        if lo < 0:
            flat_idx = _select(flat_idx < 0, flat_idx + n, flat_idx)
    src = _cast(_reshape(source, (-1,)), input.dtype)
    out = _nd("add" if accumulate else "update", _reshape(input, (-1,)), flat_idx, src)
    return _reshape(out, input.shape)


def masked_scatter(input, mask, source):
    """input with the positions where mask (broadcast to input) is True taking source's
    elements in row-major order."""
    _tensor("masked_scatter", "input", input)
    _tensor("masked_scatter", "mask", mask)
    _tensor("masked_scatter", "source", source)
    m = np.broadcast_to(mask.asnumpy().astype(bool), input.shape)
    k = int(m.sum())
    if source.size < k:
        raise ValueError(f"For 'masked_scatter', 'source' must have at least {k} elements (the "
                         f"number of True in 'mask'), but got {source.size}")
    idx = Tensor(np.argwhere(m).astype(np.int64))
    src = _reshape(source, (-1,))[:k] if k else _reshape(source, (-1,))[:0]
    return _nd("update", input, idx, _cast(src, input.dtype))


def _scatter_positions(op, input, positions, src):
    """input with src written at the nd positions (an int array (..., ndim))."""
    return _nd("update", input, Tensor(positions.astype(np.int64)), _cast(src, input.dtype))


def select_scatter(input, src, axis, index):
    """input with src embedded at `index` along axis (src has input's shape without axis)."""
    _tensor("select_scatter", "input", input)
    _tensor("select_scatter", "src", src)
    axis = _dim("select_scatter", axis, input.ndim)
    n = input.shape[axis]
    if not -n <= index < n:
        raise ValueError(f"For 'select_scatter', 'index' must be in [{-n}, {n}), but got "
                         f"{index}")
    return index_copy(input, axis, Tensor(np.array([index % n], np.int64)), _expand(src, axis))


def slice_scatter(input, src, axis=0, start=None, end=None, step=1):
    """input with src embedded at input[..., start:end:step, ...] along axis."""
    _tensor("slice_scatter", "input", input)
    _tensor("slice_scatter", "src", src)
    axis = _dim("slice_scatter", axis, input.ndim)
    pos = np.arange(input.shape[axis])[slice(start, end, step)]
    return index_copy(input, axis, Tensor(pos.astype(np.int64)), src)


def _diag_positions(shape, offset, dim1, dim2):
    """(..., k, ndim) positions of the diagonal `offset` of dims (dim1, dim2), ordered as
    ops.diagonal orders its output (other dims first, the diagonal last)."""
    n1, n2 = shape[dim1], shape[dim2]
    i = np.arange(max(0, -offset), min(n1, n2 - offset) if offset >= 0 else min(n1, n2 - offset))
    i = i[(i + offset >= 0) & (i + offset < n2)]
    rest = [d for d in range(len(shape)) if d not in (dim1, dim2)]
    grids = np.meshgrid(*[np.arange(shape[d]) for d in rest], np.arange(i.size), indexing="ij")
    pos = np.zeros(grids[0].shape + (len(shape),), np.int64)
    for g, d in zip(grids[:-1], rest):
        pos[..., d] = g
    pos[..., dim1] = i[grids[-1]]
    pos[..., dim2] = i[grids[-1]] + offset
    return pos


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with src written on the diagonal `offset` of dims (dim1, dim2)."""
    _tensor("diagonal_scatter", "input", input)
    _tensor("diagonal_scatter", "src", src)
    d1, d2 = _dim("diagonal_scatter", dim1, input.ndim), _dim("diagonal_scatter", dim2, input.ndim)
    return _scatter_positions("diagonal_scatter", input,
                              _diag_positions(input.shape, offset, d1, d2), src)


def fill_diagonal(input, fill_value, wrap=False):
    """input with its main diagonal (all dims equal index; for a tall 2-D matrix with wrap,
    restarting every n + 1 rows, as numpy) set to fill_value."""
    _tensor("fill_diagonal", "input", input)
    if input.ndim < 2:
        raise ValueError(f"For 'fill_diagonal', 'input' must be at least 2-D, but got "
                         f"{input.ndim}-D")
    mask = np.zeros(input.shape, bool)
    np.fill_diagonal(mask, True, wrap=wrap)
    return _select(Tensor(mask), _cast(Tensor(fill_value), input.dtype), input)


def _like_index(op, src, index):
    """src cut to index's shape (PyTorch's scatter reads only that part), or a number filled."""
    if isinstance(src, Tensor):
        if src.shape != index.shape:
            from .index_func import slice as _slice_fn
            src = _slice_fn(src, (0,) * src.ndim, tuple(index.shape))
        return src
    if isinstance(src, (numbers.Number, np.generic)) and not isinstance(src, bool):
        return None
    raise TypeError(f"For '{op}', 'src' must be a Tensor or a number, but got "
                    f"{type(src).__name__}")


def scatter_add_ext(input, dim, index, src):
    """input with src's elements (index's shape of it) added at index along dim."""
    _tensor("scatter_add", "input", input)
    _tensor("scatter_add", "index", index)
    src = _like_index("scatter_add", _tensor("scatter_add", "src", src), index)
    dim = _dim("scatter_add", dim, input.ndim)
    return _prim(SI.TensorScatterElements, dim, "add")(input, index, _cast(src, input.dtype))


def scatter_reduce_ext(input, dim, index, src, reduce=None):
    """mint.scatter / Tensor.scatter_: src (a Tensor, index's shape of it, or a number) written
    at index along dim; reduce 'add' adds."""
    _tensor("scatter", "input", input)
    _tensor("scatter", "index", index)
    dim = _dim("scatter", dim, input.ndim)
    upd = _like_index("scatter", src, index)
    if upd is None:
        upd = Tensor(np.full(index.shape, src, input.dtype.np))
    if reduce not in (None, "none", "add"):
        raise ValueError(f"For 'scatter', 'reduce' must be None or 'add', but got {reduce!r}")
    mode = "add" if reduce == "add" else "none"
    return _prim(SI.TensorScatterElements, dim, mode)(input, index, _cast(upd, input.dtype))
