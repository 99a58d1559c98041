"""Matrix and vector helpers of MindSpore 2.10's ops: trapz, vecdot, batch_dot, dist, pdist,
matrix_determinant, matrix_exp, matrix_diag, matrix_diag_part, matrix_set_diag, matrix_solve,
cond. Compositions of existing primitives (MatMul / BatchMatMul, reductions, norms, SVD,
MatrixInverse), so gradients and graph mode come with them; constant index / mask tensors are
built from shapes only.
"""
import math

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor

__all__ = ["trapz", "vecdot", "batch_dot", "dist", "pdist", "matrix_determinant",
           "matrix_exp", "matrix_diag", "matrix_diag_part", "matrix_set_diag", "matrix_solve",
           "cond"]


def _F():
    from .. import functional as F
    return F


def _tensor(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def _float(F, x):
    return x if x.dtype.kind in "fc" else F.cast(x, mstype.float32)


def trapz(y, x=None, *, dx=1.0, dim=-1):
    """The trapezoid rule along dim: sample spacing dx, or the sample points x (1-D along
    dim, or y's shape)."""
    F = _F()
    y = _float(F, _tensor("trapz", "y", y))
    nd = len(y.shape)
    dim = dim % nd
    n = y.shape[dim]
    if n < 2:
        return F.sum(F.mul(y, 0.0), dim)
    mid = F.div(F.add(F.narrow(y, dim, 1, n - 1), F.narrow(y, dim, 0, n - 1)), 2.0)
    if x is None:
        return F.mul(F.sum(mid, dim), dx)
    x = _float(F, _tensor("trapz", "x", x))
    if len(x.shape) == 1:
        shape = [1] * nd
        shape[dim] = n
        x = F.reshape(x, tuple(shape))
        xd = dim
    else:
        xd = dim - nd + len(x.shape)
    step = F.sub(F.narrow(x, xd, 1, n - 1), F.narrow(x, xd, 0, n - 1))
    return F.sum(F.mul(mid, step), dim)


def vecdot(x, y, *, axis=-1):
    """sum(conj(x) * y) along axis (both broadcast)."""
    F = _F()
    _tensor("vecdot", "x", x)
    _tensor("vecdot", "y", y)
    xc = F.conj(x) if x.dtype.kind == "c" else x
    return F.sum(F.mul(xc, y), axis)


def batch_dot(x1, x2, axes=None):
    """Per batch (dim 0) the contraction of x1's axes[0] with x2's axes[1]; the default
    contracts x1's last dim with x2's second-to-last (its last when 2-D). Two 2-D inputs give
    (batch, 1)."""
    F = _F()
    _tensor("batch_dot", "x1", x1)
    _tensor("batch_dot", "x2", x2)
    n1, n2 = len(x1.shape), len(x2.shape)
    if n1 < 2 or n2 < 2 or x1.shape[0] != x2.shape[0]:
        raise ValueError(f"For 'batch_dot', the inputs must be at least 2-D with the same "
                         f"batch size, but got shapes {list(x1.shape)} and {list(x2.shape)}")
    if axes is None:
        axes = (n1 - 1, n2 - 1 if n2 == 2 else n2 - 2)
    elif isinstance(axes, (int, np.integer)):
        axes = (int(axes), int(axes))
    a1, a2 = axes[0] % n1, axes[1] % n2
    if 0 in (a1, a2):
        raise ValueError("For 'batch_dot', 'axes' cannot contract the batch dim 0")
    if x1.shape[a1] != x2.shape[a2]:
        raise ValueError(f"For 'batch_dot', the contracted dims must match, but got "
                         f"{x1.shape[a1]} and {x2.shape[a2]}")
    b, k = x1.shape[0], x1.shape[a1]
    left = F.moveaxis(x1, a1, -1)
    right = F.moveaxis(x2, a2, 1)
    rest1, rest2 = tuple(left.shape[1:-1]), tuple(right.shape[2:])
    out = F.bmm(F.reshape(left, (b, -1, k)), F.reshape(right, (b, k, -1)))
    shape = (b,) + rest1 + rest2
    return F.reshape(out, shape if len(shape) > 1 else (b, 1))


def dist(input, other, p=2):
    """The p-norm of input - other over all elements (p an int; 0 counts the nonzeros)."""
    F = _F()
    _tensor("dist", "input", input)
    _tensor("dist", "other", other)
    if not isinstance(p, (int, np.integer)) or isinstance(p, bool):
        raise TypeError(f"For 'LpNorm', the type of 'p' should be 'int', but got type "
                        f"'{type(p).__name__}'.")
    diff = F.reshape(F.sub(input, other), (-1,))
    if p == 0:
        return F.cast(F.count_nonzero(diff), diff.dtype)
    return F.vector_norm(diff, int(p))


def pdist(input, p=2.0):
    """The p-norm distances between all pairs of rows i < j of input (..., N, M), in row-major
    pair order: (..., N (N - 1) / 2)."""
    F = _F()
    _tensor("pdist", "input", input)
    if len(input.shape) < 2:
        raise ValueError(f"For 'pdist', 'input' must be at least 2-D, but got shape "
                         f"{list(input.shape)}")
    n = input.shape[-2]
    i, j = np.triu_indices(n, 1)
    a = F.gather(input, Tensor(i.astype(np.int64)), len(input.shape) - 2)
    b = F.gather(input, Tensor(j.astype(np.int64)), len(input.shape) - 2)
    return F.vector_norm(F.sub(a, b), float(p), -1)


def matrix_determinant(input):
    return _F().det(input)


def matrix_exp(input):
    """exp(A) of square matrices: scaling and squaring of a degree-18 Taylor series."""
    F = _F()
    a = _tensor("matrix_exp", "input", input)
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"For 'matrix_exp', 'input' must be square matrices, but got shape "
                         f"{list(a.shape)}")
    vals = a.asnumpy()
    norm = float(np.max(np.sum(np.abs(vals), axis=-2))) if vals.size else 0.0
    s = max(0, int(math.ceil(math.log2(norm))) + 1) if norm > 0.5 else 0
    a = F.div(a, float(2 ** s)) if s else a
    eye = F.broadcast_to(Tensor(np.eye(a.shape[-1], dtype=a.dtype.np)), a.shape)
    result, term = eye, eye
    for k in range(1, 19):
        term = F.div(F.matmul(term, a), float(k))
        result = F.add(result, term)
    for _ in range(s):
        result = F.matmul(result, result)
    return result


def _k(op, k):
    if isinstance(k, Tensor):
        k = k.asnumpy().reshape(-1)
        if k.size != 1:
            raise ValueError(f"For '{op}', only a single diagonal 'k' is supported, but got "
                             f"{k.tolist()}")
        k = k[0]
    if isinstance(k, (tuple, list)):
        if len(k) != 1 and (len(k) != 2 or k[0] != k[1]):
            raise ValueError(f"For '{op}', only a single diagonal 'k' is supported, but got "
                             f"{list(k)}")
        k = k[0]
    return int(k)


def _diag_positions(rows, cols, k):
    """(i, j) of diagonal k of a rows x cols matrix."""
    i = np.arange(max(0, -k), min(rows, cols - k))
    return i, i + k


def _scalar(value):
    return value.asnumpy().reshape(()).item() if isinstance(value, Tensor) else value


def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align='RIGHT_LEFT'):
    """Matrices with x's last dim on diagonal k and padding_value elsewhere."""
    F = _F()
    _tensor("matrix_diag", "x", x)
    k = _k("matrix_diag", k)
    n = x.shape[-1] if x.shape else 1
    size = n + abs(k)
    rows = size if num_rows in (-1, None) else int(_scalar(num_rows))
    cols = size if num_cols in (-1, None) else int(_scalar(num_cols))
    if (rows, cols) != (size, size) and min(rows - max(0, -k), cols - max(0, k)) != n:
        raise ValueError("For MatrixDiagV3, the number of rows or columns is not consistent "
                         "with the specified k and x.")
    i, j = _diag_positions(rows, cols, k)
    place = np.zeros((n, rows * cols), x.dtype.np)
    place[np.arange(n), i * cols + j] = 1
    vec = x if x.shape else F.reshape(x, (1,))
    out = F.reshape(F.matmul(vec if vec.dtype.kind in "fc" else F.cast(vec, mstype.float64),
                             Tensor(place if x.dtype.kind in "fc" else place.astype(np.float64))),
                    tuple(vec.shape[:-1]) + (rows, cols))
    if x.dtype.kind not in "fc":
        out = F.cast(out, x.dtype)
    pad = _scalar(padding_value)
    if pad:
        mask = np.ones((rows, cols), bool)
        mask[i, j] = False
        out = F.select(Tensor(np.broadcast_to(mask, out.shape).copy()),
                       F.full_like(out, pad), out)
    return out


def matrix_diag_part(x, k, padding_value, align='RIGHT_LEFT'):
    """Diagonal k of x's last two dims."""
    F = _F()
    _tensor("matrix_diag_part", "x", x)
    return F.diagonal(x, _k("matrix_diag_part", k), -2, -1)


def matrix_set_diag(x, diagonal, k=0, align='RIGHT_LEFT'):
    """x with diagonal k of its last two dims replaced by `diagonal`."""
    F = _F()
    _tensor("matrix_set_diag", "x", x)
    _tensor("matrix_set_diag", "diagonal", diagonal)
    k = _k("matrix_set_diag", k)
    rows, cols = x.shape[-2], x.shape[-1]
    i, j = _diag_positions(rows, cols, k)
    n = len(i)
    if diagonal.shape[-1] != n:
        raise ValueError(f"For 'matrix_set_diag', 'diagonal' must have {n} elements along its "
                         f"last dim for k={k}, but got shape {list(diagonal.shape)}")
    mask = np.zeros((rows, cols), bool)
    mask[i, j] = True
    place = np.zeros((n, rows * cols), np.float64)
    place[np.arange(n), i * cols + j] = 1
    d = diagonal if diagonal.dtype.kind in "fc" else F.cast(diagonal, mstype.float64)
    spread = F.reshape(F.matmul(d, Tensor(place.astype(d.dtype.np))),
                       tuple(diagonal.shape[:-1]) + (rows, cols))
    spread = F.cast(spread, x.dtype) if spread.dtype is not x.dtype else spread
    full = F.broadcast_to(Tensor(mask), x.shape)
    return F.select(full, F.broadcast_to(spread, x.shape), x)


def matrix_solve(matrix, rhs, adjoint=False):
    """X with matrix X = rhs (adjoint: matrix^H X = rhs)."""
    F = _F()
    _tensor("matrix_solve", "matrix", matrix)
    _tensor("matrix_solve", "rhs", rhs)
    a = matrix
    if adjoint:
        a = F.swapaxes(F.conj(a) if a.dtype.kind == "c" else a, -1, -2)
    return F.matmul(F.inverse(a), rhs)


def cond(A, p=None):
    """The condition number of A in norm p: None / 2 the ratio of the largest and smallest
    singular values (-2 its inverse), else norm(A, p) * norm(inv(A), p)."""
    F = _F()
    _tensor("cond", "A", A)
    if p is None or p in (2, -2):
        s = F.svd(A, compute_uv=False)
        hi, lo = F.amax(s, -1), F.amin(s, -1)
        return F.div(lo, hi) if p == -2 else F.div(hi, lo)
    return F.mul(F.matrix_norm(A, p), F.matrix_norm(F.inverse(A), p))
