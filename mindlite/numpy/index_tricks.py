"""mindlite.numpy's index helpers: `mgrid`, `ogrid`, `indices`, `ix_`, `meshgrid`,
`tril_indices(_from)`, `triu_indices(_from)`, `diag_indices`, `unravel_index`,
`ravel_multi_index`. Index grids depend only on shapes, so they are built on the host as
int32 constants (MindSpore's dtype); `meshgrid`, `unravel_index` and `ravel_multi_index`
of Tensors run on primitives.
"""
import numbers

import numpy as onp

from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..ops import functional as F
from .dtypes import to_tensor

__all__ = ["mgrid", "ogrid", "indices", "ix_", "meshgrid", "tril_indices", "triu_indices",
           "tril_indices_from", "triu_indices_from", "diag_indices", "unravel_index",
           "ravel_multi_index"]


def _grid_tensor(arr):
    if arr.dtype.kind in "iu":
        arr = arr.astype(onp.int32)
    elif arr.dtype == onp.float64:
        arr = arr.astype(onp.float32)
    return Tensor(arr)


class _Grid:
    """mgrid / ogrid: `mgrid[0:2, 0:3]` (a dense int32 / float32 grid; a complex step is a
    number of points, as numpy)."""

    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        grid = (onp.ogrid if self.sparse else onp.mgrid)[key]
        if isinstance(grid, (list, tuple)):
            return tuple(_grid_tensor(g) for g in grid)
        return _grid_tensor(grid)


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


def indices(dimensions, dtype=mstype.int32, sparse=False):
    """The index grid of `dimensions`: a tuple of one Tensor per axis (as MindSpore)."""
    grids = onp.indices(tuple(dimensions), dtype=mstype.to_type(dtype).np, sparse=sparse)
    return tuple(Tensor(g) for g in grids)


def ix_(*args):
    """Open-mesh index Tensors from 1-D int or bool sequences."""
    out = []
    n = len(args)
    for k, a in enumerate(args):
        a = to_tensor(a)
        if a.ndim != 1:
            raise ValueError("For 'mindlite.numpy.ix_', every input must be 1-D, but got "
                             f"shape {a.shape}")
        if a.dtype == mstype.bool_:
            a = F.cast(F.reshape(F.nonzero(a), (-1,)), mstype.int32)
        out.append(F.reshape(a, (1,) * k + (-1,) + (1,) * (n - k - 1)))
    return tuple(out)


def meshgrid(*xi, sparse=False, indexing="xy"):
    """Coordinate matrices from 1-D coordinate vectors (indexing 'xy' or 'ij')."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"For 'mindlite.numpy.meshgrid', 'indexing' must be 'xy' or 'ij', "
                         f"but got {indexing!r}")
    xs = [F.reshape(to_tensor(x), (-1,)) for x in xi]
    n = len(xs)
    shapes = [[1] * n for _ in xs]
    for k in range(n):
        shapes[k][k] = -1
    if indexing == "xy" and n > 1:
        shapes[0][0], shapes[0][1] = 1, -1
        shapes[1][0], shapes[1][1] = -1, 1
    out = [F.reshape(x, tuple(s)) for x, s in zip(xs, shapes)]
    if not sparse:
        full = tuple(max(o.shape[d] for o in out) for d in range(n))
        out = [F.broadcast_to(o, full) for o in out]
    return tuple(out)


def _pair(rows, cols):
    return Tensor(rows.astype(onp.int32)), Tensor(cols.astype(onp.int32))


def tril_indices(n, k=0, m=None):
    return _pair(*onp.tril_indices(n, k, m))


def triu_indices(n, k=0, m=None):
    return _pair(*onp.triu_indices(n, k, m))


def _check_2d(arr, name):
    arr = to_tensor(arr)
    if arr.ndim != 2:
        raise ValueError(f"For 'mindlite.numpy.{name}', 'arr' must be 2-D, but got "
                         f"{arr.ndim}-D")
    return arr


def tril_indices_from(arr, k=0):
    arr = _check_2d(arr, "tril_indices_from")
    return tril_indices(arr.shape[0], k, arr.shape[1])


def triu_indices_from(arr, k=0):
    arr = _check_2d(arr, "triu_indices_from")
    return triu_indices(arr.shape[0], k, arr.shape[1])


def diag_indices(n, ndim=2):
    idx = Tensor(onp.arange(n, dtype=onp.int32))
    return (idx,) * ndim


def _strides(shape, order):
    if order not in ("C", "F"):
        raise ValueError(f"For 'mindlite.numpy', 'order' must be 'C' or 'F', but got {order!r}")
    dims = list(shape) if order == "C" else list(shape)[::-1]
    strides = [int(onp.prod(dims[i + 1:])) for i in range(len(dims))]
    return strides if order == "C" else strides[::-1]


def unravel_index(indices, shape, order="C"):
    """A tuple of the coordinates of flat `indices` in an array of `shape`, as MindSpore
    2.10's: in the indices' dtype (a Python int: int32; float indices give float floor
    coordinates), out-of-range indices clipped to [-size, size - 1], coordinate k =
    (i mod (shape[k] stride[k])) // stride[k]; a 0-d index into a 1-D shape: a (1,) Tensor."""
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    idx = to_tensor(indices)
    size = int(onp.prod(shape))
    idx = F.clamp(idx, -size, size - 1)
    coords = [F.floor_div(F.floor_mod(idx, dim * stride), stride)
              for dim, stride in zip(shape, _strides(shape, order))]
    if idx.ndim == 0 and len(coords) == 1:
        return F.reshape(coords[0], (1,))
    return tuple(coords)


def ravel_multi_index(multi_index, dims, mode="clip", order="C"):
    """Flat indices (int32) of coordinate Tensors in an array of shape `dims`; mode 'clip'
    clips each coordinate, 'wrap' wraps it (MindSpore has no 'raise' on the device)."""
    if isinstance(dims, numbers.Integral):
        dims = (dims,)
    coords = [F.cast(to_tensor(c), mstype.int32) for c in multi_index]
    if len(coords) != len(dims):
        raise ValueError(f"For 'mindlite.numpy.ravel_multi_index', 'multi_index' must have "
                         f"{len(dims)} entries, but got {len(coords)}")
    flat = None
    for c, dim, stride in zip(coords, dims, _strides(dims, order)):
        if mode == "clip":
            c = F.clamp(c, 0, dim - 1)
        elif mode == "wrap":
            c = F.floor_mod(c, dim)
        else:
            raise ValueError(f"For 'mindlite.numpy.ravel_multi_index', 'mode' must be 'clip' "
                             f"or 'wrap', but got {mode!r}")
        term = c * stride
        flat = term if flat is None else flat + term
    return flat
