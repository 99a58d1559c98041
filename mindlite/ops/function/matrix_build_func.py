"""Functional ops of MindSpore 2.10 that build matrices from vectors and index sets:
cartesian_prod, combinations, block_diag, diag_embed, diagflat, kron, tril_indices /
triu_indices, vander, adjoint, matrix_band_part. Like shape_func.py (whose helpers they
share) they compose primitives, so they are differentiable through those primitives' bprops;
index arrays that depend only on shapes are built from the shape.
"""
import builtins
import itertools

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations.array_ops import Cast, Reshape, Transpose
from ..operations.math_ops import MatMul, Mul, Sub
from ..operations.logic_ops import NotEqual, Select
from ..operations.scatter_index_ops import GatherNd
from ..operations.creation_ops import Zeros

from .shape_func import _F, _diag_positions, _dim, _int, _tensor  # noqa: F401

__all__ = ['cartesian_prod', 'combinations', 'block_diag', 'diag_embed', 'diagflat', 'kron',
           'tril_indices', 'triu_indices', 'vander', 'adjoint', 'matrix_band_part']

_reshape, _transpose, _cast = Reshape(), Transpose(), Cast()
_matmul, _mul, _sub = MatMul(), Mul(), Sub()
_select, _not_equal, _gather_nd, _zeros = Select(), NotEqual(), GatherNd(), Zeros()


def cartesian_prod(*inputs):
    """The cartesian product of 1-D tensors: (prod of lengths, len(inputs)), one input too."""
    ts = [_tensor("cartesian_prod", "inputs", x) for x in inputs]
    grids = _F().meshgrid(*ts, indexing="ij")
    return _F().stack([_reshape(g, (-1,)) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The r-element combinations of a 1-D tensor's elements, as rows."""
    _tensor("combinations", "input", input)
    if input.ndim != 1:
        raise ValueError(f"For 'combinations', 'input' must be 1-D, but got {input.ndim}-D")
    make = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = np.array(list(make(range(input.shape[0]), _int("combinations", "r", r))), np.int64)
    if idx.size == 0:
        return _zeros((0, r) if r else (0,), input.dtype)
    return _gather_nd(input, Tensor(idx.reshape(idx.shape + (1,))))


def block_diag(*inputs):
    """The tensors (0-D to 2-D) laid along the diagonal of a zero matrix."""
    ts = [_tensor("block_diag", "inputs", x) for x in inputs]
    ts = [_reshape(x, (1, 1)) if x.ndim == 0 else _reshape(x, (1, -1)) if x.ndim == 1 else x
          for x in ts]
    dtype = ts[0].dtype
    for x in ts[1:]:
        dtype = mstype.promote(dtype, x.dtype)
    cols = builtins.sum(x.shape[1] for x in ts)
    rows, left, F = [], 0, _F()
    for x in ts:
        right = cols - left - x.shape[1]
        rows.append(F.pad(_cast(x, dtype), (left, right)))
        left += x.shape[1]
    return F.concat(rows, 0)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose diagonal `offset` of dims (dim1, dim2) holds input's last dim."""
    _tensor("diag_embed", "input", input)
    n = input.shape[-1] + builtins.abs(_int("diag_embed", "offset", offset))
    nd = input.ndim + 1
    d1, d2 = _dim("diag_embed", "dim1", dim1, nd), _dim("diag_embed", "dim2", dim2, nd)
    shape = [None] * nd
    rest = iter(input.shape[:-1])
    for d in range(nd):
        shape[d] = n if d in (d1, d2) else next(rest)
    from .scatter_func import _scatter_positions
    pos = _diag_positions(tuple(shape), offset, d1, d2)
    return _scatter_positions("diag_embed", _zeros(tuple(shape), input.dtype), pos, input)


def diagflat(input, offset=0):
    """A 2-D tensor with input (flattened) on its diagonal `offset`."""
    return diag_embed(_reshape(_tensor("diagflat", "input", input), (-1,)), offset, 0, 1)


def kron(input, other):
    """The Kronecker product (ranks aligned by leading 1s)."""
    _tensor("kron", "input", input)
    _tensor("kron", "other", other)
    nd = builtins.max(input.ndim, other.ndim)
    a = _reshape(input, (1,) * (nd - input.ndim) + input.shape)
    b = _reshape(other, (1,) * (nd - other.ndim) + other.shape)
    a2 = _reshape(a, tuple(d for s in a.shape for d in (s, 1)))
    b2 = _reshape(b, tuple(d for s in b.shape for d in (1, s)))
    out = _mul(a2, b2)
    return _reshape(out, tuple(x * y for x, y in zip(a.shape, b.shape)))


def _tri_indices(op, row, col, offset, dtype, lower):
    row, col = _int(op, "row", row), _int(op, "col", col)
    fn = np.tril_indices if lower else np.triu_indices
    idx = np.stack(fn(row, _int(op, "offset", offset), col)) if row and col else \
        np.zeros((2, 0), np.int64)
    return Tensor(idx.astype(mstype.to_type(dtype).np))


def tril_indices(row, col, offset=0, *, dtype=mstype.int64):
    """The (2, N) coordinates of the lower triangle (diagonal `offset`) of a row x col matrix."""
    return _tri_indices("tril_indices", row, col, offset, dtype, True)


def triu_indices(row, col, offset=0, *, dtype=mstype.int64):
    return _tri_indices("triu_indices", row, col, offset, dtype, False)


def vander(x, N=None):
    """The Vandermonde matrix of a 1-D x: columns x**(N-1), ..., x**0."""
    _tensor("vander", "x", x)
    if x.ndim != 1:
        raise ValueError(f"For 'vander', 'x' must be 1-D, but got {x.ndim}-D")
    n = x.shape[0] if N is None else _int("vander", "N", N)
    powers = Tensor(np.arange(n - 1, -1, -1).astype(x.dtype.np if x.dtype.kind in "fiu"
                                                   else np.float32))
    return _F().pow(_reshape(x, (-1, 1)), powers)


def adjoint(x):
    """The conjugate transpose of the last two dims."""
    _tensor("adjoint", "x", x)
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    y = _transpose(x, perm)
    return _F().conj(y) if x.dtype.kind == "c" else y


def matrix_band_part(x, lower, upper):
    """x with everything outside the band [-lower, upper] around the diagonal zeroed (a
    negative bound keeps that whole triangle)."""
    _tensor("matrix_band_part", "x", x)
    m, n = x.shape[-2], x.shape[-1]
    i = np.arange(m)[:, None]
    j = np.arange(n)[None, :]
    keep = np.ones((m, n), bool)
    if lower >= 0:
        keep &= i - j <= lower
    if upper >= 0:
        keep &= j - i <= upper
    return _select(Tensor(keep), x, _cast(Tensor(0), x.dtype))
