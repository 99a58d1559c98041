"""Functional shape and layout ops of MindSpore 2.10 beyond array_func: mm, t, numel, size,
expand, movedim, diagonal, tensor_split / hsplit / vsplit / dsplit, hstack / vstack / dstack /
column_stack / row_stack, diff, atleast_1d / 2d / 3d, flipud / fliplr, rot90, view_dtype,
reverse (the matrices built from vectors and index sets: matrix_build_func.py).

All compose primitives (Reshape, Transpose, Slice, Concat, GatherNd, Select, ...), so they
are differentiable through those primitives' bprops; index arrays that depend only on shapes
(a diagonal's positions, the pairs of `combinations`) are built from the shape.
"""
import builtins
import itertools
import numbers


from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import reinterpret_ops as RI
from ..operations.array_ops import Cast, Reshape, Transpose
from ..operations.math_ops import MatMul, Mul, Sub
from ..operations.logic_ops import NotEqual, Select
from ..operations.scatter_index_ops import GatherNd
from ..operations.creation_ops import Zeros
from ._typed_prims import typed_prim as _prim

__all__ = ['mm', 't', 'numel', 'size', 'expand', 'movedim', 'diagonal', 'tensor_split', 'hsplit',
           'vsplit', 'dsplit', 'hstack', 'vstack', 'dstack', 'column_stack', 'row_stack', 'diff',
           'atleast_1d', 'atleast_2d', 'atleast_3d', 'flipud', 'fliplr', 'rot90', 'view_dtype',
           'reverse', 'ravel']

_reshape, _transpose, _cast = Reshape(), Transpose(), Cast()
_matmul, _mul, _sub = MatMul(), Mul(), Sub()
_select, _not_equal, _gather_nd, _zeros = Select(), NotEqual(), GatherNd(), Zeros()


def _F():
    from .. import functional as F
    return F


def _tensor(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def _int(op, arg, v):
    if not isinstance(v, numbers.Integral) or isinstance(v, bool):
        raise TypeError(f"For '{op}', '{arg}' must be an int, but got {v!r}")
    return int(v)


def _dim(op, arg, d, ndim):
    d = _int(op, arg, d)
    lim = builtins.max(ndim, 1)
    if not -lim <= d < lim:
        raise ValueError(f"For '{op}', '{arg}' must be in [{-lim}, {lim}), but got {d}")
    return d % lim


def mm(input, mat2):
    """input @ mat2 for 2-D tensors."""
    for arg, x in (("input", input), ("mat2", mat2)):
        if _tensor("mm", arg, x).ndim != 2:
            raise ValueError(f"For 'mm', '{arg}' must be 2-D, but got shape {list(x.shape)}")
    return _matmul(input, mat2)


def t(input):
    """The transpose of a 2-D tensor; a 0-D or 1-D one is returned as it is."""
    _tensor("t", "input", input)
    if input.ndim > 2:
        raise ValueError(f"For 't', 'input' must be at most 2-D, but got {input.ndim}-D")
    return _transpose(input, (1, 0)) if input.ndim == 2 else input


def numel(input):
    return _tensor("numel", "input", input).size


def size(input_x):
    return _tensor("size", "input_x", input_x).size


def ravel(input):
    return _reshape(_tensor("ravel", "input", input), (-1,))


def expand(input_x, size):
    """input_x broadcast to `size` (-1 keeps a dimension)."""
    input = _tensor("expand", "input_x", input_x)
    size = tuple(size.asnumpy().tolist()) if isinstance(size, Tensor) else tuple(size)
    lead = len(size) - input.ndim
    if lead < 0:
        raise ValueError(f"For 'expand', 'size' {list(size)} must have at least the rank of "
                         f"'input' {input.ndim}")
    shape = tuple(input.shape[i - lead] if s == -1 and i >= lead else s
                  for i, s in enumerate(size))
    return _F().broadcast_to(input, shape)


def movedim(x, source, destination):
    return _F().moveaxis(x, source, destination)


def _diag_positions(shape, offset, d1, d2):
    from .scatter_func import _diag_positions as positions
    return positions(shape, offset, d1, d2)


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal `offset` of dims (dim1, dim2), as the last dim of the result."""
    _tensor("diagonal", "input", input)
    if input.ndim < 2:
        raise ValueError(f"For 'diagonal', 'input' must be at least 2-D, but got "
                         f"{input.ndim}-D")
    d1, d2 = _dim("diagonal", "dim1", dim1, input.ndim), _dim("diagonal", "dim2", dim2,
                                                               input.ndim)
    if d1 == d2:
        raise ValueError("For 'diagonal', 'dim1' and 'dim2' must differ")
    pos = _diag_positions(input.shape, _int("diagonal", "offset", offset), d1, d2)
    return _gather_nd(input, Tensor(pos))


def _split_at(x, axis, cuts):
    from .index_func import slice as _slice
    bounds = [0] + [builtins.min(builtins.max(c, 0), x.shape[axis]) for c in cuts] + \
        [x.shape[axis]]
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        begin = [0] * x.ndim
        sz = list(x.shape)
        begin[axis] = lo
        sz[axis] = builtins.max(hi - lo, 0)
        out.append(_slice(x, tuple(begin), tuple(sz)))
    return tuple(out)


def tensor_split(input, indices_or_sections, axis=0):
    """Split along axis into `sections` nearly equal parts (the first n % sections one
    longer), or at the given indices."""
    _tensor("tensor_split", "input", input)
    axis = _dim("tensor_split", "axis", axis, input.ndim)
    n = input.shape[axis]
    s = indices_or_sections
    if isinstance(s, Tensor):
        s = s.asnumpy().tolist()
    if isinstance(s, numbers.Integral) and not isinstance(s, bool):
        if s <= 0:
            raise ValueError(f"For 'tensor_split', the number of sections must be positive, but "
                             f"got {s}")
        q, r = divmod(n, s)
        sizes = [q + 1] * r + [q] * (s - r)
        cuts = list(itertools.accumulate(sizes))[:-1]
    elif isinstance(s, (tuple, list)):
        cuts = [_int("tensor_split", "indices_or_sections", c) for c in s]
    else:
        raise TypeError(f"For 'tensor_split', 'indices_or_sections' must be an int or a tuple / "
                        f"list of ints, but got {s!r}")
    return _split_at(input, axis, cuts)


def _split_exact(op, input, s, axis):
    _tensor(op, "input", input)
    if isinstance(s, numbers.Integral) and input.shape[axis] % s:
        raise ValueError(f"For '{op}', the size of dim {axis} ({input.shape[axis]}) must be "
                         f"divisible by {s}")
    return tensor_split(input, s, axis)


def hsplit(input, indices_or_sections):
    return _split_exact("hsplit", input, indices_or_sections, 1 if input.ndim > 1 else 0)


def vsplit(input, indices_or_sections):
    if input.ndim < 2:
        raise ValueError("For 'vsplit', 'input' must be at least 2-D")
    return _split_exact("vsplit", input, indices_or_sections, 0)


def dsplit(input, indices_or_sections):
    if input.ndim < 3:
        raise ValueError("For 'dsplit', 'input' must be at least 3-D")
    return _split_exact("dsplit", input, indices_or_sections, 2)


def _atleast(x, n):
    if x.ndim >= n:
        return x
    shape = {0: {1: (1,), 2: (1, 1), 3: (1, 1, 1)}, 1: {2: (1, -1), 3: (1, -1, 1)},
             2: {3: x.shape + (1,)}}[x.ndim][n]
    return _reshape(x, shape if -1 not in shape else tuple(x.size if d == -1 else d
                                                            for d in shape))


def _atleast_fn(n):
    def fn(inputs):
        if isinstance(inputs, Tensor):
            return _atleast(inputs, n)
        return tuple(_atleast(_tensor(f"atleast_{n}d", "inputs", x), n) for x in inputs)
    fn.__name__ = fn.__qualname__ = f"atleast_{n}d"
    fn.__doc__ = f"Each input viewed with at least {n} dimensions."
    return fn


atleast_1d, atleast_2d, atleast_3d = _atleast_fn(1), _atleast_fn(2), _atleast_fn(3)


def _tensors(op, tensors):
    if not isinstance(tensors, (tuple, list)) or not tensors:
        raise TypeError(f"For '{op}', 'tensors' must be a non-empty tuple or list of Tensors")
    return [_tensor(op, "tensors", x) for x in tensors]


def hstack(tensors):
    ts = _atleast_1d_all(_tensors("hstack", tensors))
    return _F().concat(ts, 0 if ts[0].ndim == 1 else 1)


def _atleast_1d_all(ts):
    return [_atleast(x, 1) for x in ts]


def vstack(inputs):
    return _F().concat([_atleast(x, 2) for x in _tensors("vstack", inputs)], 0)


def row_stack(tensors):
    return vstack(tensors)


def dstack(tensors):
    return _F().concat([_atleast(x, 3) for x in _tensors("dstack", tensors)], 2)


def column_stack(tensors):
    ts = [_reshape(x, (x.size, 1)) if x.ndim < 2 else x for x in _tensors("column_stack",
                                                                           tensors)]
    return _F().concat(ts, 1)


def diff(x, n=1, axis=-1, prepend=None, append=None):
    """The n-th forward difference along axis (bool: whether neighbours differ), with
    prepend / append concatenated first."""
    _tensor("diff", "x", x)
    axis = _dim("diff", "axis", axis, x.ndim)
    parts = [t for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        x = _F().concat(parts, axis)
    from .index_func import slice as _slice
    for _ in range(_int("diff", "n", n)):
        m = x.shape[axis]
        if m == 0:
            break
        begin, sz = [0] * x.ndim, list(x.shape)
        sz[axis] = m - 1
        lo = _slice(x, tuple(begin), tuple(sz))
        begin[axis] = 1
        hi = _slice(x, tuple(begin), tuple(sz))
        x = _not_equal(hi, lo) if x.dtype is mstype.bool_ else _sub(hi, lo)
    return x


def flipud(input):
    return _F().flip(input, (0,))


def fliplr(input):
    if input.ndim < 2:
        raise ValueError("For 'fliplr', 'input' must be at least 2-D")
    return _F().flip(input, (1,))


def rot90(input, k=1, dims=(0, 1)):
    """input rotated by 90 degrees k times in the plane of dims (from dims[0] toward
    dims[1])."""
    _tensor("rot90", "input", input)
    if len(dims) != 2:
        raise ValueError(f"For 'rot90', 'dims' must have 2 entries, but got {dims!r}")
    d0, d1 = (_dim("rot90", "dims", d, input.ndim) for d in dims)
    if d0 == d1:
        raise ValueError("For 'rot90', the two 'dims' must differ")
    k = _int("rot90", "k", k) % 4
    perm = list(range(input.ndim))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    F = _F()
    if k == 0:
        return input
    if k == 2:
        return F.flip(input, (d0, d1))
    if k == 1:
        return _transpose(F.flip(input, (d1,)), tuple(perm))
    return F.flip(_transpose(input, tuple(perm)), (d1,))


def view_dtype(input, dtype):
    """input's bytes read as `dtype` (Tensor.view(dtype))."""
    return _prim(RI.ViewDtype, mstype.to_type(dtype))(input)


def reverse(x, axis):
    """x with the dims in `axis` (a tuple or list) reversed."""
    if not isinstance(axis, (tuple, list)):
        raise TypeError(f"For 'reverse', 'axis' must be a tuple or list of ints, but got "
                        f"{type(axis).__name__}")
    return _F().flip(x, tuple(axis))
