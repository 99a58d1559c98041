"""Functional array ops (MindSpore 2.x ops.reshape, ops.concat, ops.zeros, ...).

Each function calls a module-level primitive; primitives with attributes come from
`cached_prim(cls, *attrs)`, one instance per attribute combination, so repeated calls
hit the same runner cache. Slicing, gathering and Tensor indexing: index_func.py.
"""
import builtins
import numbers

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as P
from ..operations import join_ops as J
from ..operations import slice_ops as S

__all__ = ['reshape', 'transpose', 'permute', 'expand_dims', 'unsqueeze', 'squeeze', 'flatten',
           'concat', 'cat', 'stack', 'split', 'tile', 'broadcast_to', 'cast', 'shape', 'zeros',
           'ones', 'zeros_like', 'ones_like', 'fill', 'full', 'eye', 'arange', 'range',
           'assign', 'assign_add']

from ..operations._base import cached_prim  # noqa: E402


def _tuple(v):
    return tuple(v) if isinstance(v, list) else v


_reshape = P.Reshape()
_transpose = P.Transpose()
_expand_dims = P.ExpandDims()
_tile = P.Tile()
_cast = P.Cast()
_shape = P.Shape()
_zeros = P.Zeros()
_ones = P.Ones()
_zeros_like = P.ZerosLike()
_ones_like = P.OnesLike()
_fill = P.Fill()
_eye = P.Eye()
_assign = P.Assign()
_assign_add = P.AssignAdd()
_slice = S.Slice()


def reshape(input, shape):
    return _reshape(input, _tuple(shape))


def transpose(input, dims):
    return _transpose(input, _tuple(dims))


def permute(input, axis):
    return _transpose(input, _tuple(axis))


def expand_dims(input_x, axis):
    return _expand_dims(input_x, axis)


def unsqueeze(input, dim):
    return _expand_dims(input, dim)


def squeeze(input, axis=None):
    """input without its size-1 axes (all of them for None, else those of `axis` that have
    size 1: an axis of another size is left as it is, as MindSpore 2.10)."""
    if axis is None or axis == () or not isinstance(input, Tensor):
        return cached_prim(P.Squeeze, () if axis is None else _tuple(axis))(input)
    axes = (axis,) if isinstance(axis, int) else _tuple(axis)
    n = input.ndim
    for a in axes:
        if not isinstance(a, int) or isinstance(a, bool):
            raise TypeError(f"For 'squeeze', 'axis' must be an int or a tuple of ints, but got "
                            f"{axis!r}")
        if not -max(n, 1) <= a < max(n, 1):
            raise ValueError(f"For 'squeeze', 'axis' {a} is out of range [{-max(n, 1)}, "
                             f"{max(n, 1)}) for shape {list(input.shape)}")
    keep = tuple(a for a in axes if n and input.shape[a % n] == 1)
    if not keep:
        return input
    return cached_prim(P.Squeeze, keep)(input)


def _check_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type(x).__name__}")


def flatten(input, order='C', *, start_dim=1, end_dim=-1):
    """Merge axes start_dim..end_dim into one (C or Fortran order); a 0-d or 1-D input
    becomes 1-D; start_dim == end_dim returns `input` itself (MindSpore 2.x)."""
    _check_tensor("flatten", "input", input)
    if order not in ('C', 'F'):
        raise ValueError(f"For 'flatten', 'order' must be 'C' or 'F', but got {order!r}")
    n = input.ndim
    if n <= 1:
        return _reshape(input, (input.size,))
    dims = []
    for name, d in (("start_dim", start_dim), ("end_dim", end_dim)):
        if not isinstance(d, int) or isinstance(d, bool):
            raise TypeError(f"For 'flatten', '{name}' must be an int, but got {d!r}")
        if not -n <= d < n:
            raise ValueError(f"For 'flatten', '{name}' must be in range [{-n}, {n - 1}], but "
                             f"got {d}")
        dims.append(d % n)
    start, end = dims
    if start > end:
        raise ValueError(f"For 'flatten', 'start_dim' {start} must not be greater than "
                         f"'end_dim' {end} after normalisation")
    if start == end:
        return input
    if order == 'F':
        rev = tuple(builtins.range(n - 1, -1, -1))
        y = flatten(_transpose(input, rev), start_dim=n - 1 - end, end_dim=n - 1 - start)
        return _transpose(y, tuple(builtins.range(y.ndim - 1, -1, -1)))
    s = input.shape
    merged = 1
    for d in s[start:end + 1]:
        merged *= d
    return _reshape(input, s[:start] + (merged,) + s[end + 1:])


def concat(tensors, axis=0):
    return cached_prim(J.Concat, axis)(tensors)


cat = concat


def stack(tensors, axis=0):
    """tensors stacked along a new axis; one Tensor is stacked alone ((1, ...) for axis 0,
    as MindSpore 2.10)."""
    if isinstance(tensors, Tensor):
        tensors = (tensors,)
    return cached_prim(J.Stack, axis)(tensors)


def split(tensor, split_size_or_sections, axis=0):
    """Chunks of `split_size_or_sections` (an int: equal chunks, the last one smaller) or
    of the given sizes (a list/tuple summing to tensor.shape[axis]); returns a tuple."""
    _check_tensor("split", "tensor", tensor)
    n = tensor.ndim
    if not isinstance(axis, int) or isinstance(axis, bool) or not -n <= axis < max(n, 1) or \
            n == 0:
        raise ValueError(f"For 'split', 'axis' must be an int in range [{-n}, {n}) of a tensor "
                         f"of rank >= 1, but got {axis!r} for shape {list(tensor.shape)}")
    axis %= n
    dim = tensor.shape[axis]
    s = split_size_or_sections
    if isinstance(s, int) and not isinstance(s, bool):
        if s <= 0:
            raise ValueError(f"For 'split', 'split_size_or_sections' must be positive, but got "
                             f"{s}")
        if dim and dim % s == 0:
            return cached_prim(J.Split, axis, dim // s)(tensor)
        sizes = [s] * (dim // s) + ([dim % s] if dim % s or not dim else [])
    elif isinstance(s, (list, tuple)) and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in s):
        sizes = list(s)
        if sum(sizes) != dim:
            raise ValueError(f"For 'split', the sizes in 'split_size_or_sections' {sizes} must "
                             f"sum to tensor.shape[{axis}] = {dim}")
    else:
        raise TypeError(f"For 'split', 'split_size_or_sections' must be an int or a list/tuple "
                        f"of non-negative ints, but got {s!r}")
    out, begin = [], 0
    for size in sizes:
        b = [0] * n
        b[axis] = begin
        sz = list(tensor.shape)
        sz[axis] = size
        out.append(_slice(tensor, tuple(b), tuple(sz)))
        begin += size
    return tuple(out)


def tile(input, dims):
    return _tile(input, _tuple(dims))


def broadcast_to(input, shape):
    return cached_prim(P.BroadcastTo, tuple(shape))(input)


def cast(input, dtype):
    return _cast(input, dtype)


def shape(input_x):
    return _shape(input_x)


def _size(size):
    return (size,) if isinstance(size, numbers.Integral) else _tuple(size)


def zeros(size, dtype=None):
    return _zeros(_size(size), mstype.float32 if dtype is None else dtype)


def ones(shape, dtype=None):
    return _ones(_size(shape), mstype.float32 if dtype is None else dtype)


def zeros_like(input, *, dtype=None):
    y = _zeros_like(input)
    return y if dtype is None or mstype.to_type(dtype) is y.dtype else _cast(y, dtype)


def ones_like(input, *, dtype=None):
    y = _ones_like(input)
    return y if dtype is None or mstype.to_type(dtype) is y.dtype else _cast(y, dtype)


def fill(type, shape, value):
    return _fill(type, _size(shape), value)


def full(size, fill_value, *, dtype=None):
    """A tensor of `size` filled with `fill_value`; dtype defaults to bool / int64 /
    float32 for Python bool / int / float, or to the dtype of a Tensor fill_value."""
    if isinstance(fill_value, Tensor):
        if dtype is None:
            dtype = fill_value.dtype
        fill_value = fill_value.item()
    if dtype is None:
        dtype = mstype.to_type(type(fill_value)) if isinstance(fill_value, (bool, int, float)) \
            else mstype.float32
    return _fill(dtype, _size(size), fill_value)


def eye(n, m=None, dtype=None):
    return _eye(n, n if m is None else m, mstype.float32 if dtype is None else dtype)


def arange(start=0, end=None, step=1, *, dtype=None):
    if end is None:
        start, end = 0, start
    if start == end and not isinstance(start, Tensor):      # an empty range (MindSpore: int64)
        return _zeros((0,), mstype.int64 if dtype is None and all(
            isinstance(v, int) for v in (start, end, step)) else dtype or mstype.float32)
    return cached_prim(P.Range, 1000000, dtype)(start, end, step)


def range(start, end, step, maxlen=1000000):
    return cached_prim(P.Range, maxlen, None)(start, end, step)


def assign(variable, value):
    return _assign(variable, value)


def assign_add(variable, value):
    return _assign_add(variable, value)
