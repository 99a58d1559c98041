"""Factorization helpers of MindSpore 2.10's ops: geqrf (Householder QR, linalg_factor_ops.Geqrf)
with orgqr / ormqr (its Q built from the reflectors, or applied to a matrix: products of
I - tau v v^H, differentiable), lu_unpack / lu_solve (from a packed LU factorization and its
1-based LAPACK pivots: the permutation is built from the pivots' values, the solves are
MatrixTriangularSolve), and eig / eigvals (linalg_factor_ops.Eig).
"""
import numpy as np

from ...common.tensor import Tensor
from ..operations import linalg_factor_ops as LF
from ._typed_prims import typed_prim as _prim
from .linalg_decomp_func import _tri_solve

__all__ = ["geqrf", "orgqr", "ormqr", "lu_unpack", "lu_solve", "eig", "eigvals"]


def _F():
    from .. import functional as F
    return F


def _tensor(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def geqrf(input):
    """(a, tau): R on and above a's diagonal, the Householder vectors below it."""
    return _prim(LF.Geqrf)(_tensor("geqrf", "input", input))


def eig(A):
    """(eigenvalues, right eigenvectors) of square A, complex."""
    return _prim(LF.Eig, True)(_tensor("eig", "A", A))


def eigvals(A):
    """The eigenvalues of square A, complex."""
    return _prim(LF.Eig, False)(_tensor("eigvals", "A", A))


def _householder_q(op, input, tau):
    """The full (..., m, m) Q = H_1 ... H_k of geqrf's output."""
    F = _F()
    _tensor(op, "input", input)
    _tensor(op, "tau", tau)
    m, n = input.shape[-2], input.shape[-1]
    k = tau.shape[-1]
    if k > min(m, n) or tuple(tau.shape[:-1]) != tuple(input.shape[:-2]):
        raise ValueError(f"For '{op}', 'tau' must have shape {list(input.shape[:-2])} + [k], "
                         f"k <= {min(m, n)}, but got {list(tau.shape)}")
    dt = input.dtype.np
    unit = Tensor(np.eye(m, n, dtype=dt))
    v = F.add(F.tril(input, -1), unit)                       # (..., m, n) reflector vectors
    q = F.broadcast_to(Tensor(np.eye(m, dtype=dt)), tuple(input.shape[:-2]) + (m, m))
    conj = input.dtype.kind == "c"
    for i in range(k):
        vi = F.narrow(v, -1, i, 1)                            # (..., m, 1)
        ti = F.reshape(F.narrow(tau, -1, i, 1), tuple(tau.shape[:-1]) + (1, 1))
        vh = F.swapaxes(F.conj(vi) if conj else vi, -1, -2)
        q = F.sub(q, F.mul(F.matmul(F.matmul(q, vi), vh), ti))
    return q


def orgqr(input, input2):
    """The first n columns of geqrf's Q, for input (..., m, n) and tau input2 (..., k)."""
    F = _F()
    _tensor("orgqr", "input", input)
    if input.shape[-2] < input.shape[-1]:
        raise ValueError(f"For 'orgqr', 'input' must have at least as many rows as columns, "
                         f"but got shape {list(input.shape)}")
    q = _householder_q("orgqr", input, input2)
    return F.narrow(q, -1, 0, input.shape[-1])


def ormqr(input, tau, other, left=True, transpose=False):
    """op(Q) @ other (left) or other @ op(Q) (right), Q from geqrf's (input, tau); op: Q or
    its conjugate transpose."""
    F = _F()
    _tensor("ormqr", "other", other)
    q = _householder_q("ormqr", input, tau)
    if transpose:
        q = F.swapaxes(F.conj(q) if q.dtype.kind == "c" else q, -1, -2)
    return F.matmul(q, other) if left else F.matmul(other, q)


def _permutation(op, pivots, m):
    """perm with P[perm[i], i] = 1, A = P L U, from 1-based LAPACK pivots (..., k)."""
    piv = _tensor(op, "LU_pivots", pivots).asnumpy().astype(np.int64)
    k = piv.shape[-1]
    flat = piv.reshape(-1, k)
    if flat.size and (flat.min() < 1 or flat.max() > m):
        raise ValueError(f"For '{op}', 'LU_pivots' must be in [1, {m}]")
    perms = np.tile(np.arange(m), (flat.shape[0], 1))
    for b in range(flat.shape[0]):
        for i in range(k):
            j = flat[b, i] - 1
            perms[b, [i, j]] = perms[b, [j, i]]
    return perms.reshape(piv.shape[:-1] + (m,))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) with A = P L U from the packed LU of A (..., m, n) and its pivots; the parts
    not unpacked are empty tensors."""
    F = _F()
    _tensor("lu_unpack", "LU_data", LU_data)
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    batch = tuple(LU_data.shape[:-2])
    dt = LU_data.dtype.np
    empty = Tensor(np.zeros((0,), dt))
    if unpack_pivots:
        perm = _permutation("lu_unpack", LU_pivots, m)
        p = np.zeros(batch + (m, m), dt)
        idx = np.indices(perm.shape)
        p[tuple(idx[:-1]) + (perm, idx[-1])] = 1
        P = Tensor(p)
    else:
        P = empty
    if unpack_data:
        low = F.narrow(LU_data, -1, 0, k)
        L = F.add(F.tril(low, -1), Tensor(np.eye(m, k, dtype=dt)))
        U = F.triu(F.narrow(LU_data, -2, 0, k))
    else:
        L = U = empty
    return P, L, U


def lu_solve(b, LU_data, LU_pivots):
    """x with A x = b, A = P L U given by its packed LU and pivots."""
    F = _F()
    _tensor("lu_solve", "b", b)
    _tensor("lu_solve", "LU_data", LU_data)
    m = LU_data.shape[-1]
    perm = _permutation("lu_solve", LU_pivots, m)              # b's rows: P^T b = b[perm]
    index = np.broadcast_to(perm[..., None], perm.shape + (b.shape[-1],))
    shape = np.broadcast_shapes(index.shape[:-2], b.shape[:-2]) + index.shape[-2:]
    pb = F.gather_elements(F.broadcast_to(b, shape), -2,
                           Tensor(np.ascontiguousarray(np.broadcast_to(index, shape))))
    y = _tri_solve(LU_data, pb, True, False, True)            # unit lower L
    return _tri_solve(LU_data, y, False)                      # upper U
